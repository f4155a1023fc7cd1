"""macOS and Windows, simulated on Linux: with the pieces they lack removed or made to fail
(tests/platforms.py), ``drill grade``, ``drill check`` and ``drill watch`` still give right
verdicts, a hang still gets a verdict naming its test in bounded time, and no process of a
grading outlives its command."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograd_drill.grader.reaper import ENDING_SECONDS, LINUX, kill_attached
from tests.platforms import MACOS, PIECES, WINDOWS, simulate
from tests.processes import HANGS_FOR_GOOD, end_and_check, hangs, in_unbroadcast, start_drill
from tests.support import REFERENCE, run_drill, spawn_drill
from tests.support import REFERENCE_SOURCE as SOURCE

WRONG = SOURCE.replace("        grad = grad.sum(axis=0)\n", "        grad = grad.sum(axis=-1)\n")
LOOPS = in_unbroadcast("while True:\n    pass")
SLEEPS = in_unbroadcast("import time\ntime.sleep(10**6)")
QUICK = {"DRILL_TEST_TIMEOUT": "0.5"}
BOUNDED = 60.0
"""Seconds a hanging solution may take to get its verdict (a 0.5 s test limit, at most two targets)."""
PLATFORMS = {"windows": WINDOWS, "macos": MACOS, **{f"no-{piece}": (piece,) for piece in PIECES}}


def grade_json(tmp_path, missing, source, *targets, limited=True):
    """``drill grade FILE -t unbroadcast [-t TARGET...] --json`` on a platform that lacks ``missing``,
    with QUICK's test limit where ``limited`` (a hang's verdict), else the suite's."""
    solution = tmp_path / "solution.py"
    solution.write_text(source, encoding="utf-8")
    env = {**simulate(tmp_path / "site", *missing), **(QUICK if limited else {})}
    began = time.monotonic()
    selection = [a for t in ("unbroadcast", *targets) for a in ("-t", t)]
    proc = run_drill("grade", str(solution), *selection, "--json", env=env, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    import json

    return proc.returncode, json.loads(proc.stdout), time.monotonic() - began


def test_the_simulation_really_removes_the_pieces(tmp_path):
    env = simulate(tmp_path, *WINDOWS, "setrlimit")
    probe = (
        "import os, signal, sys\n"
        "try:\n    import resource\nexcept ImportError:\n    resource = None\n"
        "print(hasattr(os, 'fork'), hasattr(os, 'killpg'), hasattr(signal, 'setitimer'), resource)"
    )
    said = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert said.stdout.split() == ["False", "False", "False", "None"]
    env = simulate(tmp_path / "mac", *MACOS)
    probe = "import resource\ntry:\n    resource.setrlimit(resource.RLIMIT_AS, (1, 1))\nexcept ValueError as e:\n    print(e)"
    said = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert "current limit exceeds maximum limit" in said.stdout


@pytest.mark.parametrize("missing", [WINDOWS, MACOS], ids=["windows", "macos"])
def test_a_wrong_file_fails_with_its_message(tmp_path, missing):
    code, result, _ = grade_json(tmp_path, missing, WRONG, limited=False)
    target = result["targets"]["unbroadcast"]
    assert code == 1 and not target["passed"] and target["not_run"] == 0
    first = target["failures"][0]
    assert first["test"] == "test_unbroadcast.py::test_unbroadcast[prepended-one-axis]"
    assert "hint: broadcasting (3,) to (2, 3) prepended 1 leading axis" in first["message"]


@pytest.mark.parametrize("missing", PLATFORMS.values(), ids=PLATFORMS.keys())
def test_a_correct_target_passes_and_an_infinite_loop_gets_a_verdict_naming_its_test(tmp_path, missing):
    """One real grading per platform: unbroadcast loops for good in its first test, cotangent (which never
    calls unbroadcast) is the reference's: 16 light tests, each far under the 0.5 s limit on a busy
    machine (unary's 79, up to 0.12 s each at a load of 10, had a test stopped at the limit, and the rest of unary not run, twice in one run of these files at a load of 4-10). The loop is stopped at the limit, naming its test, its target's
    other tests are not run, in bounded time; the correct target passes in the same grading, every test
    run; the memory cap's note is there exactly where the platform cannot apply it."""
    code, result, seconds = grade_json(tmp_path, missing, LOOPS, "cotangent")
    assert code == 1 and seconds < BOUNDED
    target = result["targets"]["unbroadcast"]
    assert target["failed"] == 1 and target["not_run"] == target["tests"] - 1
    (failure,) = target["failures"]
    assert failure["test"] == "test_unbroadcast.py::test_unbroadcast[same-shape]"
    assert "took longer than 0.5 s and was stopped in unbroadcast" in failure["message"]
    correct = result["targets"]["cotangent"]
    assert correct["passed"] and correct["tests"] > 0 and correct["failed"] == correct["not_run"] == 0, correct
    memory_notes = [n for n in result["notes"] if "memory cap is not applied" in n]
    assert bool(memory_notes) == bool({"resource", "setrlimit"} & set(missing)), result["notes"]


@pytest.mark.parametrize("missing", [WINDOWS, ()], ids=["windows", "linux"])
def test_a_blocking_call_gets_a_verdict_naming_its_test(tmp_path, missing):
    """Without SIGALRM a watchdog thread cannot interrupt time.sleep: the parent stops the grading."""
    code, result, seconds = grade_json(tmp_path, missing, SLEEPS)
    assert code == 1 and seconds < BOUNDED
    target = result["targets"]["unbroadcast"]
    (failure,) = target["failures"]
    assert failure["test"] == "test_unbroadcast.py::test_unbroadcast[same-shape]"
    assert "took longer than 0.5 s" in failure["message"]
    assert target["not_run"] == target["tests"] - 1


@pytest.mark.parametrize("missing", [WINDOWS, MACOS], ids=["windows", "macos"])
def test_drill_check_and_watch_give_right_verdicts(tmp_path, missing, monkeypatch, unbroadcast_tests):
    for name, value in simulate(tmp_path / "site", *missing).items():
        monkeypatch.setenv(name, value)
    path = start_drill(tmp_path, WRONG)
    checked = run_drill("check")
    assert checked.returncode == 1 and "unbroadcast [prepended-one-axis]" in checked.stdout, checked.stdout
    watcher = spawn_drill("watch", new_session=False)
    assert watcher.stdout is not None
    lines = []
    try:
        for line in watcher.stdout:  # its first verdict (the wrong file), then a save of the right one
            lines.append(line)
            if "prepended-one-axis" in line:
                break
        path.write_text(REFERENCE.read_text(encoding="utf-8"), encoding="utf-8")
        output, errors = watcher.communicate(timeout=120)
    finally:  # a failed test leaves no watcher behind
        if watcher.poll() is None:
            watcher.terminate()
            watcher.wait(10)
    assert watcher.returncode == 0, output + errors
    text = " ".join(("".join(lines) + output).split())
    assert (
        "prepended-one-axis" in text
        and f"{len(unbroadcast_tests)} tests passed" in text
        and "unbroadcast passed at" in text
    )


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: s.name)
def test_without_process_groups_the_whole_tree_still_goes(tmp_path, how):
    started = tmp_path / "started"
    solution = tmp_path / "solution.py"
    solution.write_text(hangs(started))
    env = {**simulate(tmp_path / "site", "killpg"), **HANGS_FOR_GOOD}
    proc = spawn_drill("grade", str(solution), "-t", "unbroadcast", env=env)
    end_and_check(proc, how, started, at_least=2)


