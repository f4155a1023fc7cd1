"""A grading's processes end with it, all of them, and it ends as soon as its report is complete.

Real children throughout (``drill grade``, ``check``, ``watch``, as a user runs them). The user's
code starts processes that leave the grading's process group: one calls ``setsid()``, one
``setpgid(0, 0)``, one is a double fork (its parent exits, so it is re-parented). Each writes its
pid to a file, then sleeps; once the command is done (or, in the watch, once its grading is), none
may be alive. And: ``atexit`` handlers and finalizers that hang do not hold a correct file's
verdict; a solution that blocks SIGALRM gets the parent's backstop in the watch too; a grading
runs in a temporary folder, so the user's relative writes land nowhere near the repository.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.processes import Lines, in_unbroadcast, own_temp, start_drill, wait_until
from tests.support import REFERENCE_SOURCE, ROOT, drill, home_in, run_drill, spawn_drill

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc, a child subreaper")

BOUND = 30.0
"""Seconds for what these tests wait on: well under a few on an idle machine."""

ESCAPES = {
    "setsid": "os.setsid()",
    "setpgid": "os.setpgid(0, 0)",
    "double-fork": "if os.fork():\n        os._exit(0)",
    "daemon": "os.setsid()\nif os.fork():\n    os._exit(0)",
}
"""How a process the user's code forks leaves the grading's group or its parent (run in the forked
child). A double fork alone stays in the group (killing the group always ended it: kept as a
guard); a daemon's (setsid, then a double fork) is re-parented and out of the group."""


def escaping(folder: Path, how: str, source: str = REFERENCE_SOURCE) -> str:
    """``source`` whose import forks a child that escapes ``how``, writes its pid under ``folder`` and sleeps."""
    step = ESCAPES[how].replace("\n", "\n    ")
    return source + (
        "\n\nimport os as _os_, time as _time_\n"
        "def _escape_(os=_os_, time=_time_):\n"
        "    if os.fork():\n"
        "        return\n"
        f"    {step}\n"
        f"    with open({str(folder)!r} + '/' + str(os.getpid()), 'w') as f:\n"
        "        f.write('escaped')\n"
        "    time.sleep(1000)\n"
        "    os._exit(0)\n"
        "_escape_()\n"
    )


def alive(pid: int) -> bool:
    """``pid`` runs (a zombie is dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def escapees(folder: Path) -> set[int]:
    return {int(p.name) for p in folder.iterdir() if p.name.isdigit()}


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` in a child (tests/support.py, run_drill), 300 columns wide."""
    return run_drill(*args, cwd=cwd, env={"COLUMNS": "300", **(env or {})}, timeout=300)


def assert_all_gone(folder: Path, at_least: int, way: str = "") -> None:
    pids = escapees(folder)
    assert len(pids) >= at_least, f"the user's code did not run{way}: {pids}"
    wait_until(lambda: not any(alive(p) for p in pids), BOUND, f"escaped processes outlived drill{way}: {pids}")


def escaping_every_way(folder: Path) -> str:
    """The reference, whose import forks one child per way of ESCAPES, each writing its pid under
    ``folder / way``: one grading tries them all."""
    source = REFERENCE_SOURCE
    for how in ESCAPES:
        (folder / how).mkdir(parents=True)
        source = escaping(folder / how, how, source)
    return source


def assert_every_way_gone(folder: Path) -> None:
    """Each way's escapee ran and is gone (the failure names the way)."""
    for how in ESCAPES:
        assert_all_gone(folder / how, at_least=1, way=f" ({how})")


def test_drill_grade_ends_processes_that_left_its_group(tmp_path):
    """One grading whose import escapes every way of ESCAPES (each a process of its own)."""
    engine = tmp_path / "engine.py"
    engine.write_text(escaping_every_way(tmp_path / "pids"))
    graded = run("grade", str(engine), "-t", "unbroadcast", "--json")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert json.loads(graded.stdout)["passed"] is True
    assert_every_way_gone(tmp_path / "pids")


