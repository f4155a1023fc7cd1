"""The ``drill`` command line: thin commands over the catalog, the grader and the history."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from drills.loop import clock as clocks
from grader.catalog import FULL, Target, UnknownTarget, load_catalog

if TYPE_CHECKING:
    from datetime import tzinfo

    from drills.loop.session import Checked
    from drills.store.history import History

app = typer.Typer(
    help="autograd-drill: re-implement a tensor autograd engine from memory, against the clock.",
    add_completion=False,
    rich_markup_mode="rich",
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)
CLOCK: clocks.Clock = clocks.system_clock
"""The clock every command reads; tests replace it with a MockClock."""
TZ: tzinfo | None = None
"""The time zone of calendar days (streaks, chart axes): None is the local one; tests set UTC."""

TargetArg = Annotated[str, typer.Argument(help="A target id, or full: drill list shows them all.")]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error and return the Exit to raise."""
    err.print(Text("error: ", style="bold red") + Text(message))
    return typer.Exit(code)


@contextmanager
def history() -> Iterator[History]:
    """The user's history, opened for one command; refusals become one-line errors."""
    from drills.loop.session import DrillError
    from drills.store.history import HistoryError, open_history
    from drills.store.paths import history_path

    path = history_path()
    try:
        store, warning = open_history(path)
    except (OSError, HistoryError) as exc:
        raise fail(f"cannot open the history at {path}: {exc}") from None
    if warning:
        err.print(Text("warning: ", style="bold yellow") + Text(warning))
    try:
        yield store
    except DrillError as exc:
        raise fail(str(exc), exc.code) from None
    except UnknownTarget as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()


def resolve(typed: str) -> str:
    """The drill id a user typed ('full' or a catalog id), or a did-you-mean error."""
    try:
        return load_catalog().resolve(typed)
    except UnknownTarget as exc:
        raise fail(str(exc)) from None


def resolve_targets(typed: list[str] | None) -> list[Target]:
    """The targets named (in catalog order); none, or 'full', is the core targets."""
    catalog = load_catalog()
    chosen = {t.id for typed_id in typed or [FULL] for t in catalog.drilled(resolve(typed_id))}
    return [t for t in catalog.every if t.id in chosen]


# ---------------------------------------------------------------------------- overview


@app.callback(invoke_without_command=True)
def overview(ctx: typer.Context) -> None:
    """autograd-drill: re-implement a tensor autograd engine from memory, against the clock.

    Run [bold]drill[/] alone for the catalog and what to do next.
    """
    if ctx.invoked_subcommand is None:
        show_overview()


def show_overview() -> None:
    """``drill`` alone: a title, the catalog with your times, and what to do next."""
    title = " autograd-drill: re-implement a tensor autograd engine from memory, against the clock\n"
    out.print(Text(title, style="bold"))
    list_targets()


@app.command("list")
def list_targets() -> None:
    """The catalog: each target, what you write, its target time, your best and last times, and when it is due."""
    from drills.loop.session import describe_active
    from drills.store.records import drill_records
    from drills.store.schedule import queue
    from drills.views.render import catalog_table, due_in, next_step, reason

    with history() as store:
        now = CLOCK()
        cards = queue(store, now)  # spaced repetition: the first is the one to drill now
        out.print(catalog_table(load_catalog(), drill_records(store), {c.target: due_in(c.due - now) for c in cards}))
        out.print()
        active = store.active()
    if active is not None:
        said = describe_active(active, now)
        out.print(Text(f" {said[0].upper()}{said[1:]}."))
        out.print(next_step("drill watch", "(or drill status, drill check)"))
    else:
        chosen = cards[0]
        out.print(next_step(f"drill start {chosen.target}", f"{reason(chosen, now)}   (or: drill next --start)"))


# ---------------------------------------------------------------------------- start


@app.command()
def start(
    target: TargetArg,
    workspace: Annotated[
        Path | None,
        typer.Option(help="Folder for your solution file. Default: solutions/ of the clone, or $DRILL_WORKSPACE."),
    ] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR.")] = False,
) -> None:
    """Write the stub of TARGET (its functions blanked) and start the timer. TARGET may be 'full'."""
    from drills.loop.session import start as start_attempt
    from drills.store.paths import default_workspace
    from drills.views.lines import started_view

    target = resolve(target)
    with history() as store:
        started = start_attempt(store, target, workspace or default_workspace(), CLOCK)
    out.print(started_view(started))
    if edit:
        import shlex
        import subprocess

        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            raise fail("--edit needs $EDITOR (or $VISUAL) set; the timer is running, open the file yourself")
        # NOTE: Windows paths in $EDITOR keep their backslashes: POSIX quoting rules only on POSIX.
        subprocess.call([*shlex.split(editor, posix=os.name != "nt"), str(started.path)])


