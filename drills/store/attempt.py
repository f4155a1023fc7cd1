"""One attempt as the history keeps it, and its clock: the seconds banked at its last clock event
plus, while it runs, the monotonic time since (drills/loop/clock.py); the wall clock only dates it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from autograd_drill.grader.solution_file import UnreadableFile, read_solution
from autograd_drill.store.faults import HistoryError
from autograd_drill.store.states import Outcome, Rung

EDITED_WHILE_PAUSED = "edited while paused"
CHANGED_ACROSS_REBOOT = "changed across a reboot"
"""The reasons an attempt is marked assisted by its clock: work done while the clock was stopped."""


@dataclass(frozen=True)
class Attempt:
    id: int
    target: str
    file: Path
    started_at: float
    paused_at: float | None
    paused_total: float
    ended_at: float | None
    outcome: Outcome | None
    assisted: bool
    archive: str | None
    splits: dict[str, float] = field(default_factory=dict)
    rung: Rung = Rung.RECALL
    """The rung of the learning ladder it was on: copy, cloze or recall."""
    reason: str | None = None
    """Why it is assisted besides hints and peeks ("edited while paused", "changed across a reboot")."""
    banked: float | None = None
    """Seconds on the clock at its last clock event (start, check, pause, resume, end); None in an
    attempt made before the monotonic clock, timed by the wall clock."""
    mark_boot: str | None = None
    """While the clock runs: the boot, monotonic and wall readings of that last event."""
    mark_mono: float | None = None
    mark_wall: float | None = None
    mark_sha256: str | None = None
    """The file's sha256 at that event (when paused: at the pause)."""

    @property
    def in_progress(self) -> bool:
        return self.outcome is None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def rebooted(self, now: float) -> bool:
        """The clock runs and ``now`` comes from another boot than its last event."""
        boot = getattr(now, "boot", None)
        return (
            self.in_progress and not self.paused and self.mark_boot is not None and boot not in (None, self.mark_boot)
        )

    def elapsed(self, now: float) -> float:
        """Seconds on the clock: the clock at the last clock event, plus while it runs the monotonic
        time since (none across a reboot: it counts up to the last event before it); frozen once
        ended or paused. A wall-clock change or a suspend moves nothing. (An attempt made before
        the monotonic clock: wall time since the start, less the pauses.)"""
        if self.banked is None:
            end = self.ended_at if self.ended_at is not None else self.paused_at if self.paused_at is not None else now
            return max(0.0, end - self.started_at - self.paused_total)
        if not self.in_progress or self.paused:
            return self.banked
        mono = getattr(now, "mono", None)
        if mono is None or self.mark_mono is None:  # a plain wall-clock float: the wall time since
            return self.banked + max(0.0, now - (now if self.mark_wall is None else self.mark_wall))
        if self.rebooted(now):
            return self.banked
        return self.banked + max(0.0, mono - self.mark_mono)

    @property
    def time(self) -> float | None:
        """The finishing time of a passed attempt: the clock at the save that made every target pass
        (in a full drill, later than its last split when a target that had passed failed again)."""
        if self.outcome is not Outcome.PASSED or self.ended_at is None:
            return None
        return self.elapsed(self.ended_at)

    @property
    def clock_at_end(self) -> float:
        """The clock when it ended: a pass's time (``time``); for a give-up or an abandon, the clock when
        it ended. The one reading of an ended attempt's clock (records, the ladder, the schedule, an
        interview's part)."""
        time = self.time
        return time if time is not None else self.elapsed(self.ended_at or self.started_at)


@dataclass(frozen=True)
class Submission:
    """A graded version of an attempt's file: its source byte for byte, and the verdict's JSON."""

    id: int
    attempt_id: int
    graded_at: float
    elapsed: float | None
    source: str
    result: str
    passed: bool


class AttemptInProgress(HistoryError):
    """One attempt at a time (``History.require_free``): refused while ``attempt`` is in progress."""

    def __init__(self, attempt: Attempt) -> None:
        super().__init__("an attempt is already in progress")
        self.attempt = attempt


def mark(now: float) -> tuple[str | None, float | None, float]:
    """A clock event's boot, monotonic and wall readings (a plain float: the wall clock alone)."""
    return getattr(now, "boot", None), getattr(now, "mono", None), float(now)


def file_sha256(path: Path) -> str | None:
    """The file's sha256, None when it cannot be read."""
    try:
        return hashlib.sha256(read_solution(path)).hexdigest()
    except UnreadableFile:  # missing, odd (a FIFO would hang a plain read), or too big
        return None
