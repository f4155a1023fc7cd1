"""Grading: run the oracle suite on a file in a child process and return a frozen verdict.

The user's code never runs inside the CLI: pytest runs it in a child, and reports each test's
target, outcome and message as JSON (grader/conftest.py, ``--report-json``). The verdict's JSON
form, ``drill grade --json``, is described in docs/contract.md.

A grading never outlives the command that started it: the command kills the grading's process
tree when it is interrupted or terminated, and the grading child ends itself when it finds
its parent gone (after a SIGKILL), see grader/conftest.py.

It runs the same on Linux, macOS and Windows: a process group (POSIX) or a new console process
group (Windows) keeps a Ctrl-C for the command; the tree is killed with ``killpg`` where there is
one, else by walking it (psutil); and when a test runs well past its time limit, which the
grading child could not stop (a blocking call, or a platform without ``SIGALRM``), the parent
stops the grading and names that test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

from grader.catalog import Target

GRADER = Path(__file__).resolve().parent


class GradeError(RuntimeError):
    """The grader could not give a verdict (a problem of the setup, not of the solution)."""


@dataclass(frozen=True)
class Failure:
    """A test that ran and failed: its id (``test_unbroadcast.py::test_unbroadcast[to-0d]``) and verdict."""

    test: str
    message: str


MAX_JSON_FAILURES = 5
"""How many failures a target lists in ``drill grade --json``."""


@dataclass(frozen=True)
class TargetResult:
    target: str
    tests: int
    failed: int
    """The tests that ran and failed (a test not run is not counted here, but in ``not_run``)."""
    failures: tuple[str, ...]
    """What to tell the user, the one to fix first first: the failed tests' messages, then (when
    tests were not run) one line that says how many and why."""
    not_run: int = 0
    """Tests that did not run: an earlier test of the target ran past its time limit, or the
    grading process died before them."""
    failed_tests: tuple[Failure, ...] = ()
    """The failed tests with their ids, in the order of their messages in ``failures``."""

    @property
    def passed(self) -> bool:
        return self.tests > 0 and self.failed == 0 and self.not_run == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "tests": self.tests,
            "failed": self.failed,
            "not_run": self.not_run,
            "failures": [{"test": f.test, "message": f.message} for f in self.failed_tests[:MAX_JSON_FAILURES]],
        }


@dataclass(frozen=True)
class GradeResult:
    file: str
    targets: tuple[TargetResult, ...]
    seconds: float
    notes: tuple[str, ...] = ()
    """What the user should know beyond the tests' verdicts (a thread left running)."""

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.targets)

    def get(self, target_id: str) -> TargetResult:
        return next(t for t in self.targets if t.target == target_id)

    def to_json(self) -> dict[str, Any]:
        """The ``drill grade --json`` object (docs/contract.md)."""
        return {
            "file": self.file,
            "passed": self.passed,
            "targets": {t.target: t.to_json() for t in self.targets},
            "notes": list(self.notes),
        }


BASE_ARGS = [
    "-c",
    str(GRADER / "pytest.ini"),
    "--rootdir",
    str(GRADER),
    # Built-in plugins a grading never uses, the terminal report included (the verdict travels as
    # --report-json): a warm save saves about 50 ms of a pytest session's set-up.
    *("-p", "no:cacheprovider", "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin"),
    *("-p", "no:legacypath", "-p", "no:nose", "-p", "no:unraisableexception", "-p", "no:threadexception"),
    *("-p", "no:terminal", "-p", "no:logging", "-p", "no:warnings", "-p", "no:stepwise", "-p", "no:faulthandler"),
    *("-p", "no:setuponly", "-p", "no:setupplan", "-p", "no:tmpdir", "-p", "no:monkeypatch", "-p", "no:recwarn"),
    *(
        "-p",
        "no:debugging",
    ),
]


def test_files(targets: Sequence[Target]) -> list[str]:
    """A target's tests live in grader/test_<marker>.py (tests/test_catalog.py checks it)."""
    return [str(GRADER / f"test_{t.marker}.py") for t in targets]


