"""The warm worker's gradings (grader/worker.py): each a fork of the worker, and the next one forked
ahead of its save.

After each grading the worker forks a standby for the same selection: it sets itself up (pytest's
configuration, plugins, the collection of the grader's tests) and waits, in grader/conftest.py
(``--standby``), to be told the file to grade and the report to write. A save that grades the same
selection then costs its tests only; another selection drops the standby and forks anew.

A worker told to fork nothing ahead (where the next grading is seldom of the same selection, but the
same selections come back: the tool's own test suite) keeps a zygote per selection instead, the
last ``ZYGOTES`` graded: set up once, it forks each grading of its selection (grader/zygote.py).
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from autograd_drill.grader.process import (
    PARENT_ENV,
    STOP_SIGNALS,
    TIMED_OUT,
    WORKING,
    folders,
    kill_tree,
    new_folder,
    remove_folder,
    remove_folders,
)
from autograd_drill.grader.reaper import end_descendants

POLL_SECONDS = 0.2
"""How often a worker busy with a grading checks that ``drill watch`` is still there."""


def kill_all() -> None:
    """Kill the grading under way, the standby and the zygotes, with all they started, and remove their
    working folders (the worker is ending)."""
    for pid in (running, standby.pid if standby is not None else None, *(z.pid for z in zygotes.values())):
        if pid is not None:
            kill_tree(pid)
    remove_folders()


@dataclass
class Fork:
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


def given_on_go(args: list[str]) -> dict[str, str] | None:
    """The file and the report ``args`` name, as a standby or a zygote is told them (None if ``args``
    lack one)."""
    given = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in args if a.startswith(_GIVEN_ON_GO)}
    if len(given) != len(_GIVEN_ON_GO):
        return None
    return {"impl": given["--impl"], "report": given["--report-json"]}


def go_message(args: list[str]) -> bytes | None:
    """The line that tells a standby for ``standby_key(args)`` to grade: the file and the report
    ``args`` name (None if they lack one)."""
    given = given_on_go(args)
    return None if given is None else (json.dumps(given) + "\n").encode()


NO_GO = b"{}\n"
"""The line that tells a standby that another selection is to be graded: its session ends without
running a test, and the process lives on (grader/spawn.py; a fork worker's standby is killed instead)."""


def _fork(args: list[str], ahead: bool = False) -> Fork:
    """Fork a grading of ``args``; one forked ``ahead`` (a standby) sets itself up (pytest's configuration, the collection)
    and then waits to be told its file and report (``_go``)."""
    read_end, write_end = os.pipe()
    go_read, go_write = os.pipe() if ahead else (-1, -1)
    worker = os.getpid()
    folder = new_folder(WORKING)
    pid = os.fork()
    if pid == 0:  # the grandchild: the user's code runs here, and only here
        code = 3
        try:
            _set_up_child(folder, worker, (read_end, go_write))
            if ahead:
                args = [*standby_key(args), f"--standby={go_read}"]
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
    return Fork(pid, read_end, go_write if ahead else None, folder, standby_key(args))


def _set_up_child(folder: str, worker: int, others: tuple[int, ...]) -> None:
    """In a fork of the worker, before pytest: its own group (a timeout kills whatever the user's code
    started) and working folder (relative writes land there), the default signals (the worker's
    handlers are the worker's), a watchdog's parent, standard input empty; the worker's ends of its
    pipes, and of its zygotes', closed (``others``: this fork's)."""
    global standby
    os.setpgid(0, 0)
    os.chdir(folder)
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    os.environ[PARENT_ENV] = str(worker)  # the grading ends itself if the worker is gone
    for fd in (*others, *(fd for z in zygotes.values() for fd in (z.requests, z.replies))):
        if fd >= 0:
            os.close(fd)
    if standby is not None:
        os.close(standby.output)
        if standby.go is not None:
            os.close(standby.go)
    zygotes.clear()
    folders.clear()  # its parent's to remove
    standby = None
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)


def _go(fork: Fork, args: list[str]) -> bool:
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


def _drop(fork: Fork) -> None:
    """A standby not needed: it ends, its folder goes."""
    _end_child(fork.pid, fork.go, fork.output, fork.folder)


def _end_child(pid: int, to_it: int | None, from_it: int, folder: str) -> None:
    """A standby or a zygote not needed (or gone): the pipe ``to_it`` closed (if still open), it is
    killed and reaped, the pipe ``from_it`` closed, its folder removed."""
    if to_it is not None:
        os.close(to_it)
    kill_tree(pid)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    os.close(from_it)
    remove_folder(folder)


running: int | None = None
"""The process id (and group) of the grading under way in this worker, if any."""
standby: Fork | None = None
"""The grading forked ahead of the next save, set up for the selection graded last: a save that
grades the same costs its tests, not pytest's set-up (grader/conftest.py, ``--standby``)."""


