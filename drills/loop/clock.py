"""The clock, injectable (as rich's progress takes ``get_time``): timers are tested without sleeping.

A reading is the wall clock (epoch seconds, a float: dates, streaks, the calendar) carrying the
monotonic clock and the boot it belongs to: an attempt's time is measured on the monotonic clock
alone (drills/store/history.py, ``Attempt.elapsed``), so setting the wall clock forward or back
changes no attempt, and a suspend (which ``time.monotonic`` does not count on Linux) adds nothing.
A monotonic reading means something only within one boot, hence the boot id.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class Reading(float):
    """A clock reading: its value is the wall clock; ``mono`` and ``boot`` time attempts."""

    mono: float
    boot: str

    def __new__(cls, wall: float, mono: float, boot: str) -> Reading:
        reading = super().__new__(cls, wall)
        reading.mono, reading.boot = mono, boot
        return reading


Clock = Callable[[], float]
"""Seconds since the epoch; a ``Reading`` (with the monotonic clock and the boot id) when it can."""


@cache
def boot_id() -> str:
    """This boot's id: Linux's boot_id; elsewhere the boot's moment to the minute, as psutil reads it
    (a wall-clock change that moves it reads as a reboot: the safe side, the clock stops at the
    last event instead of jumping)."""
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        import psutil

        return f"boot-{round(psutil.boot_time() / 60)}"


def system_clock() -> Reading:
    return Reading(time.time(), time.monotonic(), boot_id())


class MockClock:
    """A clock that moves only when told: ``clock.advance(90)`` (both clocks), ``clock.set_wall(t)``
    (the wall clock alone, as a user setting it), ``clock.suspend(8 * 3600)`` (the wall clock moves,
    the monotonic one does not), ``clock.reboot(60)`` (a new boot, its monotonic clock from zero)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.wall = start
        self.mono = 1000.0
        self.boot = "boot-1"

    @property
    def now(self) -> float:
        return self.wall

    @now.setter
    def now(self, value: float) -> None:
        """Time passing: both clocks move (a test setting ``now`` means a later moment)."""
        self.advance(value - self.wall)

    def __call__(self) -> Reading:
        return Reading(self.wall, self.mono, self.boot)

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.mono += seconds

    def set_wall(self, wall: float) -> None:
        self.wall = wall

    def suspend(self, seconds: float) -> None:
        self.wall += seconds

    def reboot(self, seconds: float = 60.0) -> None:
        self.wall += seconds
        self.mono = 5.0
        self.boot = f"boot-{int(self.boot.rsplit('-', 1)[1]) + 1}"
