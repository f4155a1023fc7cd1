"""``drill export -o PATH`` writes only where asked (issue 24, point 6): a FIFO, a device or a
terminal is written to and stays what it is; a regular file is replaced whole and atomically; a
symlink stays a link, its target's file replaced. Before, every one of them was replaced by a
regular file (``-o /dev/stdout`` as root replaced the device node)."""

from __future__ import annotations

import csv
import io
import os
import stat
import threading
from pathlib import Path

import pytest

from tests.support import drill, seed

pytestmark = pytest.mark.skipif(os.name == "nt", reason="FIFOs and /dev")


@pytest.fixture
def history_to_export() -> None:
    for n, seconds in enumerate((200.0, 150.0, 120.0)):
        seed("unbroadcast", seconds, at=1_700_000_000.0 + n * 86_400)


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_fifo_is_streamed_into_and_stays_a_fifo(tmp_path, history_to_export):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")), daemon=True)
    reader.start()
    result = drill("export", "-o", str(fifo))
    reader.join(60)
    assert not reader.is_alive(), "the reader got no end of file"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sum(r["kind"] == "attempt" for r in rows(got[0])) == 3
    assert "3 attempts" in " ".join(result.stderr.split())  # said beside, not into, the data
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_a_device_is_written_to_not_replaced(history_to_export):
    before = os.stat("/dev/null")
    drill("export", "-o", "/dev/null")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_device_is_one_line(history_to_export, wide_terminal):
    result = drill("export", "-o", "/dev/full", code=2)
    assert result.stderr.count("\n") == 1 and "cannot write /dev/full" in result.stderr
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_symlink_stays_a_link_and_its_target_is_replaced_atomically(tmp_path, history_to_export):
    target = tmp_path / "exports" / "history.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "latest.csv"
    link.symlink_to(target)
    old_inode = target.stat().st_ino
    drill("export", "-o", str(link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(rows(target.read_text())) > 3 and target.stat().st_ino != old_inode  # a new file renamed over it
    assert sorted(p.name for p in target.parent.iterdir()) == ["history.csv"]  # no temporary file left


def test_a_dangling_symlink_gets_its_target_written(tmp_path, history_to_export):
    link = tmp_path / "latest.csv"
    link.symlink_to(tmp_path / "made.csv")
    drill("export", "-o", str(link))
    assert link.is_symlink() and len(rows((tmp_path / "made.csv").read_text())) > 3


def test_a_regular_file_is_replaced_whole(tmp_path, history_to_export):
    out = tmp_path / "history.csv"
    out.write_text("x" * 100_000)
    result = drill("export", "-o", str(out))
    assert out.read_text().startswith("kind,") and "x" * 10 not in out.read_text()
    assert "3 attempts" in " ".join(result.stdout.split())


def test_a_directory_is_one_line(tmp_path, history_to_export, wide_terminal):
    result = drill("export", "-o", str(tmp_path), code=2)
    assert result.stderr.count("\n") == 1 and "is a directory" in result.stderr.lower()
    assert tmp_path.is_dir()


def test_a_paused_time_a_hair_below_zero_exports_as_zero_and_imports(tmp_path, store):
    """The clock is read on a monotonic clock, the dates on the wall clock: a finished attempt's time
    paused (their difference) came out -1.6e-08 s, and drill import refused the export."""
    attempt = store.start("unbroadcast", Path("/nowhere/unbroadcast.py"), 1_700_000_000.0, "recall")
    store.finish(attempt, "gave-up", 1_700_000_100.0)
    store.db.execute("UPDATE attempts SET paused_total = ? WHERE id = ?", (-1.5686964616179466e-08, attempt.id))
    store.db.commit()
    out = tmp_path / "history.json"
    drill("export", "-f", "json", "-o", str(out))
    assert '"paused_seconds": 0.0' in out.read_text()
    drill("import", str(out))
