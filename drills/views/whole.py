"""Paths a terminal can open (issue 27, point 1): rich folds a word longer than the line
(``.../autogra`` then ``d-drill/...`` on the next) and crops a line longer than the console, and an
editor's terminal then links neither half. A path, or a ``path:LINE`` location, reaches the terminal
whole: the line it is on is wrapped at spaces only, a word longer than the console is written past
its width (the terminal soft-wraps it, and joins it again when it is clicked or selected), and the
terminal's consoles do not crop (drills/commands/common.py ``Uncropped``).

Not on the live screen of ``drill watch``: rich's Live redraws by counting lines, and crops them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult


def whole(text: Text) -> Whole:
    """``text``, wrapped at spaces only: no word of it (a path) is cut."""
    return Whole(text)


def whole_markup(markup: str) -> Whole:
    """``Text.from_markup(markup)``, ``whole``."""
    return Whole(Text.from_markup(markup))


class Whole:
    """``text`` indented by ``indent`` columns and wrapped at spaces only. Neither a Text (rich's print
    joins the texts it is given into one of its own overflow, and a Text rendered with
    ``overflow="ignore"`` is not wrapped at all) nor a Padding (which crops each line to the width)
    keeps a long word whole."""

    def __init__(self, text: Text, indent: int = 0) -> None:
        self.text, self.indent = text, indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.overflow = "ignore"  # a word longer than the line is not folded, nor its line truncated
        width = max(1, options.max_width - self.indent)
        for line in text.wrap(console, width, no_wrap=options.no_wrap):  # no_wrap: soft-wrapped, piped
            line.rstrip()
            if self.indent:
                yield Segment(" " * self.indent)
            yield from line.render(console, end="")
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text).clamp(max_width=options.max_width)