@app.command()
def full(
    workspace: Annotated[Path | None, typer.Option(help="Folder for your solution file.")] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR.")] = False,
) -> None:
    """The 45-minute drill: every target blank at once, one split per target."""
    start(FULL, workspace=workspace, edit=edit)


# ---------------------------------------------------------------------------- grading in a drill


def show_finish(store: History, checked: Checked, report: bool = True) -> None:
    """An attempt that just passed: the scoreboard, its review card, and what comes next."""
    from drills.store.records import scoreboard
    from drills.store.schedule import choose
    from drills.views.report import finish_view
    from drills.views.reviews import review_for

    now = CLOCK()
    board, chosen = scoreboard(store, checked.attempt), choose(store, now)
    out.print(finish_view(checked, board, review_for(checked.attempt.target), chosen, now, report))


@app.command()
def check(
    oracle: Annotated[str, typer.Option(hidden=True)] = "auto",
) -> None:
    """Grade the attempt in progress once (drill watch does it on every save)."""
    from drills.loop.session import check as check_attempt
    from drills.views.report import check_view

    with history() as store:
        checked = check_attempt(store, CLOCK, oracle=oracle)
        if checked.finished:
            show_finish(store, checked)
        else:
            out.print(check_view(checked, CLOCK()))
    raise typer.Exit(0 if checked.finished else 1)


@app.command()
def watch(
    oracle: Annotated[str, typer.Option(hidden=True)] = "auto",
) -> None:
    """Re-grade on every save, with a live timer per target; exits with the scoreboard when all pass."""
    from rich.live import Live

    from drills.loop.watch import watch as watch_saves
    from drills.store.paths import display
    from drills.views.lines import stopped_watching
    from drills.views.report import watch_screen

    with history() as store:
        live = Live(console=out, auto_refresh=False, transient=False) if out.is_terminal else None
        state = None
        try:
            if live is None:
                file = display(store.active().file) if store.active() else ""
                out.print(Text(f" watching {file}: grading on every save (Ctrl-C stops watching, not the clock)", style="dim"))
            else:
                live.start()
            for state in watch_saves(store, CLOCK, oracle=oracle):
                if live is not None:
                    live.update(watch_screen(state, CLOCK()), refresh=True)
                elif state.graded:
                    out.print(watch_screen(state, CLOCK()))
        except KeyboardInterrupt:
            if live is not None:
                live.stop()
                live = None
            attempt = state.attempt if state is not None else store.active()
            if attempt is not None:
                out.print(stopped_watching(store.get(attempt.id), CLOCK()))
            raise typer.Exit(0) from None
        finally:
            if live is not None:
                live.stop()
        assert state is not None
        if state.ended == "passed" and state.checked is not None:
            show_finish(store, state.checked, report=False)
            raise typer.Exit(0)
        out.print(f" The attempt at {state.attempt.target} {state.ended}.")
    raise typer.Exit(1)


@app.command()
def status() -> None:
    """The attempt in progress: its clock, and each target's state."""
    from drills.loop.session import latest_result, require_active, target_states
    from drills.views.report import status_view

    with history() as store:
        attempt = require_active(store)
        states = target_states(attempt, latest_result(store, attempt))
    out.print(status_view(attempt, states, CLOCK()))


@app.command()
def pause() -> None:
    """Stop the clock of the attempt in progress."""
    from drills.loop.session import pause as pause_attempt
    from drills.views.lines import paused_line

    with history() as store:
        attempt = pause_attempt(store, CLOCK)
    out.print(paused_line(attempt, CLOCK()))


@app.command()
def resume() -> None:
    """Restart the clock of a paused attempt."""
    from drills.loop.session import resume as resume_attempt
    from drills.views.lines import resumed_line

    with history() as store:
        attempt = resume_attempt(store, CLOCK)
    out.print(resumed_line(attempt, CLOCK()))


@app.command()
def abandon() -> None:
    """End the attempt in progress without a verdict; your file is archived, never deleted."""
    from drills.loop.session import abandon as abandon_attempt
    from drills.views.lines import abandoned_view

    with history() as store:
        attempt = abandon_attempt(store, CLOCK)
    out.print(abandoned_view(attempt, CLOCK()))


@app.command("give-up")
def give_up() -> None:
    """End the attempt as not finished; then drill diff shows the reference."""
    from drills.loop.session import give_up as give_up_attempt
    from drills.views.lines import gave_up_view

    with history() as store:
        attempt = give_up_attempt(store, CLOCK)
    out.print(gave_up_view(attempt, CLOCK()))


