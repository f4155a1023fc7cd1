"""Odd solution files: a FIFO, a directory, a symlink loop, a device, a file over the size limit.

Each is a one-line error (exit 2), in bounded time and memory, in ``drill grade``, ``check``,
``restore`` and ``watch`` (where the watch says it on screen and keeps watching). Real children
throughout: a FIFO used to hang ``drill check`` for good, and a 1.2 GB file was read whole into
``drill`` itself (2.5 GB), so none of this may run in the test's own process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from autograd_drill.grader.solution_file import LIMIT_TEXT, MAX_BYTES, UnreadableFile, read_solution
from tests.processes import Lines, start_drill, wait_until
from tests.support import REFERENCE_SOURCE, ROOT, drill, spawn_drill

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX: FIFOs, devices, symlinks")

BOUND = 30.0
"""Seconds any of these may take: each takes well under one on an idle machine (a FIFO used to hang for good)."""
MEMORY_MB = 300
"""The most a command may use on a 1.2 GB file (it used to take 2.5 GB)."""
BIG = 1_200_000_000


def make_odd(path: Path, kind: str) -> str:
    """``path`` made into an odd file of ``kind``; the words the error must say."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
        return "named pipe"
    if kind == "directory":
        path.mkdir()
        return "directory"
    if kind == "loop":
        other = path.with_name(path.name + ".other")
        os.symlink(other, path)
        os.symlink(path, other)
        return "loops"
    if kind in ("zero", "urandom"):
        os.symlink(f"/dev/{kind}", path)
        return "character device"
    assert kind == "big"
    with path.open("wb") as f:  # sparse: cheap on disk
        f.write(REFERENCE_SOURCE.encode())
        f.truncate(BIG)
    return f"at most {LIMIT_TEXT}"


KINDS = ["fifo", "directory", "loop", "zero", "urandom", "big"]


