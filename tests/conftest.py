"""Fixtures only: user state isolated in tmp_path, the CLI's clock, the history, a warm grading
worker. Shared constants and helpers are in tests/support.py."""

from __future__ import annotations

import functools
import gc
import itertools
import json
import os
import re
import resource
import signal
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from pathlib import Path

import pytest

from autograd_drill import cli
from autograd_drill.grader import one_blas_thread, spawn, worker
from autograd_drill.grader import run as grader_run
from autograd_drill.grader.contract import register_marks
from autograd_drill.grader.oracle import RECORDING
from autograd_drill.grader.process import Runner
from autograd_drill.grader.spawn import SPARES_ENV
from autograd_drill.grader.verdict import GradeResult, TargetResult
from autograd_drill.interview import store as interview_store
from autograd_drill.loop import session
from autograd_drill.loop.clock import MockClock
from autograd_drill.store import faults
from autograd_drill.store.history import History
from autograd_drill.store.paths import history_path
from tests.bytecode import BYTECODE
from tests.bytecode import prune as prune_bytecode
from tests.loop import FakeGrader
from tests.pack_here import layers_here
from tests.processes import own_temp
from tests.support import (
    CATALOG,
    REFERENCE,
    T0,
    TORCH_AT_COLLECTION,
    collect_tests,
    digest_of,
    home_in,
    once_per_run,
    run_drill,
    use_consoles,
    without_torch,
)

GRADING_LIMITS = {"DRILL_TEST_TIMEOUT": "60", "DRILL_CHECK_TIMEOUT": "600"}
"""The limits of every grading a test starts (in process, in the warm worker, in a child ``drill``):
ones a loaded machine cannot reach, where the product's (5 s a test, 120 s a check) were reached at a
load of 10 and failed tests that were not about them. A test about a limit sets its own."""

SUITE_KNOBS = {SPARES_ENV: "1"}
"""What the suite's gradings do ahead of time that only the tests of it look at: one interpreter kept
warming for the next save where the tool does not fork (grader/spawn.py), not three (each about 0.5
CPU-s to warm up). The tests of spares (tests/test_spawn.py, tests/test_spawn_standby.py) set their own."""


COLLECT_EVERY = (50_000, 20, 10)
"""The thresholds of the cycle collector in a test process (Python's are 700, 10, 10): a test process
holds a large heap for its whole life (drill, pytest, hypothesis, NumPy, torch where a test imports it,
the project's files parsed once: tests/sources.py) and its tests allocate a lot that refcounting frees
(trees parsed, stubs cut, command lines generated); with the default thresholds the collector ran
thousands of times and walked that heap 20-odd times, 6 of the 30 CPU-s of a test process over 13 of
the suite's files. The grader's gradings collect rarely for the same reason (grader/conftest.py)."""


def pytest_configure(config: pytest.Config) -> None:
    """Python's bytecode is cached (BYTECODE), for the xdist workers and every child: this runs in
    the controller before the workers start. Every test process (xdist's workers included) collects
    its cycles rarely (COLLECT_EVERY) and grades with GRADING_LIMITS and SUITE_KNOBS, and one BLAS
    thread as drill's processes have (ONE_BLAS_THREAD: the xdist workers and the tests' own scripts
    too, where the user has set no count); and the ``drill`` it
    starts gets SIGINT as a terminal's job does, even where the suite itself was started with SIGINT
    ignored (a background job of a shell script, nohup): ignored, it would be inherited, and drill
    keeps an ignored SIGINT ignored (tests/test_interrupts.py), so every Ctrl-C test would hang."""
    if not os.environ.get("PYTEST_XDIST_WORKER") and (others := installed_packs()):
        raise pytest.UsageError(
            f"this environment has the drill pack(s) {', '.join(others)} installed: the suite tests the tool"
            " with the built-in pack alone and installs the packs it tests itself; run it in a virtualenv"
            " made with pip install -e '.[dev]' only (or pip uninstall the pack's distribution first)"
        )
    os.environ.update(GRADING_LIMITS)
    os.environ.update(SUITE_KNOBS)
    one_blas_thread()
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        os.environ.setdefault("PYTHONPYCACHEPREFIX", str(BYTECODE))
        # the run's own process alone gets here: none it starts (xdist's workers, children) sees the setting
        if os.environ["PYTHONPYCACHEPREFIX"] == str(BYTECODE):
            prune_bytecode()
    register_marks(config, CATALOG.every)  # the grader's: tests/test_localize.py imports its test modules
    gc.set_threshold(*COLLECT_EVERY)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a child's exec resets it to the default


