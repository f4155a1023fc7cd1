"""The warm worker's gradings (grader/worker.py): each a fork of the worker, and the next one forked
ahead of its save.

After each grading the worker forks a standby for the same selection: it sets itself up (pytest's
configuration, plugins, the collection of the grader's tests) and waits, in grader/conftest.py
(``--standby``), to be told the file to grade and the report to write. A save that grades the same
selection then costs its tests only; another selection drops the standby and forks anew.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from autograd_drill.grader.process import PARENT_ENV, STOP_SIGNALS, TIMED_OUT, kill_tree
from autograd_drill.grader.reaper import end_descendants

POLL_SECONDS = 0.2
"""How often a worker busy with a grading checks that ``drill watch`` is still there."""


def kill_all() -> None:
    """Kill the grading under way and the standby, with all they started (the worker is ending)."""
    for pid in (running, standby.pid if standby is not None else None):
        if pid is not None:
            kill_tree(pid)


@dataclass
class _Fork:
    """A grading forked by this worker: its process (and group), the read end of its output, the
    write end of its go pipe while it waits as a standby (None once it runs), its working folder."""

    pid: int
    output: int
    go: int | None
    folder: str
    key: tuple[str, ...]


def standby_key(args: list[str]) -> tuple[str, ...]:
    """What a standby must have been started with to serve a request: its arguments, but the file to
    grade and the report to write, which it is told on the go (grader/conftest.py, ``--standby``).
    The interpreters started ahead of time stand by the same way (grader/spawn.py)."""
    return tuple(a for a in args if not a.startswith(_GIVEN_ON_GO))


_GIVEN_ON_GO = ("--impl=", "--report-json=")


def go_message(args: list[str]) -> bytes | None:
    """The line that tells a standby for ``standby_key(args)`` to grade: the file and the report
    ``args`` name (None if they lack one)."""
    given = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in args if a.startswith(_GIVEN_ON_GO)}
    if len(given) != len(_GIVEN_ON_GO):
        return None
    return (json.dumps({"impl": given["--impl"], "report": given["--report-json"]}) + "\n").encode()


NO_GO = b"{}\n"
"""The line that tells a standby that another selection is to be graded: its session ends without
running a test, and the process lives on (grader/spawn.py; a fork worker's standby is killed instead)."""


def _fork(args: list[str], ahead: bool = False) -> _Fork:
    """Fork a grading of ``args``; one forked ``ahead`` (a standby) sets itself up (pytest's configuration, the collection)
    and then waits to be told its file and report (``_go``)."""
    read_end, write_end = os.pipe()
    go_read, go_write = os.pipe() if ahead else (-1, -1)
    worker = os.getpid()
    folder = tempfile.mkdtemp(prefix="drill-cwd-")  # its working folder: relative writes land there
    pid = os.fork()
    if pid == 0:  # the grandchild: the user's code runs here, and only here
        code = 3
        try:
            os.setpgid(0, 0)  # its own group: a timeout kills whatever the user's code started
            os.chdir(folder)
            for signum in STOP_SIGNALS:  # not the worker's handlers: those are for the worker
                signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
            signal.signal(signal.SIGUSR1, signal.SIG_DFL)
            os.environ[PARENT_ENV] = str(worker)  # the grading ends itself if the worker is gone
            os.close(read_end)
            if ahead:
                os.close(go_write)
                args = [*standby_key(args), f"--standby={go_read}"]
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(write_end, 1)
            os.dup2(write_end, 2)
            import pytest

            code = int(pytest.main(args))
            sys.stdout.flush()
        finally:
            os._exit(code)
    os.close(write_end)
    if ahead:
        os.close(go_read)
    return _Fork(pid, read_end, go_write if ahead else None, folder, standby_key(args))


def _go(fork: _Fork, args: list[str]) -> bool:
    """Tell a standby the file to grade and the report to write: False if it is gone."""
    assert fork.go is not None
    message = go_message(args)
    try:
        if message is None:
            return False
        done, _ = os.waitpid(fork.pid, os.WNOHANG)
        if done:
            return False
        os.write(fork.go, message)
        return True
    except (BrokenPipeError, ChildProcessError):
        return False
    finally:
        os.close(fork.go)
        fork.go = None


def _drop(fork: _Fork) -> None:
    """A standby not needed: it ends, its folder goes."""
    if fork.go is not None:
        os.close(fork.go)
    kill_tree(fork.pid)
    try:
        os.waitpid(fork.pid, 0)
    except ChildProcessError:
        pass
    os.close(fork.output)
    shutil.rmtree(fork.folder, ignore_errors=True)


running: int | None = None
"""The process id (and group) of the grading under way in this worker, if any."""
standby: _Fork | None = None
"""The grading forked ahead of the next save, set up for the selection graded last: a save that
grades the same costs its tests, not pytest's set-up (grader/conftest.py, ``--standby``)."""


def grade(
    args: list[str], timeout: float, orphaned: Callable[[], bool], end: Callable[[int], None], ahead: bool = True
) -> tuple[int, str]:
    """Grade in a fork: the standby, if it was set up for these arguments, else a new one; then (if
    ``ahead``) set up the next standby for the same arguments, while the user reads the verdict."""
    global standby
    fork, standby = standby, None
    if fork is not None and not (fork.key == standby_key(args) and _go(fork, args)):
        _drop(fork)
        fork = None
    result = _await(fork or _fork(args), timeout, orphaned, end)
    standby = _fork(args, ahead=True) if ahead else None
    return result


def _await(fork: _Fork, timeout: float, orphaned: Callable[[], bool], end: Callable[[int], None]) -> tuple[int, str]:
    """Wait for a running grading; ``end`` the worker (and the grading) if it is ``orphaned`` meanwhile."""
    global running
    pid = running = fork.pid
    deadline = time.monotonic() + timeout
    tail = b""
    timed_out = False
    status: int | None = None
    with os.fdopen(fork.output, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([pipe], [], [], min(left, POLL_SECONDS))
            if ready:
                chunk = pipe.read(65536)
                if not chunk:
                    break  # the grading, and all it started, closed its output
                tail = (tail + chunk)[-4000:]
                continue
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:  # ended, but something the user's code started still holds its output
                status = code
                break
            if orphaned():
                end(1)  # drill watch is gone: so are this grading and this worker
        kill_tree(pid)  # whatever the user's code started goes with the grading
        while select.select([pipe], [], [], 0)[0] and (chunk := pipe.read(65536)):
            tail = (tail + chunk)[-4000:]
    if status is None:
        _, status = os.waitpid(pid, 0)
    running = None
    end_descendants()  # what left its group (setsid, a double fork): this worker adopted it
    shutil.rmtree(fork.folder, ignore_errors=True)
    output = tail.decode("utf-8", "replace")
    if timed_out:
        return TIMED_OUT, output
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), output
    return os.WEXITSTATUS(status), output
