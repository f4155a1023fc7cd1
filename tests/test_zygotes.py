"""The warm worker's zygotes (grader/forks.py, grader/zygote.py), where it forks no standby (the test
process's, tests/conftest.py): a selection graded before is graded in a fork of its zygote, which
pytest's set-up has been done in once; the file as given, with a grading's state of its own."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from autograd_drill.grader import forks, worker
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.run import grade_file
from tests.processes import descendants, in_unbroadcast, processes, wait_until
from tests.support import REFERENCE_SOURCE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork worker is Linux's")
CATALOG = load_catalog()
WRONG = REFERENCE_SOURCE.replace("self.grad += out.data * out.grad", "self.grad += out.grad")  # exp's gradient


def children(runner: worker.WarmRunner) -> set[int]:
    """The worker's own children: between gradings, its zygotes (and no standby)."""
    assert runner.proc is not None
    table = processes()
    return {pid for pid in descendants(runner.proc.pid) if table[pid][0] == runner.proc.pid}


def telling_its_parent(path: Path, source: str = REFERENCE_SOURCE) -> str:
    """``source``, writing the process id of its grading's parent to ``path`` as it is imported."""
    return source + f"\nimport os as _os\n\nopen({str(path)!r}, 'w').write(str(_os.getppid()))\n"


def test_a_selection_graded_again_forks_from_its_zygote_and_grades_the_file_as_given(
    tmp_path: Path, warm_runner: worker.WarmRunner
) -> None:
    """No standby after a grading (none is forked ahead here), but one zygote for its selection, which
    the next grading of that selection is a fork of; another selection has a zygote of its own, and the
    worker keeps at most ZYGOTES."""
    assert warm_runner.ahead is False
    file, parent = tmp_path / "engine.py", tmp_path / "parent"
    unary, backward = [CATALOG.get("unary")], [CATALOG.get("backward")]
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    assert grade_file(file, unary, runner=warm_runner).passed
    before = children(warm_runner)
    assert 1 <= len(before) <= forks.ZYGOTES
    file.write_text(telling_its_parent(parent, WRONG), encoding="utf-8")
    result = grade_file(file, unary, runner=warm_runner)
    assert not result.passed and any("exp" in f.test for f in result.targets[0].failures), "the file as given"
    zygote = int(parent.read_text())
    assert zygote in before and children(warm_runner) == before, "graded in a fork of a zygote kept from before"
    file.write_text(telling_its_parent(parent), encoding="utf-8")
    assert grade_file(file, unary, runner=warm_runner).passed, "and the next, again as given"
    assert int(parent.read_text()) == zygote
    assert grade_file(file, backward, runner=warm_runner).passed
    assert int(parent.read_text()) not in (zygote, warm_runner.proc.pid if warm_runner.proc else None)
    assert zygote in children(warm_runner) and len(children(warm_runner)) <= forks.ZYGOTES


def test_a_timeout_in_one_grading_does_not_stop_the_next_of_its_zygote(
    tmp_path: Path, warm_runner: worker.WarmRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test stopped at its limit stops its target's other tests in that grading only (the pages its
    processes share are its own, not its zygote's): a correct file graded next runs every test."""
    monkeypatch.setenv("DRILL_TEST_TIMEOUT", "0.5")
    file = tmp_path / "engine.py"
    selection = [CATALOG.get("unbroadcast"), CATALOG.get("cotangent")]
    file.write_text(in_unbroadcast("while True:\n    pass"), encoding="utf-8")
    stopped = grade_file(file, selection, runner=warm_runner).targets[0]
    assert not stopped.passed and stopped.not_run == stopped.tests - 1
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = grade_file(file, selection, runner=warm_runner)
    assert result.passed and all(t.not_run == 0 for t in result.targets), result.targets


def test_a_zygote_that_died_is_replaced_and_its_grading_is_done_all_the_same(
    tmp_path: Path, warm_runner: worker.WarmRunner
) -> None:
    file, parent = tmp_path / "engine.py", tmp_path / "parent"
    unary = [CATALOG.get("unary")]
    file.write_text(telling_its_parent(parent), encoding="utf-8")
    assert grade_file(file, unary, runner=warm_runner).passed
    zygote = int(parent.read_text())
    os.kill(zygote, signal.SIGKILL)
    wait_until(lambda: zygote not in children(warm_runner) or processes()[zygote][1] == "Z", 30, "the zygote lived on")
    file.write_text(WRONG, encoding="utf-8")
    assert not grade_file(file, unary, runner=warm_runner).passed, "graded, in a fork of the worker"
    file.write_text(telling_its_parent(parent), encoding="utf-8")
    assert grade_file(file, unary, runner=warm_runner).passed
    assert int(parent.read_text()) not in (zygote, warm_runner.proc.pid if warm_runner.proc else None), "a new zygote"


def test_a_cancel_kills_a_zygote_s_grading_and_the_zygote_stays(tmp_path: Path, warm_runner: worker.WarmRunner) -> None:
    import threading

    from autograd_drill.grader.process import Cancelled

    file, started, parent = tmp_path / "engine.py", tmp_path / "started", tmp_path / "parent"
    softmax = [CATALOG.get("softmax")]
    file.write_text(telling_its_parent(parent), encoding="utf-8")
    assert grade_file(file, softmax, runner=warm_runner).passed
    zygote = int(parent.read_text())
    loops = f"import pathlib\npathlib.Path({str(started)!r}).write_text('running')\nwhile True:\n    pass"
    file.write_text(in_unbroadcast(loops), encoding="utf-8")
    threading.Timer(0.0, lambda: (wait_until(started.exists, 60, "no grading"), warm_runner.cancel())).start()
    with pytest.raises(Cancelled):
        grade_file(file, [CATALOG.get("unbroadcast"), *softmax], runner=warm_runner)
    file.write_text(telling_its_parent(parent), encoding="utf-8")
    assert grade_file(file, softmax, runner=warm_runner).passed and int(parent.read_text()) == zygote


def test_no_zygote_outlives_the_worker(tmp_path: Path) -> None:
    runner = worker.WarmRunner()
    runner.ahead = False
    runner.start()
    file = tmp_path / "engine.py"
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    for target in ("unbroadcast", "unary"):
        assert grade_file(file, [CATALOG.get(target)], runner=runner).passed
    kept = children(runner)
    assert len(kept) == 2
    runner.close()
    wait_until(lambda: not kept & set(processes()), 30, "a zygote outlived its worker")
