"""Grading: run the oracle suite on a file in a child process and return a frozen verdict.

The user's code never runs inside the CLI: pytest runs it in a child, and reports each test's
target, outcome and message as JSON (grader/conftest.py, ``--report-json``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from drills.catalog import Target

GRADER = Path(__file__).resolve().parents[1] / "grader"


class GradeError(RuntimeError):
    """The grader could not give a verdict (a problem of the setup, not of the solution)."""


@dataclass(frozen=True)
class TargetResult:
    target: str
    tests: int
    failed: int
    failures: tuple[str, ...]
    """The failure messages, the one to fix first first."""

    @property
    def passed(self) -> bool:
        return self.tests > 0 and self.failed == 0


@dataclass(frozen=True)
class GradeResult:
    file: str
    targets: tuple[TargetResult, ...]
    seconds: float

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.targets)

    def get(self, target_id: str) -> TargetResult:
        return next(t for t in self.targets if t.target == target_id)

    def to_json(self) -> dict[str, Any]:
        """The ``drill grade --json`` object of SPEC §3."""
        return {
            "file": self.file,
            "passed": self.passed,
            "targets": {t.target: {"passed": t.passed, "tests": t.tests, "failed": t.failed} for t in self.targets},
        }


BASE_ARGS = [
    "-c",
    str(GRADER / "pytest.ini"),
    "--rootdir",
    str(GRADER),
    "-q",
    # Built-in plugins a grading never uses: less start-up time.
    *("-p", "no:cacheprovider", "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin"),
    *("-p", "no:legacypath", "-p", "no:nose", "-p", "no:unraisableexception", "-p", "no:threadexception"),
]


def test_files(targets: Sequence[Target]) -> list[str]:
    """A target's tests live in grader/test_<marker>.py (tests/test_catalog.py checks it)."""
    return [str(GRADER / f"test_{t.marker}.py") for t in targets]


def pytest_args(file: Path, targets: Sequence[Target], report: Path, oracle: str = "auto") -> list[str]:
    """The arguments of ``python -m pytest`` that grade ``file`` on ``targets``."""
    marker = " or ".join(t.marker for t in targets)
    return [
        *test_files(targets),
        *BASE_ARGS,
        "--impl",
        str(file),
        "--oracle",
        oracle,
        "-m",
        marker,
        "--report-json",
        str(report),
    ]


def grading_env() -> dict[str, str]:
    # No third-party pytest plugins: they cost start-up time and could change the verdict.
    return {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


class Runner(Protocol):
    def __call__(self, args: list[str]) -> tuple[int, str]:
        """Run pytest with ``args`` in a child; its exit status and the tail of its output."""
        ...


def run_in_subprocess(args: list[str]) -> tuple[int, str]:
    """A fresh interpreter per grading: the simple, slower way (drill check, drill grade)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=GRADER.parent,
        env=grading_env(),
        capture_output=True,
        text=True,
        errors="replace",
    )
    return proc.returncode, (proc.stdout + proc.stderr)[-2000:]


def grade(
    file: Path,
    targets: Sequence[Target],
    oracle: str = "auto",
    label: str | None = None,
    runner: Runner = run_in_subprocess,
) -> GradeResult:
    """Grade ``file`` on ``targets`` (in catalog order); a GradeError when no verdict can be had."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="drill-grade-") as tmp:
        report = Path(tmp) / "report.json"
        status, output = runner(pytest_args(file.resolve(), targets, report, oracle))
        if status not in (0, 1) or not report.exists():
            tail = output.strip().splitlines()[-5:]
            raise GradeError(f"the grader stopped with exit status {status}: " + " / ".join(tail))
        data = json.loads(report.read_text(encoding="utf-8"))
    return GradeResult(
        file=label if label is not None else str(file),
        targets=tuple(_summarize(t.id, data) for t in targets),
        seconds=time.perf_counter() - start,
    )


def _summarize(target_id: str, data: dict[str, Any]) -> TargetResult:
    tests = [nodeid for nodeid, owners in data["collected"].items() if target_id in owners]
    failed: dict[str, str] = {}
    for result in data["results"]:
        if target_id in result["targets"] and result["outcome"] == "failed" and result["nodeid"] not in failed:
            failed[result["nodeid"]] = result["message"]
    return TargetResult(target=target_id, tests=len(tests), failed=len(failed), failures=tuple(failed.values()))