def installed_packs() -> list[str]:
    """The drill packs other than the built-in one that this environment has installed (entry points
    of autograd_drill.packs): none where the suite runs, since its expectations (drill list, the
    schedule, the interview bank...) are of the built-in pack alone."""
    from importlib.metadata import entry_points

    from autograd_drill.grader.packs import BUILTIN, GROUP

    return sorted({point.name for point in entry_points(group=GROUP)} - {BUILTIN})


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Under ``pytest -n``: ``--dist worksteal`` unless told otherwise (an idle worker takes tests
    queued for a busy one, so a run does not wait on one worker's tail). Set here, not in addopts,
    so that plain ``pytest`` runs where pytest-xdist is not installed."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", None) == "no":
        config.option.dist = "worksteal"


AUTO_WORKERS_ENV = "PYTEST_XDIST_AUTO_NUM_WORKERS"


@pytest.hookimpl(wrapper=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Iterator[int]:
    """``-n auto``: one worker more than pytest-xdist's count (the cores), unless
    ``$PYTEST_XDIST_AUTO_NUM_WORKERS`` says how many. A fifth of the suite's test time is spent waiting
    on real processes (a grading's backstop, a Ctrl-C's ending, a terminal's next line), the worker's
    core idle meanwhile: on 2 cores a third worker took the suite from 117-124 s to 106-116 s, for a few
    CPU-s more (its start, collection and zygotes; alternate runs of both put it at 1 to 7 CPU-s, within
    the machine's noise). The tests' own limits are ones a load of 8 cannot reach,
    so one more worker cannot either."""
    count = yield
    return count if os.environ.get(AUTO_WORKERS_ENV) else count + 1


CPU_LOG = "DRILL_TEST_CPU_LOG"
"""Where to log each test's wall and CPU seconds, its children's included (a path; one file per xdist
worker beside it): what a test costs, to find the dear ones (``python tests/cpu_report.py PATH``)."""


def _cpu_seconds() -> float:
    """CPU seconds of this process, of its children waited for, and of its live descendants (with
    theirs): the warm grading worker's forks count when they end, not when the worker does."""
    import psutil

    from benchmarks.report import live_cpu

    mine = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        mine.ru_utime
        + mine.ru_stime
        + waited.ru_utime
        + waited.ru_stime
        + live_cpu(psutil.Process().children(recursive=True))
    )


def _own_seconds() -> float:
    """CPU seconds of this process alone: what a test costs in the test process, its children apart."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    return mine.ru_utime + mine.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    log = os.environ.get(CPU_LOG)
    if not log:
        yield
        return
    os.environ[CPU_LOG_TEST] = item.nodeid  # for the children's own accounting (tests/cpu_report.py)
    cpu, wall, own = _cpu_seconds(), time.perf_counter(), _own_seconds()
    yield
    line = {"test": item.nodeid, "wall": time.perf_counter() - wall, "cpu": _cpu_seconds() - cpu}
    _log(log, {**line, "own": _own_seconds() - own})


CPU_LOG_TEST = "DRILL_TEST_CPU_NODE"
"""The test running when a child was started (under DRILL_TEST_CPU_LOG): what each child's own
accounting line names (tests/cpu_report.py ``--kinds``)."""


def _log(log: str, line: dict[str, object]) -> None:
    with open(f"{log}.{os.environ.get('PYTEST_XDIST_WORKER', 'main')}", "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Notes whether the collection imported torch (2.5 CPU-s, paid by each of pytest-xdist's
    workers); under DRILL_TEST_CPU_LOG, logs what this test process has cost by then (its start-up,
    conftest's imports and the test modules'). What the collection made (the modules imported, the
    tests) lives as long as the process: frozen (``gc.freeze``), the cycle collector no longer walks
    it at each full collection (as the grader's gradings do: grader/conftest.py)."""
    session.config.stash[TORCH_AT_COLLECTION] = "torch" in sys.modules
    gc.freeze()
    if log := os.environ.get(CPU_LOG):
        t = os.times()
        _log(log, {"collected": t.user + t.system, "items": len(session.items), "torch": "torch" in sys.modules})


