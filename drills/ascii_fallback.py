"""What a console that cannot encode a character prints instead (a Windows console or output
redirected under cp1252, a POSIX locale's ASCII): a look-alike in ASCII, else ``?``; never a
UnicodeEncodeError.

``autograd_drill.entry`` registers ``ERRORS`` as the error handler of stdout and stderr where their encoding
is not a UTF one. A chart stays a chart: its frame (box drawing), its lines (braille dots) and its
markers become one ASCII character each, so that its columns stay aligned, each target's marker
still its own.
"""

from __future__ import annotations

import codecs
import unicodedata

ERRORS = "drill-ascii"
"""The name of the error handler, for ``TextIOWrapper.reconfigure(errors=...)``."""

ONE = {
    # chart markers (drills/views/chart.py): one cell each, each its own
    "●": "@",
    "◆": "+",
    "■": "#",
    "▲": "^",
    "▼": "v",
    "○": "o",
    "◇": "%",
    "□": "=",
    "△": "A",
    "▽": "V",
    "◎": "O",
    "◈": "&",
    "✗": "x",
    "✓": "v",
    "★": "*",
    "▸": ">",
    "▶": ">",
    "•": "*",
    "·": ".",
    "−": "-",
    "–": "-",
    "—": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "…": ".",  # rich's ellipsis of a cut cell: one cell, as in a table
    "▁": "_",
    "▂": "_",
    "▃": "-",
    "▄": "-",
    "▅": "=",
    "▆": "=",
    "▇": "#",
    "█": "#",
}
"""Characters of drill's own output, one cell for one cell."""
WORDS = {
    "→": "->",
    "←": "<-",
    "≤": "<=",
    "≥": ">=",
    "≈": "~=",
    "≠": "!=",
    "⏸": "||",
    "⟳": "~",
    "⏎": "<nl>",
    "⇥": "<in>",
    "⇤": "<out>",
    "ε": "eps",
    "Σ": "sum",
    "∂": "d",
    "∇": "grad",
    "Δ": "delta",
    "∅": "{}",
    "§": "S.",
}
"""Characters of its messages and cards, spelt out: a line of a box holding one then runs wider than
the box (the text reads right; its frame does not)."""
ACCENTS = {"\u0304": "_bar", "\u0305": "_bar", "\u0307": "_dot", "\u0308": "_ddot"}
"""The combining marks of the cards' notation (x̄, ẋ), spelt out; any other is dropped."""


def ascii_for(char: str) -> str:
    """An ASCII stand-in for ``char`` (``?`` when none is known)."""
    if char in ONE:
        return ONE[char]
    if char in WORDS:
        return WORDS[char]
    if char in ACCENTS:
        return ACCENTS[char]
    code = ord(char)
    if 0x2800 <= code <= 0x28FF:  # braille: a chart's line, as dots
        dots = bin(code - 0x2800).count("1")
        return " " if dots == 0 else "." if dots <= 2 else ":" if dots <= 4 else "*"
    name = unicodedata.name(char, "")
    if name.startswith("BOX DRAWINGS"):
        across, down = "HORIZONTAL" in name or "LEFT" in name or "RIGHT" in name, "VERTICAL" in name
        down = down or "UP" in name or "DOWN" in name
        return "+" if across and down else "-" if across else "|" if down else "+"
    if "BLOCK" in name or "SHADE" in name or name.startswith("QUADRANT"):
        return "#"
    decomposed = unicodedata.normalize("NFKD", char)
    if decomposed != char:
        base = "".join(ascii_for(c) if ord(c) > 127 else c for c in decomposed)
        prefix = "^" if "SUPERSCRIPT" in name or "MODIFIER LETTER" in name else "_" if "SUBSCRIPT" in name else ""
        return prefix + base
    if unicodedata.combining(char):
        return ""
    return "?"


def _handler(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(ascii_for(c) for c in error.object[error.start : error.end]), error.end


def register() -> str:
    """The error handler's name, registered (once is enough; again does no harm)."""
    codecs.register_error(ERRORS, _handler)
    return ERRORS
