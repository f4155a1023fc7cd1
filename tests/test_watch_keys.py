"""``drill watch`` in a real pseudo-terminal (pexpect), its screen read as drawn (pyte): the keys
(h p r d n q, Ctrl-C), a watch started paused, one that follows the next attempt, a newer save that
cancels the grading in flight, and nothing typed leaking to the shell after it.

Every wait is for what the screen (or the history) says, with generous time limits: a loaded
two-core machine only makes these slower, never wrong.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys

import pytest

from tests.processes import HANGS_FOR_GOOD, descendants, in_unbroadcast, wait_until
from tests.support import REFERENCE_SOURCE, active, drill, latest, seed, sources
from tests.terminal import WITHIN, Pty

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a POSIX pseudo-terminal")

FAILED = re.compile(r"✗ (\w+) +\d+:\d\d +\d+ of \d+ tests failed")
WATCH = [sys.executable, "-m", "autograd_drill", "watch", "--oracle", "replay"]


def graded(screen: str) -> bool:
    """A verdict on screen, and no grading under way."""
    return "⟳ grading" not in screen and bool(FAILED.search(screen) or "✓ passed" in screen)


def test_the_keys_of_a_watch_started_paused(workspace):
    drill("start", "unbroadcast")
    drill("pause")
    path = workspace / "unbroadcast.py"
    term = Pty(WATCH)
    try:
        # started paused: it waits, and says how to go on
        term.shows("saves are graded on resume")
        assert "⏸ paused" in term.screen and "not graded yet" in term.screen and not sources(latest())
        term.child.send("p")  # resume: grades at once
        # the verdict and the key bar below it: a frame is read as it arrives, its last lines may come later
        term.wait(lambda screen: graded(screen) and "p pause" in screen, "a verdict after resuming, with its keys")
        assert FAILED.search(term.screen).group(1) == "unbroadcast"
        assert len(sources(latest())) == 1
        term.child.send("h")
        term.shows("hint 1 (unbroadcast)")
        term.child.send("d")
        term.shows("d shows the diff with the reference once a target has passed")
        term.child.send("r")  # grade again now: a second graded version
        wait_until(lambda: len(sources(latest())) == 2, WITHIN, "r did not grade again")
        path.write_text(REFERENCE_SOURCE, encoding="utf-8")
        term.shows("✓ passed")
        term.shows("Next due:")  # the scoreboard and what comes next, above the screen
        term.child.send("d")
        term.wait(
            lambda screen: screen.count("│ def unbroadcast(") == 2, "the diff after passing: yours, the reference"
        )
        # another attempt starts, in another terminal: the watch follows it
        drill("start", "arith", "--rung", "recall")
        term.wait(lambda screen: bool(re.search(r"^ arith +\d+:\d\d ▶", screen, re.M)), "the next attempt followed")
        term.wait(lambda screen: graded(screen) and FAILED.search(screen).group(1) == "arith", "its verdict")
        # ended there too: the watch waits, says so, and follows the one drill next --start starts
        drill("give-up")
        term.shows("ended elsewhere (gave-up)")
        drill("next", "--start")
        chosen = active()
        assert chosen is not None
        term.wait(
            lambda screen: bool(re.search(rf"^ {chosen.target}(?: \(\w+\))? +\d+:\d\d ▶", screen, re.M)),
            "drill next followed",
        )
        term.child.sendintr()  # Ctrl-C: a clean goodbye, the clock still running
        assert term.end() == 0, term.said[-2000:]
    finally:
        term.kill()
    assert f"Stopped watching. The clock of {chosen.target} keeps running" in " ".join(term.said.split())
    assert "Traceback" not in term.said


def test_a_newer_save_cancels_the_grading_in_flight_and_nothing_typed_reaches_the_shell(workspace, tmp_path):
    drill("start", "unbroadcast")
    path = workspace / "unbroadcast.py"
    started = tmp_path / "started"
    path.write_text(in_unbroadcast(f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\ntime.sleep(600)"))
    then_the_shell = 'echo "watch ended: $?"; read -r line; echo "the shell read: [$line]"'
    term = Pty(["/bin/sh", "-c", f"{shlex.join(WATCH)}; {then_the_shell}"], env=HANGS_FOR_GOOD)
    try:
        wait_until(started.exists, WITHIN, "the hanging version was not graded")
        term.shows("⟳ grading")
        hanging = descendants(term.child.pid)  # sh, drill, its worker, the worker's grading
        path.write_text(REFERENCE_SOURCE, encoding="utf-8")  # the newer save
        term.shows("✓ passed")
        # gone: the stale grading (a standby for the next save may have taken its place: grader/forks.py)
        wait_until(lambda: hanging - descendants(term.child.pid), WITHIN, "the stale grading was not killed")
        assert sources(latest()) == [REFERENCE_SOURCE]  # the stale version: neither recorded nor shown
        assert "was stopped" not in term.said and "took longer" not in term.said
        term.child.send("qabc")  # q quits; what follows was typed for nobody
        term.shows("watch ended: 0")
        term.child.sendline("after")
        term.shows("the shell read: [")
        assert "the shell read: [after]" in term.screen
        term.end()
    finally:
        term.kill()
    assert "Traceback" not in term.said


def test_p_pause_an_edit_and_p_resume_earn_no_best_and_say_why(workspace):
    """Issue 23: the watch's p pauses, the solution is written while paused, p resumes and grades:
    it passes, as assisted ("edited while paused"), with no personal best."""
    drill("start", "unbroadcast", "--rung", "recall")
    path = workspace / "unbroadcast.py"
    term = Pty(WATCH)
    try:
        term.wait(graded, "the stub's verdict")
        term.child.send("p")
        term.shows("⏸ paused")
        path.write_text(REFERENCE_SOURCE, encoding="utf-8")
        term.child.send("p")  # resume: grades at once
        term.shows("✓ passed")
        term.shows("Next due:")
        term.child.sendintr()
        assert term.end() == 0, term.said[-2000:]
    finally:
        term.kill()
    said = " ".join(term.said.split())
    assert "edited while paused" in said and "new personal best" not in said
    attempt = latest()
    assert attempt.outcome == "passed" and attempt.assisted and attempt.reason == "edited while paused"
    assert "Traceback" not in term.said


def test_the_scoreboard_stays_on_a_40_line_screen_after_a_pass(workspace):
    """Issue 23: at 60 x 40, the screen after a pass (a review card and all) still shows the scoreboard:
    its header and the target's row, with the time against your best."""
    import time

    seed("unbroadcast", 100.0, at=time.time() - 3 * 86400)
    drill("start", "unbroadcast", "--rung", "recall")
    path = workspace / "unbroadcast.py"
    term = Pty(WATCH, rows=40, cols=60)
    try:
        term.wait(graded, "the stub's verdict")
        path.write_text(REFERENCE_SOURCE, encoding="utf-8")
        term.wait(lambda screen: "Next due:" in screen and "⟳ grading" not in screen, "the screen after the pass")
        screen = term.screen  # the finish printed, and the live screen under it redrawn
        term.child.sendintr()
        assert term.end() == 0, term.said[-2000:]
    finally:
        term.kill()
    assert "review: unbroadcast" in term.said  # the card was shown
    assert "Δ best" in screen, screen
    assert re.search(r"^unbroadcast +\d+:\d\d +\d+:\d\d", screen, re.M), screen
    assert "Traceback" not in term.said


