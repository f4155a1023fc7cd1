"""What a test prints, kept within bounds: its start, and how much more there was.

While a test runs (its setup and its call), ``sys.stdout`` and ``sys.stderr`` write, in order, to
one sink that keeps the first ``OUTPUT_CHARS`` characters and only counts the rest: a solution that prints
megabytes in a loop costs the grading the printing itself, not storing, reading and decoding it
(grader/conftest.py). What goes around Python, to the file descriptors, is still pytest's to
capture, and is cut the same way when the result is written (``kept``).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from autograd_drill.grader.verdict import CUT_MARK

OUTPUT_CHARS = 16_000
"""How much of what one test printed is kept: its start, where the printing began."""

CUT_KEY = "drill_output_cut"
"""The key of a test's user property that counts what its output lost: (when, lines, characters)."""


class Sink(io.RawIOBase):
    """Keeps the first ``limit`` bytes written; counts the bytes and lines of the rest. Cheap on a
    flood: it sees a write per full buffer (``bounded_output``), copies nothing past the limit but
    once, and counts a long write without a line break with one scan (``bytes.find``, memchr)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.kept = bytearray()
        self.limit = limit
        self.cut_bytes = 0
        self.cut_lines = 0
        self.cut_open = False
        """The last byte cut ends no line: one more line to count."""

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        n = len(data)
        room = max(0, self.limit - len(self.kept))
        if room:
            self.kept += data[:room]
        if n > room:
            rest = bytes(data[room:])
            self.cut_bytes += len(rest)
            if rest.find(b"\n") != -1:
                self.cut_lines += rest.count(b"\n")
            self.cut_open = not rest.endswith(b"\n")
        return n

    @property
    def lines_cut(self) -> int:
        return self.cut_lines + self.cut_open


@contextmanager
def bounded_output(item: pytest.Item, when: str) -> Iterator[None]:
    """During this phase of ``item``, what Python code prints goes to a Sink (stdout and stderr, in
    the order written); after, its start is the phase's captured output, and
    what was cut is counted in the item's user properties."""
    sink = Sink(OUTPUT_CHARS)
    # One stream for both: their writes stay in order, and C buffers them (a print costs what it
    # costs to a file, not a Python call)
    stream = io.TextIOWrapper(io.BufferedWriter(sink, buffer_size=1 << 16), encoding="utf-8", errors="replace")
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = stream
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        try:
            stream.flush()
        except (OSError, ValueError):  # closed by the user's code
            pass
        if sink.kept:
            item.add_report_section(when, "stdout", sink.kept.decode("utf-8", "replace"))
        if sink.cut_bytes:
            item.user_properties.append((CUT_KEY, (when, sink.lines_cut, sink.cut_bytes)))


def cut_in(properties: list[tuple[str, object]], when: str) -> tuple[int, int]:
    """The lines and characters a phase's output lost (``bounded_output``)."""
    lines = size = 0
    for key, value in properties:
        if key == CUT_KEY and isinstance(value, tuple) and value[0] == when:
            lines, size = lines + int(value[1]), size + int(value[2])
    return lines, size


def kept(text: str, lines_cut: int) -> str:
    """A failed test's output as its result carries it: at most ``OUTPUT_CHARS`` characters, and, if
    anything was cut, a last line that says how many lines (autograd_drill.grader.verdict.Failure.printed)."""
    if len(text) > OUTPUT_CHARS:
        rest = text[OUTPUT_CHARS:]
        lines_cut += rest.count("\n") + (not rest.endswith("\n"))
        text = text[:OUTPUT_CHARS]
    if not lines_cut:
        return text
    return text.rstrip("\n") + f"\n{CUT_MARK}{lines_cut:,} more lines not kept]\n"


def size(n: int) -> str:
    """Characters (bytes, mostly), as a person says them."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
