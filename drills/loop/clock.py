"""The clock, injectable (as rich's progress takes ``get_time``): timers are tested without sleeping."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
"""Seconds since the epoch."""


def system_clock() -> float:
    return time.time()


class MockClock:
    """A clock that moves only when told: ``clock.advance(90)``."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