def test_n_starts_what_drill_next_would_once_the_attempt_ended_and_never_before(workspace):
    """Issue 27: rustlings' n. While the attempt runs, n refuses and changes nothing (no work is lost,
    nothing abandoned); once it passed, n starts the target drill next puts first, on its rung, in the
    same folder, and the watch follows it."""
    drill("start", "unbroadcast", "--rung", "recall")
    path = workspace / "unbroadcast.py"
    term = Pty(WATCH)
    try:
        term.wait(graded, "the stub's verdict")
        term.child.send("n")
        term.shows("n starts the next drill once this attempt has ended")
        assert active().target == "unbroadcast" and active().outcome is None  # still in progress, as it was
        path.write_text(REFERENCE_SOURCE, encoding="utf-8")
        term.shows("✓ passed")
        term.shows("n next drill")  # the ended bar offers it
        queued = json.loads(drill("next", "--json").stdout)["queue"][0]
        term.child.send("n")
        wait_until(lambda: active() is not None, WITHIN, "n started no drill")
        chosen = active()
        assert (chosen.target, str(chosen.rung)) == (queued["target"], queued["rung"]) != ("unbroadcast", "recall")
        assert chosen.file.parent == workspace and chosen.file.exists()
        term.wait(
            lambda screen: bool(re.search(rf"^ {chosen.target}(?: \(\w+\))? +\d+:\d\d ▶", screen, re.M)),
            "the watch follows the drill n started",
        )
        term.child.sendintr()
        assert term.end() == 0, term.said[-2000:]
    finally:
        term.kill()
    assert latest().id == chosen.id and "Traceback" not in term.said