def test_drill_check_ends_processes_that_left_its_group(tmp_path):
    """One drill check of a file whose import escapes every way of ESCAPES."""
    start_drill(tmp_path, escaping_every_way(tmp_path / "pids"))
    checked = run("check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert_every_way_gone(tmp_path / "pids")


def three_escaping_saves(
    folder: Path, path: Path, failing: str, still_watching: Callable[[], bool] = lambda: True
) -> None:
    """Three saves to a drill watch, each of a failing file whose grading starts a setsid child: before
    each, the last grading's escapees are gone (and the watch goes on); each save is graded."""
    for save in range(1, 4):
        seen = escapees(folder)
        wait_until(
            lambda seen=seen: not any(alive(p) for p in seen),
            BOUND,
            f"save {save - 1}'s escapee (a copy of the worker) outlived its grading",
        )
        assert still_watching()  # the watch goes on
        path.write_text(escaping(folder, "setsid", failing + f"\n# save {save}\n"))
        wait_until(lambda seen=seen: len(escapees(folder)) > len(seen), BOUND * 2, f"save {save} was not graded")


def test_drill_watch_ends_each_grading_s_escapees_and_leaves_no_worker(tmp_path):
    """Three saves of a failing file, each of whose gradings starts a setsid child (a copy of the
    warm worker's fork): each is gone once its grading is, while the watch goes on; then a correct
    save ends the watch, and no process of it remains, its warm worker included."""
    folder = tmp_path / "pids"
    folder.mkdir()
    failing = REFERENCE_SOURCE + "\n\ndef unbroadcast(grad, shape):\n    return grad\n"
    path = start_drill(tmp_path, escaping(folder, "setsid", failing + "\n# save 0\n"))
    proc = spawn_drill("watch", env={"COLUMNS": "300"})
    try:
        wait_until(lambda: len(escapees(folder)) >= 1, 120, "the first grading did not run the user's code")
        worker = {int(line.split()[0]) for line in _children(proc.pid)}
        assert worker, "no warm worker under drill watch"
        three_escaping_saves(folder, path, failing, still_watching=lambda: proc.poll() is None)
        path.write_text(escaping(folder, "setsid"))
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0 and "Traceback" not in err, out + err
    assert_all_gone(folder, at_least=5)
    wait_until(lambda: not any(alive(p) for p in worker), BOUND, f"the warm worker outlived drill watch: {worker}")


def _children(pid: int) -> list[str]:
    listing = subprocess.run(["ps", "-o", "pid=,command=", "--ppid", str(pid)], capture_output=True, text=True)
    return [line for line in listing.stdout.splitlines() if "autograd_drill.grader.worker" in line]


# ---------------------------------------------------------------------------- at exit


HANGS_AT_EXIT = {
    "atexit": "import atexit as _atexit_, time as _t_\n_atexit_.register(_t_.sleep, 1000)\n",
    "__del__": (
        "import time as _t_\n"
        "class _Hangs_:\n"
        "    def __del__(self, sleep=_t_.sleep):\n"
        "        sleep(1000)\n"
        "_kept_ = _Hangs_()\n"
    ),
}


EVERY_EXIT_HANG = "\n\n" + "".join(HANGS_AT_EXIT.values())
"""Both hangs at once: a verdict that waited for either would be late."""


def test_a_correct_file_whose_exit_hangs_gets_its_verdict_at_once(tmp_path):
    """The check limit is 120 s; the tests take a few: the verdict must wait for neither an atexit
    handler nor a finalizer that hangs (both in the one file graded)."""
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE + EVERY_EXIT_HANG)
    began = time.monotonic()
    graded = run("grade", str(engine), "-t", "unbroadcast", "--json", env={"DRILL_CHECK_TIMEOUT": "120"})
    seconds = time.monotonic() - began
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert json.loads(graded.stdout)["passed"] is True
    print(f"drill grade of a correct file whose atexit and __del__ hang: {seconds:.1f} s")
    assert seconds < BOUND


def test_drill_check_of_a_correct_file_whose_exit_hangs_is_not_held(tmp_path):
    start_drill(tmp_path, REFERENCE_SOURCE + EVERY_EXIT_HANG)
    began = time.monotonic()
    checked = run("check", env={"DRILL_CHECK_TIMEOUT": "120"})
    seconds = time.monotonic() - began
    assert checked.returncode == 0, checked.stdout + checked.stderr
    print(f"drill check of a correct file whose atexit and __del__ hang: {seconds:.1f} s")
    assert seconds < BOUND


