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
from typing import Any

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


def pytest_command(file: Path, targets: Sequence[Target], report: Path, oracle: str = "auto") -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        str(GRADER),
        "-c",
        str(GRADER / "pytest.ini"),
        "--rootdir",
        str(GRADER),
        "-q",
        "-p",
        "no:cacheprovider",
        "--impl",
        str(file),
        "--oracle",
        oracle,
        "-m",
        " or ".join(t.marker for t in targets),
        "--report-json",
        str(report),
    ]


def grade(file: Path, targets: Sequence[Target], oracle: str = "auto", label: str | None = None) -> GradeResult:
    """Grade ``file`` on ``targets`` (in catalog order); a GradeError when no verdict can be had."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="drill-grade-") as tmp:
        report = Path(tmp) / "report.json"
        # No third-party pytest plugins: they cost start-up time and could change the verdict.
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        proc = subprocess.run(
            pytest_command(file.resolve(), targets, report, oracle),
            cwd=GRADER.parent,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
        )
        if proc.returncode not in (0, 1) or not report.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            raise GradeError(f"the grader stopped with exit status {proc.returncode}: " + " / ".join(tail))
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
