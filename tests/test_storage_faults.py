"""A storage fault is not corruption (issue 24, point 1): a full disk, a read-only folder, a lock held
by another program, a history of a newer version give a one-line error naming the cause and the path
(exit 2) and leave the file as it is; only a file SQLite says is not a database, or damaged, is set
aside (tests/test_history.py, tests/test_cli.py), with the name it was moved to.

The faults are real where the test may make them: a tmpfs of 256 KiB filled up, then remounted
read-only (as root on Linux; skipped elsewhere), another connection holding the lock. Everywhere, a
``sqlite3`` connection that fails each statement with the result code of the fault stands in for the
disk."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from autograd_drill.store import faults
from autograd_drill.store.paths import history_path
from tests.support import digest_of as fingerprint
from tests.support import drill, one_line_error, said, small_tmpfs


def set_aside(path: Path) -> list[Path]:
    return [p for p in path.parent.iterdir() if ".corrupt-" in p.name]


@pytest.fixture
def healthy(clock) -> Path:
    """A history with an attempt in progress, written and closed."""
    drill("start", "unbroadcast")
    path = history_path()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path


pytestmark = pytest.mark.usefixtures("short_wait")  # a lock waited for half a second, not ten (conftest.py)


# ---------------------------------------------------------------------------- a failing connection


def failing_connections(monkeypatch: pytest.MonkeyPatch, code: int, name: str, message: str) -> Callable[..., object]:
    """Every SQLite statement fails with ``code`` (but setting the busy timeout), as on a disk that
    cannot take a byte more, a read-only folder, a locked file."""
    real = sqlite3.connect

    def refuse() -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError(message)
        exc.sqlite_errorcode, exc.sqlite_errorname = code, name
        return exc

    class Failing(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            if sql.startswith("PRAGMA busy_timeout"):
                return super().execute(sql, *args)
            raise refuse()

        def executescript(self, sql: str) -> sqlite3.Cursor:  # type: ignore[override]
            raise refuse()

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real(*a, **k, factory=Failing))
    return real


FAULTS = [
    (13, "SQLITE_FULL", "database or disk is full", "the disk is full"),
    (8, "SQLITE_READONLY", "attempt to write a readonly database", "read-only"),
    (14, "SQLITE_CANTOPEN", "unable to open database file", "cannot be opened"),
    (5, "SQLITE_BUSY", "database is locked", "locked by another program"),
    (10 | (18 << 8), "SQLITE_IOERR_SHMSIZE", "disk I/O error", "a disk error"),
]


@pytest.mark.parametrize(("code", "name", "message", "cause"), FAULTS, ids=[f[1] for f in FAULTS])
@pytest.mark.parametrize("command", ["status", "list", "check", "start"])
def test_a_storage_fault_is_one_line_and_the_history_is_left_where_it_is(
    healthy, monkeypatch, command, code, name, message, cause
):
    """Before: every SQLite error was corruption: the healthy file renamed .corrupt-*, a new one begun."""
    before = fingerprint(healthy)
    real = failing_connections(monkeypatch, code, name, message)
    args = ["start", "backward"] if command == "start" else [command]
    result = drill(*args, code=2)
    one_line_error(result.output, cause, str(healthy), name)
    monkeypatch.setattr(sqlite3, "connect", real)  # the disk is back
    assert set_aside(healthy) == [] and fingerprint(healthy) == before
    assert "unbroadcast (copy)" in said(drill("status"))  # the attempt is still there


# ---------------------------------------------------------------------------- a real disk: tmpfs


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 256 KiB (root on Linux only: skipped where it cannot be mounted)."""
    with small_tmpfs(tmp_path / "small-disk", "256k") as mount:
        yield mount


