"""Fixtures only: user state isolated in tmp_path, the CLI's clock, the history, a warm grading
worker. Shared constants and helpers are in tests/support.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest

from drills import cli
from drills.loop import session
from drills.loop.clock import MockClock
from drills.store.history import History
from drills.store.paths import history_path
from grader import worker
from grader.process import Runner
from grader.verdict import GradeResult, TargetResult
from tests.support import T0, FakeGrader, use_consoles


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Under ``pytest -n``: ``--dist worksteal`` unless told otherwise (an idle worker takes tests
    queued for a busy one, so a run does not wait on one worker's tail). Set here, not in addopts,
    so that plain ``pytest`` runs where pytest-xdist is not installed."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", None) == "no":
        config.option.dist = "worksteal"


@pytest.fixture(autouse=True)
def drill_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """All user state (history, workspace) lives under tmp_path: DRILL_HOME points there."""
    home = tmp_path / "drill-home"
    monkeypatch.setenv("DRILL_HOME", str(home))
    monkeypatch.setenv("DRILL_WORKSPACE", str(tmp_path / "solutions"))
    return home


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> MockClock:
    """The CLI's clock, injected: advance it to let minutes pass; calendar days are counted in UTC."""
    mock = MockClock(T0)
    monkeypatch.setattr(cli, "CLOCK", mock)
    monkeypatch.setattr(cli, "TZ", UTC)
    return mock


@pytest.fixture
def store() -> Iterator[History]:
    """The history that the CLI uses (under DRILL_HOME), opened for a test to read or fill."""
    history = History(history_path())
    yield history
    history.close()


@pytest.fixture
def passing_grader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stands in for the grader: every target passes unless a stub is left in the file."""

    def grade(file: Path, targets, oracle: str = "auto", label: str | None = None, **_: object) -> GradeResult:
        blank = "raise NotImplementedError(" in Path(file).read_text(encoding="utf-8")
        return GradeResult(label or str(file), tuple(TargetResult(t.id, 5, int(blank), ()) for t in targets), 0.01)

    monkeypatch.setattr(session, "grade_file", grade)


@pytest.fixture(scope="session")
def warm_runner() -> Iterator[Runner]:
    """One warm grading worker per test process, drill watch's (grader/worker.py): NumPy, pytest
    and the grader imported once, then a fresh fork per grading, so a grading costs its tests' time.

    For the tests that check what a verdict says (mutants, stubs, alternative engines, messages). How
    a grading is started, stopped and cleaned up is tested with drill run in a child, as users run it
    (test_robustness, test_lifecycle, test_platforms, test_grade_cli)."""
    runner = worker.warm_runner()
    # Started now, in the environment the session began with, not in a test's (monkeypatched) one.
    if isinstance(runner, worker.WarmRunner):
        runner.start()
    else:
        runner.warm_up()
    yield runner
    runner.close()


@pytest.fixture
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide enough that rich wraps none of the tables and messages asserted on (tmp paths are long)."""
    monkeypatch.setenv("COLUMNS", "500")
    use_consoles(monkeypatch, width=500)


@pytest.fixture
def narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal 60 columns wide, as a split screen or a phone: what drill prints must stay usable there."""
    monkeypatch.setenv("COLUMNS", "60")
    use_consoles(monkeypatch, width=60)


@pytest.fixture
def warm_grading(monkeypatch: pytest.MonkeyPatch, warm_runner) -> None:
    """A check in process grades in a fork of the warm worker, not in a fresh interpreter."""
    monkeypatch.setattr(session, "run_in_subprocess", warm_runner)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "solutions"


@pytest.fixture
def history(store: History) -> History:
    """The history (``store``), under the name the drill loop's functions give it."""
    return store


@pytest.fixture
def fake_grading(monkeypatch: pytest.MonkeyPatch, clock: MockClock) -> FakeGrader:
    """The drill loop grades with a stand-in (tests/support.py, FakeGrader): its logic, exactly and fast."""
    grader = FakeGrader(clock)
    monkeypatch.setattr(session, "grade_file", grader)
    return grader
