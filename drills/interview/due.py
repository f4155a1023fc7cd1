"""Spaced repetition of the interview questions: one FSRS card per question, derived as the drills'
cards are (drills/store/schedule.py, whose scheduler this reuses): by replaying every recorded answer,
in order, as a review at the time it was given. Nothing of the schedule is stored.

The rating is the share of the key points you ticked, and whether you kept to the time box:

    no answer, or under a third of the points        Again
    under two thirds                                 Hard
    two thirds or more; or all of them, over time    Good
    all of them within the time box                  Easy

With three points that is 0 Again, 1 Hard, 2 Good, 3 Easy; with four, 1 Again, 2 Hard, 3 Good. The
thresholds split the share in thirds, as the drills' ratings split the target time (give-up, over,
within, under half): Easy is kept for a complete answer given fluently, the only kind worth pushing
days away, and a blank or near-blank answer comes back tomorrow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autograd_drill.interview.bank import Bank, load_bank
from autograd_drill.interview.store import AnswerRecord, answers
from autograd_drill.store.schedule import replay

if TYPE_CHECKING:
    import sqlite3

    from fsrs import Rating

CARD_IDS = 10_000
"""Offset of the questions' fsrs card ids (the drills' cards are numbered from 1)."""


def rate_answer(answer: AnswerRecord) -> Rating:
    """The fsrs rating of an answer: its share of the key points, and the time box (module docstring)."""
    from fsrs import Rating

    share = answer.share
    if not answer.answer.strip() or share < 1 / 3:
        return Rating.Again
    if share < 2 / 3:
        return Rating.Hard
    if share < 1 or answer.seconds > answer.time_box:
        return Rating.Good
    return Rating.Easy


@dataclass(frozen=True)
class QuestionReview:
    at: float
    rating: str
    """Again, Hard, Good or Easy."""
    share: float


@dataclass(frozen=True)
class QuestionCard:
    question: str
    order: int
    """Position in the bank: breaks ties."""
    due: float
    """Epoch seconds; a question never answered is due at ``now``."""
    reviews: tuple[QuestionReview, ...]
    stability: float | None

    @property
    def new(self) -> bool:
        return not self.reviews

    def overdue(self, now: float) -> float:
        """Seconds past due (negative: not yet due)."""
        return now - self.due


def question_card(question: str, order: int, given: Sequence[AnswerRecord], now: float) -> QuestionCard:
    """Replay a question's answers through fsrs."""
    if not given:
        return QuestionCard(question, order, now, (), None)
    done = sorted(given, key=lambda a: (a.answered_at, a.id or 0))
    rated = [(answer, rate_answer(answer)) for answer in done]
    state = replay(CARD_IDS + order, [(answer.answered_at, rating) for answer, rating in rated])
    reviews = tuple(QuestionReview(a.answered_at, rating.name, a.share) for a, rating in rated)
    return QuestionCard(question, order, state.due.timestamp(), reviews, state.stability)


def question_deck(conn: sqlite3.Connection, now: float, bank: Bank | None = None) -> tuple[QuestionCard, ...]:
    """Every question's card, in the bank's order (answers to questions no longer in the bank are ignored)."""
    bank = bank or load_bank()
    by_question: dict[str, list[AnswerRecord]] = {}
    for answer in answers(conn):
        by_question.setdefault(answer.question, []).append(answer)
    return tuple(question_card(q.id, i, by_question.get(q.id, []), now) for i, q in enumerate(bank.questions))


def due_questions(conn: sqlite3.Connection, now: float, bank: Bank | None = None) -> list[QuestionCard]:
    """The questions answered before and due again by ``now``, most overdue first.

    Questions never answered are not listed: 28 of them would always be "due"; the interview's plan
    brings them in (``question_deck`` holds every card, new ones included)."""
    due = [c for c in question_deck(conn, now, bank) if not c.new and c.due <= now]
    return sorted(due, key=lambda c: (c.due, c.order))
