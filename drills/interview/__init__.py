"""The mock interview (``drill interview``): the question bank, its schedule, the plan of a session,
what the history keeps of one, and its Markdown transcript."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3


def any_answer(conn: sqlite3.Connection) -> bool:
    """The history holds an answer to an interview question: without one, no question is due
    (drills/interview/due.py ``due_questions`` lists the questions answered before), and ``drill next``
    reads neither the bank nor the questions' schedule."""
    return conn.execute("SELECT 1 FROM interview_answers LIMIT 1").fetchone() is not None
