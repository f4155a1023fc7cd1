"""Warm grading: a long-lived child keeps NumPy, pytest and the grader imported, and forks a fresh,
isolated grandchild for each grading. A save then costs the tests' own time, not start-up.

Protocol: one JSON line per request on stdin (``{"args": [...]}``), one JSON line per reply on
stdout (``{"status": N, "output": "..."}``). Where the platform has no fork, use
``run_in_subprocess``.

Neither the worker nor a grading outlives ``drill watch``: the worker runs in its own session (a
Ctrl-C in the terminal is for ``drill watch``, which stops it), kills the grading under way when
it is told to stop (SIGTERM, SIGINT, SIGHUP), and, should ``drill watch`` die without a word
(SIGKILL), finds it gone (its stdin ends, or its parent changes) and ends with its grading. The
grading itself, in turn, ends when it finds the worker gone (grader/conftest.py).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from types import FrameType
from typing import IO

from drills.grading import GRADER, PARENT_ENV, STOP_SIGNALS, TIMED_OUT, grading_env, kill_group, stopped_with_us

POLL_SECONDS = 0.2
"""How often a worker busy with a grading checks that ``drill watch`` is still there."""

_grading: int | None = None
"""The process id (and group) of the grading under way in this worker, if any."""


def _parent() -> int:
    """The ``drill watch`` process this worker serves."""
    parent = os.environ.get(PARENT_ENV, "")
    return int(parent) if parent.isdigit() else os.getppid()


def _orphaned(parent: int) -> bool:
    return os.getppid() != parent


def _end(status: int) -> None:
    """End the worker, and the grading under way first."""
    if _grading is not None:
        kill_group(_grading)
    os._exit(status)


def _on_stop(signum: int, frame: FrameType | None) -> None:
    _end(128 + signum)


def _preload() -> None:
    """Import what every grading needs, once."""
    import importlib

    import numpy  # noqa: F401
    import pytest  # noqa: F401

    sys.path.insert(0, str(GRADER.parent))
    for module in ("grader.conftest", "grader.check", "grader.oracle", "grader.graphs", "grader.probes"):
        importlib.import_module(module)
    from grader.oracle import preload

    preload()
    for path in sorted(GRADER.glob("test_*.py")):
        importlib.import_module(f"grader.{path.stem}")


def _grade_in_fork(args: list[str], timeout: float, parent: int | None = None) -> tuple[int, str]:
    """Grade in a forked child; ends the worker (and the child) if ``parent`` goes away meanwhile."""
    global _grading
    read_end, write_end = os.pipe()
    worker = os.getpid()
    pid = os.fork()
    if pid == 0:  # the grandchild: the user's code runs here, and only here
        code = 3
        try:
            os.setpgid(0, 0)  # its own group: a timeout kills whatever the user's code started
            for signum in STOP_SIGNALS:  # not the worker's handlers: those are for the worker
                signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
            os.environ[PARENT_ENV] = str(worker)  # the grading ends itself if the worker is gone
            os.close(read_end)
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(write_end, 1)
            os.dup2(write_end, 2)
            import pytest

            code = int(pytest.main(args))
            sys.stdout.flush()
        finally:
            os._exit(code)
    _grading = pid
    os.close(write_end)
    deadline = time.monotonic() + timeout
    tail = b""
    timed_out = False
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                kill_group(pid)
                break
            ready, _, _ = select.select([pipe], [], [], min(left, POLL_SECONDS))
            if ready:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                tail = (tail + chunk)[-4000:]
            elif parent is not None and _orphaned(parent):
                _end(1)  # drill watch is gone: so are this grading and this worker
    _, status = os.waitpid(pid, 0)
    _grading = None
    output = tail.decode("utf-8", "replace")
    if timed_out:
        return TIMED_OUT, output
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), output
    return os.WEXITSTATUS(status), output


def serve(stdin: IO[str], stdout: IO[str]) -> None:
    parent = _parent()
    for signum in STOP_SIGNALS:
        signal.signal(signum, _on_stop)
    _preload()
    try:
        if _orphaned(parent):
            return
        stdout.write(json.dumps({"ready": True}) + "\n")
        stdout.flush()
        for line in stdin:  # ends when drill watch closes the pipe, or dies
            request = json.loads(line)
            status, output = _grade_in_fork(request["args"], float(request["timeout"]), parent)
            stdout.write(json.dumps({"status": status, "output": output}) + "\n")
            stdout.flush()
    except BrokenPipeError:  # drill watch is gone
        _end(1)


class WarmRunner:
    """A Runner backed by one warm worker process; falls back to a fresh one if the worker dies."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "drills.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=GRADER.parent,
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

    def __call__(self, args: list[str], timeout: float) -> tuple[int, str]:
        with self.lock, stopped_with_us(self.stop_worker):
            for _ in range(2):
                if self.proc is None or self.proc.poll() is not None:
                    self.start()
                assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
                try:
                    self.proc.stdin.write(json.dumps({"args": args, "timeout": timeout}) + "\n")
                    self.proc.stdin.flush()
                    line = self.proc.stdout.readline()
                except BrokenPipeError:
                    line = ""
                except BaseException:  # KeyboardInterrupt, SystemExit: the grading goes with the command
                    self.stop_worker()
                    raise
                if line:
                    reply = json.loads(line)
                    return int(reply["status"]), str(reply["output"])
                self.proc = None  # the worker died: start another once
            raise RuntimeError("the grading worker keeps dying")

    def close(self) -> None:
        """End the worker, and any grading it is running."""
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


def warm_runner_or_none() -> WarmRunner | None:
    """A warm runner where the platform can fork, else None (use run_in_subprocess)."""
    return WarmRunner() if hasattr(os, "fork") else None


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
