"""What the tests of the tool share, in one place: plain constants and functions, no fixtures.

- where things are: ROOT, REFERENCE (and its source), CATALOG, the MockClock's T0;
- ``drill`` in process (typer's CliRunner: ``drill``, ``said``) and in a child process, as a user
  runs it (``run_drill``, ``spawn_drill``); the grader in a child (``run_grader``, ``count_tests``);
- rich consoles of a known size for drills.cli to print to (``console``, ``use_consoles``), and the
  human report of a --json verdict (``human_report``);
- user code that misbehaves on purpose (``in_unbroadcast``, ``hangs``) and the processes of a grading,
  found and waited for (``processes``, ``descendants``, ``naming``, ``end_and_check``).

Fixtures (DRILL_HOME isolation, the clock, the history, the warm grading runner) are in
tests/conftest.py.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from drills import cli
from drills.loop import session
from drills.loop.clock import MockClock
from drills.loop.stubs import stub_for
from drills.store.history import History
from drills.store.paths import history_path
from drills.views.report import grade_report
from grader.catalog import load_catalog
from grader.verdict import Failure, GradeResult, TargetResult
from reference import ENGINE

# ---------------------------------------------------------------------------- where things are

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ENGINE
REFERENCE_SOURCE = REFERENCE.read_text(encoding="utf-8")
CATALOG = load_catalog()
T0 = 1_800_000_000.0
"""Fri 2027-01-15 08:00 UTC: where the tests' MockClock starts."""
DAY = 86_400.0


# ---------------------------------------------------------------------------- drill, in process

RUNNER = CliRunner()


def drill(*args: str, code: int | None = 0, input: str | None = None, env: Mapping[str, str] | None = None) -> Result:
    """``drill ARGS`` in process, through typer's CliRunner; asserts the exit status (None: any)."""
    result = RUNNER.invoke(cli.app, list(args), input=input, env=env)
    if code is not None:
        assert result.exit_code == code, (
            f"drill {' '.join(args)} exited {result.exit_code}:\n{result.output}\n{result.exception!r}"
        )
    return result


def said(result: Result) -> str:
    """Everything printed (stdout and stderr), whitespace collapsed."""
    return " ".join(result.output.split())


def console(width: int = 500, height: int | None = None, stderr: bool = False) -> Console:
    """A rich Console of a fixed size, without highlighting: what it draws does not depend on the
    terminal the tests run in."""
    return Console(stderr=stderr, highlight=False, width=width, height=height)


def human_report(verdict: dict[str, object], width: int = 100) -> str:
    """The report ``drill grade`` prints for ``verdict`` (its --json object), drawn in process from that
    object as ``drill status`` draws it from the history; whitespace collapsed. For a test that checks
    a real grading's JSON and its human report from one grading, not two."""
    out = console(width=width)
    with out.capture() as seen:
        out.print(grade_report(GradeResult.from_json(verdict)))
    return " ".join(seen.get().split())


def use_consoles(monkeypatch: pytest.MonkeyPatch, width: int = 500, height: int | None = None) -> None:
    """drills.cli prints to fresh consoles: ``out`` of ``width`` x ``height``, ``err`` of ``width``.

    The consoles are replaced, not just COLUMNS set: a console created while COLUMNS was set (as
    under pytest-xdist) keeps that width for good."""
    monkeypatch.setattr(cli, "out", console(width, height))
    monkeypatch.setattr(cli, "err", console(width, stderr=True))


# ---------------------------------------------------------------------------- drill and the grader, in a child


def _env(env: Mapping[str, str] | None) -> dict[str, str] | None:
    """This process's environment with ``env`` on top (None: inherit it as it is)."""
    return None if env is None else {**os.environ, **env}


def run_drill(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path = ROOT, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` in a real child process, as a user would run it; ``env`` is added to ours."""
    return subprocess.run(
        [sys.executable, "-m", "drills", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(env),
    )


def spawn_drill(
    *args: str,
    env: Mapping[str, str] | None = None,
    stdout: int | IO[str] | None = subprocess.PIPE,
    stderr: int | IO[str] | None = subprocess.PIPE,
    new_session: bool = True,
) -> subprocess.Popen[str]:
    """``drill ARGS`` started in a child and left running; by default in a session of its own, as a
    terminal would run it (its signals are for it alone, and its process group can be killed whole)."""
    return subprocess.Popen(
        [sys.executable, "-m", "drills", *args],
        cwd=ROOT,
        env=_env(env),
        stdout=stdout,
        stderr=stderr,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=new_session,
    )


def run_grader(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m pytest grader ARGS`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "grader", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(env),
    )


