"""The states the history keeps, each defined once: how an attempt ended (``Outcome``), the rung of the
learning ladder it was on (``Rung``), what a part of an interview is (``PartKind``) and how its coding
part ended (``PartOutcome``).

They are ``StrEnum``s: a member is its string (``Outcome.PASSED == "passed"``), so the history's
SQLite columns and ``drill export`` files hold exactly the strings they always held, and a string
read back becomes its member (``Outcome("gave-up")``) or is refused in one line (``state_of``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar


class Outcome(StrEnum):
    """How an attempt ended (the column ``attempts.outcome``; NULL while it is in progress)."""

    PASSED = "passed"
    """Every target passed: its time is the clock at that save."""
    GAVE_UP = "gave-up"
    """``drill give-up`` (or an interview's part given up): a try that counts, without a time."""
    ABANDONED = "abandoned"
    """``drill abandon``: a reset, not a try (its file archived)."""

    @property
    def counts(self) -> bool:
        """An attempt that ended so is a try (passed or given up); an abandoned one is a reset."""
        return self is not Outcome.ABANDONED


class Rung(StrEnum):
    """The learning ladder of a target, bottom up (the column ``attempts.rung``): retype the reference
    in view, fill in its key lines, write it from memory (the drill as it always was). The full drill
    is recall only."""

    COPY = "copy"
    CLOZE = "cloze"
    RECALL = "recall"


RUNGS: tuple[Rung, ...] = tuple(Rung)
"""The rungs, bottom up."""


class PartKind(StrEnum):
    """What a part of an interview's plan is (the plan's JSON and the column ``interview_parts.kind``)."""

    CODING = "coding"
    """The coding task: a catalog target."""
    FOLLOW_UP = "follow-up"
    """The follow-up paired with it, run when the task passes within its budget."""
    QUESTION = "question"
    """A timed question of the bank."""


class PartOutcome(StrEnum):
    """How a coding part of an interview ended (the column ``interview_parts.outcome``)."""

    PASSED = "passed"
    GAVE_UP = "gave-up"
    """Given up (q), or its attempt ended otherwise (in another terminal)."""
    OUT_OF_TIME = "out-of-time"
    SKIPPED = "skipped"
    """The follow-up not run (the task did not pass, or passed too late)."""


State = TypeVar("State", Outcome, Rung, PartKind, PartOutcome)


def state_of(kind: type[State], value: object, what: str) -> State:
    """``value`` as a member of ``kind``; a ValueError in one line naming ``what`` and the choices."""
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{what} must be one of {', '.join(kind)}, got {value!r}") from None
