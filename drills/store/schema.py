"""The history's tables, as this version writes them (the interviews' among them), and what it makes of a history written by
another version: an older one gets the columns it lacks; a newer one (a higher ``user_version``, a
column this version does not know that a write must fill) is read where the columns this version
reads are there, and never written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from autograd_drill.store.faults import HistoryError

SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    target TEXT NOT NULL,                  -- a target id, or 'full'
    file TEXT NOT NULL,                    -- the solution file
    started_at REAL NOT NULL,              -- epoch seconds
    paused_at REAL,                        -- set while paused
    paused_total REAL NOT NULL DEFAULT 0,  -- seconds spent paused, before paused_at
    ended_at REAL,
    outcome TEXT,                          -- NULL while in progress; passed | gave-up | abandoned
    assisted INTEGER NOT NULL DEFAULT 0,   -- hints or a peek at the reference
    archive TEXT,                          -- where the file went when the attempt was abandoned
    rung TEXT NOT NULL DEFAULT 'recall',   -- copy | cloze | recall (the learning ladder); full: recall
    reason TEXT,                           -- why it is assisted besides hints and peeks: edited while paused...
    clock_banked REAL,                     -- seconds on the clock at the last clock event (NULL: made before)
    clock_boot TEXT,                       -- while running: the boot of that event
    clock_mono REAL,                       --   its monotonic reading
    clock_wall REAL,                       --   its wall clock (for a caller without a monotonic reading)
    clock_sha256 TEXT                      -- the file's sha256 at that event (at the pause, when paused)
);
CREATE TABLE IF NOT EXISTS splits (
    attempt_id INTEGER NOT NULL REFERENCES attempts(id),
    target TEXT NOT NULL,
    elapsed REAL NOT NULL,                 -- clock time at which the target first passed
    PRIMARY KEY (attempt_id, target)
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    attempt_id INTEGER REFERENCES attempts(id),
    graded_at REAL NOT NULL,
    elapsed REAL,
    sha256 TEXT NOT NULL,
    source BLOB NOT NULL,                  -- the file as graded, byte for byte
    result TEXT NOT NULL,                  -- drill grade --json, with failure messages
    passed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hints (
    attempt_id INTEGER REFERENCES attempts(id),
    target TEXT NOT NULL,
    shown INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, target)
);
CREATE INDEX IF NOT EXISTS attempts_by_target ON attempts(target, started_at);
CREATE INDEX IF NOT EXISTS submissions_by_attempt ON submissions(attempt_id, graded_at);
-- the mock interviews (drills/interview/store.py reads and writes them)
CREATE TABLE IF NOT EXISTS interviews (
    id INTEGER PRIMARY KEY,
    started_at REAL NOT NULL,              -- epoch seconds
    ended_at REAL,                         -- NULL while it runs (or if it was never finished)
    plan TEXT NOT NULL,                    -- Plan.to_json(): the session as planned
    report TEXT                            -- where its Markdown transcript was written
);
CREATE TABLE IF NOT EXISTS interview_parts (
    interview_id INTEGER NOT NULL REFERENCES interviews(id),
    position INTEGER NOT NULL,             -- its place in the plan
    kind TEXT NOT NULL,                    -- coding | follow-up
    target TEXT NOT NULL,                  -- the catalog target drilled
    budget REAL NOT NULL,                  -- seconds it was given
    attempt_id INTEGER REFERENCES attempts(id),  -- the drill attempt that ran it
    outcome TEXT,                          -- passed | gave-up | out-of-time | skipped; NULL while it runs
    seconds REAL,                          -- the clock at its end
    nudges INTEGER NOT NULL DEFAULT 0,     -- hints shown, as the interviewer's nudges
    code TEXT,                             -- the file as last graded
    PRIMARY KEY (interview_id, position)
);
CREATE TABLE IF NOT EXISTS interview_answers (
    id INTEGER PRIMARY KEY,
    interview_id INTEGER REFERENCES interviews(id),  -- NULL: answered outside an interview
    question TEXT NOT NULL,                -- a question id of drills/interview/questions.toml
    asked_at REAL NOT NULL,
    answered_at REAL NOT NULL,             -- the review time of the question's schedule
    time_box INTEGER NOT NULL,             -- seconds it was given
    answer TEXT NOT NULL,                  -- what the user wrote, as written
    covered TEXT NOT NULL,                 -- JSON list of the key points covered (0-based indexes)
    points INTEGER NOT NULL                -- how many key points the question had
);
CREATE INDEX IF NOT EXISTS answers_by_question ON interview_answers(question, answered_at);
"""