@functools.cache
def collect_tests(marker: str) -> tuple[str, ...]:
    """The grader tests of a target (``-m MARKER``) as the oracle names them (``test_x.py::test_y[case]``),
    collected once per process."""
    proc = run_grader("--collect-only", "-q", "-m", marker)
    return tuple(line.removeprefix("grader/") for line in proc.stdout.splitlines() if "::" in line)


def count_tests(marker: str) -> int:
    """How many grader tests a target has (``-m MARKER``), collected once per process."""
    return len(collect_tests(marker))


# ---------------------------------------------------------------------------- solutions that misbehave

UNBROADCAST_BODY = "    grad = np.asarray(grad, dtype=np.float64)\n"
"""The first line of the reference's unbroadcast: code put after it runs at every call."""


def in_unbroadcast(code: str) -> str:
    """The reference, with ``code`` run at the start of every call of unbroadcast."""
    assert REFERENCE_SOURCE.count(UNBROADCAST_BODY) == 1
    return REFERENCE_SOURCE.replace(
        UNBROADCAST_BODY, UNBROADCAST_BODY + "".join(f"    {line}\n" for line in code.splitlines())
    )


def hangs(started: Path) -> str:
    """An unbroadcast that starts a child process of its own, says it is running, and loops for good."""
    return in_unbroadcast(
        "import subprocess, sys, pathlib\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {str(started)!r}])\n"
        f"pathlib.Path({str(started)!r}).write_text('running')\n"
        "while True:\n"
        "    pass"
    )


HANGS_FOR_GOOD = {"DRILL_TEST_TIMEOUT": "600", "DRILL_CHECK_TIMEOUT": "600"}
"""Limits that never stop the hang: only the end of the command can."""


def start_drill(tmp_path: Path, source: str) -> Path:
    """``drill start unbroadcast`` (user state under tmp_path, tests/conftest.py), then a save of ``source``.

    In process: a start grades nothing, and the commands under test (check, watch) run in real children
    after it, on the real clock as it does. A successful start in a real child is tested by
    test_robustness's test_corrupt_history_is_moved_aside_and_the_user_told."""
    drill("start", "unbroadcast")
    path = tmp_path / "solutions" / "unbroadcast.py"
    path.write_text(source)
    return path


# ---------------------------------------------------------------------------- the processes of a grading

GONE_WITHIN = 30.0
"""Seconds for every process of a grading to be gone after its command is: on an idle machine it takes
well under a second, but a machine running other suites at once was seen to need more than 10."""
STARTED_WITHIN = 120.0
"""Seconds for the user's code to start running (a cold interpreter, the warm worker's imports)."""


def processes() -> dict[int, tuple[int, str, str]]:
    """Every live process: pid -> (parent pid, state, command line). Zombies are dead: left out."""
    listing = subprocess.run(
        ["ps", "-ww", "-A", "-o", "pid=,ppid=,stat=,command="], capture_output=True, text=True, check=True
    ).stdout
    table = {}
    for line in listing.splitlines():
        fields = line.split(None, 3)
        if len(fields) >= 3 and not fields[2].startswith("Z"):
            table[int(fields[0])] = (int(fields[1]), fields[2], fields[3] if len(fields) > 3 else "")
    return table


