"""Warm grading: a save costs the tests' own time, not an interpreter's start-up.

On Linux, a long-lived child keeps NumPy, pytest and the grader imported, and forks a fresh,
isolated grandchild for each grading (``WarmRunner``). Protocol: one JSON line per request on stdin
(``{"args": [...], "timeout": s}``), one JSON line per reply on stdout (``{"status": N, "output": "..."}``).

Elsewhere forking is unsafe (macOS: NumPy linked against Accelerate, and macOS's own default is to
spawn) or impossible (Windows). There an interpreter is started ahead of time, imports the same,
and waits for one grading, which it runs itself before it exits; the next ones are already warming
up meanwhile (grader/spawn.py, ``SpawnRunner``; grader/spare.py, ``python -m autograd_drill.grader.worker --once``).

A grading no longer wanted (its file was saved again) is cancelled (``cancel``): the Linux worker
kills its fork on SIGUSR1 and stays warm; elsewhere the interpreter running it is killed. The call
that asked for it raises Cancelled.

Neither the worker nor a grading outlives ``drill watch``: the worker runs in its own session (a
Ctrl-C in the terminal is for ``drill watch``, which stops it), kills the grading under way when
it is told to stop (SIGTERM, SIGINT, SIGHUP), and, should ``drill watch`` die without a word
(SIGKILL), finds it gone (its stdin ends, or its parent changes) and ends with its grading. The
grading itself, in turn, ends when it finds the worker gone (grader/conftest.py). On Linux the
worker is a child subreaper: what a grading started and that left its group (``setsid``, a double
fork) is re-parented to the worker, which ends it once the grading is over (grader/reaper.py). Each
fork runs in a temporary folder of its own, removed after it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import IO

from autograd_drill.grader import collect_after_warm_up, forks
from autograd_drill.grader.process import (
    IMPORTED_FROM,
    PARENT_ENV,
    STALLED,
    STOP_SIGNALS,
    Cancelled,
    Stalled,
    grading_env,
    kill_tree,
    stopped_with_us,
)
from autograd_drill.grader.reaper import become_subreaper, end_descendants
from autograd_drill.grader.spare import dry_session, serve_once
from autograd_drill.grader.spawn import SpawnRunner

POLL_SECONDS = forks.POLL_SECONDS


def _parent() -> int:
    """The ``drill watch`` process this worker serves."""
    parent = os.environ.get(PARENT_ENV, "")
    return int(parent) if parent.isdigit() else os.getppid()


def _orphaned(parent: int) -> bool:
    return os.getppid() != parent


def _end(status: int) -> None:
    """End the worker, and the grading under way first, with all it started (the standby too)."""
    forks.kill_all()
    end_descendants()
    os._exit(status)


def _on_stop(signum: int, frame: FrameType | None) -> None:
    _end(128 + signum)


def _on_cancel(signum: int, frame: FrameType | None) -> None:
    """SIGUSR1: kill the grading under way (its reply still comes); the worker stays, warm."""
    if forks.running is not None:
        kill_tree(forks.running)


def _preload() -> None:
    """Import what every grading needs, once. The targets' test modules come with the warm-up that
    follows: the dry session (grader/spare.py), or an interpreter started ahead of time collecting
    its selection's."""
    import importlib

    import numpy  # noqa: F401
    import pytest  # noqa: F401

    for module in (
        "autograd_drill.grader.conftest",
        "autograd_drill.grader.compare",
        "autograd_drill.grader.check",
        "autograd_drill.grader.oracle",
        "autograd_drill.grader.graphs",
        "autograd_drill.grader.programs",
        "autograd_drill.grader.localize",
        "autograd_drill.grader.probes",
    ):
        importlib.import_module(module)
    from autograd_drill.grader.oracle import preload

    preload()


def preload_pack(tests: Path, recording: Path) -> None:
    """Import a pack's oracle tests (``tests``: its folder of test_*.py) as pytest does in a fork
    (prepend import mode: the folder first on sys.path, each module by its file name, so a grading's
    collection finds it imported), and read its ``recording`` whole (grader/suite.py names both)."""
    import importlib

    from autograd_drill.grader.oracle import preload

    preload(recording)
    sys.path.insert(0, str(tests))
    for path in sorted(tests.glob("test_*.py")):
        importlib.import_module(path.stem)


