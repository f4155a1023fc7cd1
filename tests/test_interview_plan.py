"""The plan of a mock interview (drills/interview/plan.py): the task, its follow-up, the questions and
the time each gets, from the catalog, the bank, the schedule and the clock."""

from __future__ import annotations

import json

import pytest

from autograd_drill.grader.catalog import UnknownTarget, format_time
from autograd_drill.interview.due import QuestionCard, QuestionReview
from autograd_drill.interview.plan import Plan, follow_up_window
from autograd_drill.interview.planner import PlanError, plan_interview
from tests.support import BANK, CATALOG, DAY, T0, about

QUEUE = ["backward", "unbroadcast", "full", "arith"]


def deck(**due_in_days: float) -> list[QuestionCard]:
    """Every question new, except those named (with dashes as underscores): answered once, due in so
    many days (negative: overdue)."""
    cards = []
    for i, q in enumerate(BANK.questions):
        days = due_in_days.get(q.id.replace("-", "_"))
        reviews = () if days is None else (QuestionReview(T0 - DAY, "Good", 1.0),)
        cards.append(
            QuestionCard(q.id, i, T0 if days is None else T0 + days * DAY, reviews, None if days is None else 2.0)
        )
    return cards


def plan(minutes: int = 45, target: str | None = None, queue=QUEUE, cards=None) -> Plan:
    return plan_interview(CATALOG, BANK, minutes, target, queue, deck() if cards is None else cards, T0)


def test_the_default_plan_drills_the_scheduled_target_its_follow_up_and_three_questions():
    p = plan()
    assert [x.kind for x in p.parts] == ["coding", "follow-up", "question", "question", "question"]
    assert p.coding.id == "backward" and p.follow_up is not None and p.follow_up.id == "cotangent"
    assert p.total == 45 * 60, "the parts share the whole session"
    assert p.follow_up.budget == CATALOG.get("cotangent").target_time
    assert all(BANK.get(q.id).target in {"backward", "cotangent"} for q in p.questions)
    assert {BANK.get(q.id).difficulty for q in p.questions} == {1, 2, 3}, "a mix of difficulties"
    assert [q.budget for q in p.questions] == [BANK.get(q.id).time_box for q in p.questions]


def test_a_named_target_is_drilled_and_an_extension_has_no_follow_up():
    assert plan(target="unary").follow_up.id == "max"
    p = plan(target="max")
    assert p.coding.id == "max" and p.follow_up is None and not p.notes
    assert plan(target="cross_entropy").coding.id == "cross-entropy"


def test_the_schedule_picks_the_first_core_target_that_fits():
    assert plan(queue=["full", "max", "arith"]).coding.id == "arith", "follow-ups come after their core task"
    assert plan(12, queue=["backward", "unbroadcast"]).coding.id == "unbroadcast"  # backward's 10:00 does not fit


def test_a_short_interview_has_two_questions_and_leaves_the_follow_up_out_with_a_note():
    p = plan(20, target="backward")
    assert len(p.questions) == 2 and p.follow_up is None
    assert p.notes == ("no time for the follow-up cotangent (4:00): ask for more minutes to include it",)
    assert p.coding.budget >= CATALOG.get("backward").target_time and p.total == 20 * 60


@pytest.mark.parametrize(
    ("minutes", "target", "message"),
    [
        (9, None, "an interview lasts 10 to 180 minutes, not 9"),
        (181, None, "not 181"),
        (45, "full", f"full is a {format_time(CATALOG.full_time)} drill of its own"),
        (14, "backward", "14 minutes do not hold backward (10:00) and two questions: ask for at least 15"),
        (10, "forward-mode", "ask for at least 17"),
    ],
)
def test_impossible_plans_are_refused_with_what_would_work(minutes, target, message):
    with pytest.raises(PlanError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan(minutes, target)


def test_an_unknown_target_names_the_closest():
    with pytest.raises(UnknownTarget, match="Did you mean 'backward'"):
        plan(target="bakward")


def test_nothing_fits_from_the_schedule():
    with pytest.raises(PlanError, match="no target fits"):
        plan(10, queue=["forward-mode", "full"])


def test_the_minimum_the_error_names_is_enough():
    p = plan(15, target="backward")
    assert len(p.questions) == 2 and p.coding.budget >= 600


def test_overdue_questions_come_first_most_overdue_first_whatever_their_target():
    p = plan(target="backward", cards=deck(log_sum_exp=-1, max_ties=-5, ddp_overlap=3))
    assert [q.id for q in p.questions][:2] == ["max-ties", "log-sum-exp"]
    assert p.questions[0].why.startswith("due, 5 days overdue")
    assert "ddp-overlap" not in [q.id for q in p.questions[2:]], "not due: a new question on the task comes first"


def test_a_question_not_due_is_not_asked_while_the_bank_has_new_ones():
    """Rated in one interview, not due yet: new questions (about anything) come first."""
    related = {q.id.replace("-", "_"): 10 for q in about({"unary", "max"})}
    p = plan(target="unary", cards=deck(**related))
    assert not {q.id for q in p.questions} & {q.id for q in about({"unary", "max"})}
    assert all(q.why.startswith("new;") for q in p.questions)


def test_when_every_question_was_answered_and_none_is_due_the_soonest_due_fill_in_about_the_task_first():
    days = {q.id.replace("-", "_"): 5 + i for i, q in enumerate(BANK.questions)}
    p = plan(target="unary", cards=deck(**days))
    assert all(BANK.get(q.id).target in {"unary", "max"} for q in p.questions)
    assert all("about the task, due in" in q.why for q in p.questions)


def test_the_follow_up_window_is_what_the_coding_task_left():
    p = plan(target="backward")
    window = p.coding.budget + p.follow_up.budget
    assert follow_up_window(p, 600) == window - 600
    assert follow_up_window(p, p.coding.budget) == p.follow_up.budget
    assert follow_up_window(p, p.coding.budget + 1) is None
    assert follow_up_window(plan(target="max"), 10) is None


def test_the_plan_round_trips_through_json():
    p = plan(target="softmax", cards=deck(log_sum_exp=-2))
    assert Plan.from_json(json.loads(json.dumps(p.to_json()))) == p
    assert p.to_json()["parts"][0] == {
        "kind": "coding",
        "id": "softmax",
        "budget": p.coding.budget,
        "why": p.coding.why,
    }


def test_the_same_inputs_give_the_same_plan():
    assert plan(target="arith") == plan(target="arith")
