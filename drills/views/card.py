"""A review card drawn: its key formula wrapped with hanging indents, its classic bugs and what an
interviewer asks next (the card's text is drills/views/reviews.toml, loaded by reviews.py); the
bullets' markdown drawn as the hints' is (render.hint_text), the formula as it is written."""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from autograd_drill.views.render import hint_text

if TYPE_CHECKING:
    from autograd_drill.views.reviews import ReviewCard


def hanging(line: str, width: int) -> list[str]:
    """One line of a formula wrapped at ``width``. A line of three columns or more (runs of spaces
    apart, as ``relu   x̄ += ...       sigmoid  x̄ += ...``) that does not fit is cut in two at its
    widest gap but the first (a label keeps its formula); a line's continuations are indented under
    its second column (``softmax      s = ...``) when that is in the left half, else four spaces deeper."""
    lead = len(line) - len(line.lstrip())
    gaps = list(re.finditer(r" {2,}", line.strip()))
    if len(line) > width and len(gaps) > 1:
        cut = max(gaps[1:], key=lambda gap: len(gap.group()))
        halves = (line.strip()[: cut.start()], line.strip()[cut.end() :])
        return [wrapped for half in halves for wrapped in hanging(" " * lead + half, width)]
    column = re.search(r"\S {2,}(?=\S)", line)
    hang = column.end() if column is not None and column.end() <= width // 2 else lead + 4
    return textwrap.wrap(
        line[lead:],
        width=max(width, hang + 12),
        initial_indent=" " * lead,
        subsequent_indent=" " * hang,
        break_on_hyphens=False,
    ) or [""]


class Formula:
    """A review card's key formula, wrapped at the width it is drawn at, each line with a hanging indent."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.text.splitlines():
            yield Text("\n".join(hanging(line, options.max_width)), overflow="fold")


def review_card(card: ReviewCard) -> RenderableType:
    """A review card: the key formula, the classic bugs, what an interviewer asks next."""
    from rich.panel import Panel

    def bullets(items: tuple[str, ...]) -> Padding:
        grid = Table.grid(padding=(0, 1, 0, 0))
        grid.add_column(no_wrap=True)
        grid.add_column()
        for item in items:
            grid.add_row("•", hint_text(item))  # its `code` in bold and *emphasis* in italic, the marks gone
        return Padding(grid, (0, 0, 0, 2))

    body = Group(
        Text("Key formula", style="bold"),
        Padding(Formula(card.formula), (0, 0, 0, 2)),
        Text("Classic bugs", style="bold"),
        bullets(card.classic_bugs),
        Text("What an interviewer asks next", style="bold"),
        bullets(card.interviewer_next),
    )
    return Panel(body, title=f"review: {card.target}", title_align="left", border_style="dim")