@dataclass(frozen=True)
class Limits:
    """What one grading may use. A test past ``test_seconds`` is stopped with a verdict naming the
    user's line; a grading past ``check_seconds`` is killed; ``memory_mb`` caps the address space."""

    test_seconds: float = 5.0
    check_seconds: float = 120.0
    memory_mb: int = 4096

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, or $DRILL_TEST_TIMEOUT, $DRILL_CHECK_TIMEOUT (seconds) and $DRILL_MEMORY_MB."""
        default = cls()
        return cls(
            test_seconds=float(os.environ.get("DRILL_TEST_TIMEOUT", default.test_seconds)),
            check_seconds=float(os.environ.get("DRILL_CHECK_TIMEOUT", default.check_seconds)),
            memory_mb=int(os.environ.get("DRILL_MEMORY_MB", default.memory_mb)),
        )


TIMED_OUT = -1000
"""The status a runner returns for a grading it had to kill."""


def pytest_args(
    file: Path, targets: Sequence[Target], report: Path, oracle: str = "auto", limits: Limits | None = None
) -> list[str]:
    """The arguments of ``python -m pytest`` that grade ``file`` on ``targets``."""
    marker = " or ".join(t.marker for t in targets)
    limits = limits or Limits.from_env()
    return [
        *test_files(targets),
        *BASE_ARGS,
        # NOTE: `--option=value`, one token: pytest parses the grader's own options only after its
        # conftest is loaded, and before that a separate value would pass for a path to test,
        # loading a conftest.py that happens to sit beside the user's file.
        f"--impl={file}",
        f"--oracle={oracle}",
        f"--report-json={report}",
        f"--test-timeout={limits.test_seconds}",
        f"--memory-limit-mb={limits.memory_mb}",
        "-m",
        marker,
    ]


PARENT_ENV = "DRILL_GRADING_PARENT"
"""Tells a grading child (and the warm worker) which process started it: when that process is
gone, the child ends itself and its process group (grader/conftest.py, drills/loop/worker.py)."""


def grading_env() -> dict[str, str]:
    # No third-party pytest plugins: they cost start-up time and could change the verdict.
    return {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", PARENT_ENV: str(os.getpid())}


Stalled = Callable[[], str | None]
"""Polled while a grading runs: the test that has run far past its time limit, if any."""


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

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop()
        handler = previous.get(signum, signal.SIG_DFL)
        if callable(handler):
            handler(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)
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
    """A fresh interpreter per grading: the simple, slower way (drill check, drill grade)."""
    with tempfile.TemporaryFile() as output:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", *args],
            cwd=GRADER.parent,
            env=grading_env(),
            # A file, not a pipe: a process the user's code started may hold it open after the grading ends.
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            **own_group(),
        )
        return wait_for(proc, output, timeout, stalled)


def wait_for(
    proc: subprocess.Popen[Any], output: IO[bytes], timeout: float, stalled: Stalled | None
) -> tuple[int, str]:
    """Wait for a grading that writes to ``output``; stop it past ``timeout`` or when ``stalled``
    names a test; kill its whole tree in any case (what the user's code started goes too), and on
    an interrupt of this process, first."""
    deadline = time.monotonic() + timeout
    with stopped_with_us(lambda: kill_tree(proc.pid)):
        try:
            while (status := proc.poll()) is None:
                if time.monotonic() > deadline:
                    status = TIMED_OUT
                    break
                if stalled is not None and stalled() is not None:
                    status = STALLED
                    break
                time.sleep(POLL_SECONDS)
        finally:  # KeyboardInterrupt, SystemExit included: the grading goes with the command
            kill_tree(proc.pid)
            proc.wait()
    output.seek(0)
    return status, output.read()[-4000:].decode("utf-8", "replace")


def kill_tree(pid: int) -> None:
    """Kill the process group led by ``pid`` (the grading and whatever the user's code started);
    where there are no process groups, the process and its descendants."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(pid, signal.SIGKILL)
            return
    except (ProcessLookupError, PermissionError):
        return
    import psutil

    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return
    for process in tree:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(tree, timeout=5)


class ReportWatch:
    """Reads a grading's report as it grows, for the test that has run far past its time limit.

    The grading child stops such a test itself (SIGALRM, or its watchdog thread); this catches
    what it cannot stop: one blocking call, where only killing the process helps.
    """

    def __init__(self, path: Path, test_seconds: float, grace: float = 2.0) -> None:
        self.path = path
        self.limit = 2 * test_seconds + grace if test_seconds > 0 else None
        self.offset = 0
        self.running: str | None = None
        self.since = time.monotonic()

    def __call__(self) -> str | None:
        if self.limit is None:
            return None
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return None
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self.offset += len(complete)
        for line in complete.splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            kind = event.get("event")
            if kind in ("start", "result", "case"):  # a case of a batch is timed as a test is
                self.running = None if kind == "result" else event.get("nodeid", self.running)
                self.since = time.monotonic()
        if self.running is not None and time.monotonic() - self.since > self.limit:
            return self.running
        return None


@dataclass
class Report:
    """What the grading child wrote before it ended (grader/conftest.py, Reporter)."""

    collected: dict[str, list[str]] | None = None
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    running: str | None = None
    finished: bool = False
    notes: list[str] = field(default_factory=list)


def read_report(path: Path) -> Report:
    report = Report()
    if not path.exists():
        return report
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            break  # a line cut short by a crash: everything before it stands
        kind = event.get("event")
        if kind == "collected":
            report.collected = event["tests"]
        elif kind == "start":
            report.running = event["nodeid"]
        elif kind == "result":  # a failed setup or call outweighs a passed one
            if event["nodeid"] not in report.results or event["outcome"] == "failed":
                report.results[event["nodeid"]] = event
        elif kind == "note":
            report.notes.append(str(event["text"]))
        elif kind == "finished":
            report.finished = True
            report.notes.extend(str(note) for note in event.get("notes", ()))
    return report


def why_it_stopped(status: int, limits: Limits) -> str:
    """The cause of a grading that ended before its tests did, for the user."""
    if status == TIMED_OUT:
        return f"the check took longer than {limits.check_seconds:g} s and was stopped"
    if status == STALLED:
        return (
            f"took longer than {limits.test_seconds:g} s and could not be stopped inside the test"
            " (a blocking call such as time.sleep, or a loop in native code?), so the whole check was stopped"
        )
    if status < 0:
        number = -status
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
        if number == getattr(signal, "SIGSEGV", None):
            return "the interpreter crashed (segmentation fault): a bug in native code, or a stack overflow"
        if number == getattr(signal, "SIGKILL", None):
            return "the process was killed (SIGKILL): out of memory?"
        return f"the process died from {name}"
    return (
        f"the process ended with status {status} in the middle of the tests: "
        "does your code call os._exit() or exit the interpreter?"
    )


def grade(
    file: Path,
    targets: Sequence[Target],
    oracle: str = "auto",
    label: str | None = None,
    runner: Runner = run_in_subprocess,
    limits: Limits | None = None,
) -> GradeResult:
    """Grade ``file`` on ``targets`` (in catalog order); a GradeError when no verdict can be had.

    A verdict is had whenever the tests were collected: a solution that hangs, crashes or exits
    the interpreter fails the test it was in (and the tests never run), with the cause.
    """
    start = time.perf_counter()
    limits = limits or Limits.from_env()
    with tempfile.TemporaryDirectory(prefix="drill-grade-") as tmp:
        path = Path(tmp) / "report.jsonl"
        args = pytest_args(file.resolve(), targets, path, oracle, limits)
        status, output = runner(args, limits.check_seconds, ReportWatch(path, limits.test_seconds))
        report = read_report(path)
    if report.collected is None:
        tail = output.strip().splitlines()[-5:]
        raise GradeError(f"the grader stopped before running any test (exit status {status}): " + " / ".join(tail))
    stopped = None if report.finished else why_it_stopped(status, limits)
    return GradeResult(
        file=label if label is not None else str(file),
        targets=tuple(_summarize(t.id, report, stopped) for t in targets),
        seconds=time.perf_counter() - start,
        notes=tuple(report.notes),
    )


def _summarize(target_id: str, report: Report, stopped: str | None) -> TargetResult:
    """A target's verdict. A test with no result was not run (the check stopped first), except the
    one that was running when the process died: it failed, with the cause as its message."""
    assert report.collected is not None
    tests = [nodeid for nodeid, owners in report.collected.items() if target_id in owners]
    failed: list[Failure] = []
    not_run = 0
    why_not_run: list[str] = []  # the reasons the grader gave, in order
    for nodeid in tests:
        result = report.results.get(nodeid)
        if result is None:
            if stopped is not None and nodeid == report.running:
                failed.insert(0, Failure(nodeid, f"{nodeid.split('::')[-1]}: {stopped}"))  # the cause first
            else:
                not_run += 1
        elif result["outcome"] == "failed":
            failed.append(Failure(nodeid, result["message"]))
        elif result["outcome"] == "not_run":
            not_run += 1
            why_not_run.append(result["message"])
    messages = [f.message for f in failed]
    if not_run:
        why = why_not_run[0] if why_not_run else "the check stopped before them"
        messages.append(f"{not_run} test{'s' if not_run != 1 else ''} not run: {why}")
    return TargetResult(
        target=target_id,
        tests=len(tests),
        failed=len(failed),
        failures=tuple(messages),
        not_run=not_run,
        failed_tests=tuple(failed),
    )