_FOLDERS = itertools.count()


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's ``tmp_path``, less its search: a new folder for each test under the process's base
    folder, named after the test as pytest names it (its first 30 characters, then a number), made
    without listing the base folder first (pytest's looks there for the highest number of that name:
    each test read the names of every test folder made before it by its process, a thousand under
    xdist) nor repointing a ``...current`` link. Every test asks for it (``drill_home``)."""
    base = tmp_path_factory.getbasetemp()
    name = re.sub(r"[\W]", "_", request.node.name)[:30]
    while True:
        folder = base / f"{name}{next(_FOLDERS)}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # a folder of tmp_path_factory.mktemp's, by chance of the same name
            continue
        return folder


@pytest.fixture(autouse=True)
def drill_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """All user state (history, workspace) lives under tmp_path: DRILL_HOME points there. So does the
    temporary folder of every process the test starts (``TMPDIR``; this process's own was chosen
    before): what a drill killed by SIGKILL leaves (its working and report folders, which nothing can
    remove then) goes with the test's folder, not into the machine's /tmp at every run."""
    home = home_in(tmp_path)
    for name, value in home.items():
        monkeypatch.setenv(name, value)
    temp = own_temp(tmp_path)
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.delenv("TERM_PROGRAM", raising=False)  # run in VS Code's terminal: --edit would open VS Code
    return Path(home["DRILL_HOME"])


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> MockClock:
    """The CLI's clock, injected: advance it to let minutes pass; calendar days are counted in UTC."""
    mock = MockClock(T0)
    monkeypatch.setattr(cli, "CLOCK", mock)
    monkeypatch.setattr(cli, "TZ", UTC)
    return mock


@pytest.fixture
def store() -> Iterator[History]:
    """The history that the CLI uses (under DRILL_HOME), opened for a test to read or fill."""
    history = History(history_path())
    yield history
    history.close()


@pytest.fixture
def passing_grader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stands in for the grader: every target passes unless a stub is left in the file."""

    def grade(file: Path, targets, oracle: str = "auto", label: str | None = None, **_: object) -> GradeResult:
        blank = "raise NotImplementedError(" in Path(file).read_text(encoding="utf-8")
        return GradeResult(label or str(file), tuple(TargetResult(t.id, 5, int(blank), ()) for t in targets), 0.01)

    monkeypatch.setattr(session, "grade_file", grade)
    drill_loop_runner(monkeypatch)


@pytest.fixture(scope="session")
def warm_runner() -> Iterator[Runner]:
    """One warm grading worker per test process, drill watch's (grader/worker.py): NumPy, pytest
    and the grader imported once, then a fresh fork per grading, so a grading costs its tests' time.

    For the tests that check what a verdict says (mutants, stubs, alternative engines, messages). How
    a grading is started, stopped and cleaned up is tested with drill run in a child, as users run it
    (test_robustness, test_lifecycle, test_platforms, test_grade_cli).

    It forks no standby after a grading (``ahead``, grader/forks.py): the next grading here is seldom
    of the same selection, and each standby was set up (pytest's configuration, the collection) to be
    dropped. It keeps a zygote per selection instead (tests/test_zygotes.py): the same selections
    come back (a target's mutants, the alternatives' full gradings), each set up once.
    tests/test_standby.py, the tests of the standby, start a worker of their own."""
    runner = worker.warm_runner()
    # Started now, in the environment the session began with, not in a test's (monkeypatched) one.
    if isinstance(runner, worker.WarmRunner):
        runner.ahead = False
        runner.start()
    else:
        runner.warm_up()
    yield runner
    runner.close()


@pytest.fixture(scope="module")
def layers_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The layers pack installed for one module's tests, in process and for its children
    (tests/pack_here.py): its site folder."""
    with layers_here(tmp_path_factory.mktemp("layers")) as site:
        yield site


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this run of the suite, the same for each of pytest-xdist's workers (their own
    temporary folders are inside it): where what is made once per run is kept (``once_per_run``)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "once-per-run"


