"""Warm grading: a long-lived child keeps NumPy, pytest and the grader imported, and forks a fresh,
isolated grandchild for each grading. A save then costs the tests' own time, not start-up.

Protocol: one JSON line per request on stdin (``{"args": [...]}``), one JSON line per reply on
stdout (``{"status": N, "output": "..."}``). Where the platform has no fork, use
``run_in_subprocess``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from typing import IO

from drills.grading import GRADER, TIMED_OUT, grading_env, kill_group


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


def _grade_in_fork(args: list[str], timeout: float) -> tuple[int, str]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the grandchild: the user's code runs here, and only here
        code = 3
        try:
            os.setpgid(0, 0)  # its own group: a timeout kills whatever the user's code started
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
            ready, _, _ = select.select([pipe], [], [], left)
            if ready:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                tail = (tail + chunk)[-4000:]
    _, status = os.waitpid(pid, 0)
    output = tail.decode("utf-8", "replace")
    if timed_out:
        return TIMED_OUT, output
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), output
    return os.WEXITSTATUS(status), output


def serve(stdin: IO[str], stdout: IO[str]) -> None:
    _preload()
    stdout.write(json.dumps({"ready": True}) + "\n")
    stdout.flush()
    for line in stdin:
        request = json.loads(line)
        status, output = _grade_in_fork(request["args"], float(request["timeout"]))
        stdout.write(json.dumps({"status": status, "output": output}) + "\n")
        stdout.flush()


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
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError("the grading worker did not start")

    def __call__(self, args: list[str], timeout: float) -> tuple[int, str]:
        with self.lock:
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
                if line:
                    reply = json.loads(line)
                    return int(reply["status"]), str(reply["output"])
                self.proc = None  # the worker died: start another once
            raise RuntimeError("the grading worker keeps dying")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


def warm_runner_or_none() -> WarmRunner | None:
    """A warm runner where the platform can fork, else None (use run_in_subprocess)."""
    return WarmRunner() if hasattr(os, "fork") else None


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
