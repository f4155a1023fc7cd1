"""Renderers of the mock interview: the plan (``drill interview --plan``), the strong answer and its
numbered key points to tick after answering, the questions due (for ``drill next``), the list of
past interviews (``drill interview --list``), and what the session says as it runs (the interviewer's
lines, the coding part's screen, each question). Functions from data to rich renderables; no I/O."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from autograd_drill.grader.catalog import format_time
from autograd_drill.interview.transcript import verdict
from autograd_drill.loop.watch_keys import Bar, key_bar
from autograd_drill.store.states import PartKind, PartOutcome
from autograd_drill.views.render import counted, due_in, grid, hint_text
from autograd_drill.views.whole import whole

if TYPE_CHECKING:
    from autograd_drill.interview.bank import Bank, Question
    from autograd_drill.interview.due import QuestionCard
    from autograd_drill.interview.plan import Plan
    from autograd_drill.interview.store import AnswerRecord, InterviewRecord, PartRecord
    from autograd_drill.loop.session import Hints

QUESTIONS_SHOWN = 3
"""How many due questions ``drill next`` names."""


def plan_view(plan: Plan, bank: Bank) -> RenderableType:
    """The parts in order, each with its budget, what it asks and why it was chosen; the notes under them."""
    table = grid(narrow=True, caption=f"{plan.minutes} minutes: {format_time(plan.total)} planned")
    for header in ("#", "part", "budget"):
        table.add_column(header, no_wrap=True, justify="right" if header != "part" else "left")
    table.add_column("what, and why", overflow="fold")
    for i, part in enumerate(plan.parts, 1):
        what = Text(part.id, style="bold cyan")
        if part.kind is PartKind.QUESTION:
            what.append(f"\n{bank.get(part.id).prompt}")
        what.append(f"\n{part.why}", style="dim")
        budget = format_time(part.budget) + ("+" if part.kind is PartKind.FOLLOW_UP else "")
        table.add_row(str(i), part.kind, budget, what)
    notes = [Text(f" {note}", style="yellow") for note in plan.notes]
    return Group(table, *notes)


def self_check_view(question: Question) -> RenderableType:
    """After the answer: the strong answer, then the key points numbered for ticking (``1 3 4``)."""
    points = Table.grid(padding=(0, 1))
    points.add_column(justify="right", style="bold")
    points.add_column(overflow="fold")
    for i, point in enumerate(question.points, 1):
        points.add_row(f"{i}.", point)
    return Group(
        Text("A strong answer", style="bold"),
        Padding(Text(question.answer), (0, 0, 1, 2)),
        Text("Key points: type the numbers of those you covered (for example 1 3), all, or none", style="bold"),
        Padding(points, (0, 0, 0, 2)),
    )


def due_questions_view(cards: list[QuestionCard], bank: Bank, now: float) -> RenderableType | None:
    """``drill next``'s line on questions: the most overdue first; None when none is due."""
    if not cards:
        return None
    first = cards[0]
    line = Text(f" {'Question' if len(cards) == 1 else counted(len(cards), 'question')} due: ", style="bold")
    line.append(bank.get(first.question).prompt, style="cyan")
    line.append(f"  ({first.question}, {due_in(first.due - now).replace('now', 'due now')})", style="dim")
    lines: list[RenderableType] = [line]
    if len(cards) > 1:
        rest = ", ".join(c.question for c in cards[1 : 1 + QUESTIONS_SHOWN])
        lines.append(Text(f" Then: {rest}", style="dim"))
    lines.append(Text(" drill interview asks the due questions first.", style="dim"))
    return Group(*lines)


def interviews_view(records: list[InterviewRecord], tz: tzinfo = UTC) -> RenderableType:
    """``drill interview --list``: a block per interview, oldest first (readable at any width)."""
    if not records:
        return Text(" No interview yet: drill interview --plan shows the one it would run.")
    blocks: list[RenderableType] = []
    for record in records:
        parts = {p.position: p for p in record.parts}
        coding = record.plan.parts.index(record.plan.coding)
        follow = record.plan.follow_up
        follow_text = "-" if follow is None else f"{follow.id}: {verdict(parts.get(record.plan.parts.index(follow)))}"
        covered = sum(len(a.covered) for a in record.answers)
        points = sum(a.points for a in record.answers)
        share = f", {covered}/{points} key points" if points else ""
        head = Text(f" {record.id}. ", style="bold").append(
            datetime.fromtimestamp(record.started_at, tz).strftime("%Y-%m-%d %H:%M")
        )
        head.append(f"  {record.plan.minutes} minutes" + ("" if record.finished else ", stopped"), style="dim")
        rows = Table.grid(padding=(0, 1))
        rows.add_column(style="dim", no_wrap=True)
        rows.add_column(overflow="fold")
        rows.add_row("task", f"{record.plan.coding.id}: {verdict(parts.get(coding))}")
        rows.add_row("follow-up", follow_text)
        rows.add_row("questions", f"{len(record.answers)} of {len(record.plan.questions)} answered{share}")
        rows.add_row("transcript", record.report or "-")
        blocks += [head, Padding(rows, (0, 0, 0, 4))]
    return Group(*blocks)