# ---------------------------------------------------------------------------- SIGALRM blocked, in the watch

BLOCKS_SIGALRM = {
    "pthread_sigmask": "import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\ntime.sleep(1000)",
    "SIG_IGN": "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(1000)",
}


def test_drill_watch_stops_a_test_that_blocked_its_alarm_as_grade_does(tmp_path):
    """The test's own timer cannot fire; drill grade's backstop (twice the test limit and 2 s: 12 s
    with the product's 5 s, 6 s with the 2 s here, far above the milliseconds of a correct
    unbroadcast test, even on a loaded machine) stops it from outside, and drill watch's must too,
    not the 120 s check limit. A watch for each way of BLOCKS_SIGALRM, side by side (one watch that
    met both, one after the other, waited for the backstop twice), each on a history of its own: the
    first meets its way in its first grading, the second in a save's, after a first verdict (on the
    stub drill start wrote: not written yet); each its verdict; then a correct save ends each."""
    limits = {"COLUMNS": "300", "DRILL_TEST_TIMEOUT": "2", "DRILL_CHECK_TIMEOUT": "120"}
    ways = list(BLOCKS_SIGALRM)
    paths = {how: tmp_path / how / "solutions" / "unbroadcast.py" for how in ways}
    procs: dict[str, subprocess.Popen[str]] = {}
    try:
        for how in ways:
            home = home_in(tmp_path / how)
            drill("start", "unbroadcast", env=home)  # in process: a start grades nothing
            if how == ways[0]:
                paths[how].write_text(in_unbroadcast(BLOCKS_SIGALRM[how]))
            procs[how] = spawn_drill("watch", env={**home, **limits})
        began = dict.fromkeys(ways, time.monotonic())
        lines = {how: Lines(procs[how]) for how in ways}
        second = lines[ways[1]]
        wait_until(lambda: any("not written yet" in line for line in second), 100, f"no first verdict: {second}")
        paths[ways[1]].write_text(in_unbroadcast(BLOCKS_SIGALRM[ways[1]]))
        began[ways[1]] = time.monotonic()
        for how in ways:
            wait_until(
                lambda seen=lines[how]: any("could not be stopped inside the test" in line for line in seen),
                100,
                f"no verdict ({how}): {lines[how]}",
            )
            seconds = time.monotonic() - began[how]
            print(f"drill watch, SIGALRM blocked ({how}): verdict in {seconds:.1f} s")
            assert seconds < 60, f"the verdict took {seconds:.0f} s ({how})"
        for path in paths.values():
            path.write_text(REFERENCE_SOURCE)
        for how, proc in procs.items():
            proc.wait(timeout=120)
            out, err = lines[how].text(), proc.stderr.read() if proc.stderr else ""
            assert proc.returncode == 0, f"{how}: {out}{err}"
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


# ---------------------------------------------------------------------------- the working directory


WRITES_HERE = 'with open("{name}", "w") as _f_:\n    _f_.write("a relative write")\n'


def test_a_grading_s_relative_writes_land_in_neither_the_repository_nor_the_cwd(tmp_path):
    name = f"stray-{uuid.uuid4().hex}.txt"
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE + "\n\n" + WRITES_HERE.format(name=name))
    here = tmp_path / "where-drill-runs"
    here.mkdir()
    graded = run("grade", str(engine), "-t", "unbroadcast", "--json", cwd=here)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert json.loads(graded.stdout)["passed"] is True  # the grader still finds its files
    assert not (ROOT / name).exists() and not (here / name).exists() and not (tmp_path / name).exists()


def test_a_warm_grading_s_relative_writes_land_nowhere_near_the_repository(tmp_path):
    name = f"stray-{uuid.uuid4().hex}.txt"
    start_drill(tmp_path, REFERENCE_SOURCE + "\n\n" + WRITES_HERE.format(name=name))
    watched = run("watch")
    assert watched.returncode == 0, watched.stdout + watched.stderr
    assert "passed" in watched.stdout
    assert not (ROOT / name).exists() and not (tmp_path / name).exists()
    assert not (ROOT / "grader" / name).exists()


