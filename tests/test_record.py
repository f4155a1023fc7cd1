"""``python -m autograd_drill.grader.record`` grades the answer key with live torch: no per-test limit,
which a busy machine reached on torch's first calls (a pack's first test ran past its 5 s and the
recording failed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from autograd_drill.grader import record


def test_the_recording_runs_without_a_per_test_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[list[str]] = []

    def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(record.subprocess, "run", run)
    assert record.record(tmp_path / "oracle.npz") == 0
    told = [arg for arg in ran[0] if arg.startswith("--test-timeout")]
    assert told == ["--test-timeout=0"], ran[0]
