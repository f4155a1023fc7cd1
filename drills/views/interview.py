"""Renderers of the mock interview: the plan (``drill interview --plan``), the strong answer and its
numbered key points to tick after answering, the questions due (for ``drill next``), and the list of
past interviews (``drill interview --list``). Functions from data to rich renderables; no I/O."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from drills.interview.transcript import verdict
from drills.views.render import counted, due_in, grid
from grader.catalog import format_time

if TYPE_CHECKING:
    from drills.interview.bank import Bank, Question
    from drills.interview.due import QuestionCard
    from drills.interview.plan import Plan
    from drills.interview.store import InterviewRecord

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
        if part.kind == "question":
            what.append(f"\n{bank.get(part.id).prompt}")
        what.append(f"\n{part.why}", style="dim")
        budget = format_time(part.budget) + ("+" if part.kind == "follow-up" else "")
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
    """``drill interview --list``: one row per interview, oldest first."""
    if not records:
        return Text(" No interview yet: drill interview --plan shows the one it would run.")
    table = grid(narrow=False)
    for header in ("#", "started", "task", "follow-up", "questions", "transcript"):
        table.add_column(header, no_wrap=header != "transcript", overflow="fold")
    for record in records:
        parts = {p.position: p for p in record.parts}
        coding = record.plan.parts.index(record.plan.coding)
        follow = record.plan.follow_up
        follow_text = "-" if follow is None else f"{follow.id}: {verdict(parts.get(record.plan.parts.index(follow)))}"
        covered = sum(len(a.covered) for a in record.answers)
        points = sum(a.points for a in record.answers)
        asked = f"{len(record.answers)} of {len(record.plan.questions)}"
        share = f", {covered}/{points} points" if points else ""
        table.add_row(
            str(record.id),
            datetime.fromtimestamp(record.started_at, tz).strftime("%Y-%m-%d %H:%M"),
            f"{record.plan.coding.id}: {verdict(parts.get(coding))}",
            follow_text,
            asked + share,
            record.report or ("(running)" if not record.finished else "-"),
        )
    return table