def serve(stdin: IO[str], stdout: IO[str], pack: tuple[Path, Path] | None = None) -> None:
    """Grade each request in a fork; ``pack``: the tests and recording of a pack whose gradings this
    worker serves (``preload_pack``), the grader's own being preloaded in any case."""
    parent = _parent()
    become_subreaper()  # the orphans of a grading are this worker's to end, not init's
    for signum in STOP_SIGNALS:
        signal.signal(signum, _on_stop)
    signal.signal(signal.SIGUSR1, _on_cancel)
    _preload()
    if pack is not None:
        preload_pack(*pack)
    # One session before the first fork, as a spare's warm-up has (grader/spare.py): what pytest does
    # only on its first session in a process (importing its built-in plugins' modules and readline, the
    # first walk of the installed distributions' entry points for ``-p``) is then the worker's, done
    # once, and each fork's session starts warm: about 10 ms of the 60 ms of CPU a fork grading of
    # unbroadcast cost, for about 30 ms once here (benchmarks/warm.py). Its configure (grader/conftest.py)
    # sets the worker's collector thresholds and warning filters as each fork's session sets its own.
    dry_session()
    try:
        if _orphaned(parent):
            return
        stdout.write(json.dumps({"ready": True}) + "\n")
        stdout.flush()
        for line in stdin:  # ends when drill watch closes the pipe, or dies
            request = json.loads(line)
            ahead = bool(request.get("ahead", True))
            status, output = forks.grade(
                request["args"], float(request["timeout"]), lambda: _orphaned(parent), _end, ahead
            )
            stdout.write(json.dumps({"status": status, "output": output}) + "\n")
            stdout.flush()
    except BrokenPipeError:  # drill watch is gone
        _end(1)
    _end(0)  # drill watch closed the pipe: the standby and the zygotes end too, and their folders go


class WarmRunner:
    """A Runner backed by one warm worker process that forks a grading per request (Linux); falls
    back to a fresh worker if it dies. ``stalled`` is polled as in a fresh interpreter: the grading's
    own SIGALRM timer stops even a blocking call, unless the user's code blocked or ignored SIGALRM;
    then the fork is stopped from here (SIGUSR1 to the worker), as grader/process.py's wait_for does."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()
        self.busy = False
        self.cancelled = False
        self.closed = False
        self.ahead = True
        """Whether the worker forks the next grading ahead of its save (grader/forks.py, the standby):
        False where the next grading is seldom of the same selection (the tool's own test suite, whose
        standbys were each set up and then dropped, tests/conftest.py); the worker then keeps a zygote
        per selection instead (grader/zygote.py), set up once and forked for each grading of it."""

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autograd_drill.grader.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=IMPORTED_FROM,
            env=grading_env(),
            text=True,
            start_new_session=True,  # a Ctrl-C in the terminal is for drill watch, which then stops the worker
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError("the grading worker did not start")

    def stop_worker(self) -> None:
        """Tell the worker to end now, with the grading under way (it kills that one's process group)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.terminate()
            except ProcessLookupError:
                pass

    def __call__(self, args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
        with self.lock, stopped_with_us(self.stop_worker):
            self.cancelled, self.busy = False, True
            try:
                return self._grade(args, timeout, stalled)
            finally:
                self.busy = False

    def _reply(self, proc: subprocess.Popen[str], stalled: Stalled | None) -> tuple[str, bool]:
        """The worker's reply line ("" if it died), and whether ``stalled`` had the grading stopped."""
        assert proc.stdout is not None
        stopped = False
        while stalled is not None and not select.select([proc.stdout], [], [], POLL_SECONDS / 4)[0]:
            if not stopped and not self.cancelled and stalled() is not None:
                stopped = True
                try:
                    os.kill(proc.pid, signal.SIGUSR1)  # the worker kills the fork, and replies
                except ProcessLookupError:  # it died: its stdout ends
                    pass
        return proc.stdout.readline(), stopped

    def _grade(self, args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
        for _ in range(2):
            if self.closed:
                raise Cancelled
            if self.proc is None or self.proc.poll() is not None:
                self.start()
            proc = self.proc
            assert proc is not None and proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(json.dumps({"args": args, "timeout": timeout, "ahead": self.ahead}) + "\n")
                proc.stdin.flush()
                line, stopped = self._reply(proc, stalled)
            except (BrokenPipeError, ValueError):  # ValueError: closed meanwhile (close)
                line, stopped = "", False
            except BaseException:  # KeyboardInterrupt, SystemExit: the grading goes with the command
                self.stop_worker()
                raise
            if self.cancelled or self.closed:
                raise Cancelled
            if line:
                reply = json.loads(line)
                return STALLED if stopped else int(reply["status"]), str(reply["output"])
            self.proc = None  # the worker died: start another once
        raise RuntimeError("the grading worker keeps dying")

    def cancel(self) -> None:
        """Stop the grading under way, if any: its call raises Cancelled; the worker stays, warm (SIGUSR1)."""
        proc = self.proc
        if self.busy and proc is not None and proc.poll() is None:
            self.cancelled = True
            try:
                os.kill(proc.pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass

    def close(self) -> None:
        """End the worker, and any grading it is running (whose call raises Cancelled)."""
        self.closed = True
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            self.stop_worker()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def warm_runner() -> WarmRunner | SpawnRunner:
    """Fork-based warm grading on Linux; elsewhere (or without fork) interpreters started ahead of time."""
    return WarmRunner() if sys.platform.startswith("linux") and hasattr(os, "fork") else SpawnRunner()


if __name__ == "__main__":
    collect_after_warm_up()
    if sys.argv[1:] == ["--once"]:
        sys.exit(serve_once(sys.stdin, _preload))
    serve(sys.stdin, sys.stdout)
