"""What the history keeps of interviews: each session with its plan, its coding parts (the drill
attempt that ran each, its outcome, the nudges and the code as graded) and every answer to a question
(the text, the key points covered, the time taken). Three tables in the history's SQLite database,
of its schema (drills/store/schema.py), made when the History opens it (``ensure_tables`` on any other
connection).

Every write is one statement, committed at once unless the caller holds a transaction open (then it
is part of the caller's): atomic on an autocommit connection (the History's) as on a default one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from autograd_drill.store.schema import SCHEMA
from autograd_drill.store.states import PartKind, PartOutcome, state_of

if TYPE_CHECKING:
    from autograd_drill.interview.plan import Plan

PART_KINDS = (PartKind.CODING, PartKind.FOLLOW_UP)  # the parts a coding attempt runs


class InterviewStoreError(ValueError):
    """A record the tables refuse: one line."""


def ensure_tables(conn: sqlite3.Connection) -> None:
    """Create the history's tables, the interview tables among them, where they are missing (idempotent;
    a History makes them on opening: this is for any other connection)."""
    conn.executescript(SCHEMA)


@dataclass(frozen=True)
class PartRecord:
    """A coding part of an interview: the core task or its follow-up. ``position`` is its index in
    ``Plan.parts``."""

    position: int
    kind: PartKind
    target: str
    budget: float
    attempt_id: int | None = None
    outcome: PartOutcome | None = None
    seconds: float | None = None
    nudges: int = 0
    code: str | None = None


@dataclass(frozen=True)
class AnswerRecord:
    """One answer to a question, as the user marked it against the strong answer."""

    question: str
    asked_at: float
    answered_at: float
    time_box: int
    answer: str
    covered: tuple[int, ...]
    """The key points covered, as 0-based indexes into the question's points."""
    points: int
    id: int | None = None
    interview_id: int | None = None

    @property
    def seconds(self) -> float:
        """The time taken to answer."""
        return max(0.0, self.answered_at - self.asked_at)

    @property
    def share(self) -> float:
        """The share of the key points covered."""
        return len(self.covered) / self.points if self.points else 0.0


@dataclass(frozen=True)
class InterviewRecord:
    id: int
    started_at: float
    ended_at: float | None
    plan: Plan
    report: str | None
    parts: tuple[PartRecord, ...]
    answers: tuple[AnswerRecord, ...]

    @property
    def finished(self) -> bool:
        return self.ended_at is not None

    def to_json(self) -> dict[str, Any]:
        """The interview as ``drill export`` writes it: without database ids (its own, its answers', the
        attempts'), as the export of attempts leaves them out."""
        return {
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "plan": self.plan.to_json(),
            "report": self.report,
            "parts": [{k: v for k, v in asdict(p).items() if k != "attempt_id"} for p in self.parts],
            "answers": [
                {k: v for k, v in asdict(a).items() if k not in ("id", "interview_id")} | {"covered": list(a.covered)}
                for a in self.answers
            ],
        }


# ---------------------------------------------------------------------------- writing


def _write(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> int | None:
    """Run one write; commit it unless it belongs to a transaction the caller opened. The row id."""
    inside = conn.in_transaction
    cursor = conn.execute(sql, args)
    if not inside:
        conn.commit()
    return cursor.lastrowid


def start_interview(conn: sqlite3.Connection, plan: Plan, now: float) -> int:
    """A new interview running ``plan``; its id."""
    row_id = _write(conn, "INSERT INTO interviews (started_at, plan) VALUES (?, ?)", (now, json.dumps(plan.to_json())))
    assert row_id is not None
    return row_id


def record_part(conn: sqlite3.Connection, interview_id: int, part: PartRecord) -> None:
    """Record a coding part, or update it (same position): call it when it starts and when it ends."""
    if part.kind not in PART_KINDS:
        raise InterviewStoreError(f"a part is {' or '.join(PART_KINDS)}, not {str(part.kind)!r}")
    if part.outcome is not None and part.outcome not in tuple(PartOutcome):
        raise InterviewStoreError(f"a part's outcome is one of {', '.join(PartOutcome)}, not {part.outcome!r}")
    _write(
        conn,
        "INSERT INTO interview_parts (interview_id, position, kind, target, budget, attempt_id, outcome, seconds, "
        "nudges, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (interview_id, position) DO UPDATE SET "
        "kind = excluded.kind, target = excluded.target, budget = excluded.budget, attempt_id = excluded.attempt_id, "
        "outcome = excluded.outcome, seconds = excluded.seconds, nudges = excluded.nudges, code = excluded.code",
        (interview_id, part.position, part.kind, part.target, part.budget, part.attempt_id, part.outcome,
         part.seconds, part.nudges, part.code),
    )  # fmt: skip


def record_answer(conn: sqlite3.Connection, interview_id: int | None, answer: AnswerRecord) -> int:
    """Record an answer (``interview_id`` None for one given outside an interview); its id."""
    if answer.points < 1 or any(not 0 <= i < answer.points for i in answer.covered):
        raise InterviewStoreError(f"covered key points {list(answer.covered)} are not among the {answer.points}")
    if len(set(answer.covered)) != len(answer.covered):
        raise InterviewStoreError(f"a key point is counted twice in {list(answer.covered)}")
    if answer.answered_at < answer.asked_at:
        raise InterviewStoreError("an answer cannot end before it was asked")
    row_id = _write(
        conn,
        "INSERT INTO interview_answers (interview_id, question, asked_at, answered_at, time_box, answer, covered, "
        "points) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (interview_id, answer.question, answer.asked_at, answer.answered_at, answer.time_box, answer.answer,
         json.dumps(sorted(answer.covered)), answer.points),
    )  # fmt: skip
    assert row_id is not None
    return row_id


