"""Spaced repetition: which target to drill now.

One FSRS card per drill of every installed pack (drills/targets.py's merged catalog: the built-in
targets, ``full`` and the follow-ups, then each other pack's by canonical id, ``layers/layernorm``,
``layers/full``). A card is never stored: it is derived from the
history by replaying every finished attempt of its target, in order, as a review at the attempt's
end time, so the schedule cannot drift from what you did. A full drill's split of a core target (its
first pass within the run) is a review of that target too, at the run's end, its time the split's
segment (the time spent since the previous split); another pack's core target is reviewed by its
own pack's full drill's splits (``layers/full``). An abandoned attempt is a reset, not a review.

The rungs of the learning ladder below recall (copy, cloze) are learning steps, not reviews: a
target joins the schedule at its first pass from memory (a recall pass, or a split of a full drill),
and its recall attempts are its reviews from the first (a give-up before that pass included, as a
history made before the ladder always read). A target on the ladder before that is *learning*: due
now, before those never drilled, so that ``drill next`` continues the ladder.
The rating comes from the outcome and the time:

    gave up (not passed)                     Again
    over the target time, or assisted        Hard
    within the target time                   Good
    under half the target time, unassisted   Easy
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING

from autograd_drill.store.history import Attempt, History
from autograd_drill.store.records import finished, segments
from autograd_drill.store.states import Outcome, Rung
from autograd_drill.targets import catalog as merged
from autograd_drill.targets import full_drill_of, is_full

if TYPE_CHECKING:
    from fsrs import Card, Rating, Scheduler


@cache
def scheduler() -> Scheduler:
    """The fsrs scheduler, built once (fsrs is imported only when there is a review to replay)."""
    from fsrs import Scheduler

    return Scheduler(
        # NOTE: no intraday learning steps. A drill takes minutes, and fsrs's default 1- and
        # 10-minute steps would put the target just drilled first in line again; every review
        # schedules whole days (a give-up comes back tomorrow).
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,  # the same history gives the same schedule, in tests and between runs
    )


@dataclass(frozen=True)
class Review:
    """One finished attempt, as fsrs saw it."""

    attempt_id: int
    at: float
    """The attempt's end (epoch seconds): the review time."""
    rating: str
    """Again, Hard, Good or Easy."""
    time: float | None
    """The finishing time of a pass (of a full drill's split: its segment, maybe shared); None for a give-up."""
    assisted: bool
    full: bool = False
    """A split of a full drill, not an attempt at the target alone."""


@dataclass(frozen=True)
class TargetCard:
    """A target's place in the schedule."""

    target: str
    order: int
    """Position in the catalog (core targets, full, then extensions): breaks ties."""
    target_time: int
    due: float
    """Epoch seconds; a target never drilled is due at ``now``."""
    reviews: tuple[Review, ...]
    stability: float | None
    """Days until recall drops to 90% (fsrs); None before the first review."""
    learning: bool = False
    """On the learning ladder: attempted, not yet passed from memory (no reviews, due now)."""

    @property
    def new(self) -> bool:
        """Never drilled: no review, and not on the ladder either."""
        return not self.reviews and not self.learning

    @property
    def last(self) -> Review | None:
        return self.reviews[-1] if self.reviews else None


def rate(attempt: Attempt, target_time: float) -> Rating:
    """The fsrs rating of a finished attempt."""
    return rating(attempt.outcome is Outcome.PASSED, attempt.clock_at_end, attempt.assisted, target_time)


def rating(passed: bool, time: float, assisted: bool, target_time: float) -> Rating:
    """The fsrs rating of a pass in ``time`` (or of a give-up)."""
    from fsrs import Rating

    if not passed:
        return Rating.Again
    if assisted or time > target_time:
        return Rating.Hard
    if time < target_time / 2:
        return Rating.Easy
    return Rating.Good


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def replay(card_id: int, reviews: Sequence[tuple[float, Rating]]) -> Card:
    """An fsrs card after ``reviews`` (epoch seconds, rating), in order: a schedule is derived from what
    was done, never stored. ``card_id`` is explicit: fsrs would read (and sleep on) the wall clock."""
    from fsrs import Card

    state = Card(card_id=card_id, due=_utc(reviews[0][0]))
    for at, rated in reviews:
        state, _ = scheduler().review_card(state, rated, review_datetime=_utc(at))
    return state


def card(
    target: str,
    order: int,
    target_time: int,
    attempts: Sequence[Attempt],
    now: float,
    full_runs: Sequence[Attempt] = (),
) -> TargetCard:
    """Replay a target's finished recall attempts, and its splits in the finished ``full_runs``, through
    fsrs, once it passed from memory; before that, a card with no reviews."""
    done: list[tuple[Review, Rating]] = []
    for run in finished(full_runs):
        segment = next((s for s in segments(run) if target in s.targets), None)
        if segment is not None:  # a shared segment: its time against its targets' times added up
            spent = segment.seconds
            limit = target_time + sum(merged().get(t).target_time for t in segment.targets if t != target)
            rated = rating(True, spent, run.assisted, limit)
            done.append((Review(run.id, run.ended_at or now, rated.name, spent, run.assisted, full=True), rated))
    recall = [a for a in finished(attempts) if a.rung is Rung.RECALL]
    if not is_full(target) and not done and not any(a.outcome is Outcome.PASSED for a in recall):
        recall = []  # not in the schedule yet: copy, cloze and give-ups are learning steps
    for attempt in recall:
        rated = rate(attempt, target_time)
        done.append((Review(attempt.id, attempt.ended_at or now, rated.name, attempt.time, attempt.assisted), rated))
    if not done:
        return TargetCard(target, order, target_time, now, (), None, learning=bool(finished(attempts)))
    done.sort(key=lambda review: (review[0].at, review[0].attempt_id))
    state = replay(order + 1, [(review.at, rated) for review, rated in done])
    due = state.due.timestamp()
    return TargetCard(target, order, target_time, due, tuple(review for review, _ in done), state.stability)


def deck(history: History, now: float, attempts: Sequence[Attempt] | None = None) -> tuple[TargetCard, ...]:
    """Every card, in the merged catalog's order: the core targets, full, then the extensions, then each
    other pack's drills likewise (from ``attempts``, the history's, when they were read already). A
    history of built-in ids alone gives the built-in cards as before packs (their order unchanged)."""
    catalog = merged()
    by_target: dict[str, list[Attempt]] = {}
    for attempt in history.attempts() if attempts is None else attempts:
        by_target.setdefault(attempt.target, []).append(attempt)
    cards = []
    for i, drill_id in enumerate(catalog.drill_ids):
        full = None if is_full(drill_id) else full_drill_of(catalog.get(drill_id))
        runs = by_target.get(full, []) if full is not None else []  # a core target: its pack's full drill's splits
        cards.append(card(drill_id, i, catalog.target_time(drill_id), by_target.get(drill_id, []), now, runs))
    return tuple(cards)


def in_order(cards: Iterable[TargetCard]) -> list[TargetCard]:
    """The cards in the order to drill them: the most overdue first, then those on the learning ladder and
    those never drilled (due now, in catalog order), then the rest by due date."""
    return sorted(cards, key=lambda c: (c.due, not c.learning, c.order))


def queue(history: History, now: float) -> list[TargetCard]:
    """The cards in the order to drill them (``in_order``)."""
    return in_order(deck(history, now))


def choose(history: History, now: float) -> TargetCard:
    """The target to drill now (when nothing is due: the one due soonest)."""
    return queue(history, now)[0]
