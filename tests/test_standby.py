"""The warm worker's standby (grader/forks.py): the next grading, forked and set up ahead of its save,
grades the file as it is when the save comes, and only for the selection it was set up for."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograd_drill.grader import worker
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.run import grade_file
from tests.processes import descendants, processes, wait_until
from tests.support import REFERENCE_SOURCE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork worker is Linux's")
CATALOG = load_catalog()
WRONG = REFERENCE_SOURCE.replace("self.grad += out.data * out.grad", "self.grad += out.grad")  # exp's gradient


@pytest.fixture(scope="module")
def runner() -> Iterator[worker.WarmRunner]:
    """A worker of this module's own, forking a standby after each grading (drill watch's): not the
    test process's (tests/conftest.py), which forks none but keeps zygotes (tests/test_zygotes.py),
    its children too. Whatever standby an earlier test left, the first grading below takes or drops
    it, and each test counts the standby its own gradings leave. test_no_standby_outlives_the_worker
    closes a worker, so starts its own."""
    runner = worker.WarmRunner()
    runner.start()
    yield runner
    runner.close()


def standbys(runner: worker.WarmRunner) -> set[int]:
    """The worker's children that wait for a save (blocked, sleeping): between gradings, its standby."""
    assert runner.proc is not None
    table = processes()
    return {pid for pid in descendants(runner.proc.pid) if table[pid][0] == runner.proc.pid}


def test_the_standby_grades_the_file_as_saved_after_it_was_forked(tmp_path: Path, runner: worker.WarmRunner) -> None:
    file = tmp_path / "engine.py"
    unary = [CATALOG.get("unary")]
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    assert grade_file(file, unary, runner=runner).passed
    wait_until(lambda: len(standbys(runner)) == 1, 30, "no standby after a grading")
    (ahead,) = standbys(runner)
    file.write_text(WRONG, encoding="utf-8")  # the save, after the standby was set up
    result = grade_file(file, unary, runner=runner)
    assert not result.passed and any("exp" in f.test for f in result.targets[0].failures)
    wait_until(lambda: ahead not in standbys(runner), 30, "the standby did not grade")
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    assert grade_file(file, unary, runner=runner).passed, "and the one after it, again as saved"


def test_another_selection_drops_the_standby_and_grades_its_own(tmp_path: Path, runner: worker.WarmRunner) -> None:
    file = tmp_path / "engine.py"
    file.write_text(WRONG, encoding="utf-8")
    assert grade_file(file, [CATALOG.get("unbroadcast")], runner=runner).passed
    wait_until(lambda: len(standbys(runner)) == 1, 30, "no standby after a grading")
    (ahead,) = standbys(runner)
    result = grade_file(file, [CATALOG.get("unbroadcast"), CATALOG.get("unary")], runner=runner)
    assert [t.passed for t in result.targets] == [True, False], "the selection asked for, not the standby's"
    assert ahead not in processes(), "the unfit standby was ended"
    wait_until(lambda: len(standbys(runner)) == 1, 30, "no standby for the new selection")


def test_no_standby_outlives_the_worker(tmp_path: Path) -> None:
    runner = worker.WarmRunner()
    runner.start()
    file = tmp_path / "engine.py"
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    assert grade_file(file, [CATALOG.get("unbroadcast")], runner=runner).passed
    wait_until(lambda: len(standbys(runner)) == 1, 30, "no standby after a grading")
    ahead = standbys(runner)
    runner.close()
    wait_until(lambda: not ahead & set(processes()), 30, "the standby outlived its worker")
