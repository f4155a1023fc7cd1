"""A grading never outlives the command that started it, and ends with its tests.

Real processes throughout: ``drill grade`` and ``drill watch`` are started in their own session,
killed (SIGKILL, SIGTERM) or interrupted (SIGINT) while the user's code hangs, and then no
process of that grading may remain: the grading child, the warm worker, its forked grading, and
what the user's code started. Processes are found with ``ps`` (Linux and macOS).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import zipfile
from pathlib import Path

import pytest

from autograd_drill.grader import ONE_BLAS_THREAD
from autograd_drill.grader import process as grading
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.oracle import RECORDING
from autograd_drill.grader.process import Cancelled, stopped_with_us
from autograd_drill.grader.run import Limits, grade_file
from autograd_drill.grader.worker import SpawnRunner, WarmRunner
from tests.processes import (
    HANGS_FOR_GOOD,
    STARTED_WITHIN,
    end_and_check,
    hangs,
    in_unbroadcast,
    naming,
    own_temp,
    start_drill,
    wait_until,
)
from tests.support import REFERENCE_SOURCE as SOURCE
from tests.support import human_report, run_drill, spawn_drill

"""The unbroadcast target's tests."""


def _unbroadcast_calls() -> int:
    names = [name.removesuffix(".npy") for name in zipfile.ZipFile(RECORDING).namelist()]
    return 1 + sum(name.startswith("test_unbroadcast.py::") and name.endswith("|digest") for name in names)


CALLS = _unbroadcast_calls()
"""Its cases, each one call of the user's unbroadcast: all but one ask the (recorded) oracle once."""

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")

LEAVES_A_THREAD = in_unbroadcast(
    "import threading, time\nthreading.Thread(target=time.sleep, args=(10**6,), name='sleeper').start()"
)
"""A correct unbroadcast that starts a non-daemon thread that sleeps for good, at every call."""


KILLS = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]


# ---------------------------------------------------------------------------- drill grade


def temporary(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A temporary folder of the test's own (drill's ``TMPDIR``), and HANGS_FOR_GOOD's limits with it."""
    temp = own_temp(tmp_path)
    return temp, {**HANGS_FOR_GOOD, "TMPDIR": str(temp)}


@pytest.mark.parametrize("how", KILLS, ids=lambda s: s.name)
def test_ending_drill_grade_ends_its_grading(how, tmp_path):
    """...and its temporary folders go (the grading's working folder, its report's), but where a
    SIGKILL gives drill no moment to remove them."""
    started = tmp_path / "started"
    solution = tmp_path / "solution.py"
    solution.write_text(hangs(started))
    temp, env = temporary(tmp_path)
    proc = spawn_drill("grade", str(solution), "-t", "unbroadcast", env=env)
    # the grading child (pytest, named by --impl) and the sleeper the user's code started
    end_and_check(proc, how, started, at_least=2)
    assert proc.returncode == {signal.SIGKILL: -9, signal.SIGTERM: -15, signal.SIGINT: 130}[how]
    if how != signal.SIGKILL:
        assert not list(temp.iterdir())


def test_a_thread_left_running_does_not_hold_the_verdict(tmp_path, unbroadcast_tests):
    solution = tmp_path / "solution.py"
    solution.write_text(LEAVES_A_THREAD)
    began = time.monotonic()
    as_json = run_drill(
        "grade", str(solution), "-t", "unbroadcast", "--json", env={"DRILL_CHECK_TIMEOUT": "120"}, timeout=120
    )
    assert time.monotonic() - began < 30, "the grading waited for the thread"
    assert as_json.returncode == 0, as_json.stdout + as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["passed"] is True and len(data["notes"]) == 1 and f"left {CALLS} threads running" in data["notes"][0]
    assert not naming(str(solution))
    # The report a person reads, from the same grading (drill watch prints it from a real child below,
    # test_drill_watch_shows_the_thread_note_and_finishes).
    text = human_report(data)
    assert f"{len(unbroadcast_tests)} tests passed" in text
    assert f"note: your code left {CALLS} threads running (sleeper, sleeper, sleeper and {CALLS - 3} more)" in text
    assert "they were stopped when the tests finished" in text


