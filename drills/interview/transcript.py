"""The Markdown transcript of an interview: the plan, each part's time and verdict, the code as
graded, the interviewer's nudges, each answer beside the strong answer with the key points covered,
and what to practise next. A pure function of the record, the bank and the catalog."""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from autograd_drill.grader.catalog import Catalog, format_time
from autograd_drill.interview.bank import Bank
from autograd_drill.interview.due import rate_answer
from autograd_drill.interview.store import AnswerRecord, InterviewRecord, PartRecord
from autograd_drill.store.states import PartKind, PartOutcome

KIND_TITLES = {PartKind.CODING: "Coding task", PartKind.FOLLOW_UP: "Follow-up", PartKind.QUESTION: "Question"}


def _when(seconds: float, tz: tzinfo) -> str:
    return datetime.fromtimestamp(seconds, tz).strftime("%Y-%m-%d %H:%M %Z").strip()


def report_path(folder: Path, record: InterviewRecord, tz: tzinfo = UTC) -> Path:
    """Where the transcript of ``record`` goes: ``interview-YYYYMMDD-HHMM-<id>.md`` in ``folder``."""
    stamp = datetime.fromtimestamp(record.started_at, tz).strftime("%Y%m%d-%H%M")
    return folder / f"interview-{stamp}-{record.id}.md"


def fenced(code: str, language: str = "python") -> str:
    """``code`` in a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def quoted(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.strip().splitlines()) if text.strip() else "> _(no answer)_"


def verdict(part: PartRecord | None) -> str:
    """A coding part's outcome in a few words."""
    if part is None or part.outcome == PartOutcome.SKIPPED:
        return "not reached"
    if part.outcome is None:
        return "unfinished"
    clock = format_time(part.seconds) if part.seconds is not None else "?"
    said = {
        PartOutcome.PASSED: f"passed in {clock}",
        PartOutcome.GAVE_UP: f"gave up at {clock}",
        PartOutcome.OUT_OF_TIME: f"out of time at {clock}",
    }
    return said[part.outcome]


def _nudges(part: PartRecord, catalog: Catalog) -> str:
    if not part.nudges:
        return "No nudges."
    hints = catalog.get(part.target).hints[: part.nudges]
    lines = [f"{len(hints)} nudge{'s' if len(hints) != 1 else ''} from the interviewer:"]
    return "\n".join([*lines, *(f"{i}. {hint}" for i, hint in enumerate(hints, 1))])


def _coding(part: PartRecord, catalog: Catalog) -> list[str]:
    target = catalog.get(part.target)
    lines = [
        f"## {KIND_TITLES[part.kind]}: {part.target}",
        "",
        f"{target.summary}. **{verdict(part)}** (budget {format_time(part.budget)}, "
        f"target time {format_time(target.target_time)}).",
        "",
        _nudges(part, catalog),
        "",
    ]
    if part.code:
        lines += ["The code as graded:", "", fenced(part.code), ""]
    return lines


def _answer(n: int, answer: AnswerRecord, bank: Bank) -> list[str]:
    question = bank.get(answer.question)
    ticks = [f"- [{'x' if i in answer.covered else ' '}] {point}" for i, point in enumerate(question.points)]
    over = " (over the time box)" if answer.seconds > answer.time_box else ""
    return [
        f"### {n}. {question.prompt}",
        "",
        f"Answered in {format_time(answer.seconds)} of {format_time(answer.time_box)}{over}; "
        f"{len(answer.covered)} of {answer.points} key points: **{rate_answer(answer).name}**.",
        "",
        "Your answer:",
        "",
        quoted(answer.answer),
        "",
        "A strong answer:",
        "",
        quoted(question.answer),
        "",
        "Key points:",
        "",
        *ticks,
        "",
    ]


def question_fates(
    record: InterviewRecord, bank: Bank, reached: Collection[str] = (), earlier: Collection[str] = ()
) -> list[str]:
    """What happened to each planned question, in the plan's order: answered and rated, reached but
    not answered (the interview stopped: not rated, what was typed is kept in its answer file), or not
    reached (not rated: new still, or as its answers in earlier interviews left it). ``reached``: the
    questions asked (their answer file written); ``earlier``: those answered before this interview."""
    given = {a.question: a for a in record.answers}
    out = []
    for n, planned in enumerate(record.plan.questions, 1):
        answer = given.get(planned.id)
        if answer is not None:
            fate = (
                f"asked, answered in {format_time(answer.seconds)}, self-checked ({len(answer.covered)} of "
                f"{answer.points} key points): rated **{rate_answer(answer).name}**"
            )
        else:
            schedule = (
                "its schedule stays as its earlier answers left it"
                if planned.id in earlier
                else "it stays new in the schedule"
            )
            if planned.id in reached:
                fate = (
                    "asked, not answered (the interview stopped): not rated, "
                    f"{schedule}; what was typed is kept in its answer file"
                )
            else:
                fate = f"not reached: not rated, {schedule}"
        out.append(f"{n}. `{planned.id}`: {fate}.")
    return out


