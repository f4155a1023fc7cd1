"""The interpreters started ahead of time stand by (grader/spawn.py, grader/spare.py): a save of the
selection graded last finds its pytest session set up and its tests collected (issue 25, point 3:
before, each grading ran pytest from its start in the warm interpreter, 2.5 times the fork worker);
another selection is still graded right, by the same interpreter, and the spares then stand by for
it. Real interpreters, on Linux too (the runner needs no fork)."""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from autograd_drill.grader import spare, spawn
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.run import grade_file
from autograd_drill.grader.spare import Inbox
from autograd_drill.grader.spawn import SpawnRunner
from tests.mutants import MUTANTS
from tests.processes import own_temp, start_drill, wait_until
from tests.support import REFERENCE_SOURCE, run_drill

CATALOG = load_catalog()
WARM_WITHIN = 120
"""Seconds for every spare to be warm and standing by (a few on an idle machine)."""


class Watched:
    """A runner that keeps the events of the last grading's report, in order."""

    def __init__(self, runner: SpawnRunner) -> None:
        self.runner, self.events = runner, list[str]()

    def __call__(self, args: list[str], timeout: float, stalled=None) -> tuple[int, str]:
        result = self.runner(args, timeout, stalled)
        report = Path(next(a.split("=", 1)[1] for a in args if a.startswith("--report-json=")))
        self.events = [json.loads(line)["event"] for line in report.read_text().splitlines()]
        return result


def all_standing(runner: SpawnRunner, target: str) -> bool:
    """Every spare warm (``spares()`` of them, as the test set it), and standing by for a selection of
    ``target``'s tests."""
    spares = list(runner.spares)
    marker = CATALOG.get(target).marker
    return len(spares) == spawn.spares() and all(s.ready and s.key is not None and s.key[-1] == marker for s in spares)


@pytest.fixture
def watched():
    runner = SpawnRunner()
    yield Watched(runner)
    runner.close()


def engine(tmp_path: Path, target: str | None) -> Path:
    """The reference, or its first classic bug of ``target``."""
    path = tmp_path / f"{target or 'reference'}.py"
    mutant = next((m for m in MUTANTS if m.target == target), None)
    path.write_text(REFERENCE_SOURCE if mutant is None else mutant.apply(REFERENCE_SOURCE))
    return path


@pytest.fixture
def spares(request, monkeypatch):
    """The spares a runner keeps for a test (``@pytest.mark.parametrize("spares", [N], indirect=True)``,
    through ``$DRILL_SPARES`` as a user sets it; the suite's is 1, tests/conftest.py): each spare costs
    its warm-up and a standing session."""
    monkeypatch.setenv(spawn.SPARES_ENV, str(request.param))


@pytest.mark.parametrize("spares", [2], indirect=True)
def test_a_save_of_the_selection_graded_last_finds_its_tests_collected_before_it(spares, watched, tmp_path):
    """The report says "go" after its "collected" event: the session had collected its tests before
    it was told the file to grade (a grading from pytest's start says no "go"). Two spares: the third
    grading takes the one the second left standing."""
    unbroadcast = [CATALOG.get("unbroadcast")]
    assert grade_file(engine(tmp_path, None), unbroadcast, runner=watched).passed
    assert "go" not in watched.events  # the first: no selection known, graded from pytest's start
    wait_until(lambda: all_standing(watched.runner, "unbroadcast"), WARM_WITHIN, "the spares standing by")
    failing = grade_file(engine(tmp_path, "unbroadcast"), unbroadcast, runner=watched)
    assert failing.targets[0].failures
    assert watched.events.index("collected") < watched.events.index("go") < watched.events.index("start")
    assert grade_file(engine(tmp_path, None), unbroadcast, runner=watched).passed  # the next spare too
    assert "go" in watched.events


@pytest.mark.parametrize("spares", [spawn.SPARES], indirect=True)
def test_another_selection_is_graded_right_and_the_spares_then_stand_by_for_it(spares, watched, tmp_path):
    """A save of another selection is graded by an interpreter standing by for the last: its session
    ends without a test, and it grades the new one from pytest's start, with the verdict a standby
    gives; the spares are then told to stand by for the new selection."""
    unbroadcast, arith = [CATALOG.get("unbroadcast")], [CATALOG.get("arith")]
    wrong = engine(tmp_path, "arith")
    assert grade_file(engine(tmp_path, None), unbroadcast, runner=watched).passed
    wait_until(lambda: all_standing(watched.runner, "unbroadcast"), WARM_WITHIN, "the spares standing by")
    switched = grade_file(wrong, arith, runner=watched).targets[0]
    assert "go" not in watched.events and switched.failures
    wait_until(lambda: all_standing(watched.runner, "arith"), WARM_WITHIN, "the spares standing by for arith")
    stood = grade_file(wrong, arith, runner=watched).targets[0]
    assert "go" in watched.events
    assert stood == switched
    assert grade_file(engine(tmp_path, None), unbroadcast + arith, runner=watched).passed


