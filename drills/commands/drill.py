"""The drill loop's commands: start, check, watch, pause, resume, abandon, give up, hint, diff, show, restore."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograd_drill.commands.common import Terminal, history, oracle_mode, rung_target, unrecorded_line
from autograd_drill.errors import DrillError
from autograd_drill.loop import session
from autograd_drill.loop.clock import Clock
from autograd_drill.loop.session import Checked
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.paths import workspace_place
from autograd_drill.store.states import RUNGS, Rung
from autograd_drill.views import lines, report

if TYPE_CHECKING:
    from autograd_drill.grader.process import Runner


def start(term: Terminal, target: str, workspace: Path | None, edit: bool, rung: str | None = None) -> None:
    """``rung``: copy, cloze or recall; None: the target's current rung on the ladder. With ``edit``,
    an editor that cannot be started is refused before anything is written or timed."""
    if edit:
        from autograd_drill.loop.editor import editor_problem

        problem = editor_problem()
        if problem is not None:
            raise DrillError(f"{problem}: nothing was started (set it, or start without --edit)")
    with history(term) as store:
        started = session.start(store, target, workspace_place(workspace).path, term.clock, rung)
    term.out.print(lines.started_view(started))
    if edit:
        import subprocess

        from autograd_drill.loop.editor import EditorProblem, editor_command, first_todo

        line = first_todo(started.path.read_text(encoding="utf-8"))
        try:
            subprocess.call(editor_command(started.path, line))
        except EditorProblem as exc:  # changed since it was asked (it was found a moment ago)
            raise DrillError(f"{exc}; the timer is running, open the file yourself") from None
        except OSError as exc:  # found a moment ago, and yet (its permissions, a broken interpreter line)
            raise DrillError(
                f"cannot start the editor: {exc.strerror or exc}; the timer is running, open the file yourself"
            ) from None


def show_finish(term: Terminal, store: History, checked: Checked) -> None:
    """An attempt that just passed: the scoreboard (of its rung), how you retyped the reference (after
    a copy or cloze pass), where it moved on the ladder, its review card, and what comes next."""
    from autograd_drill.loop.ladder import target_seconds
    from autograd_drill.loop.standing import queue, standings
    from autograd_drill.views.ladder import moved_line
    from autograd_drill.views.reviews import review_for

    now, attempt = term.clock(), checked.attempt
    told = standings(store, now)  # one story per target: the board's best, the rungs and the queue below
    board = told[attempt.target].scoreboard(attempt, target_seconds(attempt.target, attempt.rung))
    chosen, card = queue(told)[0], review_for(attempt.target)
    rung = told[chosen.target].rung
    extra: list[Any] = []
    if attempt.rung is not Rung.RECALL:
        extra.append(retyping(store, attempt))
    line = moved_line(attempt.target, attempt.rung, told[attempt.target].rung)
    if line is not None:
        extra.append(line)
    term.out.print(report.finish_view(checked, board, card, chosen, now, extra, rung))


def retyping(store: History, attempt: Attempt) -> Any:
    """Your passing file against the reference, token by token (drills/loop/retype.py)."""
    from autograd_drill.loop.retype import retyped
    from autograd_drill.loop.stubs import reference_for
    from autograd_drill.targets import catalog as merged
    from autograd_drill.targets import reference_of
    from autograd_drill.views.retype import retype_view

    last = store.last_submission(attempt)
    yours = last.source if last is not None else attempt.file.read_text(encoding="utf-8", errors="replace")
    drilled = merged().drilled(attempt.target)
    symbols = [s for t in drilled for s in t.symbols]
    # Against the reference its stub showed: less the code of other drills (drills/loop/stubs.py).
    shown = reference_for(reference_of(attempt.target).read_text(encoding="utf-8"), [t.own_id for t in drilled])
    return retype_view(retyped(yours, shown, symbols))


def ladder(term: Terminal) -> None:
    """``drill ladder``: every target's rung, its rungs' times and why, what moves it."""
    from autograd_drill.loop.ladder import rung_time
    from autograd_drill.loop.standing import standings
    from autograd_drill.targets import catalog as merged
    from autograd_drill.views.ladder import ladder_view

    with history(term) as store:
        spots = {t: s.place for t, s in standings(store, term.clock()).items()}
    times = {
        drill_id: {r: rung_time(drill_id, r) for r in (RUNGS if not merged().is_full(drill_id) else (Rung.RECALL,))}
        for drill_id in spots
    }
    term.out.print(ladder_view(list(spots.values()), times))


def check(term: Terminal, oracle: str, runner: Runner | None = None, as_json: bool = False) -> int:
    """Grade once, with ``runner`` (drill check's: an interpreter started before this module was even
    imported, drills/entry.py for ``drill check`` typed bare, drills/cli.py otherwise: grader/spawn.py
    ``OneShot``; None: the drill loop's own, a fresh one); the
    exit status: 0 when the attempt passed. ``as_json``: the verdict and the attempt as one JSON object
    (drills/commands/as_json.py), the exit status the same."""
    oracle = oracle_mode(oracle)
    with history(term) as store:
        checked = session.check(store, term.clock, oracle=oracle, runner=runner)
        if as_json:
            from autograd_drill.commands import as_json as body

            body.checked(term, checked)
            if checked.unrecorded is not None:
                term.err.print(unrecorded_line(checked.unrecorded))
                return 2
        elif checked.unrecorded is not None:  # the verdict alone, and why it is not recorded: exit 2
            term.out.print(report.grade_report(checked.result))
            term.err.print(unrecorded_line(checked.unrecorded))
            return 2
        elif checked.finished:
            show_finish(term, store, checked)
        else:
            term.out.print(report.check_view(checked, term.clock()))
    return 0 if checked.finished else 1


def check_bare(term: Terminal) -> int:
    """``drill check`` typed bare, without typer (drills/commands/quick.py): graded in the interpreter
    drills/entry.py started as the command started (grader/spawn.py ``OneShot`` takes it), as the app's
    ``drill check`` grades. It starts none itself: drills/entry.py started one unless there is no history
    (the check refuses before grading); should a grading ask for one all the same, it is started then."""
    from autograd_drill.grader.spawn import OneShot

    with OneShot(start=False) as runner:
        return check(term, "auto", runner)


def watch(term: Terminal, oracle: str) -> int:
    """Grade on every save with a live screen (and keys, in a terminal); the exit status: 0 passed,
    stopped or quit, 1 ended elsewhere."""
    from rich.live import Live

    from autograd_drill.commands.keys import keyboard
    from autograd_drill.loop.watch import WatchState, watch_saves
    from autograd_drill.loop.watch_state import End

    oracle = oracle_mode(oracle)
    out = term.out
    with history(term) as store, keyboard() if out.is_terminal else nullcontext() as keys:
        attempt = session.require_active(store)
        store.writable()  # a history this version does not write: said now, not at each save
        live = Live(console=out, auto_refresh=False, transient=False) if out.is_terminal else None
        state: WatchState | None = None
        interrupted = False
        try:
            if live is None:
                out.print(lines.watching_line(attempt))
            else:
                live.start()
            for state in watch_saves(store, term.clock, oracle=oracle, keys=keys):
                unrecorded = state.checked.unrecorded if state.graded and state.checked is not None else None
                if unrecorded is not None:
                    term.err.print(unrecorded_line(unrecorded))
                if live is None:
                    if state.graded:
                        out.print(report.watch_screen(state, term.clock(), rung_target(state.attempt)))
                    continue
                if state.shown is not None:  # printed above the live screen, which stays
                    out.print(report.shown_view(state.shown))
                if state.just_passed and keys is not None and state.checked is not None:
                    show_finish(term, store, state.checked)
                live.update(report.watch_screen(state, term.clock(), rung_target(state.attempt)), refresh=True)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if live is not None:
                live.stop()
        if state is None or interrupted or state.ended is End.QUIT:
            watched = store.get(state.attempt.id if state is not None else attempt.id)
            if watched.in_progress:
                out.print(lines.stopped_watching(watched, term.clock()))
            return 0
        if state.ended is End.PASSED and state.checked is not None:
            show_finish(term, store, state.checked)
            return 0
    out.print(lines.ended_elsewhere(state.attempt.target, state.said(state.ended) if state.ended else "ended"))
    return 1


def _end_or_pause(
    term: Terminal, act: Callable[[History, Clock], Attempt], said: Callable[[Attempt, float], Any]
) -> None:
    with history(term) as store:
        attempt = act(store, term.clock)
    term.out.print(said(attempt, term.clock()))


def pause(term: Terminal) -> None:
    from autograd_drill.interview.interviewer import refuse_pause

    def act(store: History, clock: Clock) -> Attempt:
        refuse_pause(store)  # an interview's coding part has no pause
        return session.pause(store, clock)

    _end_or_pause(term, act, lines.paused_line)


def resume(term: Terminal) -> None:
    _end_or_pause(term, session.resume, lines.resumed_line)


def abandon(term: Terminal) -> None:
    _end_or_pause(term, session.abandon, lines.abandoned_view)


def give_up(term: Terminal) -> None:
    """End the attempt as not finished; then where the ladder moved its target."""
    from autograd_drill.loop.ladder import current_rung
    from autograd_drill.views.ladder import moved_line

    with history(term) as store:
        attempt = session.give_up(store, term.clock)
        after = current_rung(store, attempt.target)
    term.out.print(lines.gave_up_view(attempt, term.clock()))
    line = moved_line(attempt.target, attempt.rung, after)
    if line is not None:
        term.out.print(line)


def hint(term: Terminal, target: str | None) -> None:
    from autograd_drill.views.render import hints_view

    with history(term) as store:
        term.out.print(hints_view(session.hint(store, target)))


def diff(term: Terminal, target: str | None, peek: bool) -> None:
    from autograd_drill.loop.diff import compare
    from autograd_drill.views.code import comparison

    with history(term) as store:
        term.out.print(comparison(compare(store, target, peek)))


def show(term: Terminal, target: str) -> None:
    from autograd_drill.loop.diff import reference
    from autograd_drill.views.code import reference_view

    with history(term) as store:
        term.out.print(reference_view(reference(store, target)))


def restore(term: Terminal, target: str | None, attempt_id: int | None, save: int | None, listing: bool) -> None:
    """``drill restore``: a graded save back in the file (``save``, from 1; None: the latest); with
    ``listing``, the attempt's graded saves instead."""
    from autograd_drill.loop.recovery import recover, saves

    with history(term) as store:
        if listing:
            if save is not None:
                raise DrillError("--list shows the saves and --save restores one: give one of them")
            term.out.print(lines.saves_view(saves(store, target, attempt_id)))
            return
        term.out.print(lines.restored_view(recover(store, target, attempt_id, save)))
