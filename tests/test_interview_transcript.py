"""The interview's transcript (drills/interview/transcript.py) and its terminal views
(drills/views/interview.py), from interviews recorded in the history's tables."""

from __future__ import annotations

import re
from pathlib import Path

from autograd_drill.grader.catalog import format_time
from autograd_drill.interview import store as kept
from autograd_drill.interview.due import question_deck
from autograd_drill.interview.planner import plan_interview
from autograd_drill.interview.store import AnswerRecord, InterviewRecord, PartRecord
from autograd_drill.interview.transcript import fenced, report_path, transcript
from autograd_drill.views import interview as views
from tests.support import BANK, CATALOG, DAY, T0, shown

CODE = 'def backward(self):\n    """Seed, then run."""\n    ...\n'


def interview(
    db, coding: PartRecord | None, follow: PartRecord | None, covered: list[tuple[int, ...]]
) -> InterviewRecord:
    """An interview of backward at 45 minutes, as the session would record it: its parts, then an
    answer per entry of ``covered`` (to the planned questions, in order)."""
    plan = plan_interview(CATALOG, BANK, 45, "backward", [], question_deck(db, T0, BANK), T0)
    number = kept.start_interview(db, plan, T0)
    for part in (coding, follow):
        if part is not None:
            kept.record_part(db, number, part)
    at = T0 + 1800
    for planned, ticks in zip(plan.questions, covered, strict=False):
        q = BANK.get(planned.id)
        kept.record_answer(
            db,
            number,
            AnswerRecord(q.id, at, at + 120, q.time_box, f"My answer to {q.id}.\nSecond line.", ticks, len(q.points)),
        )
        at += 200
    kept.finish_interview(db, number, at)
    return kept.get_interview(db, number)


