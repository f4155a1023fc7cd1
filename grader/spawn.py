"""Interpreters started ahead of time: warm grading where a process must not fork (macOS, Windows).

Each grading runs in an interpreter of its own, started before it is needed (``SpawnRunner``): it
imports what a grading needs (grader/worker.py, ``_preload``), then stands by, as the fork worker's
standby does (grader/forks.py): a pytest session for the selection graded last (its arguments but
the file and the report, ``--standby``), configured, its plugins loaded and the grader's tests
collected, waits in grader/conftest.py to be told the file to grade and the report to write. A save
of the same selection then costs its tests only. Told that another selection is to be graded, the
session ends without a test and the interpreter grades that one itself, from its start (as before
the first grading, where it knows no selection: it has run a dry session, one that collects no
test, grader/spare.py). After a grading, the spares standing by for another selection are told to stand by for
this one (``{"standby": ...}``), in the background. The interpreter's side: grader/spare.py
(``serve_once``, ``python -m autograd_drill.grader.worker --once``).

Warming one up costs about 0.4 s of CPU (Python, NumPy, pytest and the grader; the recorded answers,
about a tenth of it since grader/npz.py reads them, are read last and only while nothing has been
asked: ``Filling``), more than a
user's pause between a verdict and the next save, and on a busy machine several times that: so
``SPARES`` interpreters (``$DRILL_SPARES``) warm at once, and a save takes the one that started first of those standing
by for its selection (of those warm, if any: each says "ready" when it is), which has been warming
since a few gradings earlier. The next is started as soon as a grading ends (in the background:
starting a process takes a few milliseconds the verdict need not wait for); while a grading runs,
the spares still warming up hold (``_hold``), so that their warm-up does not take its cores.

``drill check`` grades once, in an interpreter started as the command starts (``OneShot``,
``start_early``), which imports what a grading needs while the command does its own work.

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
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from autograd_drill.grader.forks import standby_key
from autograd_drill.grader.process import (
    IMPORTED_FROM,
    Cancelled,
    Stalled,
    grading_env,
    kill_tree,
    new_folder,
    own_group,
    remove_folder,
    wait_for,
)
from autograd_drill.grader.reaper import reaping
from autograd_drill.grader.spare import Key

SPARES = 3
"""Interpreters kept warming for the next gradings (about 65 MB each, idle once warm): three saves
in a row, each 0.3 s after the last verdict, each find one warm on a loaded 2-core machine (with two,
the third waits for its warm-up: 1.3 to 1.5 times the fork worker there, benchmarks/bench.py)."""

SPARES_ENV = "DRILL_SPARES"
"""How many interpreters to keep warming instead of ``SPARES`` (a whole number, 0 or more; 0: each
grading starts its own, as ``drill check``'s): fewer spare memory and a warm-up's CPU each, for a
slower save in a row. The tool's own test suite sets 1 (tests/conftest.py)."""


def spares() -> int:
    """The interpreters a runner keeps warming: ``$DRILL_SPARES`` if it is a whole number, else ``SPARES``."""
    value = os.environ.get(SPARES_ENV, "").strip()
    return int(value) if value.isdigit() else SPARES


def spawn_spare(key: Key | None, ahead: bool = True) -> _Spare:
    """Start an interpreter ahead of time (grader/spare.py), standing by for ``key`` (None: a dry session
    instead, or with ``ahead`` false, nothing after the imports)."""
    folder = Path(new_folder("drill-grading-"))
    output = (folder / "output.txt").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograd_drill.grader.worker", "--once"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=IMPORTED_FROM,
        env=grading_env(),
        text=True,
        **own_group(),
    )
    spare = _Spare(proc, folder, output, key)
    setup = {"cwd": str(folder), "output": str(folder / "output.txt"), "standby": key and list(key), "ahead": ahead}
    spare.tell(setup)
    threading.Thread(target=spare.listen, name="drill-spare-ready", daemon=True).start()
    return spare