RUNG_COLUMN = "ALTER TABLE attempts ADD COLUMN rung TEXT NOT NULL DEFAULT 'recall'"
"""A history made before the learning ladder gets the column: its attempts read as recall, the drill
as it was."""
ADDED = "reason TEXT, clock_banked REAL, clock_boot TEXT, clock_mono REAL, clock_wall REAL, clock_sha256 TEXT"
COLUMNS = {"rung": RUNG_COLUMN} | {c.split()[0]: f"ALTER TABLE attempts ADD COLUMN {c}" for c in ADDED.split(", ")}
"""What a history made by an older version lacks, added when it is opened. Its attempts keep the
wall-clock timing they were made with (``clock_banked`` NULL) until their next clock event."""

SCHEMA_VERSION = 1
"""The schema this version writes, kept in ``PRAGMA user_version`` (0: a history made before it was
kept: the same tables, less some of ``COLUMNS``). A history of a higher version is read, never written."""
UPGRADE = "upgrade, or point DRILL_HOME elsewhere"


def _columns(db: sqlite3.Connection, table: str) -> dict[str, tuple[bool, object]]:
    """The columns of ``table``: name -> (NOT NULL, its default)."""
    return {r[1]: (bool(r[3]), r[4]) for r in db.execute(f"PRAGMA table_info({table})")}


def _ours() -> dict[str, set[str]]:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    ours = {t: set(_columns(db, t)) for t in tables}
    db.close()
    return ours


OURS = _ours()
"""Each table of ``SCHEMA`` and its columns."""


def inspect(db: sqlite3.Connection, path: Path) -> str | None:
    """Why this version must not write the history at ``path`` (None: it may). Raises HistoryError
    when it cannot read it either: a column it reads is missing (renamed by another version, say)."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    newer = version > SCHEMA_VERSION
    said = (
        f"{path} was written by a newer autograd-drill (schema {version}, this one reads up to {SCHEMA_VERSION})"
        if newer
        else f"{path} (schema {version}) was changed by another program or version"
    )
    unknown = []
    for table, columns in OURS.items():
        have = _columns(db, table)
        if not have:
            if newer:
                raise HistoryError(f"{said} and has no table {table}: {UPGRADE}")
            continue  # made below (CREATE TABLE IF NOT EXISTS)
        missing = sorted(c for c in columns - set(have) if not (table == "attempts" and c in COLUMNS))
        if missing:
            raise HistoryError(f"{said} and has no column {table}.{missing[0]}, which this one reads: {UPGRADE}")
        # A column that a write must fill (NOT NULL, no default): this version's inserts would fail.
        unknown += [
            f"{table}.{c}" for c, (notnull, default) in have.items() if c not in columns and notnull and default is None
        ]
    if newer:
        return f"{said}: it is read, not written: {UPGRADE}"
    if unknown:
        return f"{said}: it has a column this one does not fill ({unknown[0]}): it is read, not written: {UPGRADE}"
    return None


def migrate(db: sqlite3.Connection) -> None:
    """Make an older history this version's: the tables and columns it lacks (two commands opening it
    at once: the second finds the column there), then its ``user_version``."""
    db.executescript(SCHEMA)
    have = set(_columns(db, "attempts"))
    for name, statement in COLUMNS.items():
        if name in have:
            continue
        try:
            db.execute(statement)
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise
    if int(db.execute("PRAGMA user_version").fetchone()[0]) < SCHEMA_VERSION:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
