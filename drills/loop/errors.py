"""The refusal every command may print: a module of its own, so that a command that never grades
(``drill list``, ``status``, ``next``) can catch it without importing the drill loop's grading half."""

from __future__ import annotations


class DrillError(Exception):
    """A refusal the user can act on: printed as one line, exit status 2 (or ``code``)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