@dataclass
class _Spare:
    """An interpreter started ahead of time: its process, its folder (its working folder, where its
    output goes too), the selection it stands by for (None: a dry session), the times it was told to
    stand by for another, and the last of those times it said it was ready (-1: not yet)."""

    proc: subprocess.Popen[str]
    folder: Path
    output: IO[bytes]
    key: Key | None
    told: int = 0
    stood: int = -1
    held: bool = False
    """Told to hold its warm-up while a grading runs."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """For its stdin: the runner's threads write to it."""

    @property
    def ready(self) -> bool:
        return self.stood == self.told

    def tell(self, message: dict[str, Any], last: bool = False) -> bool:
        """One line on its stdin (``last``: and its end): False if it is gone."""
        assert self.proc.stdin is not None
        with self.lock:
            try:
                self.proc.stdin.write(json.dumps(message) + "\n")
                self.proc.stdin.flush()
                if last:
                    self.proc.stdin.close()
                return True
            except (BrokenPipeError, OSError, ValueError):  # ValueError: closed
                return False

    def listen(self) -> None:
        """Read its "ready N" lines until it closes them (it grades, or is gone)."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            word, _, told = line.partition(" ")
            if word == "ready" and told.strip().isdigit():
                self.stood = int(told)

    def discard(self) -> None:
        """It ends (if it has not), with what it started, and its folder goes."""
        if self.proc.poll() is None:
            kill_tree(self.proc.pid)
            self.proc.wait()
        for stream in (self.output, self.proc.stdin):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        remove_folder(str(self.folder))


class SpawnRunner:
    """A Runner for platforms that must not fork after importing NumPy: each grading runs in an
    interpreter started ahead of time (``serve_once``), ``spares()`` of which warm up, and stand by for
    the selection graded last, while the user types; a grading takes the first started of those
    standing by for its selection and warm, else of those warm, else of those standing by for it."""

    def __init__(self) -> None:
        self.spares: list[_Spare] = []
        """The interpreters warming up, or warm, for the next gradings, the first started first."""
        self.spares_lock = threading.Lock()
        self.selection: Key | None = None
        """The selection graded last (``standby_key`` of its arguments): the spares stand by for it."""
        self.current: subprocess.Popen[str] | None = None
        """The interpreter running the grading under way."""
        self.lock = threading.Lock()
        self.cancelled = False
        self.closed = False

    def _spawn(self) -> _Spare:
        return spawn_spare(self.selection)

    def _alive(self) -> list[_Spare]:
        """The spares still alive (the others discarded); with ``spares_lock`` held."""
        alive = []
        for spare in self.spares:
            if spare.proc.poll() is None:
                alive.append(spare)
            else:
                spare.discard()
        self.spares = alive
        return alive

    def warm_up(self) -> None:
        """Tell the spares standing by for another selection to stand by for the last one, and start
        interpreters until ``spares()`` are warming up (none once closed)."""
        with self.spares_lock:
            if self.closed:
                return
            for spare in self._alive():
                if self.selection is not None and spare.key != self.selection:
                    if spare.tell({"standby": list(self.selection)}):
                        spare.key, spare.told = self.selection, spare.told + 1
            wanted = spares()
            while len(self.spares) < wanted:
                self.spares.append(self._spawn())

    def _take(self, key: Key) -> _Spare:
        """The interpreter for a grading of ``key``: the first started of those standing by for it and
        warm, else of those warm, else of those standing by for it, else of those alive; or a new one."""
        with self.spares_lock:
            alive = self._alive()
            for fits in (
                lambda s: s.ready and s.key == key,
                lambda s: s.ready,
                lambda s: s.key == key,
                lambda s: True,
            ):
                for spare in alive:
                    if fits(spare):
                        self.spares.remove(spare)
                        return spare
            return self._spawn()

    def _hold(self, on: bool) -> None:
        """While a grading runs, the spares still warming up wait (``on``): two cores are not shared
        with them (each costs about 0.3 s of CPU, a few gradings' worth); then they go on."""
        for spare in list(self.spares):
            if on and not spare.ready:
                spare.held = spare.tell({"hold": True})
            elif not on and spare.held:
                spare.held = not spare.tell({"hold": False})

    def __call__(self, args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
        with self.lock:
            if self.closed:
                raise Cancelled
            key = standby_key(args)
            spare = self._take(key)
            self.cancelled, self.current = False, spare.proc
            self._hold(True)
            try:
                spare.tell({"args": args}, last=True)  # if it died while waiting, its status is reported
                result = wait_for(spare.proc, spare.output, timeout, stalled)
            finally:
                self.current = None
                self._hold(False)
                spare.discard()
                self.selection = key
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
        for spare in spares:
            spare.discard()


class OneShot:
    """A Runner for one grading (``drill check``): an interpreter started as the command starts, which
    imports what a grading needs (NumPy, pytest, the grader, the recording's index) while the command
    reads its history and the file, then runs the grading it is given; nothing more ahead (no dry
    session, no answers read before they are asked: the grading comes at once). What the grading
    started ends with it, however it left its group (grader/reaper.py), as in a fresh interpreter;
    ``close`` ends the interpreter if no grading came (the command failed before it). ``start`` false:
    none is started before a grading asks (the command knows it will refuse first: no history), unless
    ``start_early`` did."""

    def __init__(self, start: bool = True) -> None:
        global _early
        self.spare: _Spare | None = _early or (spawn_spare(None, ahead=False) if start else None)
        _early = None

    def __call__(self, args: list[str], timeout: float, stalled: Stalled | None = None) -> tuple[int, str]:
        spare, self.spare = self.spare or spawn_spare(None, ahead=False), None
        with reaping():
            try:
                spare.tell({"args": args}, last=True)  # if it died while waiting, its status is reported
                return wait_for(spare.proc, spare.output, timeout, stalled)
            finally:
                spare.discard()

    def close(self) -> None:
        if self.spare is not None:
            self.spare.discard()
            self.spare = None

    def __enter__(self) -> OneShot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_early: _Spare | None = None
"""The interpreter ``start_early`` started, for the next ``OneShot``."""


def start_early() -> None:
    """Start ``drill check``'s interpreter now, before the command imports its own modules
    (drills/entry.py): its ``OneShot`` takes it. Should none come (the command failed first), it ends
    when this process does (its stdin ends)."""
    global _early
    if _early is None:
        _early = spawn_spare(None, ahead=False)
