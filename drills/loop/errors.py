"""The refusal every command may print, and the attempt in progress that most of them name: a module
of its own, so that the commands that never grade (``drill list``, ``status``, ``next``) need not
import the drill loop (drills/loop/session.py, which re-exports both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drills.store.paths import display
from grader.catalog import format_time

if TYPE_CHECKING:
    from drills.store.history import Attempt


class DrillError(Exception):
    """A refusal the user can act on: printed as one line, exit status 2 (or ``code``)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def describe_active(attempt: Attempt, now: float) -> str:
    state = "paused at" if attempt.paused else "at"
    return f"an attempt at {attempt.target} is in progress ({state} {format_time(attempt.elapsed(now))}, {display(attempt.file)})"