def descendants(root: int) -> set[int]:
    table = processes()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, (ppid, _, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def naming(text: str) -> set[int]:
    """The processes whose command line contains ``text``."""
    return {pid for pid, (_, _, command) in processes().items() if text in command}


def wait_until(condition: Callable[[], object], seconds: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail the test with ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {seconds:g} s")
        time.sleep(0.05)


def end_and_check(proc: subprocess.Popen[str], how: signal.Signals, started: Path, at_least: int) -> str:
    """Once the user's code runs, end ``proc`` with ``how``; then every process of the grading must go."""
    wait_until(started.exists, STARTED_WITHIN, "the user's code did not start")
    family = descendants(proc.pid) | naming(str(started))
    assert len(family) >= at_least, f"expected the grading's processes, found {family}"
    os.kill(proc.pid, how)
    output, errors = proc.communicate(timeout=GONE_WITHIN)
    wait_until(
        lambda: not (family | naming(str(started))) & set(processes()),
        GONE_WITHIN,
        f"processes of the grading outlived drill ({how.name}): {sorted(family & set(processes()))}",
    )
    assert "Traceback" not in errors, errors
    return output


def record_attempt(
    store: History,
    target: str,
    seconds: float,
    at: float,
    outcome: str = "passed",
    assisted: bool = False,
    rung: str = "recall",
) -> None:
    """A finished attempt in the history, as if drilled at ``at`` on ``rung``: passed in ``seconds``, or given up after them."""
    attempt = store.start(target, Path("/nowhere") / f"{target}.py", at, rung)
    if outcome == "passed":
        store.add_split(attempt, target, seconds)
    if assisted:
        store.mark_assisted(attempt)
    store.finish(attempt, outcome, at + seconds)


# ---------------------------------------------------------------------------- the history, from a test


def row(result: Result, first: str) -> list[str]:
    """The cells of the table row that starts with ``first``, as rich drew it."""
    for line in result.output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{result.output}")


def open_store() -> History:
    return History(history_path())


def active():
    store = open_store()
    try:
        return store.active()
    finally:
        store.close()


def latest():
    store = open_store()
    try:
        return store.attempts()[-1]
    finally:
        store.close()


def seed(
    target: str, seconds: float, *, at: float, outcome: str = "passed", assisted: bool = False, rung: str = "recall"
) -> None:
    """A finished attempt in the history, as if drilled long ago."""
    store = open_store()
    try:
        record_attempt(store, target, seconds, at, outcome, assisted, rung)
    finally:
        store.close()


# ---------------------------------------------------------------------------- the drill loop, from a test

IDS = [t.id for t in CATALOG.targets]
ALL_SYMBOLS = [s for t in CATALOG.targets for s in t.symbols]


class FakeGrader:
    """Stands in for the grader: a target passes when none of its symbols (nor those of the targets
    it needs) is still a stub (a blank of a cloze stub included), and none of its own is ``wrong``. ``seconds`` is how long a grading
    takes on the MockClock."""

    def __init__(self, clock: MockClock) -> None:
        self.clock = clock
        self.calls: list[list[str]] = []
        self.seconds = 0.0
        self.during: Callable[[], object] | None = None
        """Run while grading, as another terminal would."""
        self.wrong: set[str] = set()
        """Symbols written but wrong: their own target's tests fail (those of the targets needing it pass)."""

    def __call__(self, file: Path, targets, oracle: str = "auto", label: str | None = None, **_: object) -> GradeResult:
        self.calls.append([t.id for t in targets])
        source = Path(file).read_text(encoding="utf-8")
        blank = {
            s for s in ALL_SYMBOLS if re.search(rf'raise NotImplementedError\("{re.escape(s)}(, blank \d+)?"\)', source)
        }
        results = []
        for target in targets:
            needed = [*target.symbols, *(s for n in target.needs for s in CATALOG.get(n).symbols)]
            missing = [s for s in needed if s in blank]
            failures = tuple(Failure(f"test_{s}", f"{s}: {s} is not written yet", symbol=s) for s in missing)
            failures += tuple(
                Failure(f"test_{s}", f"{s}: wrong", symbol=s, case="fake", text="wrong")
                for s in target.symbols
                if s in self.wrong
            )
            results.append(TargetResult(target.id, 10, len(failures), failures))
        self.clock.advance(self.seconds)
        if self.during is not None:
            self.during()
        return GradeResult(label or str(file), tuple(results), 0.01)


def write(path: Path, blanked: list[str]) -> None:
    """The user's file, with these symbols still to write (none: the reference)."""
    path.write_text(stub_for(blanked, "test") if blanked else REFERENCE_SOURCE, encoding="utf-8")


def finish_attempt(
    history: History, clock: MockClock, workspace: Path, target: str, seconds: float, *, hints: int = 0
) -> session.Checked:
    """Start TARGET, take SECONDS, pass it (stand-in grader)."""
    started = session.start(history, target, workspace, clock)
    for _ in range(hints):
        session.hint(history, None)
    clock.advance(seconds)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.finished
    clock.advance(3600)
    return checked


def give_up_attempt(history: History, clock: MockClock, workspace: Path, target: str, seconds: float) -> None:
    session.start(history, target, workspace, clock)
    clock.advance(seconds)
    session.give_up(history, clock)
    clock.advance(3600)


def minutes(seconds: list[float]) -> list[float]:
    """Times for each core target: these, then 50 s for each target the catalog has beyond them."""
    return seconds[: len(IDS)] + [50.0] * (len(IDS) - len(seconds))


def run_full(history, clock, workspace, segments: list[tuple[str, float]]) -> session.Checked:
    """A full drill whose targets pass one by one, each after its seconds; the last grading finishes it."""
    started = session.start(history, "full", workspace, clock)
    todo = list(ALL_SYMBOLS)
    checked = None
    for target, seconds in segments:
        clock.advance(seconds)
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(started.path, todo)
        checked = session.check(history, clock)
        assert checked.newly_passed == (target,)
    assert checked is not None and checked.finished
    return checked
