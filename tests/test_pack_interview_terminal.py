"""``drill interview --target layernorm`` end to end in a real pseudo-terminal (pexpect, pyte), the
layers pack installed (tests/pack_here.py: its dist-info on the child's PYTHONPATH) and torch
unimportable: the coding task is layers/layernorm (its stub cut from the pack's reference under
<workspace>/layers/, graded with the pack's suite from its recording), it passes, the note says the
pack pairs no follow-up, the two questions are the layers questions about layer norm, and the
transcript names the canonical id and holds the code as graded."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.support import the_interview
from tests.terminal import Pty
from tests.test_pack_installed import REFERENCE

pytest.importorskip("pexpect")
pytest.importorskip("pyte")

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a POSIX pseudo-terminal")

INTERVIEW = [sys.executable, "-m", "autograd_drill", "interview", "--minutes", "15", "--target", "layernorm"]
INTERVIEW += ["--oracle", "replay"]
ANSWER = "Each row's mean and variance move with every element: two more terms."


def graded(screen: str) -> bool:
    return "Interview: layers/layernorm" in screen and "⟳ grading" not in screen and "tests failed" in screen


def test_an_interview_on_a_layers_target_from_the_task_to_the_transcript(layers_installed, workspace):
    term = Pty(INTERVIEW)
    try:
        term.wait(graded, "the layers stub graded on the task's live screen")
        path = workspace / "layers" / "layernorm.py"
        stub = path.read_text(encoding="utf-8")
        assert 'raise NotImplementedError("layernorm_forward")' in stub and "batchnorm" in stub
        path.write_text(REFERENCE.read_text(encoding="utf-8"), encoding="utf-8")
        term.shows("that passes: layers/layernorm passed in")
        term.shows("Question 1 of 2")
        assert "A follow-up" not in term.said
        term.child.send(f"{ANSWER}\n.\n")
        term.shows("Covered:")
        term.child.send("1 3 4\n")
        term.shows("Question 2 of 2")
        term.child.send("Layer norm normalises each sample over its features.\n.\n")
        term.checks_the_last_answer("1")
    finally:
        term.kill()

    record, attempts = the_interview()
    assert record.finished and [(p.target, p.outcome) for p in record.parts] == [("layers/layernorm", "passed")]
    assert [a.target for a in attempts] == ["layers/layernorm"]
    assert [a.question for a in record.answers] == ["layernorm-backward-terms", "layernorm-versus-batchnorm"]
    assert record.plan.notes == ("no follow-up: the layers pack pairs none with layers/layernorm",)

    report = Path(record.report or "").read_text(encoding="utf-8")
    assert "| 1 | coding | layers/layernorm |" in report
    assert re.search(r"## Coding task: layers/layernorm\n\n.*\*\*passed in \d+:\d\d\*\*", report)
    assert "def layernorm_forward(" in report and "def layernorm_backward(" in report
    assert "def batchnorm_forward(" not in report, "the code as graded: the task's functions alone"
    assert "no follow-up: the layers pack pairs none" in report and f"> {ANSWER}" in report
