"""What the history keeps of interviews (drills/interview/store.py) and the questions' schedule
derived from it (drills/interview/due.py): the tables on the History's own connection, records read
back whole, refusals, and the FSRS cards replayed from the answers."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest
from fsrs import Card, Rating

from autograd_drill.interview import due
from autograd_drill.interview import store as kept
from autograd_drill.interview.plan import Part, Plan
from autograd_drill.interview.store import AnswerRecord, InterviewStoreError, PartRecord
from autograd_drill.store.schedule import scheduler
from autograd_drill.store.states import PartKind
from tests.support import BANK, DAY, T0

PLAN = Plan(
    45, T0, (Part(PartKind.CODING, "unary", 1800, "asked for"), Part(PartKind.QUESTION, "log-sum-exp", 210, "new"))
)


def answer(
    question: str, at: float, covered: tuple[int, ...], seconds: float = 100, text: str = "an answer"
) -> AnswerRecord:
    q = BANK.get(question)
    return AnswerRecord(q.id, at - seconds, at, q.time_box, text, covered, len(q.points))


# ---------------------------------------------------------------------------- records


def test_an_interview_is_read_back_whole(db):
    interview = kept.start_interview(db, PLAN, T0)
    assert kept.running_interview(db).id == interview
    kept.record_part(db, interview, PartRecord(0, "coding", "unary", 1800, attempt_id=None))
    kept.record_part(db, interview, PartRecord(0, "coding", "unary", 1800, None, "passed", 412.5, 2, "def f(): ..."))
    given = kept.record_answer(db, interview, answer("log-sum-exp", T0 + 900, (0, 2)))
    kept.finish_interview(db, interview, T0 + 1000)
    kept.finish_interview(db, interview, T0 + 5000)  # the first end stands
    kept.set_report(db, interview, "/tmp/interview.md")
    record = kept.get_interview(db, interview)
    assert record.plan == PLAN and record.ended_at == T0 + 1000 and record.report == "/tmp/interview.md"
    assert record.parts == (PartRecord(0, "coding", "unary", 1800, None, "passed", 412.5, 2, "def f(): ..."),)
    (got,) = record.answers
    assert got.id == given and got.covered == (0, 2) and got.seconds == 100 and got.interview_id == interview
    assert kept.running_interview(db) is None
    assert kept.interviews(db) == [record]
    exported = record.to_json()
    assert exported["plan"] == PLAN.to_json() and exported["answers"][0]["covered"] == [0, 2]
    assert "id" not in exported and "id" not in exported["answers"][0] and "attempt_id" not in exported["parts"][0]


def test_an_exported_interview_imports_back_once(db, tmp_path):
    interview = kept.start_interview(db, PLAN, T0)
    kept.record_part(db, interview, PartRecord(0, "coding", "unary", 1800, None, "passed", 412.5, 1, "x = 1\n"))
    kept.record_answer(db, interview, answer("log-sum-exp", T0 + 900, (0, 2), text="line one\nline two"))
    kept.finish_interview(db, interview, T0 + 1000)
    exported = json.loads(json.dumps([r.to_json() for r in kept.interviews(db)]))
    other = sqlite3.connect(tmp_path / "other.sqlite3")
    kept.ensure_tables(other)
    assert kept.import_interview(other, exported[0]) is not None
    assert kept.import_interview(other, exported[0]) is None, "the same interview twice is skipped"
    assert [r.to_json() for r in kept.interviews(other)] == exported
    with pytest.raises(InterviewStoreError, match="cannot be read"):
        kept.import_interview(other, {"plan": PLAN.to_json()})


def test_a_plain_connection_works_too(tmp_path):
    conn = sqlite3.connect(tmp_path / "other.sqlite3")
    kept.ensure_tables(conn)
    interview = kept.start_interview(conn, PLAN, T0)
    conn.close()
    again = sqlite3.connect(tmp_path / "other.sqlite3")  # committed: another connection sees it
    assert [r.id for r in kept.interviews(again)] == [interview]


def test_a_write_inside_the_callers_transaction_is_the_callers(db, history):
    with pytest.raises(RuntimeError), history.transaction() as conn:
        kept.start_interview(conn, PLAN, T0)
        raise RuntimeError("the caller fails")
    assert kept.interviews(db) == []


@pytest.mark.parametrize(
    ("record", "message"),
    [
        pytest.param(answer("log-sum-exp", T0, (0, 5)), "are not among the 5", id="point-out-of-range"),
        pytest.param(answer("log-sum-exp", T0, (1, 1)), "counted twice", id="point-twice"),
        pytest.param(answer("log-sum-exp", T0, (1,), seconds=-5), "cannot end before", id="ends-before-asked"),
    ],
)
def test_bad_answers_are_refused(db, record, message):
    with pytest.raises(InterviewStoreError, match=message):
        kept.record_answer(db, None, record)
    assert kept.answers(db) == []


def test_bad_parts_are_refused(db):
    interview = kept.start_interview(db, PLAN, T0)
    with pytest.raises(InterviewStoreError, match="coding or follow-up"):
        kept.record_part(db, interview, PartRecord(0, "question", "unary", 60))
    with pytest.raises(InterviewStoreError, match="outcome is one of"):
        kept.record_part(db, interview, PartRecord(0, "coding", "unary", 60, outcome="won"))


def test_answers_are_listed_in_the_order_given(db):
    kept.record_answer(db, None, answer("log-sum-exp", T0 + 50, (0,)))
    kept.record_answer(db, None, answer("max-ties", T0 + 10, (0,)))
    assert [a.question for a in kept.answers(db)] == ["max-ties", "log-sum-exp"]
    assert [a.question for a in kept.answers(db, "max-ties")] == ["max-ties"]


# ---------------------------------------------------------------------------- the schedule


@pytest.mark.parametrize(
    ("question", "covered", "seconds", "text", "rating"),
    [
        pytest.param("saved-outputs", (0, 1, 2, 3), 100, "", Rating.Again, id="blank-answer-all-ticked"),
        pytest.param("saved-outputs", (0,), 100, "x", Rating.Again, id="1-of-4"),
        pytest.param("saved-outputs", (0, 1), 100, "x", Rating.Hard, id="2-of-4"),
        pytest.param("saved-outputs", (0, 1, 2), 100, "x", Rating.Good, id="3-of-4"),
        pytest.param("saved-outputs", (0, 1, 2, 3), 100, "x", Rating.Easy, id="all-within-the-box"),
        pytest.param("saved-outputs", (0, 1, 2, 3), 151, "x", Rating.Good, id="all-over-the-box"),
        pytest.param("max-ties", (0,), 100, "x", Rating.Again, id="1-of-5"),
        pytest.param("max-ties", (0, 1), 100, "x", Rating.Hard, id="2-of-5"),
        pytest.param("max-ties", (0, 1, 2), 100, "x", Rating.Hard, id="3-of-5"),
        pytest.param("max-ties", (0, 1, 2, 3), 100, "x", Rating.Good, id="4-of-5"),
        pytest.param("non-leaf-grad", (0, 1, 2), 100, "x", Rating.Good, id="3-of-4-again"),
    ],
)
def test_the_rating_is_the_share_of_key_points(question, covered, seconds, text, rating):
    assert due.rate_answer(answer(question, T0, covered, seconds, text)) == rating


def test_a_card_replays_the_answers_through_the_drills_scheduler(db):
    first, second = answer("log-sum-exp", T0, (0,)), answer("log-sum-exp", T0 + 2 * DAY, (0, 1, 2, 3, 4))
    for a in (second, first):  # recorded out of order: replayed in the order given
        kept.record_answer(db, None, a)
    card = next(c for c in due.question_deck(db, T0 + 3 * DAY, BANK) if c.question == "log-sum-exp")
    expected = Card(card_id=1, due=datetime.fromtimestamp(T0, UTC))
    expected, _ = scheduler().review_card(expected, Rating.Again, review_datetime=datetime.fromtimestamp(T0, UTC))
    expected, _ = scheduler().review_card(
        expected, Rating.Easy, review_datetime=datetime.fromtimestamp(T0 + 2 * DAY, UTC)
    )
    assert [r.rating for r in card.reviews] == ["Again", "Easy"]
    assert card.due == expected.due.timestamp() and card.stability == expected.stability
    assert card.due > T0 + 4 * DAY


def test_due_questions_lists_answered_ones_due_most_overdue_first(db):
    assert due.due_questions(db, T0, BANK) == []  # 28 new questions are not "due"
    kept.record_answer(db, None, answer("log-sum-exp", T0, ()))  # Again: back tomorrow
    kept.record_answer(db, None, answer("max-ties", T0 + DAY, ()))
    kept.record_answer(db, None, answer("cotangent-seed", T0, (0, 1, 2, 3, 4)))  # Easy: days away
    assert due.due_questions(db, T0 + DAY / 2, BANK) == []
    listed = due.due_questions(db, T0 + 3 * DAY, BANK)
    assert [c.question for c in listed] == ["log-sum-exp", "max-ties"]
    assert listed[0].overdue(T0 + 3 * DAY) > listed[1].overdue(T0 + 3 * DAY) > 0
    assert BANK.get(listed[0].question).target == "softmax"


def test_answers_to_questions_no_longer_in_the_bank_are_ignored(db):
    kept.record_answer(db, None, AnswerRecord("retired-question", T0, T0 + 1, 60, "x", (), 3))
    deck = due.question_deck(db, T0 + 10 * DAY, BANK)
    assert len(deck) == len(BANK.questions) and all(c.new for c in deck)
