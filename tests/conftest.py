"""Shared fixtures: user state isolated in tmp_path; helpers to grade files as the CLI does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drills.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "engine.py"
CATALOG = load_catalog()


@pytest.fixture(autouse=True)
def drill_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """All user state (history, workspace) lives under tmp_path: DRILL_HOME points there."""
    home = tmp_path / "drill-home"
    monkeypatch.setenv("DRILL_HOME", str(home))
    monkeypatch.setenv("DRILL_WORKSPACE", str(tmp_path / "solutions"))
    return home


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