def section(text: str, title: str) -> str:
    """The Markdown section under ``## title`` (up to the next ``## ``)."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no section {title!r} in:\n{text}"
    return match.group(1)


def test_a_full_interview_reads_top_to_bottom(db):
    record = interview(
        db,
        PartRecord(0, "coding", "backward", 1560, 7, "passed", 540.0, 2, CODE),
        PartRecord(1, "follow-up", "cotangent", 240, 8, "gave-up", 200.0, 0, "def f(): pass\n"),
        [(0, 1, 2, 3, 4, 5), (0,), (0, 1)],
    )
    text = transcript(record, BANK, CATALOG)
    assert text.startswith(f"# Mock interview {record.id}: 2027-01-15 08:00 UTC, ended 2027-01-15 08:40 UTC")
    plan = section(text, "Plan")
    assert (
        f"| 1 | coding | backward | {format_time(record.plan.coding.budget)} |" in plan
        and "| 2 | follow-up | cotangent | 4:00 |" in plan
    )
    coding = section(text, "Coding task: backward")
    assert "**passed in 9:00** (budget 26:00, target time 10:00)" in coding
    hints = CATALOG.get("backward").hints
    assert f"1. {hints[0]}" in coding and f"2. {hints[1]}" in coding and hints[2] not in coding
    assert fenced(CODE) in coding
    assert "**gave up at 3:20**" in section(text, "Follow-up: cotangent") and "No nudges." in text
    questions = section(text, "Questions")
    first, second, third = (BANK.get(p.id) for p in record.plan.questions)
    assert f"### 1. {first.prompt}" in questions and f"### 3. {third.prompt}" in questions
    assert "> My answer to" in questions and "> Second line." in questions
    assert f"> {first.answer.splitlines()[0]}" in questions
    assert (
        "6 of 6 key points: **Easy**" in questions and f"1 of {len(second.points)} key points: **Again**" in questions
    )
    assert f"- [x] {second.points[0]}" in questions and f"- [ ] {second.points[1]}" in questions
    practise = section(text, "What to practise next")
    assert "`drill start backward` until it passes unassisted within 10:00 (2 nudges)" in practise
    assert "`drill start cotangent`: gave up at 3:20 in the interview" in practise
    assert f"*{second.prompt}* Missed: {second.points[1]}" in practise
    assert first.prompt not in practise


def test_parts_not_reached_and_questions_not_asked_are_said(db):
    record = interview(db, PartRecord(0, "coding", "backward", 1560, 7, "out-of-time", 1560.0, 0, None), None, [])
    text = transcript(record, BANK, CATALOG)
    assert "**out of time at 26:00**" in text and "The code as graded" not in text
    assert "Not reached." in section(text, "Follow-up: cotangent")
    assert "No question was answered." in section(text, "Questions")
    practise = section(text, "What to practise next")
    assert "`drill start cotangent`: not reached" in practise
    assert practise.count("was not reached: it stays new") == 3


def test_a_clean_interview_says_nothing_is_weak(db):
    plan = plan_interview(CATALOG, BANK, 45, "backward", [], question_deck(db, T0, BANK), T0)
    everything = [tuple(range(len(BANK.get(p.id).points))) for p in plan.questions]  # every point, within the box
    coding = PartRecord(0, "coding", "backward", 1560, 7, "passed", 300.0, 0, CODE)
    record = interview(db, coding, PartRecord(1, "follow-up", "cotangent", 240, 8, "passed", 100.0), everything)
    text = transcript(record, BANK, CATALOG)
    assert "Nothing weak this time" in section(text, "What to practise next")


def test_code_with_backticks_gets_a_longer_fence():
    code = 'doc = """\n```python\nx\n```\n"""\n'
    block = fenced(code)
    assert block.startswith("````python\n") and block.endswith("\n````")


def test_the_report_path_names_the_start_and_the_interview(db):
    record = interview(db, None, None, [])
    assert report_path(Path("/data/interviews"), record) == Path(
        f"/data/interviews/interview-20270115-0800-{record.id}.md"
    )


# ---------------------------------------------------------------------------- views


def test_the_plan_view_lists_each_part_its_budget_and_why(db):
    plan = plan_interview(CATALOG, BANK, 20, "backward", [], question_deck(db, T0, BANK), T0)
    text = shown(views.plan_view(plan, BANK), width=120)
    assert "coding" in text and "backward" in text and format_time(plan.coding.budget) in text
    for part in plan.questions:
        assert part.id in text
    assert "no time for the follow-up cotangent" in text and "20 minutes: 20:00 planned" in text


def test_the_self_check_view_numbers_the_key_points():
    q = BANK.get("log-sum-exp")
    text = shown(views.self_check_view(q), width=200)
    assert "A strong answer" in text and f"1. {q.points[0]}" in text and f"{len(q.points)}. {q.points[-1]}" in text


def test_the_due_questions_view(db):
    assert views.due_questions_view([], BANK, T0) is None
    for question in ("log-sum-exp", "max-ties"):
        q = BANK.get(question)
        kept.record_answer(db, None, AnswerRecord(q.id, T0, T0 + 10, q.time_box, "", (), len(q.points)))
    from autograd_drill.interview.due import due_questions

    text = shown(views.due_questions_view(due_questions(db, T0 + 3 * DAY, BANK), BANK, T0 + 3 * DAY), width=300)
    assert "2 questions due:" in text and BANK.get("log-sum-exp").prompt in text and "2 days ago" in text
    assert "Then: max-ties" in text


def test_the_list_of_interviews(db):
    assert "No interview yet" in shown(views.interviews_view([]), width=120)
    record = interview(db, PartRecord(0, "coding", "backward", 1560, 7, "passed", 540.0, 0, CODE), None, [(0,)])
    kept.set_report(db, record.id, "/data/interview-1.md")
    text = shown(views.interviews_view(kept.interviews(db)), width=200)
    assert "2027-01-15 08:00" in text and "backward: passed in 9:00" in text
    assert "cotangent: not reached" in text and "1 of 3" in text and "/data/interview-1.md" in text


def test_the_transcript_says_what_happened_to_each_question(db):
    """Answered and rated, asked but not answered (stopped), not reached: and "stays new" only for a
    question never answered before."""
    record = interview(db, PartRecord(0, "coding", "backward", 1560, 7, "passed", 600.0, 0, None), None, [(0, 1, 2)])
    first, second, third = (q.id for q in record.plan.questions)
    text = transcript(record, BANK, CATALOG, reached={first, second}, earlier={third})
    questions = section(text, "Questions")
    assert f"1. `{first}`: asked, answered in 2:00" in questions and "rated **" in questions
    assert f"2. `{second}`: asked, not answered (the interview stopped): not rated, it stays new" in questions
    assert f"3. `{third}`: not reached: not rated, its schedule stays as its earlier answers left it" in questions
    practise = section(text, "What to practise next")
    assert "was asked but not answered: it stays new" in practise
    assert "was not reached: its schedule stays as its earlier answers left it" in practise
    assert practise.count("stays new") == 1