# ---------------------------------------------------------------------------- the reaper, in this process


SLEEPER = [sys.executable, "-c", "import time; time.sleep(1000)"]
DAEMON = "import os, sys, time\nif os.fork(): sys.exit(0)\nos.setsid()\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(1000)"
"""A child that forks a grandchild out of its session, which writes its pid; the child exits: an orphan."""


def orphan(tmp_path: Path) -> int:
    """An orphan, started by a child that exits at once; its pid."""
    said = tmp_path / f"orphan-{uuid.uuid4().hex}"
    subprocess.run([sys.executable, "-c", DAEMON, str(said)], stdout=subprocess.DEVNULL, timeout=60, check=True)
    wait_until(lambda: said.exists() and said.read_text(), BOUND, "the orphan did not start")
    return int(said.read_text())


def test_reaping_ends_an_orphan_of_the_block_and_spares_a_child_from_before(tmp_path):
    from autograd_drill.grader.reaper import reaping

    before = subprocess.Popen(SLEEPER)
    try:
        with reaping():
            pid = orphan(tmp_path)
            assert alive(pid)
        wait_until(lambda: not alive(pid), BOUND, "the orphan outlived the block")
        assert before.poll() is None  # a child from before the block is not the block's
    finally:
        before.kill()
        before.wait()


def test_reaping_in_two_threads_ends_nothing_of_the_other_s_until_both_close(tmp_path):
    import threading

    from autograd_drill.grader.reaper import reaping

    opened, closing, done = threading.Event(), threading.Event(), threading.Event()
    found: dict[str, int] = {}

    def other() -> None:
        with reaping():
            proc = subprocess.Popen(SLEEPER)
            found["other"] = proc.pid
            opened.set()
            closing.wait(60)
            assert proc.poll() is None  # the first block closed: this one's child still runs
            proc.kill()
            proc.wait()
        done.set()

    thread = threading.Thread(target=other)
    with reaping():
        pid = orphan(tmp_path)
        thread.start()
        assert opened.wait(60)
    try:
        assert alive(found["other"]) and alive(pid)  # the other block is open: its grading may own these
        closing.set()
        assert done.wait(60)
        wait_until(lambda: not alive(pid), BOUND, "the orphan outlived the last block")
    finally:
        closing.set()
        thread.join(60)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_quitting_an_interactive_watch_after_several_saves_leaves_no_process(tmp_path):
    """In a terminal, with keys: after each save's grading no copy of the warm worker (the setsid
    child of its fork) remains, and after q neither the worker nor anything else of the watch, its
    temporary folders included (the standby forked after the last save had one)."""
    pytest.importorskip("pexpect")
    pytest.importorskip("pyte")
    from tests.terminal import Pty

    folder = tmp_path / "pids"
    folder.mkdir()
    failing = REFERENCE_SOURCE + "\n\ndef unbroadcast(grad, shape):\n    return grad\n"
    path = start_drill(tmp_path, escaping(folder, "setsid", failing))
    temp = own_temp(tmp_path)
    watch = Pty([sys.executable, "-m", "autograd_drill", "watch", "--oracle", "replay"], env={"TMPDIR": str(temp)})
    try:
        wait_until(lambda: escapees(folder), 120, "the first grading did not run the user's code")
        workers = {int(line.split()[0]) for line in _children(watch.child.pid)}
        assert len(workers) == 1, workers
        three_escaping_saves(folder, path, failing)
        wait_until(
            lambda: not any(alive(p) for p in escapees(folder)), BOUND, "a copy of the worker outlived the last save"
        )
        assert {int(line.split()[0]) for line in _children(watch.child.pid)} == workers  # still one worker, the same
        watch.child.send("q")
        assert watch.end() == 0
    finally:
        watch.kill()
    wait_until(lambda: not any(alive(p) for p in workers), BOUND, f"the warm worker outlived q: {workers}")
    assert len(escapees(folder)) >= 4
    assert not list(temp.iterdir())
