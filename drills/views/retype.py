"""Retyping feedback after a copy or cloze pass: where your code differs from the reference's, token by
token (autograd_drill.loop.retype compares; this draws). No logic, no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from autograd_drill.loop.retype import Difference, Retyped, spaced

IGNORED = "layout, comments and docstrings aside"


def tokens_text(before: Sequence[str], middle: Sequence[str], after: Sequence[str], style: str) -> Text:
    """``before middle after`` as code reads, ``middle`` in ``style`` (a ``∅`` when it is empty)."""
    pieces = spaced([*before, *(middle or ["∅"]), *after])
    text = Text("".join(pieces[: len(before)]), style="dim")
    text.append("".join(pieces[len(before) : len(pieces) - len(after)]), style=style if middle else "dim italic")
    text.append("".join(pieces[len(pieces) - len(after) :]), style="dim")
    return text


def _where(difference: Difference) -> str:
    first, last = difference.lines
    if not first:
        return ""
    return f"line {first}" if first == last else f"lines {first}-{last}"


def retype_view(results: Sequence[Retyped]) -> RenderableType:
    """Each symbol's differences: your file's lines, the reference's tokens above yours; one line when
    you retyped every symbol exactly."""
    if all(r.found and not r.differences for r in results):
        return Text(f" You retyped it exactly as the reference ({IGNORED}).")
    count = sum(len(r.differences) for r in results)
    lines: list[RenderableType] = []
    if count:
        said = f"{count} place{'' if count == 1 else 's'}, token by token ({IGNORED}):"
        lines.append(Text(f" Your code differs from the reference in {said}"))
    for result in results:
        if not result.found:
            lines.append(Text.assemble(" ", (result.symbol, "bold"), ": not found in your file."))
            continue
        if not result.differences:
            continue
        lines.append(Text.assemble(" ", (result.symbol, "bold")))
        table = Table.grid(padding=(0, 1))
        for difference in result.differences:
            where = _where(difference)
            table.add_row(
                f"  {where}",
                "reference",
                tokens_text(difference.before, difference.reference, difference.after, "bold green"),
            )
            table.add_row("", "yours", tokens_text(difference.before, difference.yours, difference.after, "bold red"))
        lines.append(table)
    return Group(*lines)