@app.command()
def hint(
    target: Annotated[str | None, typer.Argument(help="Default: the first target not passed yet.")] = None,
) -> None:
    """Reveal one more hint for a target (the attempt counts as assisted)."""
    from drills.loop.session import hint as next_hint
    from drills.views.render import hints_view

    with history() as store:
        out.print(hints_view(next_hint(store, resolve(target) if target else None)))


@app.command()
def diff(
    target: Annotated[str | None, typer.Argument(help="Default: the target of your latest attempt.")] = None,
    peek: Annotated[
        bool, typer.Option("--peek", help="Show it before the target passed (marks the attempt assisted).")
    ] = False,
) -> None:
    """Your code and the reference side by side, symbol by symbol."""
    from drills.loop.diff import compare
    from drills.views.render import comparison

    with history() as store:
        out.print(comparison(compare(store, resolve(target) if target else None, peek)))


@app.command()
def stats(
    target: Annotated[str | None, typer.Argument(help="One target, or all.")] = None,
    plot: Annotated[
        bool, typer.Option("--plot", help="Draw the chart of your times instead (as drill chart).")
    ] = False,
) -> None:
    """Per target: attempts, best, median of the last five, trend, share under the target time."""
    from drills.store.records import stats as target_stats
    from drills.views.render import stats_table

    if plot:
        chart(target)
        return
    ids = [resolve(target)] if target else list(load_catalog().drill_ids)
    with history() as store:
        out.print(stats_table([target_stats(store, i) for i in ids]))


@app.command()
def chart(
    target: Annotated[
        str | None,
        typer.Argument(help="One target (its times in minutes), 'full' (its splits and sum of best), or all."),
    ] = None,
) -> None:
    """A chart of your times: each attempt over the days, the target time as a line; and your streak of practice days."""
    from drills.store.progress import progress
    from drills.views.chart import draw
    from drills.views.render import next_step, streak_line, sum_of_best_line

    target = resolve(target) if target else None
    with history() as store:
        data = progress(store, CLOCK(), TZ)
    has = data.full if target == FULL else [s for s in data.series if target in (None, s.target)]
    if not has:
        what = "anything" if target is None else target
        out.print(f" Nothing to chart yet: you have not finished {what} (a pass or a give-up).")
        out.print(next_step(f"drill start {target}" if target else "drill next --start"))
        return
    width = max(40, min(out.size.width, 120))
    height = max(12, min(out.size.height - 4, 30)) * (2 if target == FULL else 1)
    out.print(Text.from_ansi(draw(data, target, width, height)), no_wrap=True, crop=False)
    if target == FULL:
        out.print(sum_of_best_line(data.sum_of_best))
    out.print(streak_line(data.streak))


@app.command("next")
def next_target(
    start_it: Annotated[
        bool, typer.Option("--start", help="Start the chosen target now, as drill start does.")
    ] = False,
    workspace: Annotated[Path | None, typer.Option(help="Folder for your solution file (with --start).")] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR (with --start).")] = False,
) -> None:
    """The target to drill now, chosen by spaced repetition (FSRS) from your history.

    A finished attempt is a review: gave up = Again; over the target time, or assisted = Hard; within it = Good; under half of it, unassisted = Easy. The most overdue target comes first; one never drilled is due now.
    """
    from drills.loop.session import describe_active
    from drills.store.schedule import queue
    from drills.views.render import next_view, reason

    with history() as store:
        now = CLOCK()
        cards = queue(store, now)
        active = store.active()
    chosen = cards[0]
    if start_it:
        out.print(f" drill next chose [bold]{chosen.target}[/]: {escape(reason(chosen, now))}.")
        start(chosen.target, workspace=workspace, edit=edit)
        return
    if active is not None:
        out.print(Text(f" Meanwhile, {describe_active(active, now)}: drill watch", style="yellow"))
    out.print(next_view(cards, now))


@app.command()
def review(target: TargetArg) -> None:
    """The review card of TARGET (or 'full'): the key formula, the classic bugs, what an interviewer asks next."""
    from drills.store.records import finished_attempts, personal_best
    from drills.store.schedule import deck
    from drills.views.lines import yours_line
    from drills.views.render import review_card
    from drills.views.reviews import review_for

    target = resolve(target)
    card = review_for(target)
    if card is None:
        out.print(f" No card yet for {target}. Its hints:  drill hint {target}")
        return
    out.print(review_card(card))
    with history() as store:
        now = CLOCK()
        best, done = personal_best(store, target), len(finished_attempts(store, target))
        slot = next(c for c in deck(store, now) if c.target == target)
    out.print(yours_line(target, done, best, slot.due - now))


