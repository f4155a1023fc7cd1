"""The history: every attempt, split, hint and graded version of the user's file, in SQLite.

Timers live here, not in a process: an attempt's clock is ``started_at`` plus the pauses, so
closing the terminal changes nothing. WAL and a busy timeout let ``drill watch`` and ``drill
check`` write at the same time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

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
    rung TEXT NOT NULL DEFAULT 'recall'    -- copy | cloze | recall (the learning ladder); full: recall
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
"""


RUNGS = ("copy", "cloze", "recall")
"""The learning ladder of a target, bottom up: retype the reference in view, fill in its key lines, write
it from memory (the drill as it always was). The full drill is recall only."""
RUNG_COLUMN = "ALTER TABLE attempts ADD COLUMN rung TEXT NOT NULL DEFAULT 'recall'"
"""A history made before the learning ladder gets the column: its attempts read as recall, the drill
as it was."""


class HistoryError(RuntimeError):
    """The history cannot be used (for instance it is not a database)."""


@dataclass(frozen=True)
class Attempt:
    id: int
    target: str
    file: Path
    started_at: float
    paused_at: float | None
    paused_total: float
    ended_at: float | None
    outcome: str | None
    assisted: bool
    archive: str | None
    splits: dict[str, float] = field(default_factory=dict)
    rung: str = "recall"
    """The rung of the learning ladder it was on: copy, cloze or recall (drills/loop/stubs.py, RUNGS)."""

    @property
    def in_progress(self) -> bool:
        return self.outcome is None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def elapsed(self, now: float) -> float:
        """Seconds on the clock: wall time since the start, less the pauses; frozen once ended or paused."""
        end = self.ended_at if self.ended_at is not None else self.paused_at if self.paused_at is not None else now
        return max(0.0, end - self.started_at - self.paused_total)

    @property
    def time(self) -> float | None:
        """The finishing time of a passed attempt: the clock at the save that made every target pass
        (in a full drill, later than its last split when a target that had passed failed again)."""
        if self.outcome != "passed" or self.ended_at is None:
            return None
        return self.elapsed(self.ended_at)


@dataclass(frozen=True)
class Submission:
    id: int
    attempt_id: int
    graded_at: float
    elapsed: float | None
    source: str
    result: str
    passed: bool


def _text(source: bytes | str) -> str:
    """A stored source as text; bytes that are not UTF-8 survive as surrogates (surrogateescape)."""
    return source if isinstance(source, str) else source.decode("utf-8", "surrogateescape")


def _submission(r: sqlite3.Row) -> Submission:
    return Submission(
        r["id"], r["attempt_id"], r["graded_at"], r["elapsed"], _text(r["source"]), r["result"], bool(r["passed"])
    )


