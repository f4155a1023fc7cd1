"""Your progress over the days: each finished attempt's time, the full drill's runs and splits, and
the streak of practice days, gathered from the history for ``drill chart`` (drills/views/chart.py
draws it). Days are calendar days in the time zone given (the local one by default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from autograd_drill.grader.catalog import FULL
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.records import Segment, best_segments, finished, regressions, segments, sum_of_best
from autograd_drill.store.states import RUNGS, Outcome, Rung
from autograd_drill.targets import catalog as merged


@dataclass(frozen=True)
class Point:
    at: float
    """When the attempt ended (epoch seconds)."""
    seconds: float
    """The clock at the end: a pass's time, or when you gave up."""
    passed: bool
    assisted: bool


@dataclass(frozen=True)
class Series:
    """One drill's finished attempts on one rung of the ladder, oldest first."""

    target: str
    target_time: int
    """Of its rung; drawn as a line: the time to beat."""
    index: int
    """Position in the catalog (core targets, full, extensions): picks the colour and marker."""
    points: tuple[Point, ...]
    rung: Rung = Rung.RECALL

    @property
    def label(self) -> str:
        """The drill, and its rung below recall: ``unbroadcast (copy)``."""
        return self.target if self.rung is Rung.RECALL else f"{self.target} ({self.rung})"


@dataclass(frozen=True)
class FullRun:
    number: int
    at: float
    seconds: float
    """The clock at the end: the run's time if it passed, else when you gave up."""
    passed: bool
    segments: tuple[Segment, ...]
    """In the order passed, as the scoreboard has them: targets passed on one save share one."""
    regressions: float | None = None
    """A passed run's time after its last split (fixing targets that failed again): with the segments,
    its total; None for a give-up."""


@dataclass(frozen=True)
class Streak:
    days: int
    """Consecutive days with a finished attempt, ending today or yesterday."""
    today: bool
    """Today is one of them (else the streak ends yesterday, or is 0)."""
    longest: int
    last: date | None
    """The latest practice day."""
    recent: tuple[bool, ...]
    """Practised or not, for each of the last 14 days, today last."""


@dataclass(frozen=True)
class Progress:
    series: tuple[Series, ...]
    """Per target with at least one finished attempt, in catalog order, one per rung (copy, cloze, recall)."""
    full: tuple[FullRun, ...]
    sum_of_best: float | None
    """Of the full drill's splits (unassisted runs), when every core target has one."""
    streak: Streak
    first_day: date | None
    today: date
    tz: tzinfo | None


def day_of(seconds: float, tz: tzinfo | None = None) -> date:
    return datetime.fromtimestamp(seconds, tz).date()


def midnight(day: date, tz: tzinfo | None = None) -> float:
    return datetime.combine(day, time(), tzinfo=tz).timestamp()


STREAK_WINDOW = 14
"""How many of the last days ``recent`` tells."""


def streak(days: set[date], today: date) -> Streak:
    yesterday = today - timedelta(days=1)
    end = today if today in days else yesterday if yesterday in days else None
    current = 0
    if end is not None:
        while end - timedelta(days=current) in days:
            current += 1
    longest, run, previous = 0, 0, None
    for day in sorted(days):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest, previous = max(longest, run), day
    recent = tuple(today - timedelta(days=k) in days for k in range(STREAK_WINDOW - 1, -1, -1))
    return Streak(current, today in days, longest, max(days, default=None), recent)


def progress(
    history: History, now: float, tz: tzinfo | None = None, rung_time: Callable[[str, Rung], int] | None = None
) -> Progress:
    """Every finished attempt, per drill in the catalog's order and per rung, and the full drill's runs.

    ``rung_time(drill, rung)``: the target time of a rung below recall (drills/loop/ladder.py)."""
    catalog = merged()
    by_drill: dict[str, list[Attempt]] = {}
    for attempt in history.attempts():
        by_drill.setdefault(attempt.target, []).append(attempt)
    series = []
    for index, drill_id in enumerate(catalog.drill_ids):
        for rung in RUNGS:
            done = finished(a for a in by_drill.get(drill_id, []) if a.rung == rung)
            if not done:
                continue
            limit = (
                catalog.target_time(drill_id) if rung is Rung.RECALL or rung_time is None else rung_time(drill_id, rung)
            )
            points = tuple(
                Point(a.ended_at or now, a.clock_at_end, a.outcome is Outcome.PASSED, a.assisted) for a in done
            )
            series.append(Series(drill_id, limit, index, points, rung))
    runs = tuple(
        FullRun(n, a.ended_at or now, a.clock_at_end, a.outcome is Outcome.PASSED, tuple(segments(a)), regressions(a))
        for n, a in enumerate(finished(by_drill.get(FULL, [])), 1)
    )
    days = {day_of(p.at, tz) for s in series for p in s.points}
    today = day_of(now, tz)
    sob = sum_of_best(best_segments(by_drill.get(FULL, [])))
    return Progress(tuple(series), runs, sob, streak(days, today), min(days, default=None), today, tz)
