"""Grading: run the oracle suite on a file in a child process and return a frozen verdict.

The user's code never runs inside the CLI: pytest runs it in a child, and reports each test's
target, outcome and verdict as JSON lines (grader/conftest.py, ``--report-json``); this module
reads them into a GradeResult (grader/verdict.py). A runner (grader/process.py, or the warm ones of
grader/worker.py) runs the child.

It runs the same on Linux, macOS and Windows: when a test runs well past its time limit, which the
grading child could not stop (a blocking call, or a platform without ``SIGALRM``), the parent stops
the grading and names that test.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autograd_drill.grader import process, shards
from autograd_drill.grader.catalog import Target
from autograd_drill.grader.process import GRADER, PACKAGE, STALLED, TIMED_OUT, Runner, run_in_subprocess
from autograd_drill.grader.suite import Suite
from autograd_drill.grader.verdict import Failure, GradeError, GradeResult, TargetResult

BASE_ARGS = [
    "-c",
    str(GRADER / "pytest.ini"),
    "--rootdir",
    str(GRADER),
    # The grader's conftest by its import name, as its test modules are (grader/collect.py): not by path
    *("--noconftest", "-p", f"{PACKAGE}.conftest"),
    # Built-in plugins a grading never uses, the terminal report included (the verdict travels as
    # --report-json): a warm save saves about 50 ms of a pytest session's set-up.
    *("-p", "no:cacheprovider", "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin"),
    *("-p", "no:legacypath", "-p", "no:nose", "-p", "no:unraisableexception", "-p", "no:threadexception"),
    *("-p", "no:terminal", "-p", "no:logging", "-p", "no:warnings", "-p", "no:stepwise", "-p", "no:faulthandler"),
    *("-p", "no:setuponly", "-p", "no:setupplan", "-p", "no:tmpdir", "-p", "no:monkeypatch", "-p", "no:recwarn"),
    # no:unittest: no grading test is a TestCase (they take ``grade``): a cold start imports no unittest, 3 ms
    *("-p", "no:debugging", "-p", "no:unittest"),
]


def test_files(targets: Sequence[Target]) -> list[str]:
    """A target's tests live in grader/test_<marker>.py, and in grader/test_<marker>_<topic>.py where one
    file would be too long to read at a sitting (tests/test_catalog.py checks it)."""
    return [str(path) for t in targets for path in _files_of(t.marker)]


test_files.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, where a test module imports it


def _files_of(marker: str) -> list[Path]:
    return [GRADER / f"test_{marker}.py", *sorted(GRADER.glob(f"test_{marker}_*.py"))]


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


def pytest_args(
    file: Path,
    targets: Sequence[Target],
    report: Path,
    oracle: str = "auto",
    limits: Limits | None = None,
    first_failure_only: bool = False,
    suite: Suite | None = None,
) -> list[str]:
    """The arguments of ``python -m pytest`` that grade ``file`` on ``targets`` (``first_failure_only``:
    the session stops at its first failed test, ``--maxfail=1``; ``suite``: another pack's files)."""
    marker = " or ".join(t.marker for t in targets)
    limits = limits or Limits.from_env()
    return [
        *(suite.test_files(targets) if suite else test_files(targets)),
        *BASE_ARGS,
        *(suite.options() if suite else []),
        # NOTE: `--option=value`, one token: pytest parses the grader's own options only after its
        # conftest is loaded, and before that a separate value would pass for a path to test,
        # loading a conftest.py that happens to sit beside the user's file.
        f"--impl={file}",
        f"--oracle={oracle}",
        f"--report-json={report}",
        f"--test-timeout={limits.test_seconds}",
        f"--memory-limit-mb={limits.memory_mb}",
        f"--shards={1 if first_failure_only else shards.count()}",  # the first failure met: in the run order
        *(["--maxfail=1"] if first_failure_only else []),
        "-m",
        marker,
    ]


@dataclass
class _Source:
    """One process's report file (a grading's own, or one of its copies': grader/shards.py)."""

    path: Path
    offset: int = 0
    running: str | None = None
    """The test started last there and not finished."""
    since: float = field(default_factory=time.monotonic)
    """When it last showed progress: a test started or ended, or a case of a batch started."""


@dataclass
class Report:
    """What the grading child has written so far (grader/conftest.py, Reporter): JSON lines, each
    flushed as it happens, read as they grow. A line cut short by a crash is never read. A grading
    that runs its tests in several processes names their reports in a "shards" event: they are read
    with it, as one report."""

    path: Path
    collected: dict[str, list[str]] | None = None
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    finished: bool = False
    notes: list[str] = field(default_factory=list)
    sources: list[_Source] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sources = [_Source(self.path)]

    @property
    def running(self) -> str | None:
        """The test the grading process was running and did not finish; else the one a copy of it
        was running (a grading that ended because that copy died: grader/shards.py)."""
        return next((source.running for source in self.sources if source.running is not None), None)

    def longest_running(self) -> tuple[str, float] | None:
        """The test running longest without progress, and when it last showed some."""
        busy = [source for source in self.sources if source.running is not None]
        if not busy:
            return None
        source = min(busy, key=lambda source: source.since)
        assert source.running is not None
        return source.running, source.since

    def read(self) -> Report:
        """Take in the lines written since the last read."""
        for source in list(self.sources):
            try:
                with source.path.open("rb") as f:
                    f.seek(source.offset)
                    chunk = f.read()
            except FileNotFoundError:
                continue
            complete = chunk[: chunk.rfind(b"\n") + 1]
            source.offset += len(complete)
            for line in complete.decode("utf-8", "replace").splitlines():
                try:
                    self._take(json.loads(line), source)
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue
        return self

    def _note(self, text: object) -> None:
        if str(text) not in self.notes:  # a note is given once per process: once per grading here
            self.notes.append(str(text))

    def _take(self, event: dict[str, Any], source: _Source) -> None:
        kind = event.get("event")
        if kind in ("start", "result", "case"):  # a case of a batch is timed as a test is
            source.since = time.monotonic()
        if kind == "collected":
            self.collected = event["tests"]
        elif kind == "start":
            source.running = event["nodeid"]
        elif kind == "result":  # a failed setup or call outweighs a passed one
            if event["nodeid"] not in self.results or event["outcome"] == "failed":
                self.results[event["nodeid"]] = event
            if event["nodeid"] == source.running:
                source.running = None
        elif kind == "note":
            self._note(event["text"])
        elif kind == "shards":
            self.sources.extend(_Source(Path(file)) for file in event["files"])
            self.read()
        elif kind == "finished":
            self.finished = True
            for note in event.get("notes", ()):
                self._note(note)


class ReportWatch:
    """Polled while a grading runs: the test that has run far past its time limit, if any; or, once
    the report is complete and the grading has not exited ``LINGER`` later, a word that says so.

    The grading child stops such a test itself (SIGALRM, or its watchdog thread); this catches
    what it cannot stop: one blocking call, where only killing the process helps.
    """

    GRACE = 2.0
    """Seconds past twice the time limit before the grading is stopped from outside."""
    LINGER = 1.0
    """Seconds a grading may take to exit once its report is complete: then its verdict is taken and
    it is stopped (the user's ``atexit`` handlers or finalizers must not hold it; grader/conftest.py
    ends the child first, without them)."""

    def __init__(self, report: Report, test_seconds: float) -> None:
        self.report = report
        self.limit = 2 * test_seconds + self.GRACE if test_seconds > 0 else None
        self.finished_at: float | None = None

    def __call__(self) -> str | None:
        report = self.report.read()
        if report.finished:
            self.finished_at = self.finished_at or time.monotonic()
            return "(the report is complete)" if time.monotonic() - self.finished_at > self.LINGER else None
        if self.limit is None:
            return None
        longest = report.longest_running()
        return longest[0] if longest is not None and time.monotonic() - longest[1] > self.limit else None


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
            said = f"the process was killed by signal {number} (SIGKILL)"
            peak = peak_memory_of_children()
            if peak is not None and peak >= OUT_OF_MEMORY_SHARE * _physical_memory():
                return f"{said}: out of memory? (it had used {peak / 2**20:,.0f} MB)"
            return f"{said}: by your code, or by another program"
        return f"the process died from {name}"
    return (
        f"the process ended with status {status} in the middle of the tests: "
        "does your code call os._exit() or exit the interpreter?"
    )


OUT_OF_MEMORY_SHARE = 0.25
"""A grading killed by SIGKILL is said to be out of memory only when it had used this share of the
machine's memory or more (the system's OOM killer then likely); a self-kill, or a kill from another
program, is not. The memory cap (DRILL_MEMORY_MB) gives a MemoryError instead, not a kill."""


def peak_memory_of_children() -> int | None:
    """The largest peak resident size, in bytes, of the child processes waited for (None: unknown)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return peak if os.uname().sysname == "Darwin" else peak * 1024  # macOS counts bytes, Linux KiB


def _physical_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - no sysconf: never "out of memory?"
        return float("inf")


def grade_file(
    file: Path,
    targets: Sequence[Target],
    oracle: str = "auto",
    label: str | None = None,
    runner: Runner = run_in_subprocess,
    limits: Limits | None = None,
    on_failure: Callable[[Failure], None] | None = None,
    first_failure_only: bool = False,
    suite: Suite | None = None,
) -> GradeResult:
    """Grade ``file`` on ``targets`` (in catalog order); a GradeError when no verdict can be had.

    A verdict is had whenever the tests were collected: a solution that hangs, crashes or exits
    the interpreter fails the test it was in (and the tests never run), with the cause.

    ``label``: the file as the user's command names it (default: ``file`` as given); the verdict, and
    every location in it (``label:LINE``), name it so.

    ``on_failure`` is told the grading's first failure as soon as the report has it, while the other
    tests still run (from another thread), and before this returns: once, if any test failed.

    ``first_failure_only`` stops the grading at its first failed test, in the order the tests run
    (grader/conftest.py: one case of each test function first): the verdict holds that one failure,
    the tests not reached are not run ("the check stopped before them"). For a caller that needs
    only whether a file fails and what it meets first (the catalogued mutants, tests/test_mutants.py).
    """
    start = time.perf_counter()
    limits = limits or Limits.from_env()
    with process.temporary_folder("drill-grade-") as tmp:
        path = Path(tmp) / "report.jsonl"
        args = pytest_args(file.resolve(), targets, path, oracle, limits, first_failure_only, suite)
        report = Report(path)
        naming = (str(file.resolve()), label if label is not None else str(file))
        with first_failure_told(path, on_failure, naming):
            status, output = runner(args, limits.check_seconds, ReportWatch(report, limits.test_seconds))
        report.read()
    if report.collected is None:
        tail = output.strip().splitlines()[-5:]
        raise GradeError(f"the grader stopped before running any test (exit status {status}): " + " / ".join(tail))
    stopped = None if report.finished else why_it_stopped(status, limits)
    longest = report.longest_running() if status in (STALLED, TIMED_OUT) else None
    culprit = longest[0] if longest is not None else report.running  # stopped from outside: the one that ran on
    return GradeResult(
        file=naming[1],
        targets=tuple(replace(_summarize(t.own_id, report, stopped, culprit, naming), target=t.id) for t in targets),
        seconds=time.perf_counter() - start,
        notes=tuple(report.notes),
    )


FIRST_FAILURE_POLL = 0.005
"""Seconds between two looks at a grading's report for its first failure."""


@contextmanager
def first_failure_told(
    path: Path, tell: Callable[[Failure], None] | None, naming: tuple[str, str] | None = None
) -> Iterator[None]:
    """While the block runs a grading that writes its report to ``path``, tell ``tell`` the first
    failed test it reports, once (a thread reads the report as it grows); if the block ends first,
    then. Tests run so that a failure comes early (grader/conftest.py): this is what a watch can
    show at once, the full verdict following when the grading ends."""
    if tell is None:
        yield
        return
    report, done, told = Report(path), threading.Event(), threading.Lock()
    first: list[Failure] = []

    def look() -> bool:
        with told:
            if not first:
                results = report.read().results
                failed = next((nodeid for nodeid, r in results.items() if r["outcome"] == "failed"), None)
                if failed is None:
                    return False
                first.append(failure_of(failed, results[failed], naming))
                tell(first[0])
            return True

    def poll() -> None:
        while not done.wait(FIRST_FAILURE_POLL) and not look():
            pass

    poller = threading.Thread(target=poll, name="drill-first-failure", daemon=True)
    poller.start()
    try:
        yield
    finally:  # a grading cancelled or interrupted tells nothing more
        done.set()
        poller.join()
    look()


def failure_of(nodeid: str, result: dict[str, Any], naming: tuple[str, str] | None = None) -> Failure:
    """The Failure of a failed test, from its result in the report (its message, its failure record
    and what it printed); ``naming``: the file's path as the grader wrote it, and as the user names it."""
    record = {**(result.get("failure") or {}), "output": result.get("output", "")}
    failure = Failure.from_json({**record, "test": nodeid, "message": result["message"]})
    return failure.renamed(*naming) if naming else failure


def _summarize(
    target_id: str, report: Report, stopped: str | None, culprit: str | None, naming: tuple[str, str] | None = None
) -> TargetResult:
    """A target's verdict. A test with no result was not run (the check stopped first), except the
    one that was running when the process died (``culprit``): it failed, with the cause as its message."""
    assert report.collected is not None
    tests = [nodeid for nodeid, owners in report.collected.items() if target_id in owners]
    failed: list[Failure] = []
    not_run = 0
    why_not_run: list[str] = []  # the reasons the grader gave, in order
    for nodeid in tests:
        result = report.results.get(nodeid)
        if result is None:
            if stopped is not None and nodeid == culprit:
                text = f"{nodeid.split('::')[-1]}: {stopped}"
                failed.insert(0, Failure(nodeid, text, text=text))  # the cause first
            else:
                not_run += 1
        elif result["outcome"] == "failed":
            failed.append(failure_of(nodeid, result, naming))
        elif result["outcome"] == "not_run":
            not_run += 1
            why_not_run.append(result["message"])
    return TargetResult(
        target=target_id,
        tests=len(tests),
        failed=len(failed),
        failures=tuple(failed),
        not_run=not_run,
        not_run_reason=(why_not_run[0] if why_not_run else "the check stopped before them") if not_run else "",
    )
