"""Renderers of gradings: a grading's report, one failure, what ``drill check`` says, each target's
state (``drill status``), and the live screen of ``drill watch``. Functions from data to rich
renderables; no logic, no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from autograd_drill.grader.catalog import format_time
from autograd_drill.loop.watch_keys import Bar, key_bar
from autograd_drill.store.paths import display
from autograd_drill.store.states import Rung
from autograd_drill.views.card import review_card
from autograd_drill.views.render import counted, delta, next_step, reason, scoreboard, t
from autograd_drill.views.whole import Whole
from autograd_drill.views.whole import whole as whole_text

if TYPE_CHECKING:
    from autograd_drill.grader.verdict import Failure, GradeResult, TargetResult
    from autograd_drill.loop.diff import Comparison
    from autograd_drill.loop.session import Checked, Hints, TargetState
    from autograd_drill.loop.watch import WatchState
    from autograd_drill.store.history import Attempt
    from autograd_drill.store.records import Scoreboard
    from autograd_drill.store.schedule import TargetCard
    from autograd_drill.views.reviews import ReviewCard

OUTPUT_LINES = 20
"""How many of the lines a failed test printed are shown under its failure (the first ones)."""
LINE_CHARS = 200
"""How much of one printed line is shown."""


def failure_view(failure: Failure, indent: int = 0, whole: bool = False) -> RenderableType:
    """One failure: the verdict's line, the user's lines it went through, the hint, the notes, and
    the end of what the test printed, ``indent`` columns in. Each line under the verdict's is indented
    further, and keeps its indent when it wraps in a narrow terminal. ``whole``: its texts are wrapped
    at spaces only, a ``path:LINE`` location never cut (drills/views/whole.py; not on a live screen)."""

    def under(text: RenderableType, more: int = 2) -> RenderableType:
        if whole and isinstance(text, Text):
            return Whole(text, indent + more)
        if indent + more == 0:
            return text
        return Padding(text, (0, 0, 0, indent + more), expand=False)

    parts: list[RenderableType] = [under(Text(failure.headline), 0)]
    parts += [under(Text(where, style="dim")) for where in failure.location]
    if failure.hint:
        parts.append(under(Text.assemble(("hint: ", "bold"), failure.hint)))
    parts += [under(Text(f"note: {note}", style="yellow")) for note in failure.notes]
    if failure.symbol is None and not failure.location and "\n" in failure.message:
        parts = [under(Text(failure.message), 0)]  # a verdict of the grader's own (a stopped check): as it was written
    printed, cut = failure.printed
    if printed or cut:
        parts.append(under(Text("your code printed:", style="dim")))
        shown = [line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + "…" for line in printed[:OUTPUT_LINES]]
        more = max(0, len(printed) - OUTPUT_LINES) + cut
        if more:
            shown.append(f"... {more:,} more line{'s' if more != 1 else ''}" + (" (output was cut)" if cut else ""))
        for line in shown:  # a grid of its own per line: a line is not padded to the widest
            row = Table.grid(padding=(0, 1, 0, 0))
            row.add_column(no_wrap=True)
            row.add_column()
            row.add_row(Text("│", style="dim"), Text(line, style="dim"))
            parts.append(under(row))
    return Group(*parts)


def failed_summary(tr: TargetResult) -> str:
    """'3 of 16 tests failed', '1 of 16 tests failed, 15 not run', '16 of 16 tests not run'."""
    if tr.tests == 0:
        return "no tests selected"
    if tr.failed == 0 and tr.not_run:
        return f"{tr.not_run} of {counted(tr.tests, 'test')} not run"
    summary = f"{tr.failed} of {counted(tr.tests, 'test')} failed"
    return f"{summary}, {tr.not_run} not run" if tr.not_run else summary


def grade_report(result: GradeResult) -> RenderableType:
    """Each target's verdict, its first failure (fix it, the next follows), why tests were not run,
    notes, and the count."""
    rows: list[RenderableType] = [whole_text(Text(result.file, style="bold"))]
    for tr in result.targets:
        line = Text()
        if tr.passed:
            line.append(" ✓ ", style="green").append(f"{tr.target + ' ':<14}").append(
                f"{counted(tr.tests, 'test')} passed", style="green"
            )
            rows.append(line)
            continue
        line.append(" ✗ ", style="red").append(f"{tr.target + ' ':<14}").append(failed_summary(tr), style="red")
        rows.append(line)
        if tr.failures:
            rows.append(failure_view(tr.failures[0], indent=4, whole=True))
        if tr.not_run_line:  # why the rest was not run
            rows.append(Padding(Text(tr.not_run_line, style="dim"), (0, 0, 0, 4)))
    for note in result.notes:
        rows.append(Text(f" note: {note}", style="yellow"))
    passed = sum(tr.passed for tr in result.targets)
    verdict = Text(
        f"{passed} of {counted(len(result.targets), 'target')} passed ({result.seconds:.1f} s)",
        style="bold green" if result.passed else "bold red",
    )
    rows.append(Padding(verdict, (1, 0, 0, 0)))
    return Group(*rows)


def passed_line(checked: Checked, board: Scoreboard) -> Text:
    attempt = checked.attempt
    main = board.total if board.total is not None else board.rows[0]
    line = Text(" ✓ ", style="bold green")
    rung = "" if attempt.rung == Rung.RECALL else f" ({attempt.rung} rung)"
    line.append(f"{attempt.target}{rung}   passed at {t(main.time)}   (target {format_time(main.target_time)}, ")
    line.append_text(delta(main.delta))
    if main.previous_best is not None:
        line.append(f"; your best {format_time(main.previous_best)}, ").append_text(delta(main.best_delta))
    line.append(")")
    if board.new_best:
        line.append("   ★ new personal best", style="bold yellow")
    elif attempt.reason:
        line.append(f"   assisted: {attempt.reason}, no best", style="yellow")
    return line


def check_view(checked: Checked, now: float) -> RenderableType:
    """``drill check`` on an attempt that has not passed yet: the report, new splits, the clock."""
    parts: list[RenderableType] = [grade_report(checked.result)]
    for target in checked.newly_passed:
        parts.append(Text(f" ✓ {target} passed at {format_time(checked.elapsed)}", style="green"))
    for tr in checked.result.targets:
        split = checked.attempt.splits.get(tr.target)
        if split is not None and not tr.passed:
            parts.append(Text(f" ✗ {tr.target} passed at {format_time(split)} and fails now", style="red"))
    if checked.attempt.reason:
        parts.append(Text(f" Assisted: {checked.attempt.reason}: this attempt sets no best.", style="yellow"))
    parts.append(
        Text(
            f" Clock: {format_time(checked.attempt.elapsed(now))}. Fix the first failure above, save, and check again "
            "(drill watch does it on every save).",
            style="dim",
        )
    )
    return Group(*parts)


def finish_view(
    checked: Checked,
    board: Scoreboard,
    card: ReviewCard | None,
    chosen: TargetCard,
    now: float,
    extra: Sequence[RenderableType] = (),
    rung: Rung = Rung.RECALL,
) -> RenderableType:
    """An attempt that just passed: the report, ``extra`` (the retyping feedback and the ladder's move),
    its review card, the scoreboard, what to compare (after a full drill: all of it, ``drill diff full``), and what is due next (on ``rung``). The scoreboard
    comes after the card, the longest part, so that it is still on a screen of 40 lines at the end."""
    parts: list[RenderableType] = [grade_report(checked.result), passed_line(checked, board)]
    parts.extend(extra)
    if card is not None:
        parts.append(review_card(card))
    parts.append(scoreboard(board))
    parts.append(
        next_step(f"drill diff {checked.attempt.target}", "compare with the reference;  drill stats  for your progress")
    )
    parts.append(Text(f" Next due: {chosen.target} ({reason(chosen, now, rung)}); drill next --start", style="dim"))
    return Group(*parts)


# ---------------------------------------------------------------------------- each target's state


def failing_detail(state: TargetState) -> str:
    """What a failing target's line says: its failure to fix first, or why its tests did not run."""
    failure = state.failure
    if failure is not None:
        return failure.headline
    return state.result.not_run_line or "" if state.result is not None else ""


def attempt_head(attempt: Attempt, now: float, target_time: int) -> Text:
    """The attempt's clock against ``target_time``, its rung's (the command reads it: drills/loop/ladder.py
    ``target_seconds``, which keeps the rung times it computes; a view writes nothing)."""
    elapsed = format_time(attempt.elapsed(now))
    state = "⏸ paused" if attempt.paused else "▶"
    return Text(f" {named(attempt)}  {elapsed} {state}  target {format_time(target_time)}", style="bold")


def named(attempt: Attempt) -> str:
    """The attempt's target, and its rung below recall: ``unbroadcast (copy)``."""
    return attempt.target if attempt.rung == Rung.RECALL else f"{attempt.target} ({attempt.rung})"


def status_view(attempt: Attempt, states: tuple[TargetState, ...], now: float, target_time: int) -> RenderableType:
    """``drill status``: the clock against ``target_time`` (its rung's), and each target's state by the
    latest graded version."""
    paused = " (paused)" if attempt.paused else ""
    target = format_time(target_time)
    head = Text(f" {named(attempt)}", style="bold").append(
        f"  {format_time(attempt.elapsed(now))}{paused}  target {target}"
    )
    lines: list[RenderableType] = [whole_text(head.append(f"   {display(attempt.file)}"))]
    width = max([14, *(len(s.target) for s in states)])  # another pack's ids are longer (layers/layernorm)
    for s in states:
        if s.passed:
            mark, detail = Text("✓", style="green"), f"at {format_time(s.split)}" if s.split is not None else ""
        elif s.result is None:
            mark, detail = Text("·"), "save your file, or run drill check"
        else:
            mark, detail = Text("✗", style="red"), failing_detail(s)
            if s.regressed:
                detail = f"(passed at {format_time(s.split or 0)}) {detail}"
        lines.append(Text("   ").append_text(mark).append(f" {s.target:<{width}} {s.state:<11} {detail}"))
    if attempt.reason:
        lines.append(Text(f" Assisted: {attempt.reason}: this attempt sets no best.", style="yellow"))
    lines.append(next_step("drill resume" if attempt.paused else "drill watch"))
    return Group(*lines)


def watch_row(state: TargetState, clock: str, width: int = 14) -> Text:
    """A target's row on the watch screen: ✓ and its split, ✗ and how many tests failed (a target that
    passed and fails again too), or · not graded yet. ``width``: of the id column."""
    if state.passed:
        at = f" at {format_time(state.split)}" if state.split is not None else ""
        return Text(f"   ✓ {state.target:<{width}} passed{at}", style="green")
    if state.result is None:
        return Text(f"   · {state.target:<{width}} {clock}not graded yet", style="dim")
    text = Text(f"   ✗ {state.target:<{width}} {clock}", style="red")
    if state.regressed:
        text.append(f"fails again (passed at {format_time(state.split or 0)}): ", style="red")
    return text.append(failed_summary(state.result), style="default")


def watch_head(state: WatchState, now: float, target_time: int) -> Text:
    from autograd_drill.loop.watch_state import End  # loaded with the watch; drill grade's report does without

    head = attempt_head(state.attempt, now, target_time)
    if state.grading:
        head.append("  ⟳ grading", style="yellow")
    if state.finished is End.PASSED:
        head.append("  ✓ passed", style="green")
    elif state.finished is not None:
        head.append(f"  {state.said(state.finished)}", style="yellow")
    return head


def watch_footer(state: WatchState) -> Text:
    """What the watch does now, and with keys, the keys."""
    attempt = state.attempt
    graded = ""
    if state.graded_in is not None:  # "after the save" only when a save asked for it (not r, a resume, the start)
        graded = (
            f"graded {state.graded_in:.2f} s after the save"
            if state.after_save
            else f"graded in {state.graded_in:.2f} s"
        )
    if not state.keys:
        return Text(
            f" watching {display(attempt.file)} ({graded}{' · ' if graded else ''}Ctrl-C leaves the timer running)",
            style="dim",
        )
    if state.finished is not None:
        return Text(f" {key_bar(Bar.ENDED)}   (or drill next --start elsewhere: this watch follows it)", style="dim")
    if attempt.paused:
        return Text(f" {key_bar(Bar.PAUSED)}   paused: saves are graded on resume", style="dim")
    return Text(f" {key_bar(Bar.RUNNING)}   watching {display(attempt.file)} {graded}", style="dim")


def watch_screen(state: WatchState, now: float, target_time: int, footer: bool = True) -> RenderableType:
    """The live screen of ``drill watch``: the clock (and a grading under way, with its first failure
    as soon as it is known), each target's row (how
    many tests failed; the first failure once, under the first failing target), and the keys (unless
    ``footer`` is False: an interview shows its own). ``target_time``: of the attempt's rung."""
    clock = f"{format_time(state.attempt.elapsed(now))}  "
    lines: list[RenderableType] = [watch_head(state, now, target_time)]
    if state.grading and state.early is not None:  # this save's first failure, before its verdict
        lines += [
            Text(" this save, so far (the rest still runs):", style="yellow"),
            Padding(failure_view(state.early), (0, 0, 0, 5)),
        ]
    first = state.first_failure
    width = max([14, *(len(s.target) for s in state.targets)])  # another pack's ids are longer
    for s in state.targets:
        lines.append(watch_row(s, clock, width))
        if not s.passed and s.failure is not None:
            shown = failure_view(s.failure) if s.failure is first else Text(s.failure.headline, style="dim")
            lines.append(Padding(shown, (0, 0, 0, 5)))
        elif not s.passed and s.result is not None and s.result.not_run_line:
            lines.append(Padding(Text(s.result.not_run_line, style="dim"), (0, 0, 0, 5)))
    if state.message:
        lines += [Text(""), Text(f" {state.message}", style="yellow")]
    for note in state.notes:
        lines.append(Text(f" note: {note}", style="yellow"))
    if state.attempt.reason:
        lines.append(Text(f" assisted: {state.attempt.reason}: this attempt sets no best", style="yellow"))
    lines += [Text(""), watch_footer(state)] if footer else []
    return Group(*lines)


def shown_view(shown: Hints | Comparison) -> RenderableType:
    """What a key of the watch asked for: the hints (h) or the diff (d)."""
    from autograd_drill.loop.session import Hints
    from autograd_drill.views.code import comparison
    from autograd_drill.views.render import hints_view

    return hints_view(shown) if isinstance(shown, Hints) else comparison(shown)
