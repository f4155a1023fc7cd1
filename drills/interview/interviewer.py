"""Running a mock interview (``drill interview``): the steps of a session over the history, as functions
that return data; drills/commands/interview.py does the terminal's part (the watch screen, the typed
answers) and drills/views/interview.py the rendering.

A session: ``begin`` (refused while a drill attempt is in progress); for each coding part
``start_part`` (a drill attempt, the stub written), then the watch until ``part_outcome`` says it is
over, then ``end_part`` (an attempt still running is given up: out of time, or the task abandoned);
the follow-up only when ``follow_up_budget`` leaves it its target time; each question answered and
self-checked, ``record_answer``; at the end, or when stopped, ``close`` writes the transcript.

A stopped interview (Ctrl-C, the input closed) keeps what was done: its parts and answers are
recorded, its transcript written, and it stays unfinished (no end time), as the transcript says.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import tzinfo
from pathlib import Path

from autograd_drill.errors import DrillError
from autograd_drill.grader.solution_file import UnreadableFile, read_solution
from autograd_drill.interview.bank import Question, load_bank
from autograd_drill.interview.due import question_card
from autograd_drill.interview.plan import Plan, follow_up_window
from autograd_drill.interview.store import (
    AnswerRecord,
    InterviewRecord,
    PartRecord,
    answers,
    finish_interview,
    get_interview,
    record_answer,
    record_part,
    running_interview,
    set_report,
    start_interview,
)
from autograd_drill.interview.transcript import report_path, transcript
from autograd_drill.loop import session
from autograd_drill.loop.clock import Clock
from autograd_drill.loop.diff import symbol_sources
from autograd_drill.loop.session import Started
from autograd_drill.store.attempt import AttemptInProgress
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.paths import atomic_write, interviews_folder
from autograd_drill.store.states import Outcome, PartOutcome
from autograd_drill.targets import catalog as merged


def answer_path(interview_id: int, question: str) -> Path:
    """The file an answer is written in (``$EDITOR``) or kept in (typed in the terminal). A question id
    qualified by its pack (``layers/<id>``) is written with a dot for the slash (no id has a dot)."""
    return interviews_folder() / "answers" / f"interview-{interview_id}-{question.replace('/', '.')}.txt"


def begin(store: History, plan: Plan, clock: Clock) -> int:
    """A new interview running ``plan``; its id. Refused while a drill attempt is in progress."""
    try:
        store.require_free()
    except AttemptInProgress as exc:
        raise DrillError(
            f"{session.describe_active(exc.attempt, clock())}: finish it first (drill watch), or end it with "
            "drill abandon or drill give-up, then start the interview"
        ) from None
    return start_interview(store.db, plan, clock())


@dataclass(frozen=True)
class Coding:
    """A coding part under way: its record (outcome None) and the attempt that runs it."""

    part: PartRecord
    started: Started

    @property
    def attempt(self) -> Attempt:
        return self.started.attempt


def start_part(
    store: History, interview_id: int, plan: Plan, position: int, budget: int, workspace: Path, clock: Clock
) -> Coding:
    """Start the coding part at ``position`` of the plan with ``budget`` seconds: the stub written,
    the drill attempt started, the part recorded."""
    planned = plan.parts[position]
    started = session.start(store, planned.id, workspace, clock)
    part = PartRecord(position, planned.kind, planned.id, budget, attempt_id=started.attempt.id)
    record_part(store.db, interview_id, part)
    return Coding(part, started)


NO_PAUSE = "an interview's clock cannot be paused: it runs, as a real interview's does (Ctrl-C in it stops it)"


def refuse_pause(store: History) -> None:
    """``drill pause`` (in another terminal) refused while the attempt in progress is an interview's
    coding part: an interview has no pause."""
    active = store.active()
    running = running_interview(store.db)
    if active is None or running is None:
        return
    if any(p.attempt_id == active.id and p.outcome is None for p in running.parts):
        raise DrillError(f"{NO_PAUSE}; interview {running.id} runs {active.target}")


def part_outcome(attempt: Attempt, budget: float, now: float) -> PartOutcome | None:
    """How a coding part stands: passed, gave-up (the attempt ended otherwise, in another terminal),
    out-of-time (its clock reached the budget), or None while it runs."""
    if attempt.outcome is Outcome.PASSED:
        return PartOutcome.PASSED
    if not attempt.in_progress:
        return PartOutcome.GAVE_UP
    return PartOutcome.OUT_OF_TIME if attempt.elapsed(now) >= budget else None


def end_part(store: History, interview_id: int, coding: Coding, outcome: PartOutcome, clock: Clock) -> PartRecord:
    """Record how the part ended, its nudges and its code as last graded; a drill attempt still
    running is given up (its file stays where it is)."""
    attempt = store.get(coding.attempt.id)
    if attempt.in_progress:
        attempt = session.give_up(store, clock)
    last = store.last_submission(attempt)
    code = drilled_code(last.source if last is not None else _read(attempt.file), coding.part.target)
    seconds = attempt.clock_at_end  # ended by now: passed, given up here, or ended in another terminal
    nudges = store.hints_shown(attempt, coding.part.target)
    part = replace(coding.part, outcome=outcome, seconds=seconds, nudges=nudges, code=code)
    record_part(store.db, interview_id, part)
    return part


def drilled_code(source: str | None, target: str) -> str | None:
    """The functions the part drilled, from the file as graded (the rest of it is the reference); the
    whole file when they cannot all be found in it (it does not parse, say)."""
    if source is None:
        return None
    symbols = merged().get(target).symbols
    found = symbol_sources(source)
    if not all(s in found for s in symbols):
        return source
    code = ""
    for symbol in symbols:  # spaced as a formatter would: two blank lines before a top-level def
        piece = found[symbol].strip("\n")
        code += ("\n\n\n" if not piece.startswith((" ", "\t")) else "\n\n") * bool(code) + piece
    return code + "\n"


def _read(file: Path) -> str | None:
    try:
        return read_solution(file).decode("utf-8", "surrogateescape")
    except UnreadableFile:  # missing, odd (a FIFO would hang a plain read) or too big
        return None


def skip_part(store: History, interview_id: int, plan: Plan, position: int) -> PartRecord:
    """The follow-up not run (the task did not pass, or too late): recorded as skipped."""
    planned = plan.parts[position]
    part = PartRecord(position, planned.kind, planned.id, planned.budget, outcome=PartOutcome.SKIPPED)
    record_part(store.db, interview_id, part)
    return part


def follow_up_budget(plan: Plan, coding: PartRecord) -> int | None:
    """The follow-up's seconds once the coding task ended: None when it did not pass, or passed too
    late to leave the follow-up its target time."""
    if coding.outcome != PartOutcome.PASSED or coding.seconds is None:
        return None
    return follow_up_window(plan, coding.seconds)


def answered(
    store: History,
    interview_id: int,
    question: Question,
    asked_at: float,
    answered_at: float,
    text: str,
    covered: tuple[int, ...],
) -> AnswerRecord:
    """Record an answer, self-checked; it is a review of the question's schedule."""
    answer = AnswerRecord(question.id, asked_at, answered_at, question.time_box, text, covered, len(question.points))
    number = record_answer(store.db, interview_id, answer)
    return replace(answer, id=number, interview_id=interview_id)


