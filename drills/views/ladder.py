"""The learning ladder, drawn: ``drill ladder`` (each target's rung, its rungs' times and why, what
moves it), and the line that says where a pass or a give-up moved a target. No logic, no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from autograd_drill.grader.catalog import format_time
from autograd_drill.store.states import RUNGS, Rung
from autograd_drill.targets import is_full
from autograd_drill.views.render import id_column, next_step

if TYPE_CHECKING:
    from autograd_drill.loop.ladder import Place, RungTime

WHAT = {
    Rung.COPY: "retype the reference, in view above each blank",
    Rung.CLOZE: "fill in its key lines: the gradient rules and the traps",
    Rung.RECALL: "write it from memory: the drill",
}
RULE = (
    "A pass on a target's rung within that rung's time, without hints or a peek, moves it up one; "
    "giving up, or two passes over the time in a row, move it down one. Copy and cloze are learning "
    "steps: a target joins drill next's schedule at its first recall pass."
)


def to_move(spot: Place, seconds: int) -> str:
    """What moves a target up from its rung, and how close it is to moving down."""
    if is_full(spot.target):
        return "recall only"
    if spot.rung == Rung.RECALL:
        up = "the top: drill next schedules it"
    else:
        up = f"a pass within {format_time(seconds)}, unassisted: up to {RUNGS[RUNGS.index(spot.rung) + 1]}"
    if spot.overs and spot.rung != Rung.COPY:
        up += f" (over last time: once more, down to {RUNGS[RUNGS.index(spot.rung) - 1]})"
    return up


def ladder_view(places: Sequence[Place], times: Mapping[str, Mapping[Rung, RungTime]]) -> RenderableType:
    """``drill ladder``: per target, its rung, the three rungs' times, what moves it; then why those times."""
    lines: list[RenderableType] = [Text(" The ladder, bottom up:", style="bold")]
    for rung in RUNGS:
        lines.append(Text.assemble("   ", (f"{rung:<7}", "bold"), WHAT[rung]))
    lines += [Text(f" {RULE}", style="dim"), Text("")]
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1, 0, 0))
    id_column(table, [p.target for p in places])
    table.add_column("rung", no_wrap=True)
    for rung in RUNGS:
        table.add_column(rung, justify="right", no_wrap=True)
    table.add_column("to move up", overflow="fold")
    for spot in places:
        own = times.get(spot.target, {})
        cells = [format_time(own[r].seconds) if r in own else "-" for r in RUNGS]
        seconds = own[spot.rung].seconds if spot.rung in own else 0
        rung = Text(spot.rung, style="bold cyan" if spot.rung != Rung.RECALL else "")
        table.add_row(spot.target, rung, *cells, to_move(spot, seconds))
    lines += [table, Text(""), Text(" Why these times:", style="bold")]
    for spot in places:
        own = times.get(spot.target, {})
        lines.append(Text(f" {spot.target}", style="bold"))
        lines += [Text(f"   {own[r].reasoning}") for r in RUNGS if r in own]
    lines.append(next_step("drill start TARGET", f"starts its rung;  --rung {'|'.join(RUNGS)}  chooses"))
    return Group(*lines)


def moved_line(target: str, before: Rung, after: Rung) -> Text | None:
    """Where an attempt just finished moved its target on the ladder; None when it stays on recall."""
    if before == after == Rung.RECALL or is_full(target):
        return None
    if RUNGS.index(after) > RUNGS.index(before):
        said = f"moves up to {after}"
    elif after != before:
        said = f"moves down to {after}"
    else:
        said = f"stays on {after}"
    line = Text(" Ladder: ", style="bold").append(f"{target} {said}.")
    return line.append(f"  Next: drill start {target}", style="dim")