class History:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(path, timeout=10.0, isolation_level=None)
            self.db.execute("PRAGMA busy_timeout = 10000")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.executescript(SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"{path} is not a usable history database ({exc})") from exc
        self.db.row_factory = sqlite3.Row

    def _migrate(self) -> None:
        """Add what a history made by an older version lacks (two commands opening it at once: the
        second finds the column there)."""
        if "rung" in {row[1] for row in self.db.execute("PRAGMA table_info(attempts)")}:
            return
        try:
            self.db.execute(RUNG_COLUMN)
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ------------------------------------------------------------------ attempts

    def _attempt(self, row: sqlite3.Row) -> Attempt:
        splits = {
            r["target"]: r["elapsed"]
            for r in self.db.execute(
                "SELECT target, elapsed FROM splits WHERE attempt_id = ? ORDER BY elapsed, rowid", (row["id"],)
            )
        }
        return Attempt(
            id=row["id"],
            target=row["target"],
            file=Path(row["file"]),
            started_at=row["started_at"],
            paused_at=row["paused_at"],
            paused_total=row["paused_total"],
            ended_at=row["ended_at"],
            outcome=row["outcome"],
            assisted=bool(row["assisted"]),
            archive=row["archive"],
            splits=splits,
            rung=row["rung"],
        )

    def get(self, attempt_id: int) -> Attempt:
        row = self.db.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
        if row is None:
            raise KeyError(attempt_id)
        return self._attempt(row)

    def active(self) -> Attempt | None:
        row = self.db.execute("SELECT * FROM attempts WHERE outcome IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self._attempt(row)

    def attempts(self, target: str | None = None) -> list[Attempt]:
        """Attempts, oldest first; of one target (or 'full') when given."""
        if target is None:
            rows = self.db.execute("SELECT * FROM attempts ORDER BY started_at, id").fetchall()
        else:
            rows = self.db.execute(
                "SELECT * FROM attempts WHERE target = ? ORDER BY started_at, id", (target,)
            ).fetchall()
        return [self._attempt(r) for r in rows]

    def start(self, target: str, file: Path, now: float, rung: str = "recall") -> Attempt:
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM attempts WHERE outcome IS NULL").fetchone():
                raise HistoryError("an attempt is already in progress")
            cursor = db.execute(
                "INSERT INTO attempts (target, file, started_at, rung) VALUES (?, ?, ?, ?)",
                (target, str(file), now, rung),
            )
        assert cursor.lastrowid is not None
        return self.get(cursor.lastrowid)

    def pause(self, attempt: Attempt, now: float) -> Attempt:
        self.db.execute("UPDATE attempts SET paused_at = ? WHERE id = ? AND paused_at IS NULL", (now, attempt.id))
        return self.get(attempt.id)

    def resume(self, attempt: Attempt, now: float) -> Attempt:
        self.db.execute(
            "UPDATE attempts SET paused_total = paused_total + (? - paused_at), paused_at = NULL "
            "WHERE id = ? AND paused_at IS NOT NULL",
            (now, attempt.id),
        )
        return self.get(attempt.id)

    def finish(self, attempt: Attempt, outcome: str, now: float, archive: str | None = None) -> Attempt:
        """End the attempt if it is still in progress; a paused clock stays stopped at its pause.

        An attempt already ended (say, abandoned in another terminal while this one graded) keeps
        its ending: the first to end it wins. ``now`` before the pause (the save graded while the
        clock was paused) ends it then: the clock at that save is its time.
        """
        with self.transaction() as db:
            row = db.execute("SELECT paused_at, outcome FROM attempts WHERE id = ?", (attempt.id,)).fetchone()
            if row["outcome"] is None:
                end = now if row["paused_at"] is None else min(now, row["paused_at"])
                db.execute(
                    "UPDATE attempts SET ended_at = ?, outcome = ?, archive = ?, paused_at = NULL "
                    "WHERE id = ? AND outcome IS NULL",
                    (end, outcome, archive, attempt.id),
                )
        return self.get(attempt.id)

    def mark_assisted(self, attempt: Attempt) -> None:
        self.db.execute("UPDATE attempts SET assisted = 1 WHERE id = ?", (attempt.id,))

    def add_split(self, attempt: Attempt, target: str, elapsed: float) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO splits (attempt_id, target, elapsed) VALUES (?, ?, ?)", (attempt.id, target, elapsed)
        )

    # ------------------------------------------------------------------ submissions and hints

    def add_submission(
        self, attempt: Attempt | None, now: float, elapsed: float | None, source: str, result: str, passed: bool
    ) -> int:
        raw = source.encode("utf-8", "surrogateescape")  # a file that is not UTF-8 is kept as it is
        cursor = self.db.execute(
            "INSERT INTO submissions (attempt_id, graded_at, elapsed, sha256, source, result, passed) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                attempt.id if attempt else None,
                now,
                elapsed,
                hashlib.sha256(raw).hexdigest(),
                raw,
                result,
                int(passed),
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def submissions(self, attempt: Attempt) -> list[Submission]:
        rows = self.db.execute(
            "SELECT * FROM submissions WHERE attempt_id = ? ORDER BY graded_at, id", (attempt.id,)
        ).fetchall()
        return [_submission(r) for r in rows]

    def last_submission(self, attempt: Attempt) -> Submission | None:
        """The attempt's latest graded version (without reading the others)."""
        row = self.db.execute(
            "SELECT * FROM submissions WHERE attempt_id = ? ORDER BY graded_at DESC, id DESC LIMIT 1", (attempt.id,)
        ).fetchone()
        return None if row is None else _submission(row)

    def hints(self, attempt: Attempt) -> list[tuple[str, int]]:
        """(target, hints shown) for each target of the attempt that had any, by target."""
        rows = self.db.execute(
            "SELECT target, shown FROM hints WHERE attempt_id = ? ORDER BY target", (attempt.id,)
        ).fetchall()
        return [(r["target"], int(r["shown"])) for r in rows]

    def add_finished(
        self,
        target: str,
        file: str,
        started_at: float,
        paused_total: float,
        ended_at: float,
        outcome: str,
        assisted: bool,
        archive: str | None,
        splits: Iterable[tuple[str, float]],
        hints: Iterable[tuple[str, int]],
        rung: str = "recall",
    ) -> Attempt:
        """Add an attempt that has ended, whole (``drill import``); inside the caller's transaction."""
        cursor = self.db.execute(
            "INSERT INTO attempts (target, file, started_at, paused_total, ended_at, outcome, assisted, archive, rung) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (target, file, started_at, paused_total, ended_at, outcome, int(assisted), archive, rung),
        )
        assert cursor.lastrowid is not None
        attempt_id = cursor.lastrowid
        self.db.executemany(
            "INSERT INTO splits (attempt_id, target, elapsed) VALUES (?, ?, ?)", [(attempt_id, t, e) for t, e in splits]
        )
        self.db.executemany(
            "INSERT INTO hints (attempt_id, target, shown) VALUES (?, ?, ?)", [(attempt_id, t, n) for t, n in hints]
        )
        return self.get(attempt_id)

    def hints_shown(self, attempt: Attempt, target: str) -> int:
        row = self.db.execute(
            "SELECT shown FROM hints WHERE attempt_id = ? AND target = ?", (attempt.id, target)
        ).fetchone()
        return 0 if row is None else int(row["shown"])

    def show_hint(self, attempt: Attempt, target: str) -> int:
        """Count one more hint shown; the number shown so far."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO hints (attempt_id, target, shown) VALUES (?, ?, 1) "
                "ON CONFLICT (attempt_id, target) DO UPDATE SET shown = shown + 1",
                (attempt.id, target),
            )
            db.execute("UPDATE attempts SET assisted = 1 WHERE id = ?", (attempt.id,))
        return self.hints_shown(attempt, target)


def open_history(path: Path) -> tuple[History, str | None]:
    """Open the history; a corrupt file is moved aside (kept as a backup) and a new one started.

    Returns the history and, when that happened, a message for the user.
    """
    try:
        history = History(path)
        if history.db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            history.close()
            raise HistoryError("the integrity check failed")
        return history, None
    except (HistoryError, sqlite3.DatabaseError) as exc:
        backup = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        for suffix in ("", "-wal", "-shm"):
            side = Path(str(path) + suffix)
            if side.exists():
                side.rename(Path(str(backup) + suffix))
        return History(
            path
        ), f"the history {path} could not be read ({exc}); it was moved to {backup} and a new one started"