# ---------------------------------------------------------------------------- the session, as it runs


def interviewer(text: str) -> Text:
    """What the interviewer says: their name in bold, then the line."""
    return Text(" Interviewer: ", style="bold magenta").append(text)


def intro_view(interview_id: int, plan: Plan, bank: Bank) -> RenderableType:
    """The start: the plan, and how the session goes."""
    return Group(
        Text(f" Mock interview {interview_id}: {plan.minutes} minutes", style="bold"),
        plan_view(plan, bank),
        Text(
            " Each coding task: edit the file named below in your editor; every save is graded. "
            "h asks the interviewer for a nudge (it is noted), q gives the task up, Ctrl-C stops the interview; "
            "there is no pause: the clock runs, as in a real interview.",
            style="dim",
        ),
    )


def task_view(kind: str, target: str, summary: str, path: str, budget: float) -> RenderableType:
    """A coding part begins: what to write, where, and in how long."""
    what = "A follow-up" if kind == PartKind.FOLLOW_UP else "Your task"
    return Group(
        Text(""),
        interviewer(f"{what}: {target}, {summary}. You have {format_time(budget)}."),
        whole(Text(f" Write it in {path} (the stub is there); each save is graded.", style="dim")),
    )


def part_screen(screen: RenderableType, target: str, budget: float, elapsed: float) -> RenderableType:
    """The live watch screen of a coding part, under the time the part has left."""
    left = format_time(max(0.0, budget - elapsed))
    head = Text(f" Interview: {target}, {left} left of {format_time(budget)}", style="bold magenta")
    keys = f" {key_bar(Bar.INTERVIEW)} · Ctrl-C stops the interview   no pause: the clock runs"
    return Group(head, screen, Text(""), Text(keys, style="dim"))


def nudge_view(hints: Hints) -> RenderableType:
    """A hint asked for during an interview: the interviewer's nudge, noted in the transcript."""
    if not hints.shown:
        return interviewer(f"no more nudges for {hints.target}.")
    line = interviewer("").append_text(hint_text(hints.shown[-1]))
    note = f" (nudge {len(hints.shown)} for {hints.target}; {hints.remaining} more; noted in the transcript)"
    return Group(line, Text(note, style="dim"))


def part_end_view(part: PartRecord, follow_up: str | None, follow_budget: int | None) -> RenderableType:
    """A coding part ended: how, and whether the follow-up comes."""
    said = {
        PartOutcome.PASSED: "that passes",
        PartOutcome.OUT_OF_TIME: "time is up",
        PartOutcome.GAVE_UP: "let us leave it there",
    }
    lines = [interviewer(f"{said.get(part.outcome or '', 'done')}: {part.target} {verdict(part)}.")]
    if follow_up is not None and part.kind is PartKind.CODING:
        if follow_budget is not None:
            lines.append(interviewer(f"good. A follow-up, then: {follow_up}, in {format_time(follow_budget)}."))
        elif part.outcome == PartOutcome.PASSED:
            lines.append(Text(f" No follow-up ({follow_up}): not enough time left for it.", style="dim"))
        else:
            lines.append(Text(f" No follow-up ({follow_up}): it comes once the task passes.", style="dim"))
    return Group(*lines)


def question_view(n: int, count: int, question: Question) -> RenderableType:
    """A question asked: its prompt and time box, and how to answer."""
    return Group(
        Text(""),
        Text(f" Question {n} of {count}", style="bold").append(
            f"  (time box {format_time(question.time_box)})", style="dim"
        ),
        interviewer(question.prompt),
        Text(" Type your answer; a line with only . ends it. Or type e alone to write it in $EDITOR.", style="dim"),
    )


def said_line(text: str) -> Text:
    """A remark of the session (a refusal to act on), as typed: no markup read in it."""
    return Text(f" {text}", style="yellow")


def answered_line(seconds: float, time_box: int) -> Text:
    over = seconds > time_box
    text = Text(f" Answered in {format_time(seconds)} of {format_time(time_box)}", style="red" if over else "green")
    return text.append(" (over the time box)." if over else ".")


def rated_line(answer: AnswerRecord, rating: str, due: float) -> Text:
    """After the self-check: the share covered, the rating, and when the question comes back."""
    text = Text(f" {len(answer.covered)} of {answer.points} key points: ", style="bold").append(
        rating, style="bold cyan"
    )
    return text.append(f"; asked again {due_in(due - answer.answered_at)}.", style="dim")


def closing_view(record: InterviewRecord, path: str, stopped: bool) -> RenderableType:
    """The end: where the transcript is, and how to see past interviews."""
    head = " Interview stopped: what was done is kept." if stopped else " Interview over."
    return Group(
        Text(""),
        Text(head, style="bold"),
        whole(Text(" Transcript: ", style="bold").append(path, style="cyan")),
        Text(
            f" Interview {record.id}: drill interview --list shows them all; drill next, what is due now.", style="dim"
        ),
    )
