"""One grading on every core: a long grading's tests split across forks of the grading process.

On Linux, a grading with a report (``--report-json``) and ``--shards N`` runs its first test alone,
which imports the user's file and opens the oracle once for all, then forks ``N - 1`` copies of
itself. The other tests wait in a queue, in the run order of grader/conftest.py, and each process
takes the next one whenever it is free (``Queue``): the processes end together, and the quick,
discriminating tests still run first. Each copy writes its events to a report of its own beside the
grading's (``report.jsonl.1``, ...), named in the main report's "shards" event; grader/run.py reads
them all as one. The grading waits for its copies before it writes "finished".

A copy that dies (the user's code exited the interpreter, crashed or was killed) ends the grading
the same way once the others are done: the verdict is then what it would be in one process, the test
that copy was running failing with the cause, its other tests not run. A copy ends itself when the
grading is gone. A test that runs past its time limit stops its target's other tests in every
process (``Timeouts``, a page the processes share).
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # grader/run.py asks count() without loading pytest: drill's light commands import it
    import pytest

SHARDS_ENV = "DRILL_SHARDS"
"""How many processes one grading may use: a count (1: no copies); unset, the cores, at most 4."""
MAX_SHARDS = 4
MIN_WEIGHT = 12.0
"""A selection lighter than this (``weight``) runs in one process: a copy costs more than it saves."""


def count() -> int:
    """The processes a grading may use here: on Linux ``$DRILL_SHARDS`` or the cores this process
    may run on (at most ``MAX_SHARDS``); elsewhere 1 (macOS must not fork after importing NumPy,
    Windows cannot)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    given = os.environ.get(SHARDS_ENV, "").strip()
    if given.isdigit():
        return max(1, int(given))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_SHARDS))


def weight(item: pytest.Item) -> float:
    """A test's expected cost, in plain tests: a batch counts its cases, a ``costly`` test ten."""
    callspec = getattr(item, "callspec", None)
    cases = callspec.params.get("_cases") if callspec is not None else None
    base = float(len(cases)) / 2 if isinstance(cases, (list, tuple)) else 1.0
    return base * 10 if item.get_closest_marker("costly") else base


class Queue:
    """The tests still to run, in the run order, which the processes of a grading take one at a time
    as each becomes free (a pipe of 4-byte indexes, filled and closed for writing before the copies
    fork: a read of 4 bytes is atomic, and an empty pipe reads as its end)."""

    def __init__(self, items: Sequence[pytest.Item]) -> None:
        if 4 * len(items) > QUEUE_BYTES:
            raise ValueError(f"{len(items)} tests do not fit in a pipe")
        self.items = list(items)
        self.read_end, write_end = os.pipe()
        os.write(write_end, b"".join(i.to_bytes(4, "little") for i in range(len(self.items))))
        os.close(write_end)

    def take(self) -> pytest.Item | None:
        """The next test no process has taken; None when there is none."""
        data = os.read(self.read_end, 4)
        return self.items[int.from_bytes(data, "little")] if len(data) == 4 else None


QUEUE_BYTES = 65536
"""What a pipe holds on Linux without a reader: 16,384 tests."""


class Timeouts:
    """The targets in which a test ran past its time limit, and that test's name: seen by every
    process of a grading (an anonymous shared page, made before the copies fork)."""

    SLOT = 256

    def __init__(self, targets: Sequence[str]) -> None:
        self.slots = {target: i for i, target in enumerate(targets)}
        self.page = mmap.mmap(-1, self.SLOT * max(1, len(targets)))

    def __contains__(self, target: str) -> bool:
        return self.get(target) is not None

    def get(self, target: str) -> str | None:
        at = self.slots[target] * self.SLOT
        size = self.page[at]
        return self.page[at + 1 : at + 1 + size].decode("utf-8", "replace") if size else None

    def __getitem__(self, target: str) -> str:
        name = self.get(target)
        if name is None:
            raise KeyError(target)
        return name

    def setdefault(self, target: str, test: str) -> str:
        """Record ``test`` as the one that ran past its limit in ``target``, unless one already did."""
        known = self.get(target)
        if known is not None:
            return known
        data = test.encode("utf-8")[: self.SLOT - 1]
        at = self.slots[target] * self.SLOT
        self.page[at + 1 : at + 1 + len(data)] = data
        self.page[at] = len(data)
        return test


