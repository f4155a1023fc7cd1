"""The history: every attempt, split, hint and graded version of the user's file, in SQLite.

Timers live here, not in a process: an attempt's clock is ``started_at`` plus the pauses, so
closing the terminal changes nothing. WAL and a busy timeout let ``drill watch`` and ``drill
check`` write at the same time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from autograd_drill.store.attempt import (
    CHANGED_ACROSS_REBOOT,
    EDITED_WHILE_PAUSED,
    Attempt,
    AttemptInProgress,
    Submission,
    mark,
)
from autograd_drill.store.faults import HistoryCorrupt, HistoryError, busy_timeout, fault, os_fault
from autograd_drill.store.schema import COLUMNS, SCHEMA, UPGRADE, inspect, migrate
from autograd_drill.store.states import Outcome, Rung, state_of

__all__ = ["COLUMNS", "SCHEMA", "Attempt", "Submission", "History", "HistoryCorrupt", "HistoryError", "open_history"]


def _text(source: bytes | str) -> str:
    """A stored source as text; bytes that are not UTF-8 survive as surrogates (surrogateescape)."""
    return source if isinstance(source, str) else source.decode("utf-8", "surrogateescape")


def _submission(r: sqlite3.Row) -> Submission:
    return Submission(
        r["id"], r["attempt_id"], r["graded_at"], r["elapsed"], _text(r["source"]), r["result"], bool(r["passed"])
    )


class History:
    def __init__(self, path: Path) -> None:
        """Open the history at ``path`` (made if missing); a HistoryError in one line when it cannot be
        (a HistoryCorrupt when it is damaged). A history written by a newer version is opened to be
        read: ``refusal`` says why it is not written."""
        self.path = path
        self.refusal: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise os_fault(exc, path) from None
        wait = busy_timeout()
        try:
            self.db = sqlite3.connect(path, timeout=wait, isolation_level=None)
        except sqlite3.Error as exc:
            raise fault(exc, path) from None
        try:
            self.db.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            self.refusal = inspect(self.db, path)
            if self.refusal is None:
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
                migrate(self.db)
            else:
                self.db.execute("PRAGMA query_only = ON")  # not one byte of a newer version's history changes
        except sqlite3.Error as exc:
            self.db.close()
            raise fault(exc, path) from None
        except HistoryError:
            self.db.close()
            raise
        self.db.row_factory = sqlite3.Row

    def writable(self) -> None:
        """Raise HistoryError when this version does not write this history (a newer schema)."""
        if self.refusal is not None:
            raise HistoryError(self.refusal)

    def fault(self, exc: sqlite3.Error | HistoryError) -> HistoryError:
        """An error met on this history, as the one line that names its cause (faults.fault)."""
        return fault(exc, self.path, self.refusal) if isinstance(exc, sqlite3.Error) else exc

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All or nothing, holding the write lock from the start; inside another transaction, a part
        of it (what fails rolls back the whole)."""
        self.writable()
        if self.db.in_transaction:
            yield self.db
            return
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
        try:  # a state this version does not know: written by another program or version
            outcome = None if row["outcome"] is None else state_of(Outcome, row["outcome"], "its outcome")
            rung = state_of(Rung, row["rung"], "its rung")
        except ValueError as exc:
            raise HistoryError(f"{self.path}: attempt {row['id']}: {exc}: {UPGRADE}") from None
        return Attempt(
            id=row["id"],
            target=row["target"],
            file=Path(row["file"]),
            started_at=row["started_at"],
            paused_at=row["paused_at"],
            paused_total=row["paused_total"],
            ended_at=row["ended_at"],
            outcome=outcome,
            assisted=bool(row["assisted"]),
            archive=row["archive"],
            splits=splits,
            rung=rung,
            reason=row["reason"],
            banked=row["clock_banked"],
            mark_boot=row["clock_boot"],
            mark_mono=row["clock_mono"],
            mark_wall=row["clock_wall"],
            mark_sha256=row["clock_sha256"],
        )

    def get(self, attempt_id: int) -> Attempt:
        if not -(2**63) <= attempt_id < 2**63:  # no such id (SQLite's integers are 64-bit)
            raise KeyError(attempt_id)
        row = self.db.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
        if row is None:
            raise KeyError(attempt_id)
        return self._attempt(row)

    def active(self) -> Attempt | None:
        row = self.db.execute("SELECT * FROM attempts WHERE outcome IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self._attempt(row)

    def require_free(self) -> None:
        """One attempt at a time, the one place it is checked: an AttemptInProgress naming the attempt in
        progress, if any (``start`` asks it holding the write lock; an interview before it begins)."""
        if (active := self.active()) is not None:
            raise AttemptInProgress(active)

    def attempts(self, target: str | None = None) -> list[Attempt]:
        """Attempts, oldest first; of one target (or 'full') when given."""
        if target is None:
            rows = self.db.execute("SELECT * FROM attempts ORDER BY started_at, id").fetchall()
        else:
            rows = self.db.execute(
                "SELECT * FROM attempts WHERE target = ? ORDER BY started_at, id", (target,)
            ).fetchall()
        return [self._attempt(r) for r in rows]

    def start(
        self,
        target: str,
        file: Path,
        now: float,
        rung: Rung = Rung.RECALL,
        sha256: str | None = None,
        write: Callable[[], str | None] | None = None,
    ) -> Attempt:
        """A new attempt, its clock at 0 from ``now``; ``sha256``: of the file it starts with.
        ``write``: called once the history is known to be free, holding its write lock (a racing start
        waits, then finds this attempt), to write the file; it returns the file's sha256."""
        with self.transaction() as db:
            self.require_free()
            if write is not None:
                sha256 = write()
            cursor = db.execute(
                "INSERT INTO attempts (target, file, started_at, rung, clock_banked, clock_boot, clock_mono, "
                "clock_wall, clock_sha256) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)",
                (target, str(file), float(now), rung, *mark(now), sha256),
            )
        assert cursor.lastrowid is not None
        return self.get(cursor.lastrowid)

    def _reason(self, db: sqlite3.Connection, attempt: Attempt, reason: str) -> None:
        """Mark the attempt assisted for ``reason`` (each reason said once)."""
        reasons = [r for r in (attempt.reason or "").split("; ") if r]
        if reason not in reasons:
            reasons.append(reason)
        db.execute("UPDATE attempts SET assisted = 1, reason = ? WHERE id = ?", ("; ".join(reasons), attempt.id))

    def _rebase(self, db: sqlite3.Connection, attempt: Attempt, now: float, sha256: str | None) -> None:
        """A clock event while the clock runs: bank the clock at ``now`` and mark ``now``. After a reboot
        the clock resumes as if paused at the last event before it, and a file changed since that
        event marks the attempt assisted (that work had no clock)."""
        if attempt.rebooted(now) and sha256 is not None and sha256 != attempt.mark_sha256:
            self._reason(db, attempt, CHANGED_ACROSS_REBOOT)
        db.execute(
            "UPDATE attempts SET clock_banked = ?, clock_boot = ?, clock_mono = ?, clock_wall = ?, "
            "clock_sha256 = COALESCE(?, clock_sha256) WHERE id = ?",
            (attempt.elapsed(now), *mark(now), sha256, attempt.id),
        )

    def tick(self, attempt: Attempt, now: float, sha256: str | None) -> Attempt:
        """A graded save at ``now`` is a clock event (the clock a reboot comes back to); none when the
        attempt has ended, is paused, or had a later event meanwhile."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM attempts WHERE id = ?", (attempt.id,)).fetchone()
            current = self._attempt(row)
            later = (
                current.mark_mono is not None
                and not current.rebooted(now)
                and getattr(now, "mono", current.mark_mono) < current.mark_mono
            )
            if current.in_progress and not current.paused and not later:
                self._rebase(db, current, now, sha256)
        return self.get(attempt.id)

    def pause(self, attempt: Attempt, now: float, sha256: str | None = None) -> Attempt:
        """Stop the clock at ``now``, keeping the file's ``sha256`` to compare on resume."""
        with self.transaction() as db:
            current = self.get(attempt.id)
            if current.in_progress and not current.paused:
                self._rebase(db, current, now, sha256)
                db.execute(
                    "UPDATE attempts SET paused_at = ?, clock_boot = NULL, clock_mono = NULL, clock_wall = NULL, "
                    "clock_sha256 = ? WHERE id = ?",
                    (float(now), sha256, attempt.id),
                )
        return self.get(attempt.id)

    def resume(self, attempt: Attempt, now: float, sha256: str | None = None) -> Attempt:
        """Restart the clock at ``now``; a file whose ``sha256`` differs from the one at the pause was
        edited while paused: the attempt is marked assisted for it (no best, split, rung or rating)."""
        with self.transaction() as db:
            current = self.get(attempt.id)
            if current.in_progress and current.paused:
                if sha256 is not None and current.mark_sha256 is not None and sha256 != current.mark_sha256:
                    self._reason(db, current, EDITED_WHILE_PAUSED)
                db.execute(
                    "UPDATE attempts SET paused_total = paused_total + (? - paused_at), paused_at = NULL, "
                    "clock_banked = ?, clock_boot = ?, clock_mono = ?, clock_wall = ?, "
                    "clock_sha256 = COALESCE(?, clock_sha256) WHERE id = ?",
                    (float(now), current.elapsed(now), *mark(now), sha256, attempt.id),
                )
        return self.get(attempt.id)

    def finish(
        self, attempt: Attempt, outcome: Outcome, now: float, archive: str | None = None, elapsed: float | None = None
    ) -> Attempt:
        """End the attempt if it is still in progress; a paused clock stays stopped at its pause.

        An attempt already ended (say, abandoned in another terminal while this one graded) keeps
        its ending: the first to end it wins. ``elapsed``: the clock at the save that ended it (None:
        the clock at ``now``); a save graded while the clock was paused ends it no later than the pause.
        The wall-clock dates keep ended = started + clock + paused_total, paused_total >= 0 (export).
        """
        with self.transaction() as db:
            current = self.get(attempt.id)
            if current.in_progress:
                clock = current.elapsed(now)
                if elapsed is not None:
                    clock = min(elapsed, clock) if current.paused else elapsed
                end = max(float(now), current.started_at + clock)  # the wall clock set back: not before
                db.execute(
                    "UPDATE attempts SET ended_at = ?, outcome = ?, archive = ?, paused_at = NULL, "
                    "paused_total = ?, clock_banked = ?, clock_boot = NULL, clock_mono = NULL, clock_wall = NULL "
                    "WHERE id = ? AND outcome IS NULL",
                    (end, outcome, archive, end - current.started_at - clock, clock, attempt.id),
                )
        return self.get(attempt.id)

    def mark_assisted(self, attempt: Attempt, reason: str | None = None) -> None:
        self.writable()
        if reason is None:
            self.db.execute("UPDATE attempts SET assisted = 1 WHERE id = ?", (attempt.id,))
        else:
            with self.transaction() as db:
                self._reason(db, self.get(attempt.id), reason)

    def add_split(self, attempt: Attempt, target: str, elapsed: float) -> None:
        self.writable()
        self.db.execute(
            "INSERT OR IGNORE INTO splits (attempt_id, target, elapsed) VALUES (?, ?, ?)", (attempt.id, target, elapsed)
        )

    # ------------------------------------------------------------------ submissions and hints

    def add_submission(
        self, attempt: Attempt | None, now: float, elapsed: float | None, source: str, result: str, passed: bool
    ) -> int:
        self.writable()
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
        outcome: Outcome,
        assisted: bool,
        archive: str | None,
        splits: Iterable[tuple[str, float]],
        hints: Iterable[tuple[str, int]],
        rung: Rung = Rung.RECALL,
        reason: str | None = None,
    ) -> Attempt:
        """Add an attempt that has ended, whole (``drill import``); inside the caller's transaction."""
        self.writable()
        cursor = self.db.execute(
            "INSERT INTO attempts (target, file, started_at, paused_total, ended_at, outcome, assisted, archive, rung, "
            "reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (target, file, started_at, paused_total, ended_at, outcome, int(assisted), archive, rung, reason),
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
    """Open the history; a damaged file (SQLite says it is not a database, or its image is malformed,
    or the integrity check fails) is moved aside, kept as a backup, and a new one started. Any other
    fault (a full disk, a read-only folder, a lock, a newer schema) raises a HistoryError: the file
    is left as it is.

    Returns the history and, when it was moved aside, a message for the user naming where it went.
    """
    try:
        history = History(path)
        try:
            if history.db.execute("PRAGMA quick_check").fetchone()[0] == "ok":
                return history, None
            damage: HistoryError = HistoryCorrupt(path, "PRAGMA quick_check failed")
        except sqlite3.Error as exc:
            damage = fault(exc, path)
        history.close()
        if not isinstance(damage, HistoryCorrupt):
            raise damage
    except HistoryCorrupt as exc:
        damage = exc
    assert isinstance(damage, HistoryCorrupt)
    backup = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        for suffix in ("", "-wal", "-shm"):
            side = Path(str(path) + suffix)
            if side.exists():
                side.rename(Path(str(backup) + suffix))
    except OSError as exc:
        raise HistoryError(f"{damage}; it could not be moved aside ({exc.strerror or exc}): move it yourself") from None
    return History(
        path
    ), f"the history {path} could not be read ({damage.detail}); it was moved to {backup} and a new one started"
