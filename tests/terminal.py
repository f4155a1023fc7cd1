"""``drill`` in a real pseudo-terminal (pexpect), its screen read as drawn (pyte): shared by the tests
of drill watch's keys and of drill interview. Their modules skip without pexpect and pyte
(``pytest.importorskip``) and off POSIX; this one imports them only when a Pty is made."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from tests.support import ROOT

ROWS, COLS = 60, 160
WITHIN = 90.0
"""Seconds for anything to show: a cold start of drill and of its grading worker on a loaded machine."""


class Pty:
    """A command in a pseudo-terminal of ``rows`` x ``cols`` (ROWS x COLS unless told); ``screen`` is what the terminal shows now,
    ``said`` all it was sent (what scrolled away too)."""

    def __init__(
        self, command: list[str], env: dict[str, str] | None = None, rows: int = ROWS, cols: int = COLS
    ) -> None:
        import pexpect
        import pyte

        self.pexpect = pexpect
        environ = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows), **(env or {})}
        self.child = pexpect.spawn(
            command[0], command[1:], cwd=str(ROOT), env=environ, dimensions=(rows, cols), encoding="utf-8",
            codec_errors="replace",
        )  # fmt: skip
        self.terminal = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.terminal)
        self.said = ""
        self.ended = False

    @property
    def screen(self) -> str:
        return "\n".join(line.rstrip() for line in self.terminal.display)

    def _read(self) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=0.2)
        except self.pexpect.TIMEOUT:
            return
        except self.pexpect.EOF:
            self.ended = True
            return
        self.said += data
        self.stream.feed(data)

    def wait(self, condition: Callable[[str], object], what: str, seconds: float = WITHIN) -> None:
        """Read until ``condition(screen)`` holds; fail with the screen after ``seconds``, or if the
        command ends first."""
        deadline = time.monotonic() + seconds
        while not condition(self.screen):
            if self.ended or time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {seconds:g} s (ended: {self.ended}); the screen:\n{self.screen}")
            self._read()

    def shows(self, text: str, seconds: float = WITHIN) -> None:
        self.wait(lambda screen: text in screen, f"{text!r} on the screen", seconds)

    def end(self) -> int:
        """Wait for the command to end; its exit status."""
        deadline = time.monotonic() + WITHIN
        while not self.ended:
            assert time.monotonic() < deadline, f"still running:\n{self.screen}"
            self._read()
        self.child.close()
        return self.child.exitstatus

    def checks_the_last_answer(self, covered: str) -> None:
        """The interview's last self-check: wait for it (its "Covered:" after "Question 2 of 2"), say
        ``covered``, and see the transcript and the interview end with 0, nothing raised."""
        self.wait(lambda screen: "Covered:" in screen.split("Question 2 of 2")[-1], "the second self-check")
        self.child.send(f"{covered}\n")
        self.shows("Transcript:")
        assert self.end() == 0
        assert "Traceback" not in self.said

    def kill(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
