"""Fixtures only: user state isolated in tmp_path, the CLI's clock, the history. Shared constants
and helpers are in tests/support.py."""

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
from grader.verdict import GradeResult, TargetResult
from tests.support import T0


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