HOLDER = (
    "import subprocess, sys, time\n"
    "from autograd_drill.grader.reaper import become_subreaper\n"
    "assert become_subreaper()\n"
    "sleeper = 'import time; time.sleep(600)'\n"
    "code = f'import subprocess, sys, time; print(subprocess.Popen([sys.executable, \"-c\", {sleeper!r}]).pid, flush=True); time.sleep(600)'\n"
    "grading = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE, text=True)\n"
    "print(grading.pid, grading.stdout.readline().strip(), flush=True)\n"
    "time.sleep(600)\n"
)
"""A parent that never reaps (as a container's first process may not) of a grading with a child of its
own, which the parent adopts when the grading dies: it prints both pids, then sleeps."""


@pytest.mark.skipif(not LINUX, reason="Linux: a child subreaper, /proc")
def test_without_process_groups_a_killed_tree_is_waited_for_until_dead_not_until_reaped():
    """kill_attached (kill_tree where there are no process groups, drill's own end by a signal
    included) returns once what it killed is dead: a zombie is, though its parent has not collected
    it. It waited for that, until its ENDING_SECONDS were up; a VM's init here collects an orphan 1.2-1.4 s
    after its death, and drill watch without fork took that long to end on a SIGTERM."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        grading, sleeper = map(int, holder.stdout.readline().split())
        began = time.monotonic()
        kill_attached(grading, root=True)
        took = time.monotonic() - began
        states = [Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] for pid in (grading, sleeper)]
        assert states == ["Z", "Z"]  # both killed; the sleeper, adopted by the holder, is its zombie too
        assert took < ENDING_SECONDS / 2
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: s.name)
def test_drill_watch_without_fork_leaves_nothing_behind(tmp_path, how, monkeypatch):
    for name, value in simulate(tmp_path / "site", *WINDOWS).items():
        monkeypatch.setenv(name, value)
    started = tmp_path / "started"
    start_drill(tmp_path, hangs(started))
    proc = spawn_drill("watch", env=HANGS_FOR_GOOD)
    # the grading interpreter, the one warming up for the next save, and the sleeper
    end_and_check(proc, how, started, at_least=2)