def test_one_thread_left_running_is_named(tmp_path, warm_runner):
    """On the session's warm worker: a fresh grading interpreter's note is drill grade's, above."""
    solution = tmp_path / "solution.py"
    solution.write_text(
        SOURCE
        + "\nimport threading, time\n"
        + "threading.Thread(target=time.sleep, args=(10**6,), name='Thread-1 (sleep)').start()\n"
    )
    result = grade_file(solution, [load_catalog().get("unbroadcast")], runner=warm_runner)
    assert result.passed and result.seconds < 30
    assert result.notes == (
        "your code left a thread running (Thread-1 (sleep)); it was stopped when the tests finished",
    )


def test_the_warm_worker_ends_with_its_tests_too(tmp_path, warm_runner):
    """The session's warm worker (tests/conftest.py), not one more started for this test."""
    solution = tmp_path / "solution.py"
    solution.write_text(LEAVES_A_THREAD)
    began = time.monotonic()
    result = grade_file(solution, [load_catalog().get("unbroadcast")], runner=warm_runner)
    assert time.monotonic() - began < 60
    assert result.passed and f"left {CALLS} threads running" in result.notes[0]


@pytest.mark.parametrize("runner_class", [WarmRunner, SpawnRunner])
def test_a_cancelled_grading_ends_at_once_and_the_runner_grades_the_next(runner_class, tmp_path, monkeypatch):
    """drill watch cancels the grading of a version saved over: the call raises Cancelled, what the
    user's code started is gone, and the next grading runs (the Linux worker stays warm)."""
    monkeypatch.setenv("DRILL_TEST_TIMEOUT", "600")
    started, solution = tmp_path / "started", tmp_path / "solution.py"
    solution.write_text(hangs(started))
    unbroadcast = [load_catalog().get("unbroadcast")]
    runner = runner_class()
    outcome: list[object] = []

    def grade() -> None:
        try:
            outcome.append(grade_file(solution, unbroadcast, runner=runner))
        except Cancelled as exc:
            outcome.append(exc)

    try:
        grading = threading.Thread(target=grade)
        grading.start()
        wait_until(started.exists, STARTED_WITHIN, "the user's code did not start")
        worker = getattr(runner, "proc", None)
        runner.cancel()
        grading.join(timeout=30)
        assert not grading.is_alive() and isinstance(outcome[0], Cancelled)
        wait_until(lambda: not naming(str(started)), 10, "what the cancelled grading started outlived it")
        solution.write_text(SOURCE)
        assert grade_file(solution, unbroadcast, runner=runner).passed
        assert getattr(runner, "proc", None) is worker  # the same warm worker (None: SpawnRunner)
    finally:
        runner.close()


# ---------------------------------------------------------------------------- drill watch


def test_killing_drill_check_ends_its_grading(tmp_path):
    started = tmp_path / "started"
    start_drill(tmp_path, hangs(started))
    proc = spawn_drill("check", env=HANGS_FOR_GOOD)
    end_and_check(proc, signal.SIGKILL, started, at_least=2)


def test_a_sigterm_to_drill_check_ends_its_grading_and_leaves_no_folder(tmp_path):
    """The interpreter drill check started as it started (grader/spawn.py, OneShot) and its folder go."""
    started = tmp_path / "started"
    start_drill(tmp_path, hangs(started))
    temp, env = temporary(tmp_path)
    proc = spawn_drill("check", env=env)
    end_and_check(proc, signal.SIGTERM, started, at_least=2)
    assert proc.returncode == -signal.SIGTERM and not list(temp.iterdir())


@pytest.mark.parametrize("how", KILLS, ids=lambda s: s.name)
def test_ending_drill_watch_ends_its_worker_and_grading(how, tmp_path):
    """...and the temporary folders go with them: the worker's forks' (working folders) after a SIGKILL
    too (the worker, left alone, ends itself), drill watch's own (its report's) but after a SIGKILL."""
    started = tmp_path / "started"
    start_drill(tmp_path, hangs(started))
    temp, env = temporary(tmp_path)
    proc = spawn_drill("watch", env=env)
    # the warm worker, its forked grading, and the sleeper the user's code started
    output = end_and_check(proc, how, started, at_least=3)
    if how == signal.SIGINT:  # Ctrl-C: a clean goodbye, the clock still running
        assert proc.returncode == 0 and "Stopped watching" in output
    else:
        assert proc.returncode == -how
    left = [p.name for p in temp.iterdir()]
    assert not [name for name in left if how != signal.SIGKILL or name.startswith(grading.WORKING)], left


