"""Interpreters started ahead of time: warm grading where a process must not fork (macOS, Windows).

Each grading runs in an interpreter of its own, started before it is needed (``SpawnRunner``): it
imports what a grading needs (grader/worker.py, ``_preload``), runs a dry pytest session over the
grader (collection only: what pytest imports and builds on its first session, a grading need not),
then waits for its one grading, which it runs itself before it exits (``serve_once``,
``python -m grader.worker --once``).

Warming one up costs about half a second of CPU (Python, NumPy and pytest; the recorded answers,
about half of it, are read last and only while no grading has asked: ``Filling``), more than a
user's pause between a verdict and the next save, and on a busy machine several times that: so
``SPARES`` interpreters warm at once, and a save takes the one that started first, which has been
warming since a few gradings earlier. The next is started as soon as a grading ends (in the
background: starting a process takes a few milliseconds the verdict need not wait for).

A grading no longer wanted (its file was saved again) is cancelled (``cancel``): the interpreter
running it is killed, and the call that asked for it raises Cancelled. The interpreters waiting for
a grading end with the runner (``close``), or, should ``drill watch`` die without a word, when
their stdin ends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from grader.process import (
    GRADER,
    Cancelled,
    Stalled,
    grading_env,
    kill_tree,
    own_group,
    wait_for,
)

SPARES = 3
"""Interpreters kept warming for the next gradings (about 65 MB each, idle once warm): three saves
in a row, each 0.3 s after the last verdict, each find one warm on a loaded 2-core machine (with two,
the third waits for its warm-up: 1.3 to 1.5 times the fork worker there, benchmarks/bench.py)."""


def dry_session() -> None:
    """A pytest session that collects every target's tests and runs none: it imports what pytest
    imports on its first session (its built-in plugins' modules, unittest) and fills its caches, so
    that the grading, a second session in this process, starts warm. Nothing is printed (the
    terminal plugin is off), no memory cap is set and no report is written (their options are not
    given): the grading's session sets up its own."""
    import pytest

    from grader.catalog import load_catalog
    from grader.run import BASE_ARGS, test_files

    pytest.main([*test_files(load_catalog().every), *BASE_ARGS, "--collect-only"])


class Filling(Mapping[str, Any]):
    """The recorded answers, read ahead while no grading has asked (``fill``), the rest when asked."""

    def __init__(self, store: Mapping[str, Any]) -> None:
        self.store, self.read = store, dict[str, Any]()

    def __getitem__(self, key: str) -> Any:
        found = self.read.get(key)
        return self.store[key] if found is None else found

    def __iter__(self) -> Iterator[str]:
        return iter(self.store)

    def __len__(self) -> int:
        return len(self.store)

    def fill(self, until: threading.Event) -> None:
        """Read every answer ahead, in the recording's order, until ``until`` is set."""
        for key in self.store:
            if until.is_set():
                return
            self.read[key] = self.store[key]


def _open_recording(opened: list[Filling]) -> Callable[..., None]:
    """grader/oracle.py's ``preload``, but reading nothing yet: the answers are read in ``fill``."""
    from grader import oracle

    def preload(path: Path = oracle.RECORDING) -> None:
        if path.exists():
            replay = oracle.ReplayOracle(path)
            replay.store = filling = Filling(replay.store)
            oracle._PRELOADED[path.resolve()] = replay
            opened.append(filling)

    return preload


def serve_once(stdin: IO[str], preload: Callable[[], None]) -> int:
    """Warm up (``preload``, then a dry session), then run the one grading asked for on ``stdin`` in
    this very process, its output appended to the file the request names; the exit status is pytest's.

    Reading the recorded answers is half a warm-up: they are read last, while no grading has asked,
    and a request that comes first stops it (the grading reads the answers it needs that were not read
    yet, a small share of them: those of its targets)."""
    lines: list[str] = []
    asked = threading.Event()

    def read() -> None:
        lines.append(stdin.readline())
        asked.set()

    threading.Thread(target=read, name="drill-request", daemon=True).start()
    from grader import oracle

    eager, opened = oracle.preload, list[Filling]()
    oracle.preload = _open_recording(opened)  # type: ignore[assignment]  # for ``preload``, which calls it
    try:
        preload()
    finally:
        oracle.preload = eager  # type: ignore[assignment]
    if not asked.is_set():
        dry_session()
    for filling in opened:
        filling.fill(until=asked)
    asked.wait()
    if not lines[0]:  # drill watch ended without needing this one
        return 0
    request = json.loads(lines[0])
    os.chdir(request["cwd"])  # relative writes land in the grading's own folder
    output = os.open(request["output"], os.O_WRONLY | os.O_APPEND)
    os.dup2(output, 1)
    os.dup2(output, 2)
    import pytest

    return int(pytest.main(request["args"]))


class SpawnRunner:
    """A Runner for platforms that must not fork after importing NumPy: each grading runs in an
    interpreter started ahead of time (``serve_once``), ``SPARES`` of which warm up while the user
    types; a grading takes the one that started first."""

    def __init__(self) -> None:
        self.spares: list[subprocess.Popen[str]] = []
        """The interpreters warming up, or warm, for the next gradings, the first started first."""
        self.spares_lock = threading.Lock()
        self.current: subprocess.Popen[str] | None = None
        """The interpreter running the grading under way."""
        self.lock = threading.Lock()
        self.cancelled = False
        self.closed = False

    def _spawn(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "grader.worker", "--once"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=GRADER.parent,
            env=grading_env(),
            text=True,
            **own_group(),
        )

    def warm_up(self) -> None:
        """Start interpreters until ``SPARES`` are warming up (none once closed)."""
        with self.spares_lock:
            self.spares = [proc for proc in self.spares if proc.poll() is None]
            while not self.closed and len(self.spares) < SPARES:
                self.spares.append(self._spawn())

    def _take(self) -> subprocess.Popen[str]:
        """The interpreter for this grading: the first started of those still alive, or a new one."""
        with self.spares_lock:
            while self.spares:
                proc = self.spares.pop(0)
                if proc.poll() is None:
                    return proc
            return self._spawn()

    def __call__(self, args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
        with self.lock, tempfile.TemporaryDirectory(prefix="drill-grading-") as tmp:
            if self.closed:
                raise Cancelled
            proc = self._take()
            assert proc.stdin is not None
            self.cancelled, self.current = False, proc
            path = Path(tmp) / "output.txt"
            try:
                with path.open("w+b") as output:
                    try:
                        proc.stdin.write(json.dumps({"args": args, "output": str(path), "cwd": tmp}) + "\n")
                        proc.stdin.close()
                    except (BrokenPipeError, OSError):  # it died while waiting: its status is reported
                        pass
                    result = wait_for(proc, output, timeout, stalled)
            finally:
                self.current = None
                # the next ones warm up while the verdict is shown (a start takes a few ms: not here)
                threading.Thread(target=self.warm_up, name="drill-spawn-warm-up", daemon=True).start()
            if self.cancelled or self.closed:
                raise Cancelled
            return result

    def cancel(self) -> None:
        """Stop the grading under way, if any: its call raises Cancelled."""
        proc = self.current
        if proc is not None:
            self.cancelled = True
            kill_tree(proc.pid)

    def close(self) -> None:
        """End the interpreters warming up for the next gradings, and the grading under way."""
        self.closed = True
        self.cancel()
        with self.spares_lock:  # a warm_up under way ends first, and starts no more
            spares, self.spares = self.spares, []
        for proc in spares:
            kill_tree(proc.pid)
            proc.wait()
