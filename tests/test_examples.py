"""The README's examples and docs/interview-example.md are what ``drill`` prints today: the script
that regenerates them from real runs (docs/make_examples.py) finds none out of date, and finds one
that is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

pytest.importorskip("pexpect")
pytest.importorskip("pyte")
pytestmark = pytest.mark.skipif(os.name != "posix", reason="the interview runs in a POSIX pseudo-terminal")

SCRIPT = ROOT / "docs" / "make_examples.py"


def check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DRILL_HOME": str(tmp_path / "unused")}  # the script isolates each run itself
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", *args], capture_output=True, text=True, timeout=600, env=env,
        cwd=tmp_path,
    )  # fmt: skip


def test_every_example_is_current(tmp_path):
    done = check(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "out of date" not in done.stdout


def test_a_stale_example_is_named(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "15 of 18 tests failed" in readme or "tests failed" in readme
    stale = tmp_path / "README.md"
    stale.write_text(readme.replace("tests failed", "tests went wrong", 1), encoding="utf-8")
    transcript = tmp_path / "interview.md"
    text = (ROOT / "docs" / "interview-example.md").read_text(encoding="utf-8")
    transcript.write_text(text.replace("## What to practise next", "## Next"), encoding="utf-8")
    done = check(tmp_path, "--readme", str(stale), "--transcript", str(transcript))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "out of date: README.md: verdict" in done.stdout
    assert "out of date: interview.md: the interview" in done.stdout
    assert "README.md: plan" not in done.stdout  # the current ones are not named
