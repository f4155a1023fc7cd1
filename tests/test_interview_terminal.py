"""``drill interview`` end to end in a real pseudo-terminal (pexpect, the screen read with pyte): the
coding task passes (after a nudge), its follow-up is offered and passes, two questions are answered
and self-checked, and the transcript holds all of it; then ``drill next`` names the questions due
beside the targets. The other paths (out of time, Ctrl-C, $EDITOR, --plan, --list, export) are tested
in process, in tests/test_interview_cli.py.

Every wait is for what the screen (or the history) says, with generous time limits."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from autograd_drill.interview.bank import load_bank
from tests.support import CATALOG, DAY, REFERENCE_SOURCE, drill, said, the_interview
from tests.terminal import Pty

pytest.importorskip("pexpect")
pytest.importorskip("pyte")

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a POSIX pseudo-terminal")

INTERVIEW = [
    sys.executable,
    "-m",
    "autograd_drill",
    "interview",
    "--minutes",
    "20",
    "--target",
    "unbroadcast",
    "--oracle",
    "replay",
]
FIRST_ANSWER = "Each bias element is used once per row, so its gradient sums the rows."
SECOND_ANSWER = "Central differences, one element at a time, in float64."


def graded(target: str):
    """A verdict on the live screen of ``target``'s part, and no grading under way."""
    return lambda screen: f"Interview: {target}" in screen and "⟳ grading" not in screen and "tests failed" in screen


def test_an_interview_in_a_terminal_from_the_task_to_the_transcript(workspace, clock):
    term = Pty(INTERVIEW)
    try:
        # the verdict and the key bar below it: a frame is read as it arrives, its last lines may come later
        term.wait(
            lambda screen: graded("unbroadcast")(screen) and "q gives the task up" in screen,
            "the stub graded on the task's live screen, with the interview's key bar",
        )
        assert "q quit" not in term.screen, "the interview's key bar"
        assert "p pause" not in term.screen and "no pause: the clock runs" in term.screen
        term.child.send("p")  # refused: an interview's clock runs
        term.shows("no pause in an interview")
        assert "paused" not in term.screen
        term.child.send("h")  # a nudge
        term.shows(f"Interviewer: {CATALOG.get('unbroadcast').hints[0]}")
        (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
        term.shows("that passes: unbroadcast passed in")
        term.shows("A follow-up, then: gradcheck")
        term.wait(graded("gradcheck"), "the follow-up's stub graded")
        (workspace / "gradcheck.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
        term.shows("that passes: gradcheck passed in")
        term.shows("Question 1 of 2")
        term.child.send(f"{FIRST_ANSWER}\nIt is a sum, not a mean.\n.\n")
        term.shows("Covered:")
        term.child.send("9\n")  # not a key point: asked again
        term.shows("'9' is not one")
        term.child.send("1 2\n")
        term.shows("Question 2 of 2")
        term.child.send(f"{SECOND_ANSWER}\n.\n")
        term.checks_the_last_answer("all")
    finally:
        term.kill()

    record, attempts = the_interview()
    assert record.finished and [p.outcome for p in record.parts] == ["passed", "passed"]
    assert [p.nudges for p in record.parts] == [1, 0] and [a.target for a in attempts] == ["unbroadcast", "gradcheck"]
    assert all(a.paused_total < 0.5 for a in attempts), "p paused nothing (the end keeps wall = mono to a microsecond)"
    assert [a.answer for a in record.answers] == [f"{FIRST_ANSWER}\nIt is a sum, not a mean.", SECOND_ANSWER]
    bank = load_bank()
    second = bank.get(record.answers[1].question)
    assert [a.covered for a in record.answers] == [(0, 1), tuple(range(len(second.points)))]

    assert record.report is not None and record.report in term.said, "the transcript's path, printed"
    report = Path(record.report).read_text(encoding="utf-8")
    assert (
        "## Plan" in report and "| 1 | coding | unbroadcast |" in report and "| 2 | follow-up | gradcheck |" in report
    )
    assert re.search(r"## Coding task: unbroadcast\n\n.*\*\*passed in \d+:\d\d\*\*", report)
    assert re.search(r"## Follow-up: gradcheck\n\n.*\*\*passed in \d+:\d\d\*\*", report)
    assert f"1. {CATALOG.get('unbroadcast').hints[0]}" in report, "the nudge, as the interviewer gave it"
    assert "def unbroadcast(grad" in report and "def gradcheck(" in report, "the code as graded"
    first = bank.get(record.answers[0].question)
    assert f"> {FIRST_ANSWER}" in report and f"> {first.answer.splitlines()[0]}" in report, (
        "the answer beside the strong one"
    )
    assert f"- [x] {first.points[0]}" in report and f"- [ ] {first.points[2]}" in report, "the points covered"
    assert report.count("- [x]") == 2 + len(second.points)
    assert "## What to practise next" in report and "`drill start unbroadcast` until it passes unassisted" in report

    # weeks later, drill next names the questions due beside the targets due
    clock.now = time.time() + 60 * DAY
    shown = said(drill("next"))
    assert "Drill now:" in shown and "2 questions due:" in shown
    assert all(a.question in shown for a in record.answers)


READ_TWO = """
from rich.console import Console
from autograd_drill.commands.interview import read_line
out = Console()
print("first:", repr(read_line(out, "> ")), flush=True)
print("second:", repr(read_line(out, "> ")), flush=True)
"""


def test_an_answer_typed_in_a_terminal_has_line_editing_and_history():
    """Issue 27: an answer is read with readline's line editing (the interview's ``read_line``, in a
    real terminal): left arrow then a character inserts it before the last one; up recalls the line
    typed before. (Read with sys.stdin.readline, the arrow was kept as its escape sequence.)"""
    pytest.importorskip("readline")
    term = Pty([sys.executable, "-c", READ_TWO])
    try:
        term.wait(lambda screen: screen.startswith(">"), "the prompt")  # (the screen: lines right-stripped)
        term.child.send("Each row sums\x1b[D\x1b[DX\r")  # two lefts: X goes before "ms"
        term.shows("first: 'Each row suXms'")
        term.child.send("\x1b[A!\r")  # up: the line before, then one more character at its end
        term.shows("second: 'Each row suXms!'")
        assert term.end() == 0
    finally:
        term.kill()
