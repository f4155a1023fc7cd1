"""tests/cpu_report.py's table by process kind, from tests/cpu_accounting.py's lines: a process killed
by a signal, which writes nothing at its end, is counted by the process that reaps it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cpu_report import ACCOUNTING, _one_per_process, kind

HOOKED = f"import runpy; runpy.run_path({str(ACCOUNTING)!r})"
"""What the .pth hook runs at each start of a process (tests/cpu_report.py ``--install``)."""

CHILD = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end:\n    pass\ntime.sleep(60)"
"""0.2 s of CPU, then a wait for the kill."""

PARENT = f"""{HOOKED}
import os, signal, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {HOOKED!r} + "\\n" + {CHILD!r}])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    with open(f"/proc/{{child.pid}}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") >= 0.2:
        break
    time.sleep(0.05)
child.send_signal(signal.SIGKILL)
child.wait()
print(child.pid)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the child's CPU in /proc")
def test_a_process_killed_by_a_signal_is_counted_by_its_parent(tmp_path: Path):
    log = tmp_path / "log"
    env = {"DRILL_TEST_CPU_LOG": str(log), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", PARENT], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    killed_pid = int(done.stdout)
    procs = _one_per_process(Path(f"{log}.procs"))
    by_pid = {p["pid"]: p for p in procs}
    killed = by_pid[killed_pid]
    assert killed["killed"] and killed["cpu"] >= 0.15, killed
    assert kind(killed, by_pid) == "python -c (a test's own script)"
    parent = next(p for p in procs if p["pid"] != killed_pid)
    assert not parent["killed"] and parent["how"] == "exit"
    lines = [json.loads(f.read_text()) for f in Path(f"{log}.procs").glob("*.json")]
    assert {line["how"] for line in lines if line["pid"] == killed_pid} == {"start", "killed"}


def test_a_fork_of_a_fork_is_named_by_the_process_first_forked_from():
    worker = {"pid": 1, "fork_of": None, "argv": [sys.executable, "-m", "autograd_drill.grader.worker"], "xdist": ""}
    fork = {"pid": 2, "fork_of": 1, "argv": worker["argv"], "xdist": ""}
    copy = {"pid": 3, "fork_of": 2, "argv": worker["argv"], "xdist": ""}
    by_pid = {p["pid"]: p for p in (worker, fork, copy)}
    assert kind(fork, by_pid) == "fork of warm worker"
    assert kind(copy, by_pid) == "fork of a fork of warm worker"


def test_a_killed_subreaper_is_counted_without_the_tree_it_reaped(tmp_path: Path):
    """A zygote (killed at the worker's end) reaped its gradings, which reaped their shard copies: wait4
    counted all three in its CPU; each is counted once, as its own (before: the copies twice)."""
    lines = [
        {"pid": 10, "ppid": 1, "fork_of": 1, "cpu": 0.0, "how": "start", "t": 1.0},
        {"pid": 11, "ppid": 10, "fork_of": 10, "cpu": 0.3, "how": "_exit", "t": 2.0},
        {"pid": 12, "ppid": 11, "fork_of": 11, "cpu": 0.2, "how": "_exit", "t": 2.0},
        {"pid": 10, "ppid": 1, "cpu": 1.0, "how": "killed", "signal": 9, "t": 3.0},
    ]
    for n, line in enumerate(lines):
        (tmp_path / f"{line['pid']}-{n}.json").write_text(json.dumps(line), encoding="utf-8")
    cpu = {p["pid"]: round(p["cpu"], 6) for p in _one_per_process(tmp_path)}
    assert cpu == {10: 0.5, 11: 0.3, 12: 0.2}


COLLECTS = f"""{HOOKED}
import gc, os
heap = [[i] for i in range(200_000)]
for _ in range(5):
    gc.collect()
child = os.fork()
if child == 0:
    os._exit(0)
os.waitpid(child, 0)
"""
"""Five full collections over a heap of 200,000 lists, then a fork that collects nothing."""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="forks")
def test_a_process_s_collections_are_timed_and_a_fork_counts_its_own_from_zero(tmp_path: Path):
    log = tmp_path / "log"
    env = {"DRILL_TEST_CPU_LOG": str(log), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", COLLECTS], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    procs = _one_per_process(Path(f"{log}.procs"))
    parent = next(p for p in procs if p["fork_of"] is None)
    fork = next(p for p in procs if p["fork_of"] is not None)
    assert parent["gc"] > 0.0 and fork["gc"] == 0.0, (parent, fork)