def practise_next(
    record: InterviewRecord, bank: Bank, catalog: Catalog, reached: Collection[str] = (), earlier: Collection[str] = ()
) -> list[str]:
    """What the interview showed is worth practising, most telling first."""
    out = []
    parts = {p.position: p for p in record.parts}
    for position, planned in enumerate(record.plan.parts):
        if planned.kind is PartKind.QUESTION:
            continue
        part = parts.get(position)
        target = catalog.get(planned.id)
        if part is None or part.outcome in (None, PartOutcome.SKIPPED):
            out.append(f"`drill start {planned.id}`: not reached in the interview")
        elif part.outcome != PartOutcome.PASSED:
            out.append(f"`drill start {planned.id}`: {verdict(part)} in the interview")
        elif part.nudges or (part.seconds or 0) > target.target_time:
            why = f"{part.nudges} nudge{'s' if part.nudges != 1 else ''}" if part.nudges else "over the target time"
            out.append(
                f"`drill start {planned.id}` until it passes unassisted within {format_time(target.target_time)} ({why})"
            )
    for answer in record.answers:
        if rate_answer(answer).name in ("Again", "Hard"):
            question = bank.get(answer.question)
            missed = [p for i, p in enumerate(question.points) if i not in answer.covered]
            out.append(f"Re-read the strong answer to *{question.prompt}* Missed: " + "; ".join(missed) + ".")
    asked = {a.question for a in record.answers}
    for planned in record.plan.questions:
        if planned.id not in asked:
            how = "was asked but not answered" if planned.id in reached else "was not reached"
            schedule = "its schedule stays as its earlier answers left it" if planned.id in earlier else "it stays new"
            out.append(f"*{bank.get(planned.id).prompt}* {how}: {schedule} in the schedule.")
    return out or ["Nothing weak this time: run a longer interview, or `drill next` for what the schedule says."]


def transcript(
    record: InterviewRecord,
    bank: Bank,
    catalog: Catalog,
    tz: tzinfo = UTC,
    reached: Collection[str] = (),
    earlier: Collection[str] = (),
) -> str:
    """The interview as Markdown; ``reached`` and ``earlier`` as ``question_fates`` takes them."""
    plan = record.plan
    ended = f", ended {_when(record.ended_at, tz)}" if record.ended_at is not None else " (not finished)"
    lines = [
        f"# Mock interview {record.id}: {_when(record.started_at, tz)}{ended}",
        "",
        "## Plan",
        "",
        f"{plan.minutes} minutes.",
        "",
        "| # | Part | What | Budget | Why |",
        "|---|------|------|--------|-----|",
    ]
    for i, part in enumerate(plan.parts, 1):
        what = part.id if part.kind is not PartKind.QUESTION else f"{part.id}: {bank.get(part.id).prompt}"
        lines.append(f"| {i} | {part.kind} | {what.replace('|', '/')} | {format_time(part.budget)} | {part.why} |")
    lines += [*(f"\n_{note}_" for note in plan.notes), ""]
    recorded = {p.position: p for p in record.parts}
    for position, planned in enumerate(plan.parts):
        if planned.kind is PartKind.QUESTION:
            continue
        part = recorded.get(position)
        if part is None:
            lines += [f"## {KIND_TITLES[planned.kind]}: {planned.id}", "", "Not reached.", ""]
        else:
            lines += _coding(part, catalog)
    lines += [
        "## Questions",
        "",
        "What happened to each question:",
        "",
        *question_fates(record, bank, reached, earlier),
        "",
    ]
    for n, answer in enumerate(record.answers, 1):
        lines += _answer(n, answer, bank)
    if not record.answers:
        lines += ["No question was answered.", ""]
    practise = practise_next(record, bank, catalog, reached, earlier)
    lines += ["## What to practise next", "", *(f"- {item}" for item in practise), ""]
    return "\n".join(lines)