def asked(interview_id: int, question: Question) -> Path:
    """A question is asked: its answer file is written (the prompt, the marker), so the transcript
    knows it was reached even if the interview stops before a line is typed."""
    from autograd_drill.interview.answering import answer_template

    path = answer_path(interview_id, question.id)
    if not path.exists():
        atomic_write(path, answer_template(question))
    return path


def keep_answer(interview_id: int, question: Question, text: str) -> Path:
    """Keep an answer typed in the terminal in its answer file too: a Ctrl-C at the self-check loses nothing."""
    from autograd_drill.interview.answering import answer_template

    path = answer_path(interview_id, question.id)
    atomic_write(path, answer_template(question) + text + "\n")
    return path


def due_after(store: History, question: Question, now: float) -> float:
    """When the question comes due again, its answers so far replayed (its card alone, not the deck's)."""
    order = load_bank().ids.index(question.id)
    return question_card(question.id, order, answers(store.db, question.id), now).due


def close(
    store: History, interview_id: int, clock: Clock, tz: tzinfo | None, finished: bool
) -> tuple[InterviewRecord, Path]:
    """End the interview (unless stopped), write its transcript in the interviews folder and record
    where; the record and the path."""
    if finished:
        finish_interview(store.db, interview_id, clock())
    record = get_interview(store.db, interview_id)
    zone = tz or local_zone()
    path = report_path(interviews_folder(), record, zone)
    planned = [q.id for q in record.plan.questions]
    reached = {q for q in planned if answer_path(interview_id, q).exists()}
    earlier = {a.question for q in planned for a in answers(store.db, q) if a.interview_id != interview_id}
    atomic_write(path, transcript(record, load_bank(), merged(), zone, reached, earlier))
    set_report(store.db, interview_id, str(path))
    return replace(record, report=str(path)), path


def local_zone() -> tzinfo:
    from datetime import datetime

    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone
