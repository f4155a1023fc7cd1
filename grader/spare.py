"""The side of an interpreter started ahead of time (grader/spawn.py, ``SpawnRunner``): it warms up,
stands by for the selection it is told, and runs the one grading it is asked for itself
(``serve_once``, ``python -m autograd_drill.grader.worker --once``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from autograd_drill.grader.forks import NO_GO, go_message, standby_key
from autograd_drill.grader.process import GRADER, PACKAGE


def dry_session() -> None:
    """The warm-up of an interpreter that knows no selection, and of the warm worker before its first
    fork (grader/worker.py): every target's test modules imported, then a pytest session that collects
    no test (the grader's folder, each file in it ignored): it imports what pytest imports on its first
    session (its built-in plugins' modules, the grader's conftest as a plugin) and sets up its
    machinery, so that the grading (a second session in this process, or a fork's) starts warm. It used
    to collect every target's tests, about 0.2 CPU-s more for each interpreter, for items the grading
    builds anew (benchmarks/startup.py).
    Nothing is printed (the terminal plugin is off), no memory cap is set and no report is written
    (their options are not given): the grading's session sets up its own."""
    import importlib

    import pytest

    from autograd_drill.grader.run import BASE_ARGS

    for path in sorted(GRADER.glob("test_*.py")):
        importlib.import_module(f"{PACKAGE}.{path.stem}")
    pytest.main([str(GRADER), f"--ignore-glob={GRADER / '*'}", *BASE_ARGS, "--collect-only"])


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

    def fill(
        self, until: threading.Event, files: Collection[str] | None = None, pause: Callable[[], None] = lambda: None
    ) -> None:
        """Read every answer ahead (``files``: those of the tests in these files, ``test_x.py``), in the
        recording's order, until ``until`` is set; those not read yet: a fill stopped goes on where it
        stopped. (Answers are keyed by test, ``test_x.py::test_y[case]#n|name``: grader/oracle.py.)
        ``pause`` is called before each."""
        for key in self.store:
            pause()
            if until.is_set():
                return
            if key not in self.read and (files is None or key.partition("::")[0] in files):
                self.read[key] = self.store[key]


def _open_recording(opened: list[Filling]) -> Callable[..., None]:
    """grader/oracle.py's ``preload``, but reading nothing yet: the answers are read in ``fill``."""
    from autograd_drill.grader import oracle

    def preload(path: Path = oracle.RECORDING) -> None:
        if path.exists():
            replay = oracle.ReplayOracle(path)
            replay.store = filling = Filling(replay.store)
            oracle.keep(replay, path)
            opened.append(filling)

    return preload


Key = tuple[str, ...]

HOLD_SECONDS = 2.0
"""The longest a warm-up waits, held while another interpreter grades (``{"hold": true}``): a long
grading does not keep the next ones cold."""


class Inbox:
    """What ``drill`` tells an interpreter started ahead of time, one JSON line each on its stdin, read
    by a thread of its own (``run``): ``{"standby": [...]}``, stand by for another selection, or
    ``{"args": [...]}``, the grading (the last line). A line that comes while a session stands by is
    answered on its ``--standby`` pipe at once: the go if it is a grading of that selection (the
    session grades it), else NO_GO (the session ends; the main thread takes the line: ``take``).

    And ``{"hold": true}``, then ``false``: another interpreter grades, and this one's warm-up waits
    meanwhile (``pause``: at each import, it is an import finder, and each answer read), so as not to
    take the grading's CPU; at most ``HOLD_SECONDS``."""

    def __init__(self, stdin: IO[str], control: int, folder: str) -> None:
        self.stdin, self.control, self.folder = stdin, control, folder
        self.lines: list[dict[str, Any]] = []
        self.came = threading.Event()
        """A line is waiting to be taken: the warm-up's last part (reading the recording) stops."""
        self.changed = threading.Condition()
        self.go, self.key = -1, Key()
        """The write end of the pipe of the session standing by, and its selection."""
        self.went = False
        """The standing session was told to grade (its line is not taken: it is being graded)."""
        self.stood = 0
        """Times told to stand by (the first with the set-up line): each "ready" line says which."""
        self.free = threading.Event()
        self.free.set()
        self.held_until = 0.0
        sys.meta_path.insert(0, self)  # type: ignore[arg-type]  # find_spec: a pause at each import

    def run(self) -> None:
        while line := self.stdin.readline():
            message = json.loads(line)
            if "hold" in message:
                self.held_until = time.monotonic() + HOLD_SECONDS
                (self.free.clear if message["hold"] else self.free.set)()
                continue
            with self.changed:
                if self.go >= 0:
                    self._answer(message)
                if not self.went:
                    self.lines.append(message)
                    self.came.set()
                    self.changed.notify_all()
            if "args" in message:
                return
        # drill watch ended, or no longer needs this one
        os.chdir(GRADER.parent)
        shutil.rmtree(self.folder, ignore_errors=True)
        os._exit(0)

    def _answer(self, message: dict[str, Any]) -> None:
        args = message.get("args")
        go = go_message(args) if args is not None and standby_key(args) == self.key else None
        try:
            os.write(self.go, go or NO_GO)
        finally:
            os.close(self.go)
            self.go = -1
        if go is not None:
            self.went = True
            self._begin()

    def stand(self, key: Key, go: int) -> bool:
        """A session is about to stand by for ``key`` on the pipe ``go``: False if a line is waiting."""
        with self.changed:
            if self.lines:
                return False
            self.go, self.key = go, key
            return True

    def take(self) -> dict[str, Any]:
        """The next line (waiting for it); one of a new selection to stand by for is counted."""
        with self.changed:
            while not self.lines:
                self.changed.wait()
            message = self.lines.pop(0)
            if not self.lines:
                self.came.clear()
            if "standby" in message:
                self.stood += 1
            else:
                self._begin()
            return message

    def pause(self) -> None:
        """While held (another interpreter grades), wait."""
        while not self.free.is_set() and (left := self.held_until - time.monotonic()) > 0:
            self.free.wait(left)

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        """Before each import of the warm-up, a pause while held; the import is left to the others."""
        self.pause()

    def ready(self) -> None:
        """Say that this interpreter is warm and stands by (``ready N``: for the Nth selection told)."""
        with self.changed:
            if self.control >= 0:
                try:
                    os.write(self.control, f"ready {self.stood}\n".encode())
                except OSError:  # drill is gone: the stdin's end says so
                    pass

    def _begin(self) -> None:
        """The grading begins: the user's code must not hold the channel of the "ready" lines, nor
        find this among its import finders."""
        if self.control >= 0:
            os.close(self.control)
            self.control = -1
        self.free.set()
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # type: ignore[arg-type]


class _Standing:
    """A plugin of the session standing by: once its tests are collected, the rest of the warm-up
    until a line comes, the recorded answers of those tests (only theirs: the others would cost a
    spare about 40 ms of CPU per grading, 200 ms before grader/npz.py, taken from the gradings on a
    busy machine; another selection reads those it needs when asked), then "ready"."""

    def __init__(self, inbox: Inbox, opened: list[Filling]) -> None:
        self.inbox, self.opened = inbox, opened

    def pytest_collection_finish(self, session: Any) -> None:
        files = {item.path.name for item in session.items}
        for filling in self.opened:
            filling.fill(until=self.inbox.came, files=files, pause=self.inbox.pause)
        self.inbox.ready()


def serve_once(stdin: IO[str], preload: Callable[[], None]) -> int:
    """Warm up (``preload``, then stand by for the selection the set-up line names, or a dry session),
    then run the one grading asked for on ``stdin`` in this very process; the exit status is pytest's.

    The set-up line, the first: ``{"cwd": folder, "output": file, "standby": [...] or null, "ahead":
    bool}``: the grading's working folder, the file its output goes to (from now on: a session
    standing by has set up pytest's capture), the selection to stand by for; without one, ``ahead``
    false warms up no further than the imports (a one-shot grading: grader/spawn.py, ``OneShot``).
    Reading the recorded answers is half a warm-up: they are read last, while nothing has been
    asked, and a line that comes stops it (the grading reads the answers it needs that were not read
    yet, a small share of them)."""
    # drill's lines come on a descriptor of their own: a pytest session captures stdin (/dev/null on
    # 0), and the user's code gets no more than that
    stdin = os.fdopen(os.dup(stdin.fileno()), encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    first = stdin.readline()
    if not first:  # drill watch ended before it said anything
        return 0
    setup = json.loads(first)
    os.chdir(setup["cwd"])  # relative writes land in the grading's own folder
    control = os.dup(1)  # the "ready" lines: drill reads them on this interpreter's stdout
    output = os.open(setup["output"], os.O_WRONLY | os.O_APPEND)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    inbox = Inbox(stdin, control, setup["cwd"])
    threading.Thread(target=inbox.run, name="drill-request", daemon=True).start()
    from autograd_drill.grader import oracle

    eager, opened = oracle.preload, list[Filling]()
    oracle.preload = _open_recording(opened)  # type: ignore[assignment]  # for ``preload``, which calls it
    try:
        preload()
    finally:
        oracle.preload = eager  # type: ignore[assignment]
    import pytest

    key: list[str] | None = setup.get("standby")
    while True:
        if key is not None:
            read, write = os.pipe()
            if inbox.stand(tuple(key), write):
                status = pytest.main([*key, f"--standby={read}"], plugins=[_Standing(inbox, opened)])
                if inbox.went:  # graded (a report's end ends the process first: grader/reporter.py)
                    return int(status)
            else:
                os.close(read)
                os.close(write)
        elif setup.get("ahead", True):  # not for a one-shot grading, which comes at once: imports only
            if not inbox.came.is_set():
                dry_session()
            for filling in opened:
                filling.fill(until=inbox.came, pause=inbox.pause)
            inbox.ready()
        message = inbox.take()
        if "standby" in message:
            key = message["standby"]
            continue
        return int(pytest.main(message["args"]))