def finish_interview(conn: sqlite3.Connection, interview_id: int, now: float) -> None:
    """End the interview (the first end stands)."""
    _write(conn, "UPDATE interviews SET ended_at = ? WHERE id = ? AND ended_at IS NULL", (now, interview_id))


def set_report(conn: sqlite3.Connection, interview_id: int, path: str) -> None:
    """Where the interview's transcript was written."""
    _write(conn, "UPDATE interviews SET report = ? WHERE id = ?", (path, interview_id))


# ---------------------------------------------------------------------------- reading


def _rows(conn: sqlite3.Connection, columns: Sequence[str], sql: str, args: tuple[object, ...]) -> list[dict[str, Any]]:
    """Rows as dicts, whatever the connection's row factory."""
    query = sql.format(columns=", ".join(columns))
    return [dict(zip(columns, tuple(row), strict=True)) for row in conn.execute(query, args)]


ANSWER_COLUMNS = (
    "id",
    "interview_id",
    "question",
    "asked_at",
    "answered_at",
    "time_box",
    "answer",
    "covered",
    "points",
)
PART_COLUMNS = ("position", "kind", "target", "budget", "attempt_id", "outcome", "seconds", "nudges", "code")


def _part(row: dict[str, Any]) -> PartRecord:
    outcome = None if row["outcome"] is None else PartOutcome(row["outcome"])
    return PartRecord(**(row | {"kind": PartKind(row["kind"]), "outcome": outcome}))


def _answer(row: dict[str, Any]) -> AnswerRecord:
    return AnswerRecord(**(row | {"covered": tuple(json.loads(row["covered"]))}))


def answers(conn: sqlite3.Connection, question: str | None = None) -> list[AnswerRecord]:
    """Every answer (to one question, when given), in the order they were given."""
    where, args = ("WHERE question = ?", (question,)) if question is not None else ("", ())
    sql = f"SELECT {{columns}} FROM interview_answers {where} ORDER BY answered_at, id"
    return [_answer(row) for row in _rows(conn, ANSWER_COLUMNS, sql, args)]


def get_interview(conn: sqlite3.Connection, interview_id: int) -> InterviewRecord:
    found = _rows(
        conn,
        ("id", "started_at", "ended_at", "plan", "report"),
        "SELECT {columns} FROM interviews WHERE id = ?",
        (interview_id,),
    )
    if not found:
        raise KeyError(interview_id)
    row = found[0]
    parts = _rows(
        conn,
        PART_COLUMNS,
        "SELECT {columns} FROM interview_parts WHERE interview_id = ? ORDER BY position",
        (interview_id,),
    )
    given = _rows(
        conn,
        ANSWER_COLUMNS,
        "SELECT {columns} FROM interview_answers WHERE interview_id = ? ORDER BY answered_at, id",
        (interview_id,),
    )
    from autograd_drill.interview.plan import Plan  # here: every command opens these tables, few read a plan

    return InterviewRecord(
        id=row["id"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        plan=Plan.from_json(json.loads(row["plan"])),
        report=row["report"],
        parts=tuple(_part(p) for p in parts),
        answers=tuple(_answer(a) for a in given),
    )  # fmt: skip


def interviews(conn: sqlite3.Connection) -> list[InterviewRecord]:
    """Every interview, oldest first (``drill interview --list``, ``drill export``)."""
    ids = [row[0] for row in conn.execute("SELECT id FROM interviews ORDER BY started_at, id")]
    return [get_interview(conn, i) for i in ids]


def running_interview(conn: sqlite3.Connection) -> InterviewRecord | None:
    """The latest interview not yet finished, if any (a session to resume or close)."""
    row = conn.execute("SELECT id FROM interviews WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else get_interview(conn, row[0])


def import_interview(conn: sqlite3.Connection, data: dict[str, Any]) -> int | None:
    """Add an interview as ``InterviewRecord.to_json`` wrote it (``drill import``); None when the history
    already holds one that started then. Inside the caller's transaction when it holds one; a malformed
    entry raises InterviewStoreError before anything is written."""
    from autograd_drill.interview.plan import Plan

    try:
        plan = Plan.from_json(data["plan"])
        parts = [PartRecord(**(p | {"kind": state_of(PartKind, p["kind"], "a part's kind")})) for p in data["parts"]]
        given = [AnswerRecord(**(a | {"covered": tuple(a["covered"])})) for a in data["answers"]]
        started, ended = float(data["started_at"]), data["ended_at"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InterviewStoreError(f"an interview cannot be read ({exc!r})") from None
    if conn.execute("SELECT 1 FROM interviews WHERE abs(started_at - ?) < 0.001", (started,)).fetchone():
        return None
    number = start_interview(conn, plan, started)
    for part in parts:
        record_part(conn, number, part)
    for answer in given:
        record_answer(conn, number, answer)
    if ended is not None:
        finish_interview(conn, number, float(ended))
    if data.get("report"):
        set_report(conn, number, str(data["report"]))
    return number