class Reporting(Protocol):
    """What a copy needs of grader/conftest.py's Reporter."""

    path: Path

    def write(self, event: dict[str, Any]) -> None: ...

    def fork_to(self, path: Path) -> None: ...

    def leftovers(self) -> dict[str, Any]: ...

    def absorb(self, leftovers: dict[str, Any]) -> None: ...


def files_of(report: Path, n: int) -> list[Path]:
    """The reports of a grading's copies, beside its own."""
    return [report.with_name(f"{report.name}.{k}") for k in range(1, n)]


def run(session: pytest.Session, n: int, reporter: Reporting, watch_parent: Callable[[int], None]) -> bool:
    """Run ``session``'s tests in ``n`` processes (see the module's docstring); True: they ran."""
    items = list(session.items)
    protocol = session.config.hook.pytest_runtest_protocol
    protocol(item=items[0], nextitem=items[1])  # the user's file imported, the oracle open: once, for all
    queue = Queue(items[1:])
    if "torch" in sys.modules:  # forking after torch started its threads is unsafe: a live oracle's grading runs alone
        _run_queue(session, queue)
        return True
    files = files_of(reporter.path, n)
    reporter.write({"event": "shards", "files": [str(f) for f in files]})
    copies: list[tuple[int, Path]] = []
    root = os.getpid()
    for file in files:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _copy(session, queue, reporter, file, lambda: watch_parent(root))
        copies.append((pid, file))
    _run_queue(session, queue)
    ended: int | None = None
    for pid, file in copies:
        _, status = os.waitpid(pid, 0)
        done = _done(file) if status == 0 else None
        if done is not None:
            reporter.absorb(done.get("leftovers", {}))
        elif ended is None:
            ended = status
    if ended is not None:
        _end_as(ended)
    return True


def _run_queue(session: pytest.Session, queue: Queue) -> None:
    """Run the tests this process takes from ``queue``, each told the next one it took (pytest tears
    down what that one does not share), until none is left or the session must stop."""
    current = queue.take()
    if current is None:
        return
    # NOTE: pytest's private SetupState: what the previous test left set up for its next one, torn
    # down to what this process's first test shares with it (session fixtures stay, the solution with them).
    session._setupstate.teardown_exact(current)  # type: ignore[attr-defined]
    protocol = session.config.hook.pytest_runtest_protocol
    while current is not None:
        following = None if session.shouldfail or session.shouldstop else queue.take()
        protocol(item=current, nextitem=following)
        current = following


def _copy(session: pytest.Session, queue: Queue, reporter: Reporting, file: Path, watch: Callable[[], None]) -> None:
    """A copy's life: its own report, its own capture files, the tests it takes; it never returns."""
    code = 70
    try:
        reporter.fork_to(file)
        _own_capture(session.config)
        with contextlib.suppress(RuntimeError):  # no thread under a tight memory cap: the grading still ends us
            threading.Thread(target=watch, name="drill-watchdog", daemon=True).start()
        try:
            _run_queue(session, queue)
        except (KeyboardInterrupt, _exit_exception()):  # the rest of this share is not run, as in one process
            pass
        reporter.write({"event": "shard-done", "leftovers": reporter.leftovers()})
        code = 0
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


def _exit_exception() -> type[BaseException]:
    import pytest

    return pytest.exit.Exception


def _own_capture(config: pytest.Config) -> None:
    """pytest captures file-descriptor output in temporary files inherited from the grading: give
    this copy files of its own, so that the processes never read or truncate each other's."""
    capman = config.pluginmanager.getplugin("capturemanager")
    capturing = getattr(capman, "_global_capturing", None)  # NOTE: pytest's private state
    for name in ("out", "err"):
        tmpfile = getattr(getattr(capturing, name, None), "tmpfile", None)
        fileno = getattr(tmpfile, "fileno", None)
        if fileno is None:
            continue
        try:
            fd = fileno()
        except (OSError, ValueError):  # an in-memory capture (--capture=sys): this process's own
            continue
        with tempfile.TemporaryFile() as fresh:
            os.dup2(fresh.fileno(), fd)


def _done(file: Path) -> dict[str, Any] | None:
    """A copy's last event, if it says its share is done."""
    try:
        last = file.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        event = json.loads(last)
    except (OSError, ValueError):
        return None
    return event if isinstance(event, dict) and event.get("event") == "shard-done" else None


def _end_as(status: int) -> None:
    """End this grading as its copy ended: by the same signal, or with the same exit status."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        time.sleep(1)
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)