def fill(folder: Path) -> Path:
    """Write a file into ``folder`` until the disk is full; the file."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 1024):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_and_a_read_only_folder_are_said_and_the_history_kept(tmpfs, clock, monkeypatch):
    """A real tmpfs: filled up, then remounted read-only. Before: `drill status` renamed the history
    (a full disk), or tried to (a read-only folder: an error about the rename)."""
    monkeypatch.setenv("DRILL_HOME", str(tmpfs / "home"))
    drill("start", "unbroadcast")
    path = history_path()
    for side in ("-wal", "-shm"):  # as after a reboot: the shared memory has to be made again
        Path(f"{path}{side}").unlink(missing_ok=True)
    before = fingerprint(path)
    filler = fill(tmpfs)
    for command in ("status", "check"):
        one_line_error(drill(command, code=2).output, "the disk is full", str(path))
    assert set_aside(path) == [] and fingerprint(path) == before
    filler.unlink()
    assert "unbroadcast (copy)" in said(drill("status"))  # space came back: the history is there
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    try:
        for command in ("status", "abandon"):
            one_line_error(drill(command, code=2).output, "read-only", str(path))
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    assert set_aside(path) == [] and fingerprint(path) == before


# ---------------------------------------------------------------------------- a lock


@pytest.fixture
def locked(healthy: Path) -> Iterator[sqlite3.Connection]:
    """Another program holds the history locked, readers and writers out (an exclusive lock)."""
    other = sqlite3.connect(healthy, isolation_level=None)
    other.execute("PRAGMA locking_mode = EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("UPDATE attempts SET file = file")
    yield other
    other.execute("ROLLBACK")
    other.close()


def test_a_history_locked_by_another_program_is_waited_for_then_said(healthy, locked):
    """Before: after the 10 s busy timeout, the locked history was renamed as corrupt."""
    result = drill("status", code=2)
    one_line_error(result.output, "locked by another program", "waited 0.5 s", str(healthy))
    assert set_aside(healthy) == []


def test_the_busy_timeout_is_ten_seconds_by_default(monkeypatch):
    monkeypatch.delenv(faults.BUSY_ENV)
    assert faults.busy_timeout() == 10.0


# ---------------------------------------------------------------------------- a newer schema


def alter(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as db:
        for statement in statements:
            db.execute(statement)
    db.close()


def test_a_newer_schema_is_read_and_never_written(healthy, clock):
    """A newer version's history (a higher user_version, a NOT NULL column added with its default):
    what reads it works; what would write it is refused in words, before any grading. Before: it was
    written to as if it were this version's."""
    alter(healthy, "ALTER TABLE attempts ADD COLUMN mood TEXT NOT NULL DEFAULT 'calm'", "PRAGMA user_version = 7")
    before = fingerprint(healthy)
    assert "unbroadcast (copy)" in said(drill("status"))
    assert "unbroadcast" in said(drill("list"))
    for args in (["check"], ["watch"], ["start", "backward"], ["abandon"], ["pause"], ["hint"]):
        one_line_error(
            drill(*args, code=2).output, "newer autograd-drill (schema 7, this one reads up to 1)", "upgrade"
        )
    with sqlite3.connect(healthy) as db:
        assert db.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0
        assert db.execute("SELECT outcome, mood FROM attempts").fetchall() == [(None, "calm")]
    db.close()
    assert fingerprint(healthy) == before and set_aside(healthy) == []


def test_a_renamed_column_is_refused_in_words_by_every_command(healthy):
    """Before: "no such column" (or a missing key) crashed every command with a traceback."""
    alter(healthy, "ALTER TABLE attempts RENAME COLUMN started_at TO begun_at", "PRAGMA user_version = 6")
    for command in ("status", "list", "check", "stats"):
        one_line_error(drill(command, code=2).output, "schema 6", "no column attempts.started_at", str(healthy))
    assert set_aside(healthy) == []


def test_a_column_this_version_cannot_fill_stops_writes_not_reads(healthy):
    """A NOT NULL column without a default (the table made anew by another version, its
    user_version left as it was): an insert of this version fails. Before: `drill check` graded, then
    crashed on the insert ("NOT NULL constraint failed")."""
    alter(
        healthy,
        "CREATE TABLE s2 (id INTEGER PRIMARY KEY, attempt_id INTEGER, graded_at REAL NOT NULL, elapsed REAL, "
        "sha256 TEXT NOT NULL, source BLOB NOT NULL, result TEXT NOT NULL, passed INTEGER NOT NULL, "
        "reviewer TEXT NOT NULL)",
        "DROP TABLE submissions",
        "ALTER TABLE s2 RENAME TO submissions",
    )
    assert "unbroadcast (copy)" in said(drill("status"))
    one_line_error(drill("check", code=2).output, "submissions.reviewer", "not written")


def test_a_history_of_this_version_is_marked_so(healthy):
    with sqlite3.connect(healthy) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


def test_a_verdict_graded_on_a_full_disk_is_kept_elsewhere_then_recorded(tmpfs, clock, monkeypatch, passing_grader):
    """A real full disk under the history (another terminal keeps it open, so `drill check` can open
    it): the grading is shown, kept in the temporary folder (the disk takes no file either), and
    recorded once there is room. Before: a traceback after the grading, the verdict lost."""
    from autograd_drill.store import pending
    from tests.support import REFERENCE_SOURCE

    monkeypatch.setenv("DRILL_HOME", str(tmpfs / "home"))
    drill("start", "unbroadcast")
    Path(os.environ["DRILL_WORKSPACE"], "unbroadcast.py").write_text(REFERENCE_SOURCE)
    path = history_path()
    reader = sqlite3.connect(path)  # drill watch in another terminal, say
    reader.execute("SELECT count(*) FROM attempts").fetchone()
    filler = fill(tmpfs)
    try:
        result = drill("check", code=2)
        assert "passed" in said(result) and "the disk is full" in said(result), result.output
        assert "not in your history yet" in said(result) and str(pending.places(path)[1]) in said(result)
        assert len(pending.waiting(path)) == 1 and set_aside(path) == []
    finally:
        filler.unlink()
        reader.close()
    assert "recorded 1 verdict" in said(drill("status"))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT outcome FROM attempts").fetchall() == [("passed",)]
    db.close()
    assert pending.waiting(path) == []
