"""What a ``drill watch`` knows at each moment (``WatchState``, drawn by drills/views/report.py
``watch_screen``), how it ends (``End``), and the events its threads post to it (drills/loop/watch.py
runs it; its keys are drills/loop/watch_keys.py's table)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from autograd_drill.grader.verdict import Failure
from autograd_drill.loop.diff import Comparison
from autograd_drill.loop.session import Checked, Hints, TargetState
from autograd_drill.store.history import Attempt


class End(StrEnum):
    """How the watched attempt ended (``WatchState.finished``), or the watch (``WatchState.ended``)."""

    PASSED = "passed"
    """Every target passed, graded here."""
    ELSEWHERE = "ended elsewhere"
    """Ended in another terminal (given up, abandoned): the attempt's outcome says how."""
    QUIT = "quit"
    """q: the watch only; the attempt goes on."""


# ---------------------------------------------------------------------------- the events


@dataclass(frozen=True)
class Saved:
    """The watcher thread saw ``file`` written."""

    file: Path


@dataclass(frozen=True)
class Graded:
    """The grader thread's result of the grading ``token``: the check, what stopped it (in words), or
    None when it was cancelled."""

    token: int
    outcome: Checked | str | None


@dataclass(frozen=True)
class Early:
    """The first failure of the grading ``token``, told while its other tests run."""

    token: int
    failure: Failure


@dataclass(frozen=True)
class Pressed:
    """The keys thread read ``key``."""

    key: str


Event = Saved | Graded | Early | Pressed
"""What the watch's threads post to its queue."""


@dataclass(frozen=True)
class Job:
    """A grading asked of the grader thread: the attempt's file as it is now, under ``token`` (a result
    of an earlier token is stale)."""

    token: int
    attempt_id: int


class Keys(Protocol):
    """Keystrokes, from a terminal (drills/commands/keys.py) or a test."""

    def read(self, timeout: float) -> str | None:
        """A key pressed within ``timeout`` seconds, if any."""
        ...


@dataclass(frozen=True)
class WatchState:
    """What the watch knows now."""

    attempt: Attempt
    targets: tuple[TargetState, ...]
    checked: Checked | None = None
    """The latest grading."""
    graded: bool = False
    """This state comes right after a grading."""
    graded_in: float | None = None
    """Seconds the latest grading took, from the moment it was asked for to the verdict."""
    after_save: bool = False
    """The latest grading was asked for by a save (the watcher saw it): ``graded_in`` is then the time
    from the save to the verdict. The first grading of a watch, one on resume, on r or of a save the
    watcher missed follow no save seen."""
    grading: bool = False
    """A grading is under way (of the latest save): the screen marks it, the clock ticks on."""
    early: Failure | None = None
    """The first failure of the grading under way, told before its verdict (the verdict's own first
    failure, in file order, may be another); None once the verdict is in."""
    message: str | None = None
    """Why the latest save could not be graded (the file is gone, the clock is paused...), or what
    a key could not do."""
    shown: Hints | Comparison | None = None
    """What a key asked for (h: hints, d: the diff), in this state only: to show once."""
    finished: End | None = None
    """How the watched attempt ended: passed, or ended elsewhere (in another terminal); None while
    it runs. With keys the watch goes on, and follows the next attempt started."""
    ended: End | None = None
    """How the watch ended: passed (every target passed), ended elsewhere (without keys, the watch
    ends with its attempt), or quit (q); None while it runs."""
    keys: bool = False
    """Keys are read: the screen names them."""

    def said(self, end: End) -> str:
        """An end in words: ``passed``, ``quit``, or ``ended elsewhere (gave-up)`` (the attempt's outcome)."""
        return f"{end} ({self.attempt.outcome})" if end is End.ELSEWHERE else str(end)

    @property
    def first_failure(self) -> Failure | None:
        return next((s.failure for s in self.targets if s.failure is not None and not s.passed), None)

    @property
    def notes(self) -> tuple[str, ...]:
        return self.checked.result.notes if self.checked is not None else ()

    @property
    def just_passed(self) -> bool:
        """This grading passed the attempt: the scoreboard is due, once."""
        return self.graded and self.checked is not None and self.checked.finished
