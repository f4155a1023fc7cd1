"""The grading's report (``--report-json``): JSON lines that drill reads as they are written (grader/run.py)."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from autograd_drill.grader.output import OUTPUT_CHARS, cut_in, kept, size
from autograd_drill.grader.process import PARENT_ENV


class Reporter:
    """Writes the grading as JSON lines for ``drill`` to read (``--report-json``), one event at a time.

    Each line is flushed as it happens, so that when the user's code kills the process (os._exit,
    a segfault, the time or memory limit) the parent still knows what was collected, what
    passed, and which test was running. A result's outcome is passed, failed, or not_run (an
    earlier test of its target ran past its time limit).

    A grading never outlives ``drill``: when $DRILL_GRADING_PARENT names the process that started
    this one, a watchdog ends the grading (its whole process group) as soon as that process is
    gone. And it ends with its tests: a thread the user's code left running does not keep it
    alive (the "finished" event says so, in its notes).
    """

    def __init__(
        self,
        path: Path | None,
        targets_of: Callable[[pytest.Item], list[str]],
        in_verdict_order: Callable[[list[pytest.Item]], list[pytest.Item]],
    ) -> None:
        self.targets_of, self.in_verdict_order = targets_of, in_verdict_order
        self.path = path
        self.file: IO[str] | None = path.open("w", encoding="utf-8") if path is not None else None
        self.pending: list[str] = []
        """Events written before the report's file is known (a standby: ``open``)."""
        self.targets: dict[str, list[str]] = {}
        self.exitstatus = 0
        self.others: dict[str, Any] = {"threads": [], "cut": 0}
        self.cut = 0
        """Bytes printed beyond what the grader keeps, over the whole grading."""
        self.watch_parent()

    def watch_parent(self) -> None:
        """Start the watchdog on the process that ``$DRILL_GRADING_PARENT`` names, if it does (again in
        a fork of a zygote, grader/zygote.py: a fork has no thread of its parent's)."""
        parent = os.environ.get(PARENT_ENV, "")
        if parent.isdigit():
            watchdog = threading.Thread(target=watch_parent, args=(int(parent),), name="drill-watchdog", daemon=True)
            try:
                watchdog.start()
            except RuntimeError:  # no thread under a tight memory cap: drill still ends this grading itself
                pass

    def write(self, event: dict[str, Any]) -> None:
        line = json.dumps(event) + "\n"
        if self.file is None:
            self.pending.append(line)
            return
        self.file.write(line)
        self.file.flush()

    def open(self, path: Path) -> None:
        """A standby is told its report (grader/forks.py): what it wrote so far goes there first."""
        self.path, self.file = path, path.open("w", encoding="utf-8")
        self.file.write("".join(self.pending))
        self.file.flush()
        self.pending = []

    def fork_to(self, path: Path) -> None:
        """In a copy of the grading (grader/shards.py): write its events to ``path`` from now on."""
        self.path, self.file, self.cut = path, path.open("w", encoding="utf-8"), 0

    def case(self, case: str) -> None:
        """A generated case of the running batch starts: a heartbeat for drill's backstop."""
        self.write({"event": "case", "case": case})

    def note(self, text: str) -> None:
        """Something the verdict should carry that is not a test's (a limit the platform lacks)."""
        self.write({"event": "note", "text": text})

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.targets = {item.nodeid: self.targets_of(item) for item in self.in_verdict_order(session.items)}
        self.write({"event": "collected", "tests": self.targets})

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.write({"event": "start", "nodeid": nodeid})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        lines_cut, bytes_cut = cut_in(report.user_properties, report.when or "")
        self.cut += bytes_cut
        not_run = getattr(report, "drill_not_run", None)
        if not_run is None and report.when != "call" and not report.failed:
            return
        self.write(
            {
                "event": "result",
                "nodeid": report.nodeid,
                "targets": self.targets.get(report.nodeid, []),
                "outcome": "not_run" if not_run is not None else report.outcome,
                "message": not_run if not_run is not None else report.longreprtext if report.failed else "",
                "failure": getattr(report, "drill_failure", None) if report.failed else None,
                "output": kept(report.capstdout + report.capstderr, lines_cut) if report.failed else "",
                "duration": round(report.duration, 6),
            }
        )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.exitstatus = int(exitstatus)
        self.write({"event": "finished", "notes": self.closing_notes()})
        if self.file is not None:
            self.file.close()

    def leftovers(self) -> dict[str, Any]:
        """What this process's part of the grading left: the names of the threads of the user's code
        still running, and the bytes of output cut (a copy sends them to the grading: grader/shards.py)."""
        lingering = [
            t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()
        ]
        return {"threads": [t.name for t in lingering], "cut": self.cut}

    def absorb(self, leftovers: dict[str, Any]) -> None:
        """Count a copy's leftovers with this process's own."""
        self.others["threads"].extend(leftovers.get("threads", ()))
        self.others["cut"] += int(leftovers.get("cut", 0))

    def closing_notes(self) -> list[str]:
        """What the report says as it ends: output cut, threads of the user's code left running."""
        own = self.leftovers()
        cut, threads = own["cut"] + self.others["cut"], [*own["threads"], *self.others["threads"]]
        notes = []
        if cut:
            notes.append(
                f"your code printed {size(cut)} more than the grader keeps (the first {size(OUTPUT_CHARS)} "
                "of each test): the output was cut"
            )
        if threads:
            names = ", ".join(threads[:3])
            if len(threads) > 3:
                names += f" and {len(threads) - 3} more"
            many = len(threads) > 1
            notes.append(
                f"your code left {len(threads) if many else 'a'} thread{'s' if many else ''} running ({names}); "
                f"{'they were' if many else 'it was'} stopped when the tests finished"
            )
        return notes

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """The report is complete: end now. The interpreter's exit would wait for a thread of the
        user's left running, and run the user's ``atexit`` handlers and finalizers, any of which
        may hang and hold the verdict to the check's limit."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(self.exitstatus)


def watch_parent(parent: int, interval: float = 0.2) -> None:
    """Poll, a few times a second, that ``parent`` is still this process's parent; once it is gone
    (this process was re-parented), kill this grading's process group, or at least this process."""
    while os.getppid() == parent:
        time.sleep(interval)
    if hasattr(os, "killpg") and hasattr(signal, "SIGKILL") and os.getpgrp() == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)
    try:  # no process groups (Windows): what the user's code started, one by one
        import psutil

        for child in psutil.Process().children(recursive=True):
            child.kill()
    except Exception:  # noqa: BLE001 - ending anyway
        pass
    os._exit(70)