@pytest.fixture(scope="session")
def reference_verdict(run_folder: Path) -> dict[str, object]:
    """The one full grading of the reference in a run: ``drill grade REFERENCE --target full -t ...``
    (every target, so every grader test: tests/test_catalog.py) ``--json --oracle replay``, in a real
    child with torch unimportable, as a user runs it. Its exit status, stdout and stderr; shared by the
    tests that need the reference graded whole (test_oracle, test_grade_cli).

    Keyed by the digests of the reference and of the recording: a run that changed either grades anew."""
    follow_ups = [a for t in CATALOG.extensions for a in ("-t", t.id)]
    command = ["grade", str(REFERENCE), "--target", "full", *follow_ups, "--json", "--oracle", "replay"]
    key = f"reference-{digest_of(REFERENCE)[:12]}-{digest_of(RECORDING)[:12]}"

    def grade() -> dict[str, object]:
        proc = run_drill(*command, env=without_torch(run_folder / "no-torch"))
        return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

    return once_per_run(run_folder, key, grade)


@pytest.fixture(scope="session")
def unbroadcast_tests(run_folder: Path) -> tuple[str, ...]:
    """unbroadcast's grader tests as the oracle names them (``collect_tests``: a collection in a child),
    collected once per run of the suite and shared by pytest-xdist's workers (each collected them
    for itself at import, for test_lifecycle's and test_robustness's counts)."""
    collected = once_per_run(run_folder, "collected-unbroadcast", lambda: {"tests": collect_tests("unbroadcast")})
    return tuple(str(name) for name in collected["tests"])  # type: ignore[attr-defined]


@pytest.fixture
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide enough that rich wraps none of the tables and messages asserted on (tmp paths are long)."""
    monkeypatch.setenv("COLUMNS", "500")
    use_consoles(monkeypatch, width=500)


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch, wide_terminal: None) -> None:
    """A lock on the history is waited for half a second, not ten ($DRILL_BUSY_TIMEOUT); lines are not wrapped."""
    monkeypatch.setenv(faults.BUSY_ENV, "0.5")


@pytest.fixture
def narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal 60 columns wide, as a split screen or a phone: what drill prints must stay usable there."""
    monkeypatch.setenv("COLUMNS", "60")
    use_consoles(monkeypatch, width=60)


@pytest.fixture
def warm_grading(monkeypatch: pytest.MonkeyPatch, warm_runner) -> None:
    """A check in process grades in a fork of the warm worker, not in a fresh interpreter."""
    monkeypatch.setattr(session, "run_in_subprocess", warm_runner)
    drill_loop_runner(monkeypatch)


@pytest.fixture
def warm_drill_grade(monkeypatch: pytest.MonkeyPatch, warm_runner) -> None:
    """``drill grade`` in process grades in a fork of the warm worker, not in a fresh interpreter."""
    monkeypatch.setattr(grader_run, "grade_file", functools.partial(grader_run.grade_file, runner=warm_runner))


@contextmanager
def _no_one_shot(start: bool = True) -> Iterator[None]:
    yield None


def drill_loop_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    """``drill check`` run in process grades with the drill loop's runner (drills/loop/session.py, the one
    these fixtures stand in for), not in an interpreter started as the command starts (grader/spawn.py,
    ``OneShot``: tests/test_spawn_standby.py runs it)."""
    monkeypatch.setattr(spawn, "OneShot", _no_one_shot)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "solutions"


@pytest.fixture
def history(store: History) -> History:
    """The history (``store``), under the name the drill loop's functions give it."""
    return store


@pytest.fixture
def db(history: History) -> sqlite3.Connection:
    """The History's own connection (autocommit, sqlite3.Row rows), with the interview tables: the
    wiring calls ensure_tables(history.db) on every open, so twice must do no harm."""
    interview_store.ensure_tables(history.db)
    interview_store.ensure_tables(history.db)
    return history.db


@pytest.fixture
def fake_grading(monkeypatch: pytest.MonkeyPatch, clock: MockClock) -> FakeGrader:
    """The drill loop grades with a stand-in (tests/support.py, FakeGrader): its logic, exactly and fast."""
    grader = FakeGrader(clock)
    monkeypatch.setattr(session, "grade_file", grader)
    drill_loop_runner(monkeypatch)
    return grader