def test_drill_watch_shows_the_thread_note_and_finishes(tmp_path, unbroadcast_tests):
    start_drill(tmp_path, LEAVES_A_THREAD)
    began = time.monotonic()
    watched = run_drill("watch", timeout=120)
    assert time.monotonic() - began < 60
    assert watched.returncode == 0, watched.stdout + watched.stderr
    text = " ".join(watched.stdout.split())
    assert f"note: your code left {CALLS} threads running" in text and f"{len(unbroadcast_tests)} tests passed" in text


# ---------------------------------------------------------------------------- the parts


def test_a_grading_child_knows_its_parent():
    assert grading.grading_env()[grading.PARENT_ENV] == str(os.getpid())


def test_a_grading_uses_one_blas_thread_unless_the_user_set_a_count(monkeypatch):
    """drill's own process does too (tests/test_quick_commands.py)."""
    for name in ONE_BLAS_THREAD:
        monkeypatch.delenv(name, raising=False)
    assert {name: grading.grading_env()[name] for name in ONE_BLAS_THREAD} == ONE_BLAS_THREAD
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert grading.grading_env()["OPENBLAS_NUM_THREADS"] == "4"


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals: main thread only")
def test_stopped_with_us_stops_then_lets_the_signal_take_its_course():
    calls: list[str] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: calls.append("previous handler"))
    try:
        with stopped_with_us(lambda: calls.append("stopped")):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # the handler runs between bytecodes
        assert calls == ["stopped", "previous handler"]
        with pytest.raises(KeyboardInterrupt), stopped_with_us(lambda: calls.append("stopped again")):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        assert calls[-1] == "stopped again"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with stopped_with_us(lambda: calls.append("not for an ignored signal")):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)
        assert calls[-1] == "stopped again"
    finally:
        signal.signal(signal.SIGTERM, previous)


def fake_runner(lines: list[dict[str, object]], status: int) -> grading.Runner:
    """A runner that writes a report as the grading child would have, then 'exits' with ``status``."""

    def run(args: list[str], timeout: float, stalled: grading.Stalled | None = None) -> tuple[int, str]:
        report = next(a.removeprefix("--report-json=") for a in args if a.startswith("--report-json="))
        Path(report).write_text("".join(json.dumps(line) + "\n" for line in lines))
        return status, ""

    return run


def test_tests_after_a_crash_are_not_run_and_the_running_one_failed(tmp_path):
    tests = [f"test_unbroadcast.py::test_unbroadcast[{i}]" for i in range(4)]
    lines: list[dict[str, object]] = [
        {"event": "collected", "tests": {t: ["unbroadcast"] for t in tests}},
        {"event": "start", "nodeid": tests[0]},
        {"event": "result", "nodeid": tests[0], "outcome": "failed", "message": "wrong"},
        {"event": "start", "nodeid": tests[1]},
    ]
    result = grade_file(
        tmp_path / "x.py", [load_catalog().get("unbroadcast")], runner=fake_runner(lines, -11), limits=Limits()
    )
    verdict = result.get("unbroadcast")
    assert (verdict.tests, verdict.failed, verdict.not_run, verdict.passed) == (4, 2, 2, False)
    assert [f.test for f in verdict.failures] == [tests[1], tests[0]]  # the cause first
    assert "segmentation fault" in verdict.messages[0] and verdict.messages[1] == "wrong"
    assert verdict.messages[2] == "2 tests not run: the check stopped before them"
    assert result.to_json()["targets"]["unbroadcast"]["failures"][0]["test"] == tests[1]


def test_not_run_alone_fails_a_target(tmp_path):
    tests = ["test_unbroadcast.py::test_a", "test_unbroadcast.py::test_b"]
    lines: list[dict[str, object]] = [
        {"event": "collected", "tests": {t: ["unbroadcast"] for t in tests}},
        {"event": "result", "nodeid": tests[0], "outcome": "passed", "message": ""},
        {"event": "result", "nodeid": tests[1], "outcome": "not_run", "message": "an earlier test ran too long"},
        {"event": "finished", "notes": ["a note"]},
    ]
    result = grade_file(tmp_path / "x.py", [load_catalog().get("unbroadcast")], runner=fake_runner(lines, 1))
    verdict = result.get("unbroadcast")
    assert (verdict.failed, verdict.not_run, verdict.passed) == (0, 1, False)
    assert verdict.messages == ("1 test not run: an earlier test ran too long",)
    assert result.notes == ("a note",) and result.to_json()["notes"] == ["a note"]
