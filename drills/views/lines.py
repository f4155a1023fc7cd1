"""What the drill commands say in a line or three: a started attempt, a pause, an ending, an export.
Functions from the data a command returns to rich text; no logic, no I/O."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.text import Text

from autograd_drill.grader.catalog import FULL, format_time, listed
from autograd_drill.store.paths import display
from autograd_drill.store.states import Rung
from autograd_drill.targets import is_full, pack_name
from autograd_drill.views.render import counted, due_in, next_step
from autograd_drill.views.whole import whole, whole_markup

if TYPE_CHECKING:
    from autograd_drill.loop.recovery import Recovered, Saves
    from autograd_drill.loop.session import Started
    from autograd_drill.store.export import Exported
    from autograd_drill.store.history import Attempt
    from autograd_drill.store.restore import Imported


def started_view(started: Started) -> RenderableType:
    """``drill start``: what was written and blanked, the archive of the previous file, the clock."""
    symbols = list(started.symbols)
    target = started.attempt.target
    of = "the engine" if target == FULL else f"the {pack_name(target)} pack"
    blank = f"all {len(symbols)} functions of {of}" if is_full(target) else listed(symbols)
    verb = "is" if len(symbols) == 1 else "are"
    said = {
        Rung.COPY: f"{blank} {verb} blank, the reference's code in view above each blank to retype",
        Rung.CLOZE: f"the key lines of {blank} are blank, the rest of their code given",
    }.get(started.rung, f"{blank} {verb} blank")
    lines = [f" Wrote [bold]{escape(display(started.path))}[/]: {said}; everything else is the reference."]
    if not is_full(target):
        other = "  (drill ladder: every rung)" if started.rung != Rung.RECALL else ""
        lines.append(f" Rung: [bold]{started.rung}[/] of the ladder copy → cloze → recall; --rung chooses.{other}")
    if started.archived:
        lines.append(f" Your previous file was archived to {escape(display(started.archived))}.")
    best = "none yet" if started.best is None else format_time(started.best)
    on = "" if started.rung == Rung.RECALL else f" on {started.rung}"
    lines.append(f" Timer started: [bold]{format_time(started.target_time)}[/] to beat. Your best{on}: {best}.")
    if started.reasoning:
        lines.append(f" [dim]Why {format_time(started.target_time)}: {escape(started.reasoning)}[/]")
    if is_full(target):
        lines.append(" Each target gets its own split when it first passes, like a speedrun timer.")
    lines.append(" Now: open the file in your editor, and run [bold cyan]drill watch[/] in another terminal.")
    return whole(Text.from_markup("\n".join(lines)))


def paused_line(attempt: Attempt, now: float) -> Text:
    clock = format_time(attempt.elapsed(now))
    return Text.from_markup(f" Paused {attempt.target} at {clock}. [bold cyan]drill resume[/] restarts the clock.")


def resumed_line(attempt: Attempt, now: float) -> Text:
    clock = format_time(attempt.elapsed(now))
    line = Text.from_markup(f" Resumed {attempt.target} at {clock}. [bold cyan]drill watch[/] grades on save.")
    if attempt.reason:
        line.append(f"\n Assisted: {attempt.reason}: this attempt sets no best, split or rung.", style="yellow")
    return line


def abandoned_view(attempt: Attempt, now: float) -> RenderableType:
    where = f" Your file is archived at {escape(display(Path(attempt.archive)))}." if attempt.archive else ""
    return whole_markup(
        f" Abandoned {attempt.target} at {format_time(attempt.elapsed(now))}.{where}\n"
        f" Start again: [bold cyan]drill start {attempt.target}[/]"
    )


def gave_up_view(attempt: Attempt, now: float) -> RenderableType:
    compare = "" if is_full(attempt.target) else attempt.target
    return Text.from_markup(
        f" Gave up {attempt.target} at {format_time(attempt.elapsed(now))}; it counts as an attempt, not a time.\n"
        f" Compare with the reference: [bold cyan]{f'drill diff {compare}'.rstrip()}[/]"
    )


def watching_line(attempt: Attempt) -> RenderableType:
    """What ``drill watch`` says first when its output is not a terminal (no live screen)."""
    return whole(
        Text(
            f" watching {display(attempt.file)}: grading on every save (Ctrl-C stops watching, not the clock)",
            style="dim",
        )
    )


def stopped_watching(attempt: Attempt, now: float) -> Text:
    return Text(
        f" Stopped watching. The clock of {attempt.target} keeps running "
        f"({format_time(attempt.elapsed(now))}): drill pause stops it, drill watch comes back."
    )


def yours_line(
    target: str, attempts: int, best: float | None, due: float, splits: int = 0, rung: Rung = Rung.RECALL
) -> Text:
    """Under a review card: your record on it (its attempts alone, its splits in full drills), the rung
    ``drill start`` starts (said when it is not recall), and when it is due."""
    parts = []
    if attempts:
        parts.append(f"{counted(attempts, 'attempt')}, best {format_time(best) if best else '-'}")
    if splits:
        parts.append(f"passed in {counted(splits, 'full drill')}")
    mine = "; ".join(parts) if parts else "never drilled"
    on = "" if rung == Rung.RECALL else f"; its {rung} rung next"
    return next_step(f"drill start {target}", f"yours: {mine}{on}; due {due_in(due)}")


def exported_line(exported: Exported, output: Path) -> RenderableType:
    return whole_markup(
        f" Wrote {counted(exported.attempts, 'attempt')} ({counted(exported.splits, 'split')}) "
        f"to [bold]{escape(display(output))}[/]."
    )


def imported_view(done: Imported) -> RenderableType:
    line = f" Imported {counted(done.added, 'attempt')} ({counted(done.splits, 'split')}"
    line += f", {counted(done.submissions, 'graded version')})" if done.submissions else ")"
    if done.skipped:
        line += f"; {done.skipped} already in your history {'was' if done.skipped == 1 else 'were'} skipped"
    return Group(Text(line + "."), next_step("drill stats", "(or drill chart, drill next)"))


def restored_view(r: Recovered) -> RenderableType:
    """``drill restore``: which graded save came back, where, and where the file in its way went."""
    attempt, when = r.attempt, r.submission.elapsed
    state = "in progress" if attempt.in_progress else attempt.outcome
    graded = f"graded at {format_time(when)} on the clock" if when is not None else "graded"
    which = f"save {r.number} of {r.saves}" if r.saves else "its last graded save"
    source = f"attempt {attempt.id} at {attempt.target} ({state}), {which}, {graded}"
    if r.unchanged:
        lines = [f" {escape(display(r.path))} already holds {source}: nothing to restore."]
    else:
        lines = [f" Restored [bold]{escape(display(r.path))}[/]: {source}."]
    if r.archived:
        lines.append(f" The file that was there is archived at {escape(display(r.archived))}.")
    if r.saves > 1:
        lines.append(f" Its {r.saves} graded saves: drill restore --list (then --save N)")
    if r.others:
        ids = listed([str(i) for i in r.others[:5]])
        noun = "attempt" if len(r.others) == 1 else "attempts"
        lines.append(f" Other graded {noun} of {attempt.target}: {ids}  (drill restore --attempt N)")
    return whole_markup("\n".join(lines))


IN_FILE = "▸"
"""``drill restore --list``: the save the solution file holds now."""


def saves_view(s: Saves) -> RenderableType:
    """``drill restore --list``: each graded save of the attempt, its clock and verdict, and which one
    the file holds now."""
    from rich.table import Table

    attempt = s.attempt
    state = "in progress" if attempt.in_progress else attempt.outcome
    head = whole(Text(f" Graded saves of attempt {attempt.id} at {attempt.target} ({state}), {display(attempt.file)}:"))
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 2, 0, 0))
    table.add_column("", no_wrap=True, min_width=2)
    table.add_column("save", justify="right", no_wrap=True)
    table.add_column("clock", justify="right", no_wrap=True)
    table.add_column("verdict")
    for save in s.saves:
        clock = format_time(save.elapsed) if save.elapsed is not None else "-"
        same = f"  (same as save {save.same_as})" if save.same_as is not None else ""
        table.add_row(f" {IN_FILE}" if save.in_file else "", str(save.number), clock, save.verdict + same)
    parts: list[RenderableType] = [head, table]
    if any(save.in_file for save in s.saves):
        parts.append(Text(f" {IN_FILE} the one your file holds now", style="dim"))
    parts.append(next_step("drill restore --save N", "brings save N back"))
    if s.others:
        noun = "attempt" if len(s.others) == 1 else "attempts"
        ids = listed([str(i) for i in s.others[:5]])
        parts.append(Text(f" Other graded {noun} of {attempt.target}: {ids}  (drill restore --list --attempt N)"))
    return Group(*parts)


TITLE = " autograd-drill: re-implement a tensor autograd engine from memory, against the clock\n"


def title() -> Text:
    return Text(TITLE, style="bold")


def in_progress_view(said: str, meanwhile: bool) -> RenderableType:
    """An attempt in progress (``said``: drills/loop/active.py ``describe_active``), under the catalog or the queue."""
    if meanwhile:
        return Text(f" Meanwhile, {said}: drill watch", style="yellow")
    return Group(Text(f" {said[0].upper()}{said[1:]}."), next_step("drill watch", "(or drill status, drill check)"))


def chosen_line(target: str, why: str) -> Text:
    return Text.from_markup(f" drill next chose [bold]{target}[/]: {escape(why)}.")


def no_card_line(target: str) -> Text:
    return Text(f" No card yet for {target}. Its hints:  drill hint {target}")


def nothing_to_chart(target: str | None) -> RenderableType:
    what = "anything" if target is None else target
    return Group(
        Text(f" Nothing to chart yet: you have not finished {what} (a pass or a give-up)."),
        next_step(f"drill start {target}" if target else "drill next --start"),
    )


def ended_elsewhere(target: str, how: str) -> Text:
    return Text(f" The attempt at {target} {how}.")


def warning_line(warning: str) -> RenderableType:
    return whole(Text("warning: ", style="bold yellow") + Text(warning))  # it may name a path


def no_attempt_view(target: str, why: str) -> RenderableType:
    """``drill status`` with no attempt in progress."""
    return Group(Text(" No attempt in progress."), next_step(f"drill start {target}", f"{why}   (or: drill next)"))
