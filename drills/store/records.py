"""Records: what the history says of your times. The one place that decides which attempts count
(finished ones), what a personal best is (per rung of the learning ladder: a copy time is never
compared with a recall time), how a full drill's splits become segments (shared by the targets
passed on one save), the time lost to regressions and the sum of best, and what a scoreboard and a
stats row hold. Functions over a drill's attempts (as drills/loop/standing.py read them from the
history, once per command) that return frozen data; drills/views draws it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autograd_drill.store.history import Attempt
from autograd_drill.store.states import Rung
from autograd_drill.targets import catalog as merged
from autograd_drill.targets import is_full


def finished(attempts: Iterable[Attempt]) -> list[Attempt]:
    """The attempts that count (passed or given up), in the order they ended."""
    done = [a for a in attempts if a.outcome is not None and a.outcome.counts and a.ended_at is not None]
    return sorted(done, key=lambda a: (a.ended_at, a.id))


def finished_on(own: Iterable[Attempt], rung: Rung = Rung.RECALL) -> list[Attempt]:
    """A drill's attempts (``own``: all of them) on ``rung`` that count, in the order they ended."""
    return finished(a for a in own if a.rung == rung)


def personal_best(own: Iterable[Attempt], rung: Rung = Rung.RECALL, before: Attempt | None = None) -> float | None:
    """The best unassisted time of a drill's attempts on ``rung`` (an assisted attempt is not a record),
    optionally of the attempts before one."""
    times = [
        a.time
        for a in own
        if a.time is not None and a.rung == rung and not a.assisted and (before is None or a.id < before.id)
    ]
    return min(times, default=None)


# ---------------------------------------------------------------------------- splits


@dataclass(frozen=True)
class Segment:
    """A stretch of a full drill between two splits: the targets that passed on the save that ended it
    (more than one: a shared segment, targets passed together, in the order the history keeps them)
    and the time since the previous split."""

    targets: tuple[str, ...]
    seconds: float
    at: float
    """The clock at its split."""

    @property
    def shared(self) -> bool:
        return len(self.targets) > 1

    @property
    def label(self) -> str:
        """``arith``, or for a shared segment ``arith + unary``."""
        return " + ".join(self.targets)

    @property
    def key(self) -> tuple[str, ...]:
        """What its best is kept under (``best_segments``): its targets, in any order."""
        return tuple(sorted(self.targets))


def segments(attempt: Attempt) -> list[Segment]:
    """A full attempt's splits as segments, in the order passed: targets whose splits fall on the same
    save (the same clock) share one segment, never a 0:00 segment of their own."""
    out: list[Segment] = []
    previous = 0.0
    for target, at in sorted(attempt.splits.items(), key=lambda kv: kv[1]):  # stable: the history's order
        if out and at == out[-1].at:
            out[-1] = Segment((*out[-1].targets, target), out[-1].seconds, at)
            continue
        out.append(Segment((target,), at - previous, at))
        previous = at
    return out


def regressions(attempt: Attempt) -> float | None:
    """A passed full drill's time in no segment: from its last split (every target had passed once) to
    the save where every target passed again, spent fixing targets that had passed and failed again.
    The segments and this add up to the time. None for a drill that has not passed."""
    time = attempt.time
    if time is None or not attempt.splits:
        return None
    return max(0.0, time - max(attempt.splits.values()))


def best_segments(runs: Iterable[Attempt], before: Attempt | None = None) -> dict[tuple[str, ...], float]:
    """Per segment (its targets: one, or those a shared segment holds together), its shortest time over
    the unassisted full drills with splits among ``runs`` (the history's full drills; those before one
    attempt, when given). A shared segment is a best of its group only: how it divided between its
    targets is not known, so it is no target's best alone. A split is kept the moment it is made: a run
    still in progress counts."""
    best: dict[tuple[str, ...], float] = {}
    for run in runs:
        if run.assisted or not run.splits or (before is not None and run.id >= before.id):
            continue
        for segment in segments(run):
            key = segment.key
            best[key] = min(segment.seconds, best.get(key, segment.seconds))
    return best


def sum_of_best(best: dict[tuple[str, ...], float], ids: Sequence[str] | None = None) -> float | None:
    """The fastest way through every core target (``ids``; None: the built-in pack's) with the best
    segments (``best_segments``): each core target in exactly one of them, solo or shared, added up.
    None until they cover every core target."""
    ids = [t.id for t in merged().targets] if ids is None else list(ids)
    bit = {target: 1 << k for k, target in enumerate(ids)}
    masks = [(sum(bit[t] for t in key), seconds) for key, seconds in best.items() if all(t in bit for t in key)]
    full = (1 << len(ids)) - 1
    cover: dict[int, float] = {0: 0.0}
    for done in range(full + 1):  # a superset is always numbered above its subsets
        if done not in cover:
            continue
        for mask, seconds in masks:
            if mask & done == 0:
                total = cover[done] + seconds
                if total < cover.get(done | mask, float("inf")):
                    cover[done | mask] = total
    return cover.get(full)


