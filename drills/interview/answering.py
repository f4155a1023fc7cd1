"""Answering a question: the file opened in ``$EDITOR`` (the prompt above a marker, the answer below
it), the answer read back from it, and the key points the user ticks, typed as numbers. Pure text
in, data out: the session does the I/O."""

from __future__ import annotations

import re

from autograd_drill.grader.catalog import format_time
from autograd_drill.interview.bank import Question

MARKER = "# ---- your answer below this line (lines above it are ignored) ----"


class TickError(ValueError):
    """Key point numbers that cannot be read: one line, saying what is expected."""


def answer_template(question: Question) -> str:
    """The file the answer is written in: the question as comments, then the marker."""
    lines = [f"# {line}".rstrip() for line in question.prompt.splitlines()]
    lines.append(f"# Time box: {format_time(question.time_box)}. Save and close the editor when done.")
    return "\n".join([*lines, MARKER, "", ""])


def answer_from_file(text: str) -> str:
    """What the user wrote: everything below the marker; if they deleted it, the whole file but its
    leading comment lines. Never loses a line the user wrote below the marker."""
    if MARKER in text:
        return text.split(MARKER, 1)[1].strip("\n").rstrip()
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip("\n").rstrip()


def parse_ticks(typed: str, count: int) -> tuple[int, ...]:
    """The key points covered, as 0-based indexes, from what the user typed: numbers from 1 separated
    by spaces or commas (``1 3 4``, ``1,3``), ``all``, or nothing / ``none`` for none."""
    words = [w for w in re.split(r"[\s,]+", typed.strip().lower()) if w]
    if words in ([], ["none"], ["0"]):
        return ()
    if words == ["all"]:
        return tuple(range(count))
    covered = set()
    for word in words:
        if not word.isdigit() or not 1 <= int(word) <= count:
            raise TickError(
                f"type the numbers (1 to {count}) of the key points you covered, all, or none: {word!r} is not one"
            )
        covered.add(int(word) - 1)
    return tuple(sorted(covered))