MEASURED = """
import os, subprocess, sys
proc = subprocess.Popen([sys.executable, "-m", "autograd_drill", *sys.argv[2:]])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""
"""``drill ARGS`` started by a small interpreter that writes the peak memory of ``drill`` (kB on Linux) to
a file. Measured from the test's own process, the peak would be the test process's: a child started by
vfork (as subprocess does) takes the peak of the memory it shares until its exec, so a test process that
had imported torch (over 300 MB) made every peak measured here over 300 MB."""


def run_bounded(args: list[str]) -> tuple[int, str, str, float, float]:
    """``drill ARGS`` in a child: its status, stdout, stderr, seconds and peak memory (MB, its own, as
    ``MEASURED`` reads it: not the test process's, nor the largest of every child it ever had)."""
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        peak_file = Path(tmp) / "peak"
        proc = subprocess.Popen(
            [sys.executable, "-c", MEASURED, str(peak_file), *args],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            env={**os.environ, "COLUMNS": "500"},  # one line is one line, however long the tmp path
        )
        try:
            proc.wait(timeout=2 * BOUND)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            pytest.fail(f"drill {' '.join(args)} hung on an odd file")
        seconds = time.monotonic() - began
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read(), seconds, int(peak_file.read_text()) / 1024


def assert_one_line_error(status: int, out: str, err: str, seconds: float, says: str) -> None:
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert status == 2, out + err
    assert "Traceback" not in out + err
    assert len(lines) == 1, lines
    assert says in " ".join(lines[0].split()), lines
    assert seconds < BOUND


@pytest.mark.parametrize("kind", KINDS)
def test_drill_grade_refuses_an_odd_file_in_one_line(kind, tmp_path):
    path = tmp_path / "engine.py"
    says = make_odd(path, kind)
    status, out, err, seconds, peak = run_bounded(["grade", str(path), "-t", "unbroadcast"])
    assert_one_line_error(status, out, err, seconds, says)
    assert str(path) in err or path.name in err
    if kind == "big":
        assert peak < MEMORY_MB, f"drill grade took {peak:.0f} MB on a {BIG / 1e9:.1f} GB file"


@pytest.mark.parametrize("kind", KINDS)
def test_drill_check_refuses_an_odd_file_in_one_line(kind, tmp_path):
    path = start_drill(tmp_path, REFERENCE_SOURCE)
    says = make_odd(path, kind)
    status, out, err, seconds, peak = run_bounded(["check"])
    assert_one_line_error(status, out, err, seconds, says)
    if kind == "big":
        assert peak < MEMORY_MB, f"drill check took {peak:.0f} MB on a {BIG / 1e9:.1f} GB file"


@pytest.mark.parametrize("kind", KINDS)
def test_drill_restore_refuses_or_archives_an_odd_file(kind, tmp_path, passing_grader):
    drill("start", "unbroadcast")
    path = tmp_path / "solutions" / "unbroadcast.py"
    stub = path.read_text()
    drill("check", code=1)  # the stub, graded (in process, faked): a save to bring back, the attempt still on
    says = make_odd(path, kind)
    listed = run_bounded(["restore", "--list"])
    assert listed[0] == 0 and "Traceback" not in listed[1] + listed[2] and listed[3] < BOUND
    status, out, err, seconds, peak = run_bounded(["restore"])
    if kind in ("big", "loop"):  # a regular file or a link in the way: set aside (never read), the save written
        assert status == 0 and "Traceback" not in out + err and seconds < BOUND, out + err
        assert path.read_text() == stub
        assert peak < MEMORY_MB
    else:
        assert_one_line_error(status, out, err, seconds, says)
        assert "move it away" in err


def test_drill_watch_says_it_on_screen_and_keeps_watching(tmp_path):
    """Piped (no keys), the watch prints a screen per grading: an odd save gets its message, and a
    good save after it is graded (the watch ends when the attempt passes)."""
    path = start_drill(tmp_path, REFERENCE_SOURCE)
    make_odd(path, "fifo")
    proc = spawn_drill("watch")
    try:
        seen = Lines(proc)
        wait_until(
            lambda: any("named pipe" in line for line in seen),
            BOUND,
            f"drill watch did not say the FIFO was odd: {seen}",
        )
        assert proc.poll() is None  # still watching
        path.unlink()
        path.write_text(REFERENCE_SOURCE)
        proc.wait(timeout=120)
        out, err = seen.text(), proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    assert proc.returncode == 0, out + err
    assert "Traceback" not in out + err
    assert "passed" in out


# ---------------------------------------------------------------------------- the reader itself


@pytest.mark.parametrize("kind", KINDS)
def test_the_reader_names_what_it_found(kind, tmp_path):
    path = tmp_path / "engine.py"
    says = make_odd(path, kind)
    with pytest.raises(UnreadableFile) as caught:
        read_solution(path)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_the_reader_reads_a_file_up_to_the_limit_and_no_more(tmp_path):
    path = tmp_path / "engine.py"
    path.write_bytes(b"#" * MAX_BYTES)
    assert len(read_solution(path)) == MAX_BYTES
    path.write_bytes(b"#" * (MAX_BYTES + 1))
    with pytest.raises(UnreadableFile, match="at most"):
        read_solution(path)
    with pytest.raises(UnreadableFile) as caught:
        read_solution(tmp_path / "missing.py")
    assert caught.value.missing


@pytest.mark.parametrize("kind", ["fifo", "zero", "big"])
def test_the_grader_run_on_its_own_fails_an_odd_file_without_hanging(kind, tmp_path):
    """``python -m pytest grader --impl FILE``: the grading child reads the file the same way."""
    path = tmp_path / "engine.py"
    says = make_odd(path, kind)
    began = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "grader",
            "-p",
            "no:cacheprovider",
            f"--impl={path}",
            "-m",
            "unbroadcast",
            "-q",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * BOUND,
    )
    assert time.monotonic() - began < BOUND
    assert proc.returncode == 1 and says in " ".join(proc.stdout.split()), proc.stdout[-2000:]


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_pause_and_resume_do_not_hang_on_an_odd_file(kind, tmp_path):
    """Their clock event records the file's digest: an odd file has none (it used to be read whole, for good)."""
    path = start_drill(tmp_path, REFERENCE_SOURCE)
    make_odd(path, kind)
    for command in ("pause", "resume"):
        status, out, err, seconds, _ = run_bounded([command])
        assert status == 0 and "Traceback" not in out + err and seconds < BOUND, out + err
