"""Child processes that never outlive the command that started them.

A grading runs in a process group of its own (POSIX), or a new console process group (Windows), so
a Ctrl-C in the terminal is for the command alone, which then ends the grading; the tree is killed
with ``killpg`` where there is one, else by walking it (psutil). What left the group (``setsid``, a
double fork) is found by grader/reaper.py. A grading runs in a temporary folder of its own. The
grading child ends itself when it finds its parent gone, after a SIGKILL (grader/conftest.py,
grader/worker.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

from autograd_drill.grader import ONE_BLAS_THREAD
from autograd_drill.grader.reaper import LINUX, kill_attached, reaping

GRADER = Path(__file__).resolve().parent
PACKAGE = __package__
"""The grader's import name (``autograd_drill.grader``), whichever folder it is in: a grading imports its
conftest and its test modules under it (grader/conftest.py), from a clone as from the wheel."""
IMPORTED_FROM = Path(sys.modules[PACKAGE.partition(".")[0]].__file__ or "").resolve().parents[1]
"""The folder the package is imported from (site-packages, or the clone): where the grader's own
interpreters start, so that the folder first on their ``sys.path`` adds no other import name of ours."""


TIMED_OUT = -1000
"""The status a runner returns for a grading it had to kill."""


PARENT_ENV = "DRILL_GRADING_PARENT"
"""Tells a grading child (and the warm worker) which process started it: when that process is
gone, the child ends itself and its process group (grader/conftest.py, grader/worker.py)."""


def grading_env() -> dict[str, str]:
    # No third-party pytest plugins: they cost start-up time and could change the verdict. One BLAS
    # thread unless the user asked for more.
    return {**ONE_BLAS_THREAD, **os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", PARENT_ENV: str(os.getpid())}


Stalled = Callable[[], str | None]
"""Polled while a grading runs: the test that has run far past its time limit, if any (or a word
that the grading's report is complete and it lingers: grader/run.py, ReportWatch)."""


class Cancelled(Exception):  # noqa: N818 - not an error: a grading no longer wanted
    """A grading stopped on purpose before its verdict (``cancel``: a newer save is to be graded)."""


class Runner(Protocol):
    def __call__(self, args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
        """Run pytest with ``args`` in a child; its exit status (-N: killed by signal N; TIMED_OUT;
        STALLED when ``stalled`` named a test) and the tail of its output."""
        ...


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that interrupt or terminate a command: its grading goes with it."""


@contextmanager
def stopped_with_us(stop: Callable[[], None]) -> Iterator[None]:
    """While in this block, a SIGINT, SIGTERM or SIGHUP to this process first calls ``stop`` (which
    ends the grading it started), then takes its usual course: KeyboardInterrupt, or death by the
    signal. Signals this process ignores stay ignored. Signal handlers can only be set in the main
    thread: elsewhere, this does nothing (the grading child's watchdog remains)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}

    def again(signum: int, frame: FrameType | None) -> None:
        stop()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop()
        # A second signal while the first unwinds (an impatient user's Ctrl-C Ctrl-C) stops the grading
        # again and raises nothing: raised inside threading's wait, as it unwinds from the first, it left
        # the Condition's lock released twice ("RuntimeError: release unlocked lock", a traceback).
        for other in previous:
            signal.signal(other, again)
        handler = previous.get(signum, signal.SIG_DFL)
        if callable(handler):
            handler(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)
        remove_folders()  # the grading is over: its folders go first, as they would have
        os.kill(os.getpid(), signum)  # dies of it, as it would have without us

    for signum in STOP_SIGNALS:
        handler = signal.getsignal(signum)
        if handler in (signal.SIG_IGN, None):
            continue
        previous[signum] = handler
        signal.signal(signum, on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


STALLED = -1001
"""The status a runner returns for a grading it stopped because a test ran far past its limit."""

POLL_SECONDS = 0.05
"""How often a waiting runner looks at its grading."""


def own_group() -> dict[str, Any]:
    """Popen arguments that put a child in a process group of its own: a Ctrl-C in the terminal is
    then for the command alone (which ends the grading), and the group can be killed whole."""
    if os.name == "nt":  # pragma: no cover - Windows
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def run_in_subprocess(args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
    """A fresh interpreter per grading: the simple, slower way (drill check, drill grade). It runs in
    a temporary folder (the user's relative writes land there, and go with it), and what it started
    ends with it, however it left its group (grader/reaper.py)."""
    with tempfile.TemporaryFile() as output, grading_folder() as folder, reaping():
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", *args],
            cwd=folder,
            env=grading_env(),
            # A file, not a pipe: a process the user's code started may hold it open after the grading ends.
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            **own_group(),
        )
        return wait_for(proc, output, timeout, stalled)


@contextmanager
def grading_folder() -> Iterator[str]:
    """A fresh, empty working folder for one grading, removed after it: the user's code may write
    relative paths, which must land nowhere near the project (the grader's own paths are absolute)."""
    with temporary_folder(WORKING) as folder:
        yield folder


WORKING = "drill-cwd-"
"""The prefix of a grading's working folder (``grading_folder``; a warm worker's forks', grader/forks.py)."""


folders: set[str] = set()
"""This process's temporary folders for gradings (a working folder, a report's, an interpreter's started
ahead; a warm worker's forks', grader/forks.py): each is removed after its grading, and those left as the
process ends first: a signal (``stopped_with_us``: a SIGTERM to drill grade or drill check left them), a
worker's or a zygote's end. A fork of a process that keeps some clears them (its parent's to remove)."""


def new_folder(prefix: str) -> str:
    """A new temporary folder, in ``folders`` until ``remove_folder``."""
    folder = tempfile.mkdtemp(prefix=prefix)
    folders.add(folder)
    return folder


def remove_folder(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folders.discard(folder)


def remove_folders() -> None:
    """Remove this process's temporary folders that are left (it is ending, and their gradings are over)."""
    for folder in list(folders):
        remove_folder(folder)


@contextmanager
def temporary_folder(prefix: str) -> Iterator[str]:
    """A new temporary folder for the block, in ``folders`` until it is gone (removed as TemporaryDirectory
    does: what the user's code left read-only too). Gone first, then out of ``folders``: a thread whose
    grading a signal cancelled must not leave it unlisted as another removes the listed ones and dies."""
    temporary = tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True)
    folders.add(temporary.name)
    try:
        yield temporary.name
    finally:
        temporary.cleanup()
        folders.discard(temporary.name)


def wait_for(
    proc: subprocess.Popen[Any], output: IO[bytes], timeout: float, stalled: Stalled | None
) -> tuple[int, str]:
    """Wait for a grading that writes to ``output``; stop it past ``timeout`` or when ``stalled``
    names a test; kill its whole tree in any case (what the user's code started goes too), and on
    an interrupt of this process, first. A thread waits for the process, so that its end is told at
    once (no poll between it and the verdict), while this one looks at ``stalled`` and the time."""
    exited = threading.Event()
    waiter = threading.Thread(target=lambda: (proc.wait(), exited.set()), name="drill-grading-wait", daemon=True)
    waiter.start()
    deadline = time.monotonic() + timeout
    status: int | None = None
    with stopped_with_us(lambda: kill_tree(proc.pid)):
        try:
            while not exited.wait(POLL_SECONDS):
                if time.monotonic() > deadline:
                    status = TIMED_OUT
                    break
                if stalled is not None and stalled() is not None:
                    status = STALLED
                    break
        finally:  # KeyboardInterrupt, SystemExit included: the grading goes with the command
            kill_tree(proc.pid)
            proc.wait()
    output.seek(0)
    return (proc.returncode if status is None else status), output.read()[-4000:].decode("utf-8", "replace")


def kill_tree(pid: int) -> None:
    """Kill the process group led by ``pid`` (the grading and whatever the user's code started);
    where there are no process groups, the process and its descendants. Where there is no child
    subreaper (not Linux), the descendants that left the group are found first, while their
    parents live (psutil); on Linux ``reaping`` (grader/reaper.py) finds them after."""
    if not LINUX:
        kill_attached(pid)
    try:
        if hasattr(os, "killpg"):
            os.killpg(pid, signal.SIGKILL)
            return
    except (ProcessLookupError, PermissionError):
        return
    kill_attached(pid, root=True)
