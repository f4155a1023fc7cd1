"""The interpreters started ahead of time (grader/spawn.py, macOS and Windows): warm when a save
comes soon after a verdict, and graded as the fork worker grades.

Real interpreters throughout, on Linux too (the runner needs no fork; tests/test_platforms.py runs
``drill watch`` with it on a simulated Windows and macOS).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import psutil
import pytest

from autograd_drill.grader import spawn as grader_spawn
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.process import grading_env
from autograd_drill.grader.run import grade_file
from autograd_drill.grader.spare import Filling
from autograd_drill.grader.spawn import SPARES, OneShot, SpawnRunner
from autograd_drill.grader.worker import WarmRunner
from tests.mutants import MUTANTS
from tests.processes import wait_until
from tests.support import REFERENCE_SOURCE

CATALOG = load_catalog()
CORE = [t.id for t in CATALOG.targets]


def _interpreters() -> set[int]:
    """The interpreters started ahead of time by this process, alive now."""
    found = set()
    for child in psutil.Process().children():
        try:
            if "--once" in child.cmdline():
                found.add(child.pid)
        except psutil.Error:  # gone meanwhile
            continue
    return found


@pytest.mark.parametrize(("value", "kept"), [(None, SPARES), ("2", 2), (" 0 ", 0), ("many", SPARES), ("-1", SPARES)])
def test_drill_spares_sets_how_many_interpreters_warm(value, kept, monkeypatch):
    """``$DRILL_SPARES``: a whole number of spares (0: none), else the ``SPARES`` shipped; a runner
    starts that many (none for 0), and ends them with it."""
    if value is None:
        monkeypatch.delenv(grader_spawn.SPARES_ENV, raising=False)
    else:
        monkeypatch.setenv(grader_spawn.SPARES_ENV, value)
    assert grader_spawn.spares() == kept
    if kept > 1:
        return  # started only where it costs one warm-up at most
    runner = SpawnRunner()
    try:
        runner.warm_up()
        assert len(runner.spares) == kept
    finally:
        runner.close()


def test_a_save_soon_after_a_verdict_takes_an_interpreter_started_a_grading_earlier(tmp_path, monkeypatch):
    """Warming an interpreter up (Python, NumPy, pytest, the recorded answers) takes longer than a
    user's pause between a verdict and the next save. So the interpreter that grades a save was
    started before the grading before it began, not at its end: it had that grading and two pauses
    to warm up (issue 25: 1.75 times the fork worker at a 0.3 s pause, when one warmed at a time)."""
    pids, solution = tmp_path / "pids", tmp_path / "solution.py"
    solution.write_text(
        f"{REFERENCE_SOURCE}\nimport os as _os\nopen({str(pids)!r}, 'a').write(f'{{_os.getpid()}}\\n')\n"
    )
    unbroadcast = [CATALOG.get("unbroadcast")]
    monkeypatch.delenv(grader_spawn.SPARES_ENV, raising=False)  # the spares shipped, not the suite's one
    runner = SpawnRunner()
    try:
        assert grade_file(solution, unbroadcast, runner=runner).passed
        wait_until(lambda: len(_interpreters()) >= SPARES, 60, f"fewer than {SPARES} interpreters warming up")
        before_the_second = _interpreters()
        assert grade_file(solution, unbroadcast, runner=runner).passed
        assert grade_file(solution, unbroadcast, runner=runner).passed
        first, second, third = (int(pid) for pid in pids.read_text().split())
        assert len({first, second, third}) == 3  # an interpreter per grading
        assert third in before_the_second
    finally:
        runner.close()
    wait_until(lambda: not _interpreters(), 30, "an interpreter outlived the runner's close")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork worker compared with")
def test_an_interpreter_started_ahead_of_time_grades_as_the_fork_worker(tmp_path, warm_runner, monkeypatch):
    """Its dry pytest session leaves nothing behind that changes a verdict: for the first classic
    bug of each core target, the same tests fail with the same messages as in the fork worker (the
    test process's own, tests/conftest.py ``warm_runner``: a fork worker of this test's would cost
    its start, about a second of CPU, for the same verdicts). One spare warms at a time (``SPARES``
    is about saves in a row, tested above): each of the three stood by anew for every selection
    graded, six here, each a different one."""
    engines = {}
    for mutant in MUTANTS:
        if mutant.target in CORE and mutant.target not in engines:
            path = tmp_path / f"{mutant.id}.py"
            path.write_text(mutant.apply(REFERENCE_SOURCE))
            engines[mutant.target] = path
    assert set(engines) == set(CORE)
    assert isinstance(warm_runner, WarmRunner)
    monkeypatch.setenv(grader_spawn.SPARES_ENV, "1")
    spawn = SpawnRunner()
    try:
        for target, path in engines.items():
            verdicts = [grade_file(path, [CATALOG.get(target)], runner=r).targets[0] for r in (spawn, warm_runner)]
            spawned, forked = verdicts
            assert spawned.failures and spawned == forked, target
    finally:
        spawn.close()


def test_the_recorded_answers_read_ahead_stop_at_a_request_and_the_rest_are_read_when_asked():
    """An interpreter reads the recording while no grading has asked (half of its warm-up); a request
    stops it, and the grading still gets every answer, read ahead or not."""
    store = {f"k{i}": np.full(2, float(i)) for i in range(5)}
    asked = threading.Event()
    reads: list[str] = []

    class Counting(dict):
        def __getitem__(self, key):
            reads.append(key)
            if len(reads) == 2:
                asked.set()  # the request comes while the second answer is read
            return super().__getitem__(key)

    filling = Filling(Counting(store))
    filling.fill(until=asked)
    assert list(filling.read) == ["k0", "k1"]
    assert all(np.array_equal(filling[k], v) for k, v in store.items())
    assert reads[2:] == ["k2", "k3", "k4"]  # the rest read once asked, not before
    assert list(filling) == list(store) and len(filling) == len(store)


def test_a_dry_session_imports_the_tests_and_collects_none():
    """The warm-up of a spare that knows no selection (grader/spare.py ``dry_session``) imports every
    target's test modules and runs pytest's session machinery, the grader's conftest loaded as a plugin,
    but builds no test item: collecting every target's tests cost each interpreter about 0.2 CPU-s, for
    items the grading builds anew (test_an_interpreter_started_ahead_of_time_grades_as_the_fork_worker:
    the verdicts after it are the fork worker's)."""
    code = (
        "import sys\n"
        "import _pytest.python\n"
        "from autograd_drill.grader.process import GRADER\n"
        "from autograd_drill.grader.spare import dry_session\n"
        "built, init = [], _pytest.python.Function.__init__\n"
        "_pytest.python.Function.__init__ = lambda self, *a, **k: (built.append(1), init(self, *a, **k))[1]\n"
        "dry_session()\n"
        "imported = {m for m in sys.modules if m.startswith('autograd_drill.grader.test_')}\n"
        "print(len(built), imported == {f'autograd_drill.grader.{p.stem}' for p in GRADER.glob('test_*.py')})\n"
        "print('autograd_drill.grader.conftest' in sys.modules, '_pytest.python' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=grading_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["0 True", "True True"], done.stdout


COLLECTOR_SEEN = """
import gc as _gc
import pathlib as _pathlib

_pathlib.Path({seen!r}).write_text(f"{{_gc.isenabled()}} {{_gc.get_threshold()}}")
"""


@pytest.mark.parametrize("runner_class", [WarmRunner, SpawnRunner, OneShot])
def test_a_grading_collects_cycles_though_its_process_warmed_up_without(runner_class, tmp_path):
    """The warm worker and the interpreters started ahead warm up with the cycle collector off
    (grader.collect_after_warm_up); the grading's configure turns it back on, with the gradings'
    thresholds: the user's code, imported by the grading, finds it on."""
    seen, solution = tmp_path / "seen", tmp_path / "solution.py"
    solution.write_text(REFERENCE_SOURCE + COLLECTOR_SEEN.format(seen=str(seen)), encoding="utf-8")
    runner = runner_class()
    try:
        result = grade_file(solution, [CATALOG.get("unbroadcast")], runner=runner)
    finally:
        runner.close()
    assert result.passed
    assert seen.read_text(encoding="utf-8") == "True (200000, 100, 100)"
