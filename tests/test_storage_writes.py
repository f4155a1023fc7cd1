"""No work lost to a storage fault (issue 24, point 2): `drill start` writes nothing it does not
record (and puts back the file it archived); a verdict the history cannot take is shown with the
reason and kept, then recorded by the next command that can write; two racing starts make one
attempt and one one-line error; `drill abandon` in a read-only workspace, `drill restore --attempt`
of an id SQLite cannot hold: one-line errors.

A lock is another connection holding the write lock (``BEGIN IMMEDIATE``), waited for half a second
(``DRILL_BUSY_TIMEOUT``); a failed insert is a trigger that raises; a read-only workspace is a
tmpfs remounted read-only (as root on Linux) or, everywhere, a ``Path.replace`` that fails with EROFS."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograd_drill.store import faults, pending
from autograd_drill.store.history import History
from autograd_drill.store.paths import history_path
from tests.support import REFERENCE_SOURCE, drill, said, small_tmpfs, spawn_drill
from tests.support import one_line_error as error_line

USERS = "# my own unbroadcast, written before the drill\n"


pytestmark = pytest.mark.usefixtures("short_wait")  # a lock waited for half a second, not ten (conftest.py)


@pytest.fixture
def write_lock(clock) -> Iterator[sqlite3.Connection]:
    """Another program holds the history's write lock (readers go on: WAL)."""
    drill("list")  # the history exists
    other = sqlite3.connect(history_path(), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    yield other
    if other.in_transaction:
        other.execute("ROLLBACK")
    other.close()


def attempts() -> list[tuple[str, str | None]]:
    with sqlite3.connect(history_path()) as db:
        rows = db.execute("SELECT target, outcome FROM attempts ORDER BY id").fetchall()
    db.close()
    return rows


# ---------------------------------------------------------------------------- start


def test_a_start_on_a_locked_history_writes_nothing(write_lock, tmp_path):
    """Before: a traceback (database is locked), and the stub written over the archived file."""
    workspace = tmp_path / "solutions"
    workspace.mkdir()
    (workspace / "unbroadcast.py").write_text(USERS)
    error_line(drill("start", "unbroadcast", code=2).output, "locked by another program", str(history_path()))
    assert sorted(p.name for p in workspace.iterdir()) == ["unbroadcast.py"]  # no stub, no .archive
    assert (workspace / "unbroadcast.py").read_text() == USERS
    write_lock.execute("ROLLBACK")
    assert attempts() == []


def test_a_start_the_history_refuses_puts_the_users_file_back(clock, tmp_path):
    """The insert fails once the stub is written (a trigger raises, as a full disk would): the stub
    goes and the archived file comes back. Before: a traceback, the stub in place of the user's file."""
    drill("list")
    with sqlite3.connect(history_path()) as db:
        db.execute("CREATE TRIGGER full BEFORE INSERT ON attempts BEGIN SELECT RAISE(ABORT, 'no room'); END")
    db.close()
    workspace = tmp_path / "solutions"
    workspace.mkdir()
    (workspace / "unbroadcast.py").write_text(USERS)
    error_line(drill("start", "unbroadcast", code=2).output, "no room", str(history_path()))
    assert sorted(p.name for p in workspace.iterdir()) == ["unbroadcast.py"]
    assert (workspace / "unbroadcast.py").read_text() == USERS
    assert attempts() == []


def test_racing_starts_make_one_attempt_and_one_error(tmp_path):
    """Two `drill start` at once, real processes, five rounds (three on a history made beforehand, two
    on none yet). Before: a HistoryError traceback in about half the rounds."""
    for round_ in range(5):
        home, workspace = tmp_path / f"home-{round_}", tmp_path / f"solutions-{round_}"
        if round_ % 2 == 0:
            History(home / "history.sqlite3").close()
        env = {"DRILL_HOME": str(home), "DRILL_WORKSPACE": str(workspace), faults.BUSY_ENV: "20"}
        racers = [spawn_drill("start", "unbroadcast", env=env) for _ in range(2)]
        ended = [(p.wait(timeout=300), *p.communicate()) for p in racers]
        codes = sorted(code for code, _, _ in ended)
        assert codes == [0, 2], ended
        [(_, _, lost)] = [e for e in ended if e[0] == 2]
        assert lost.count("\n") == 1 and lost.startswith("error: ") and "in progress" in lost, lost
        store = History(home / "history.sqlite3")
        try:
            assert [(a.target, a.outcome) for a in store.attempts()] == [("unbroadcast", None)], round_
        finally:
            store.close()
        assert sorted(p.name for p in workspace.iterdir()) == ["unbroadcast.py"]  # nothing archived


# ---------------------------------------------------------------------------- check and watch


def test_a_verdict_the_history_cannot_take_is_shown_kept_and_recorded_later(write_lock, passing_grader):
    """Before: `drill check` graded, then died on the locked history with a traceback: the verdict lost."""
    write_lock.execute("ROLLBACK")
    drill("start", "unbroadcast")
    Path(os.environ["DRILL_WORKSPACE"], "unbroadcast.py").write_text(REFERENCE_SOURCE)
    write_lock.execute("BEGIN IMMEDIATE")
    result = drill("check", code=2)
    text = said(result)
    assert "unbroadcast" in text and "passed" in text  # the verdict, shown
    error_line(result.output.replace("warning:", "error:"), "not in your history yet", "locked by another program")
    [kept] = pending.waiting(history_path())
    assert kept["source"] == REFERENCE_SOURCE and str(pending.places(history_path())[0]) in text
    assert attempts() == [("unbroadcast", None)]  # not recorded yet
    write_lock.execute("ROLLBACK")
    assert "recorded 1 verdict graded while the history could not be written" in said(drill("status"))
    assert attempts() == [("unbroadcast", "passed")] and pending.waiting(history_path()) == []
    assert "recorded" not in said(drill("status"))  # once


def test_a_verdict_is_kept_in_the_temporary_folder_when_the_data_folder_cannot_be_written(
    write_lock, passing_grader, monkeypatch
):
    write_lock.execute("ROLLBACK")
    drill("start", "unbroadcast")
    beside, elsewhere = pending.places(history_path())
    real = pending.atomic_write

    def unwritable_beside(path: Path, text: str | bytes) -> None:
        if path == beside:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        real(path, text)

    monkeypatch.setattr(pending, "atomic_write", unwritable_beside)
    write_lock.execute("BEGIN IMMEDIATE")
    try:
        assert str(elsewhere) in said(drill("check", code=2))
        assert not beside.exists() and len(pending.waiting(history_path())) == 1
        write_lock.execute("ROLLBACK")
        assert "recorded 1 verdict" in said(drill("status"))
        assert not elsewhere.exists()
    finally:
        elsewhere.unlink(missing_ok=True)


def test_a_watch_shows_a_verdict_it_cannot_record_and_keeps_it(write_lock, fake_grading, clock):
    """`drill watch`, piped: the first grading meets the lock; the test then frees it and gives the
    attempt up, as another terminal would, which ends the watch."""
    write_lock.execute("ROLLBACK")
    drill("start", "unbroadcast")
    write_lock.execute("BEGIN IMMEDIATE")

    def elsewhere() -> None:
        for _ in range(600):
            if pending.waiting(history_path()):
                break
            threading.Event().wait(0.1)
        write_lock.execute("ROLLBACK")
        store = History(history_path())
        try:
            store.finish(store.active(), "gave-up", clock())
        finally:
            store.close()

    thread = threading.Thread(target=elsewhere)
    thread.start()
    result = drill("watch", code=1)
    thread.join()
    assert "this verdict is not in your history yet" in said(result) and "locked by another program" in said(result)
    assert "recorded 1 verdict" in said(drill("status"))


# ---------------------------------------------------------------------------- abandon, restore


def test_abandon_in_a_read_only_workspace_is_one_line_and_the_attempt_goes_on(clock, monkeypatch):
    """Before: a PermissionError/OSError traceback."""
    drill("start", "unbroadcast")
    real = Path.replace

    def read_only(self: Path, target: str | os.PathLike[str]) -> Path:
        if ".archive" in str(target):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real(self, target)

    monkeypatch.setattr(Path, "replace", read_only)
    error_line(drill("abandon", code=2).output, "cannot archive", "Read-only file system", "the attempt goes on")
    monkeypatch.setattr(Path, "replace", real)
    assert attempts() == [("unbroadcast", None)]


@pytest.fixture
def read_only_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "workspace", "1m") as mount:
        monkeypatch.setenv("DRILL_WORKSPACE", str(mount))
        yield mount


def test_abandon_on_a_read_only_mount_is_one_line(read_only_workspace, clock):
    drill("start", "unbroadcast")
    subprocess.run(["mount", "-o", "remount,ro", str(read_only_workspace)], check=True)
    error_line(drill("abandon", code=2).output, "cannot archive", "the attempt goes on")
    assert attempts() == [("unbroadcast", None)]
    assert (read_only_workspace / "unbroadcast.py").exists()


@pytest.mark.parametrize("attempt", ["99999999999999999999", "-99999999999999999999", "9223372036854775808"])
def test_restore_of_an_attempt_id_sqlite_cannot_hold_is_one_line(clock, attempt):
    """Before: OverflowError (Python int too large to convert to SQLite INTEGER)."""
    drill("start", "unbroadcast")
    error_line(drill("restore", "--attempt", attempt, code=2).output, f"there is no attempt {attempt}")