@pytest.mark.parametrize("spares", [1], indirect=True)
def test_a_spare_no_longer_needed_ends_and_its_folder_goes(spares, tmp_path):
    """When drill's end closes a spare's stdin (drill watch died without a word), the spare ends,
    standing by or not, and removes its working folder (one spare: each ends alike)."""
    runner = SpawnRunner()
    try:
        grade_file(engine(tmp_path, None), [CATALOG.get("unbroadcast")], runner=runner)
        wait_until(lambda: all_standing(runner, "unbroadcast"), WARM_WITHIN, "the spares standing by")
        spares = list(runner.spares)
        for one in spares:
            assert one.folder.is_dir()
            assert one.proc.stdin is not None
            one.proc.stdin.close()
        for one in spares:
            assert one.proc.wait(timeout=30) == 0
            assert not one.folder.exists()
    finally:
        runner.close()


def test_a_warm_up_held_while_another_interpreter_grades_waits_at_its_next_import(tmp_path, monkeypatch):
    """``{"hold": true}`` on a spare's stdin: its warm-up waits at its next import (or answer read)
    until ``{"hold": false}``, so that the grading under way has the cores (issue 25: a warm-up costs
    a few gradings' CPU); the grading's own interpreter then drops the import finder."""
    monkeypatch.setattr(spare, "HOLD_SECONDS", 600)  # held until told: however busy the machine
    read, write = os.pipe()
    inbox = Inbox(os.fdopen(read, encoding="utf-8"), -1, str(tmp_path))
    try:
        threading.Thread(target=inbox.run, daemon=True).start()
        with os.fdopen(write, "w", encoding="utf-8") as drill:
            drill.write('{"hold": true}\n')
            drill.flush()
            wait_until(lambda: not inbox.free.is_set(), 30, "the hold")
            imported = threading.Event()
            importer = threading.Thread(target=lambda: (importlib.import_module("colorsys"), imported.set()))
            sys.modules.pop("colorsys", None)
            importer.start()
            importer.join(0.5)
            assert not imported.is_set()  # held at its import
            drill.write('{"hold": false}\n')
            drill.flush()
            importer.join(30)
            assert imported.is_set() and "colorsys" in sys.modules
            drill.write(json.dumps({"args": ["-q"]}) + "\n")
            drill.flush()
            assert inbox.take() == {"args": ["-q"]}  # the holds are no lines to take
        assert inbox not in sys.meta_path  # the grading begins: no finder of the warm-up's left
    finally:
        if inbox in sys.meta_path:
            sys.meta_path.remove(inbox)


# ---------------------------------------------------------------------------- drill check


def test_drill_check_grades_in_an_interpreter_started_as_it_starts(tmp_path):
    """``drill check`` starts the grading's interpreter first, which imports what a grading needs while
    the command opens the history and reads the file (grader/spawn.py, ``OneShot``): the user's code
    runs in ``python -m autograd_drill.grader.worker --once``, not in a ``python -m pytest`` started after; the
    verdict is the same, and the interpreter's folder goes with it."""
    argv, temp = tmp_path / "argv", own_temp(tmp_path)
    start_drill(tmp_path, f"{REFERENCE_SOURCE}\nimport sys as _sys\nopen({str(argv)!r}, 'w').write(repr(_sys.argv))\n")
    checked = run_drill("check", env={"TMPDIR": str(temp)})
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "--once" in argv.read_text() and "pytest" not in argv.read_text()
    assert not list(temp.glob("drill-grading-*"))


def started_interpreters(folder: Path) -> tuple[dict[str, str], Path]:
    """The environment of a ``drill`` whose every Python process, as it starts, appends its argv to the
    returned file (a ``sitecustomize.py`` on its PYTHONPATH, inherited by its children)."""
    log = folder / "argv.log"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        f"import sys\nwith open({str(log)!r}, 'a') as _log:\n    _log.write(repr(sys.orig_argv) + '\\n')\n",
        encoding="utf-8",
    )
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)}, log


def test_drill_check_that_fails_before_grading_ends_the_interpreter_it_started(tmp_path):
    """No attempt in progress: the command fails before any grading. Where there is no history at all,
    it starts no interpreter for the grading (it used to start one, about 0.3 CPU-s, and kill it);
    where there is one (an attempt ended), the interpreter it started is gone with it, its folder too."""
    temp = own_temp(tmp_path)
    for bare in (True, False):  # drill check starts it first (drills/entry.py); with --json, in the command
        env, log = started_interpreters(tmp_path / f"site-{bare}")
        home = {"DRILL_HOME": str(tmp_path / f"home-{bare}")}  # each its own: the first check makes a history
        checked = run_drill("check", *([] if bare else ["--json"]), env={"TMPDIR": str(temp), **home, **env})
        assert checked.returncode != 0 and "no attempt in progress" in checked.stdout + checked.stderr
        started = log.read_text(encoding="utf-8")
        assert "autograd_drill" in started and "--once" not in started, started
    start_drill(tmp_path, REFERENCE_SOURCE)
    assert run_drill("abandon").returncode == 0
    env, log = started_interpreters(tmp_path / "site-history")
    checked = run_drill("check", env={"TMPDIR": str(temp), **env})
    assert checked.returncode != 0 and "no attempt in progress" in checked.stdout + checked.stderr
    assert "--once" in log.read_text(encoding="utf-8")
    assert not list(temp.glob("drill-grading-*"))
