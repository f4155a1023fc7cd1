"""Shared fixtures: user state isolated in tmp_path; helpers to grade files as the CLI does."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest

from drills import cli
from drills.loop.clock import MockClock
from drills.store.history import History
from drills.store.paths import history_path
from grader.catalog import load_catalog
from reference import ENGINE

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ENGINE
CATALOG = load_catalog()
T0 = 1_800_000_000.0
"""Fri 2027-01-15 08:00 UTC: where the tests' MockClock starts."""


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


def run_drill(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` in a real child process, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "drills", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def run_grader(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pytest grader ARGS`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "grader", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@functools.cache
def count_tests(marker: str) -> int:
    """How many grader tests a target has (``-m MARKER``), collected once per process."""
    proc = run_grader("--collect-only", "-q", "-m", marker)
    return sum("::" in line for line in proc.stdout.splitlines())
