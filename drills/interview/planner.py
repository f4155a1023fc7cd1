"""Choosing a mock interview's plan (``autograd_drill.interview.plan``): a pure function of the catalog, the bank,
the schedule and the clock, so ``drill interview --plan`` shows exactly the session ``drill interview`` runs.

The time: the questions get their time boxes; the coding window is the rest. Out of it the follow-up
is set aside its target time, and the coding task has what remains, so the follow-up runs when the
coding task passes within its budget (and then gets all the window left: ``follow_up_window``). When
the window cannot hold both, the follow-up is left out of the plan, with a note.

The task: the one named (a core target or a follow-up, of any installed pack: ``layers/layernorm``),
else the first core target of any pack in the schedule's queue (most overdue first) that fits in the
time: follow-ups come after their core task, and a full drill (``full``, ``layers/full``) is a session
of its own, never an interview's task. A task with no follow-up paired (a pack whose questions.toml
has no [follow_up] table) has none, with a note, as when the window has no time for one.

The questions, three from 30 minutes on (two below), each chosen in turn from the best tier left:

    1. answered before and due again, most overdue first
    2. new, about the coding task or its follow-up (bank order)
    3. new, about anything else
    4. about the task, not due yet (soonest due first)
    5. anything else, soonest due first

so a question rated in one interview is not asked again before it is due while the bank has a new
one that fits: answered questions not yet due only fill in once every question has been answered.

and, within a tier, a difficulty not chosen yet comes first (a mix, as interviewers pace them). A
question whose time box would leave the coding task less than its target time is passed over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from autograd_drill.grader.catalog import Catalog, format_time
from autograd_drill.interview.plan import MAX_MINUTES, MIN_MINUTES, Part, Plan
from autograd_drill.store.states import PartKind

if TYPE_CHECKING:
    from autograd_drill.interview.bank import Bank
    from autograd_drill.interview.due import QuestionCard

DAY = 86_400.0


class PlanError(ValueError):
    """No interview can be planned as asked: one line, saying what would work."""


def _days(seconds: float) -> str:
    days = round(abs(seconds) / DAY)
    return "today" if days == 0 else f"{days} day{'s' if days != 1 else ''}"


def _tier(card: QuestionCard, related: bool, now: float) -> tuple[int, float, str]:
    """(tier, key within it, why) of a question (the module docstring's tiers)."""
    if not card.new and card.due <= now:
        overdue = now - card.due
        return 1, card.due, "due today" if overdue < DAY else f"due, {_days(overdue)} overdue"
    if related:
        return (
            (2, card.order, "new, about the task")
            if card.new
            else (4, card.due, f"about the task, due in {_days(card.due - now)}")
        )
    return (3, card.order, "new") if card.new else (5, card.due, f"due in {_days(card.due - now)}")


def choose_questions(
    bank: Bank, cards: Sequence[QuestionCard], related: set[str], count: int, room: int, now: float
) -> list[Part]:
    """``count`` questions (fewer if the time boxes do not fit in ``room`` seconds), per the tiers;
    each choice leaves room for the shortest time boxes of those still to choose."""
    by_id = {c.question: c for c in cards}
    ranked = []
    for question in bank.questions:
        card = by_id.get(question.id)
        if card is None:
            continue
        tier, key, why = _tier(card, question.target in related, now)
        ranked.append((tier, key, card.order, question, why))
    ranked.sort(key=lambda r: r[:3])
    chosen: list[Part] = []
    difficulties: set[int] = set()
    shortest = min((r[3].time_box for r in ranked), default=0)
    while len(chosen) < count:
        room_now = room - shortest * (count - len(chosen) - 1)  # leave room for the questions still to choose
        fits = [r for r in ranked if r[3].time_box <= room_now and r[3].id not in {p.id for p in chosen}]
        if not fits:
            break
        best_tier = fits[0][0]
        tier = [r for r in fits if r[0] == best_tier]
        _, _, _, question, why = next((r for r in tier if r[3].difficulty not in difficulties), tier[0])
        chosen.append(
            Part(PartKind.QUESTION, question.id, question.time_box, f"{why}; difficulty {question.difficulty}")
        )
        difficulties.add(question.difficulty)
        room -= question.time_box
    return chosen


def _task(catalog: Catalog, target: str | None, queue: Sequence[str], fits: int) -> tuple[str, str]:
    """The coding task and why."""
    if target is not None:
        resolved = catalog.resolve(target)  # UnknownTarget (a KeyError) names the closest id
        if catalog.is_full(resolved):
            raise PlanError(
                f"{resolved} is a {format_time(catalog.target_time(resolved))} drill of its own: "
                "an interview's task is one target"
            )
        return resolved, "asked for"
    core = {t.id for t in catalog.every if not t.extension}  # every pack's core targets
    for drill_id in queue:
        if drill_id in core and catalog.get(drill_id).target_time <= fits:
            return drill_id, "first in the schedule's queue"
    raise PlanError("no target fits in the time: ask for more minutes (--minutes)")


def plan_interview(
    catalog: Catalog,
    bank: Bank,
    minutes: int,
    target: str | None,
    queue: Sequence[str],
    cards: Sequence[QuestionCard],
    now: float,
) -> Plan:
    """The session to run: ``queue`` is the drill ids in the schedule's order (autograd_drill.store.schedule.queue),
    ``cards`` the question cards (autograd_drill.interview.due.question_deck)."""
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise PlanError(f"an interview lasts {MIN_MINUTES} to {MAX_MINUTES} minutes, not {minutes}")
    total = minutes * 60
    count = 3 if minutes >= 30 else 2
    shortest = sum(sorted(q.time_box for q in bank.questions)[:count])
    task, task_why = _task(catalog, target, queue, total - shortest)
    task_time = catalog.get(task).target_time
    follow_id = bank.follow_up(task)
    related = {task} | ({follow_id} if follow_id else set())
    questions = choose_questions(bank, cards, related, count, total - task_time, now)
    if len(questions) < 2:
        need = (task_time + shortest + 59) // 60
        raise PlanError(
            f"{minutes} minutes do not hold {task} ({format_time(task_time)}) and two questions: ask for at least {need}"
        )
    window = total - sum(q.budget for q in questions)
    parts = [Part(PartKind.CODING, task, window, f"{task_why}; target time {format_time(task_time)}")]
    notes = []
    if follow_id is None and not catalog.get(task).extension:
        notes.append(f"no follow-up: the {catalog.get(task).pack} pack pairs none with {task}")
    if follow_id is not None:
        follow_time = catalog.get(follow_id).target_time
        if window - follow_time >= task_time:
            parts[0] = Part(PartKind.CODING, task, window - follow_time, parts[0].why)
            parts.append(
                Part(
                    PartKind.FOLLOW_UP,
                    follow_id,
                    follow_time,
                    f"paired with {task}; if the task passes within its budget",
                )
            )
        else:
            notes.append(
                f"no time for the follow-up {follow_id} ({format_time(follow_time)}): ask for more minutes to include it"
            )
    return Plan(minutes, now, (*parts, *questions), tuple(notes))