def grade(
    args: list[str], timeout: float, orphaned: Callable[[], bool], end: Callable[[int], None], ahead: bool = True
) -> tuple[int, str]:
    """Grade in a fork: the standby, if it was set up for these arguments, else a new one; then (if
    ``ahead``) set up the next standby for the same arguments, while the user reads the verdict."""
    global standby
    if not ahead and (graded := _in_zygote(args, timeout, orphaned, end)) is not None:
        return graded
    fork, standby = standby, None
    if fork is not None and not (fork.key == standby_key(args) and _go(fork, args)):
        _drop(fork)
        fork = None
    result = await_grading(fork or _fork(args), timeout, orphaned, end)
    standby = _fork(args, ahead=True) if ahead else None
    return result


def await_grading(
    fork: Fork, timeout: float, orphaned: Callable[[], bool], end: Callable[[int], None]
) -> tuple[int, str]:
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
    end_descendants(_zygote_pids())  # what left its group (setsid, a double fork): this worker adopted it
    remove_folder(fork.folder)
    output = tail.decode("utf-8", "replace")
    if timed_out:
        return TIMED_OUT, output
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), output
    return os.WEXITSTATUS(status), output


ZYGOTES = 8
"""The selections whose zygote a worker that forks no standby keeps (the one graded least lately goes):
each holds about 10 MB of its own. The suite's 300 gradings in its warm workers are of 42 selections;
with 4 kept, 90 gradings found no zygote, about half of them for a selection whose zygote had gone."""
ZYGOTE_GRACE = 30.0
"""Seconds past a grading's time limit after which its zygote, which enforces that limit, is given up."""


@dataclass
class Zygote:
    """A grading set up for a selection and forked for each file graded on it (grader/zygote.py): its
    process (and group), the write end of its requests, the read end of its replies, its folder."""

    pid: int
    requests: int
    replies: int
    folder: str


zygotes: dict[tuple[str, ...], Zygote] = {}
"""This worker's zygotes, by selection (``standby_key``), the one graded last at the end."""


def _zygote_pids() -> list[int]:
    return [z.pid for z in zygotes.values()]


def _in_zygote(
    args: list[str], timeout: float, orphaned: Callable[[], bool], end: Callable[[int], None]
) -> tuple[int, str] | None:
    """Grade in a fork of the zygote of this selection, made first if there is none: what a worker
    that forks no standby does (the next grading is seldom of the same selection, but the same
    selections come back). None where it cannot: the zygote died before it replied (the user's code
    killed it, say); the caller then grades in a fork of its own."""
    global running
    given = given_on_go(args)
    if given is None:
        return None
    key = standby_key(args)
    zygote = zygotes.pop(key, None) or _zygote(args)
    zygotes[key] = zygote
    while len(zygotes) > ZYGOTES:
        _end_zygote(zygotes.pop(next(iter(zygotes))))
    request = {**given, "timeout": timeout}
    try:
        reply = _reply(zygote, (json.dumps(request) + "\n").encode(), timeout + ZYGOTE_GRACE, orphaned, end)
    finally:
        running = None
    if reply is None:
        _end_zygote(zygotes.pop(key))
        end_descendants(_zygote_pids())  # its grading, if it lives on: re-parented to this worker
        return None
    return int(reply["status"]), str(reply["output"])


def _zygote(args: list[str]) -> Zygote:
    """Fork a zygote for the selection of ``args`` (grader/zygote.py)."""
    requests_read, requests_write = os.pipe()
    replies_read, replies_write = os.pipe()
    worker = os.getpid()
    folder = new_folder(WORKING)
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            _set_up_child(folder, worker, (requests_write, replies_read))
            os.dup2(0, 1)  # what the zygote prints, nowhere; each grading's output has its own pipe
            os.dup2(0, 2)
            import pytest

            code = int(pytest.main([*standby_key(args), f"--zygote={requests_read},{replies_write}"]))
        finally:
            os._exit(code)
    os.close(requests_read)
    os.close(replies_write)
    return Zygote(pid, requests_write, replies_read, folder)


def _reply(
    zygote: Zygote, request: bytes, seconds: float, orphaned: Callable[[], bool], end: Callable[[int], None]
) -> dict[str, object] | None:
    """Send ``request`` and read the zygote's reply; meanwhile its grading's process id is this
    worker's ``running`` (a cancel kills it, as a fork of the worker). None if the zygote is gone,
    or overdue."""
    global running
    try:
        os.write(zygote.requests, request)
    except OSError:
        return None
    deadline = time.monotonic() + seconds
    data = b""
    folder = None  # its grading's, which the zygote removes: this worker's to remove if both end first
    while time.monotonic() < deadline:
        ready, _, _ = select.select([zygote.replies], [], [], POLL_SECONDS)
        if not ready:
            if orphaned():
                end(1)
            continue
        chunk = os.read(zygote.replies, 65536)
        if not chunk:
            return None
        data += chunk
        while b"\n" in data:
            line, data = data.split(b"\n", 1)
            message = json.loads(line)
            if "running" not in message:
                if folder is not None:
                    folders.discard(folder)
                return message
            running, folder = int(message["running"]), str(message["folder"])
            folders.add(folder)
    return None


def _end_zygote(zygote: Zygote) -> None:
    _end_child(zygote.pid, zygote.requests, zygote.replies, zygote.folder)
