"""Notes: what a grading tells the user that is no test's failure.

A file may do what the contract allows but does not require (keep the caller's float64 array as
its ``.data``), or leave out what the contract grades only where a file has it (the reflected
``2 / t``): the test that finds it passes, and says so in a note. Each note is given once per
grading, however many tests find it.
"""

from __future__ import annotations

from collections.abc import Callable

ALIAS = (
    "Tensor.__init__ keeps the float64 array passed in (an alias, as np.asarray and torch.as_tensor do): "
    "changing that array later changes the tensor"
)
"""The note of an ``__init__`` whose ``.data`` is the float64 array passed in (grader/test_backward.py)."""

GIVEN: list[str] = []
"""The notes given so far in this grading process, in order, each once."""


def give(text: str) -> None:
    """Give ``text`` as a note of this grading (once: a second call with the same text does nothing)."""
    if text in GIVEN:
        return
    GIVEN.append(text)
    sink(text)


def nowhere(text: str) -> None:
    """Told each note as it is given: the default sink, for a grading without a report."""


sink: Callable[[str], None] = nowhere
"""Where each note goes as it is given. NOTE: set by grader/conftest.py (pytest_configure) with
``start`` as each grading starts: with a report (--report-json), a note is one of its "note"
events; without one, pytest's summary lists ``GIVEN``."""


def start(to: Callable[[str], None] = nowhere) -> None:
    """A grading starts: no note given yet, and each goes ``to`` this sink."""
    global sink
    GIVEN.clear()
    sink = to