@app.command("export")
def export_history(
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="csv (one row per attempt, split and hint) or json.")
    ] = "csv",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file. Default: standard output.")
    ] = None,
    with_sources: Annotated[
        bool, typer.Option("--with-sources", help="JSON only: include every graded version of your files.")
    ] = False,
) -> None:
    """Write your whole history (every finished attempt, its splits and hints) as CSV or JSON; drill import restores it."""
    import sys

    from drills.store.export import ExportError, export
    from drills.store.paths import atomic_write
    from drills.views.lines import exported_line

    with history() as store:
        try:
            exported = export(store, fmt.lower(), with_sources)
        except ExportError as exc:
            raise fail(str(exc)) from None
    if output is None:
        sys.stdout.write(exported.text)
        return
    try:
        atomic_write(output, exported.text)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    out.print(exported_line(exported, output))


@app.command("import")
def import_history(
    file: Annotated[Path, typer.Argument(help="A file written by drill export; - reads standard input.")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="csv or json. Default: from the file name, else from its content."),
    ] = None,
) -> None:
    """Restore attempts written by drill export; those already in your history are skipped."""
    import sys

    from drills.store.export import ExportError, parse, restore
    from drills.views.lines import imported_view

    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise fail(f"no such file: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}") from None
    if fmt is None and file.suffix.lower() in (".csv", ".json"):
        fmt = file.suffix.lower()[1:]
    try:
        records = parse(text, fmt.lower() if fmt else None)
    except ExportError as exc:
        raise fail(f"{file}: {exc}") from None
    with history() as store:
        done = restore(store, records)
    out.print(imported_view(done))


# ---------------------------------------------------------------------------- grade any file


@app.command()
def grade(
    file: Annotated[
        Path, typer.Argument(help="An engine file that follows the API contract (docs/contract.md of the repository).")
    ],
    target: Annotated[
        list[str] | None,
        typer.Option(
            "--target",
            "-t",
            help="Grade only this target (repeatable); 'full': the core targets. "
            "Default: the core targets; a follow-up only when named.",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print one JSON object instead of a report (its keys: docs/contract.md of the repository)."
        ),
    ] = False,
    oracle: Annotated[
        str,
        typer.Option(
            help="auto (recorded answers, else live torch), live, replay, record, or fd (finite differences, no torch).",
            hidden=True,
        ),
    ] = "auto",
) -> None:
    """Grade any engine file against torch.autograd, outside a drill.

    By default the core targets are graded: CORE (--target full, the same). The follow-ups (FOLLOW_UPS) are graded only when named with --target.

    The API an engine file must follow, and the JSON of --json, are described in docs/contract.md of the repository.

    Exit status: 0 all graded targets passed, 1 some failed, 2 bad usage or unreadable file.
    """
    from drills.views.report import grade_report
    from grader.run import grade_file
    from grader.verdict import GradeError

    targets = resolve_targets(target)
    if not file.exists():
        raise fail(f"no such file: {file}")
    if not file.is_file():
        raise fail(f"not a file: {file}")
    try:
        with file.open("rb") as f:
            f.read(1)
    except OSError as exc:
        raise fail(f"cannot read {file}: {exc.strerror}") from None
    try:
        result = grade_file(file, targets, oracle=oracle)
    except GradeError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        out.print(grade_report(result))
    raise typer.Exit(0 if result.passed else 1)


def _catalog_in_help() -> None:
    """The help of ``drill grade`` names the targets of the catalog, whatever they are."""
    catalog = load_catalog()
    core = ", ".join(catalog.ids[:-1]) + " and " + catalog.ids[-1]
    follow_ups = ", ".join(t.id for t in catalog.extensions)
    grade.__doc__ = (grade.__doc__ or "").replace("CORE", core).replace("FOLLOW_UPS", follow_ups)


_catalog_in_help()


# The commands run most often, with no arguments to parse, answer without building the typer app:
# building it imports typer's parameter adapters and pydantic (about 150 ms, more than the rest of
# `drill list`, and a tenth of a one-shot `drill check`). Help, options and every other command go
# through typer.
FAST_PATHS = {(): show_overview, ("list",): list_targets, ("status",): status, ("check",): check}


def main() -> None:
    import sys

    fast = FAST_PATHS.get(tuple(sys.argv[1:]))
    if fast is None:
        app()
        return
    try:
        fast()
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
