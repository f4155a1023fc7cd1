"""The one error a command says to the user and exits on: a refusal they can act on."""

from __future__ import annotations


class DrillError(Exception):
    """A refusal the user can act on: printed as one line, exit status 2 (or ``code``)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