# ---------------------------------------------------------------------------- the catalog with your times


@dataclass(frozen=True)
class DrillRecord:
    """One line of ``drill list``: a drill's best and last times and how many attempts count (from
    memory: its recall rung; drills/loop/standing.py ``Standing.record``)."""

    best: float | None
    last: str
    """The last finished attempt's time, "gave up", or "-"."""
    attempts: int


# ---------------------------------------------------------------------------- scoreboard


@dataclass(frozen=True)
class ScoreRow:
    target: str
    target_time: int
    """Of the attempt's rung."""
    time: float | None
    best: float | None
    attempts: int
    assisted: bool
    new_best: bool
    previous_best: float | None = None
    """Your best before this attempt (for a split of the full drill, your best segment before it)."""
    targets: tuple[str, ...] = ()
    """A segment of the full drill: its targets (more than one: a shared segment; ``target`` is then
    their label, ``target_time`` their target times added up)."""

    @property
    def delta(self) -> float | None:
        """The time against the target time."""
        return None if self.time is None else self.time - self.target_time

    @property
    def best_delta(self) -> float | None:
        """The time against your best before it; None without a time or an earlier best."""
        return None if self.time is None or self.previous_best is None else self.time - self.previous_best


@dataclass(frozen=True)
class Scoreboard:
    attempt: Attempt
    rows: tuple[ScoreRow, ...]
    total: ScoreRow | None
    """For the full drill: the whole run against its target time."""
    sum_of_best: float | None
    regressions: float | None = None
    """For a passed full drill: the time after its last split (``records.regressions``); the rows'
    times and it add up to the total."""

    @property
    def new_best(self) -> bool:
        """A new record for the attempt as a whole (for the full drill, its total; best splits are marked per row)."""
        return self.total.new_best if self.total is not None else any(r.new_best for r in self.rows)


def _row(own: Sequence[Attempt], attempt: Attempt, count: int, target_time: int | None) -> ScoreRow:
    """The attempt's own line: its time against its target time and its personal best, on its rung."""
    previous = personal_best(own, attempt.rung, before=attempt)
    time = attempt.time
    return ScoreRow(
        attempt.target,
        merged().target_time(attempt.target) if target_time is None else target_time,
        time,
        personal_best(own, attempt.rung),
        count,
        attempt.assisted,
        time is not None and not attempt.assisted and (previous is None or time < previous),
        previous,
    )


def scoreboard(own: Sequence[Attempt], attempt: Attempt, target_time: int | None = None) -> Scoreboard:
    """The board shown when an attempt passes: one row, or for the full drill a row per segment
    (targets passed on one save share one), the time lost to regressions, and a total.

        ``own``: every attempt of its drill (``Standing.own``; for the full drill, its runs).
        ``target_time``: of the attempt's rung (None: the catalog's, recall's); its times are compared
        with those of its rung only."""
    count = len(finished_on(own, attempt.rung))
    if not is_full(attempt.target):
        return Scoreboard(attempt, (_row(own, attempt, count, target_time),), None, None)
    catalog = merged()
    runs = own
    best, before = best_segments(runs), best_segments(runs, before=attempt)
    rows = tuple(
        ScoreRow(
            segment.label,
            sum(catalog.get(target).target_time for target in segment.targets),
            segment.seconds,
            best.get(segment.key),
            count,
            attempt.assisted,
            not attempt.assisted and (segment.key not in before or segment.seconds < before[segment.key]),
            before.get(segment.key),
            segment.targets,
        )
        for segment in segments(attempt)
    )
    total = _row(own, attempt, count, None)
    core = [t.id for t in catalog.drilled(attempt.target)]
    return Scoreboard(attempt, rows, total, sum_of_best(best, core), regressions(attempt))


# ---------------------------------------------------------------------------- stats


@dataclass(frozen=True)
class TargetStats:
    target: str
    target_time: int
    attempts: int
    best: float | None
    median_last_five: float | None
    times: tuple[float, ...]
    """Passed times, oldest first (for the sparkline)."""
    share_under: float | None
    last: Attempt | None
    rung: Rung = Rung.RECALL


def stats(
    own: Sequence[Attempt], drill_id: str, rung: Rung = Rung.RECALL, target_time: int | None = None
) -> TargetStats:
    """A drill's stats on ``rung`` from its attempts (``own``: ``Standing.own``), against ``target_time``
    (that rung's; None: the catalog's, recall's)."""
    import statistics  # here: it imports fractions and decimal, which drill list does not need

    done = finished_on(own, rung)
    times = tuple(a.time for a in done if a.time is not None)
    limit = merged().target_time(drill_id) if target_time is None else target_time
    under = sum(1 for a in done if a.time is not None and a.time <= limit)
    return TargetStats(
        target=drill_id,
        target_time=limit,
        attempts=len(done),
        best=personal_best(own, rung),
        median_last_five=statistics.median(times[-5:]) if times else None,
        times=times,
        share_under=under / len(done) if done else None,
        last=done[-1] if done else None,
        rung=rung,
    )
