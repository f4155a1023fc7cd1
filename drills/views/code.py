"""Code on screen: ``drill diff`` (your code against the reference, symbol by symbol: side by side
where there is room, unified in a narrower terminal, the changed lines marked either way) and
``drill show`` (the reference of a target). Functions from data to rich renderables; no I/O."""

from __future__ import annotations

from difflib import SequenceMatcher
from itertools import zip_longest
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from autograd_drill.views.render import ByWidth, next_step
from autograd_drill.views.whole import Whole

if TYPE_CHECKING:
    from autograd_drill.loop.diff import Comparison, Reference

SIDE_BY_SIDE = 100
"""From this many columns on, ``drill diff`` puts yours beside the reference; below, one above the other."""
YOURS, REFERENCE = "-", "+"
"""The marks of a changed line: yours (to change), the reference's (what it has instead)."""
MARK_STYLE = {YOURS: "red", REFERENCE: "green", " ": ""}


def highlighted(code: str) -> list[Text]:
    """Python source, syntax highlighted, a Text per line."""
    from rich.syntax import Syntax  # pygments: only when code is drawn

    if not code.strip():
        return []
    return list(Syntax("", "python", theme="ansi_dark").highlight(code.rstrip("\n")).split("\n"))


Row = tuple[str, Text | None, str, Text | None]
"""A row of a diff: the mark and line of yours, the mark and line of the reference (None: no line)."""


def aligned(ours: str, reference: str) -> list[Row]:
    """Your lines against the reference's, the equal ones side by side (trailing spaces aside)."""
    mine, theirs = highlighted(ours), highlighted(reference)
    matcher = SequenceMatcher(
        None, [t.plain.rstrip() for t in mine], [t.plain.rstrip() for t in theirs], autojunk=False
    )
    rows: list[Row] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [(" ", a, " ", b) for a, b in zip(mine[i1:i2], theirs[j1:j2], strict=True)]
            continue
        for a, b in zip_longest(mine[i1:i2], theirs[j1:j2]):
            rows.append((YOURS if a is not None else " ", a, REFERENCE if b is not None else " ", b))
    return rows


def mark(sign: str) -> Text:
    return Text(sign, style=f"bold {MARK_STYLE[sign]}".strip())


def side_by_side(symbol: str, label: str, rows: list[Row], missing: bool) -> Table:
    """``rows``: ``aligned``'s; ``missing``: your file has no such symbol."""
    table = Table(title=Text(symbol, style="bold"), expand=True, show_lines=False, padding=(0, 0, 0, 1))
    for header, ratio in (("", None), (f"yours ({label})", 1), ("", None), ("reference", 1)):
        table.add_column(header, ratio=ratio, no_wrap=ratio is None, overflow="fold")
    for a_mark, a, b_mark, b in rows:
        if missing:
            a, missing = Text("(not found in your file)", style="red"), False
        table.add_row(mark(a_mark), a or "", mark(b_mark), b or "")
    return table


class Hanging:
    """A line of code wrapped at the width it is drawn at, between words where it can, each continuation
    four columns deeper than the line's own indent (but never past half the width): a wrapped line is
    still read as part of its block."""

    def __init__(self, line: Text) -> None:
        self.line = line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = self.line.cell_len
        return Measurement(min(width, 8), width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        plain = self.line.plain
        lead = len(plain) - len(plain.lstrip())
        hang = min(lead + 4, width // 2)
        rest, avail, indent = self.line.copy(), width, 0
        while True:
            piece = rest.wrap(console, avail, overflow="fold")[0] if rest.plain else Text("")
            yield Segment(" " * indent)
            yield from piece.render(console, end="")
            yield Segment.line()
            rest = rest[len(piece.plain) :]
            rest = rest[len(rest.plain) - len(rest.plain.lstrip()) :]
            if not rest.plain or not piece.plain:
                return
            avail, indent = max(1, width - hang), hang


def unified(symbol: str, rows: list[Row], missing: bool) -> RenderableType:
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column()
    if missing:
        grid.add_row(mark(YOURS), Text("(not found in your file)", style="red"))
    for sign, line in unified_rows(rows):
        grid.add_row(mark(sign), Hanging(line))
    return Group(Text(""), Text(symbol, style="bold"), grid)


def unified_rows(rows: list[Row]) -> list[tuple[str, Text]]:
    """The rows of a side-by-side diff as a unified one: a changed block's lines of yours, then the reference's."""
    out: list[tuple[str, Text]] = []
    pending: list[tuple[str, Text]] = []
    for a_mark, a, b_mark, b in rows:
        if a_mark == " " and b_mark == " " and a is not None:
            out += pending + [(" ", a)]
            pending = []
            continue
        if a is not None:
            out.append((a_mark, a))
        if b is not None:
            pending.append((b_mark, b))
    return out + pending


def comparison(c: Comparison) -> RenderableType:
    parts: list[RenderableType] = []
    if c.marked_assisted:
        parts.append(Text(" Peeking before the target passed: this attempt is marked assisted.", style="yellow"))
    elif c.peeked:
        parts.append(Text(" This attempt ended before the target passed.", style="yellow"))
    legend = Group(  # narrow: a line each, the path whole (drills/views/whole.py)
        Whole(Text.assemble(mark(YOURS), " yours: ", c.source_label)),
        Text.assemble(mark(REFERENCE), " the reference"),
    )
    diffs = [
        (symbol, aligned(ours or "", reference), ours is None) for symbol, ours, reference in c.pairs
    ]  # once for both layouts
    narrow = Group(*parts, legend, *(unified(symbol, rows, missing) for symbol, rows, missing in diffs))
    wide = Group(*parts, *(side_by_side(symbol, c.source_label, rows, missing) for symbol, rows, missing in diffs))
    return ByWidth(narrow, wide, at=SIDE_BY_SIDE)


def reference_view(r: Reference) -> RenderableType:
    """``drill show``: each symbol's reference code, highlighted; and whether that marked an attempt assisted."""
    from rich.syntax import Syntax

    if r.marked_assisted:
        said = Text(f" Reading the reference during your attempt at {r.target}: it is marked assisted.", style="yellow")
    else:
        said = Text(f" The reference of {r.target} ({r.where}), docstrings left out.", style="dim")
    parts: list[RenderableType] = [said]
    for symbol, source in r.symbols:
        parts += [Text(""), Text(symbol, style="bold"), Syntax(source, "python", theme="ansi_dark", word_wrap=True)]
    if not r.marked_assisted:
        parts += [Text(""), next_step(f"drill start {r.target}", "then write it from memory")]
    return Group(*parts)
