"""pytest wiring of the oracle suite: ``--impl`` chooses the engine under test, ``--oracle`` the source of truth.

The suite is a pack's: by default the autograd pack's (grader/catalog.toml, reference/engine.py, the
tests of grader/, grader/recorded/oracle.npz). Another pack's oracle tests take this module as a plugin
and name the pack's files: ``python -m pytest PACK/tests -p autograd_drill.grader.conftest --catalog PACK/catalog.toml
--reference PACK/reference.py --oracle-file PACK/recorded/oracle.npz --impl FILE``. ``CATALOG``,
``MARKERS``, ``ORDER`` and ``REFERENCE`` are then the pack's, set when the session is configured."""

from __future__ import annotations

import gc
import json
import os
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from autograd_drill.grader import batch, notes, shards, zygote
from autograd_drill.grader.blame import Blame
from autograd_drill.grader.catalog import CATALOG_FILE, Catalog, load_catalog
from autograd_drill.grader.check import GradeFailure, Grading, TestTimeout
from autograd_drill.grader.collect import pytest_collect_directory, pytest_pycollect_makemodule  # noqa: F401 - hooks
from autograd_drill.grader.contract import register_marks
from autograd_drill.grader.oracle import RECORDING, RECORDING_ENV, Oracle, OracleError, OracleView, make_oracle
from autograd_drill.grader.output import bounded_output
from autograd_drill.grader.reporter import Reporter, watch_parent
from autograd_drill.grader.sandbox import cap_memory, load_solution, time_limit
from autograd_drill.reference import ENGINE

REFERENCE = ENGINE
CATALOG: Catalog = load_catalog()
_DEFAULT_CATALOG = CATALOG
MARKERS = {t.marker: t for t in CATALOG.every}
ORDER = {t.marker: i for i, t in enumerate(CATALOG.every)}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autograd-drill")
    group.addoption("--impl", default=None, help="engine file to grade (default: the reference)")
    group.addoption(
        "--catalog", default=str(CATALOG_FILE), help="the pack's catalog.toml (default: the autograd pack's)"
    )
    group.addoption(
        "--reference", default=str(ENGINE), help="the pack's reference module (default: the autograd engine)"
    )
    group.addoption(
        "--oracle",
        default="auto",
        choices=("auto", "live", "replay", "record", "fd"),
        help="auto: recorded, else live torch; live: ask torch; replay: recorded only; record: ask and save; "
        "fd: finite differences of the reference's forward (no torch), else recorded",
    )
    group.addoption("--oracle-file", default=str(RECORDING), help="the recorded oracle (.npz)")
    group.addoption("--report-json", default=None, help="write each test's target, outcome and message here")
    group.addoption("--test-timeout", type=float, default=5.0, help="seconds one test may take (0: no limit)")
    group.addoption("--memory-limit-mb", type=int, default=0, help="cap the address space of the grading (0: none)")
    group.addoption("--shards", type=int, default=1, help="processes for the tests, with a report (grader/shards.py)")
    group.addoption("--standby", type=int, default=-1, help="wait on this descriptor for --impl and --report-json")
    group.addoption("--zygote", default="", help="R,W: fork a grading for each request on R, reply on W")
    group.addoption("--grader-tracebacks", action="store_true", help="show pytest's tracebacks (grader development)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("oracle") == "record" and os.environ.get(RECORDING_ENV) != "1":
        raise pytest.UsageError(
            "--oracle record rewrites the recorded oracle: run it as python -m autograd_drill.grader.record"
        )
    # Gradings build graphs of 10,000 nodes whose closures form reference cycles: with the default
    # thresholds the cycle collector runs hundreds of times per check. Collect rarely instead.
    gc.freeze()
    gc.set_threshold(200_000, 100, 100)
    gc.enable()  # off while the process warmed up (collect_after_warm_up), if it did
    # Warnings (NumPy's floating-point ones, the user's own) shown in every test that meets them, not
    # once per process: a test's output must not depend on which process of the grading ran it first
    for category in (RuntimeWarning, UserWarning):
        warnings.filterwarnings("always", category=category)
    use_pack(config)
    register_marks(config, CATALOG.every)
    global _TIMED_OUT
    _TIMED_OUT = shards.Timeouts([t.id for t in CATALOG.every])  # this grading's, shared by its copies
    skipped = cap_memory(config.getoption("memory_limit_mb"))  # a note where the platform cannot cap memory
    notes.start()
    batch.CASE_SECONDS = config.getoption("test_timeout")
    report, told_later = config.getoption("report_json"), config.getoption("standby") >= 0 or config.getoption("zygote")
    if report or told_later:  # a standby, or a zygote's fork, is told its report when it is told its file
        reporter = Reporter(Path(report).resolve() if report else None, _targets_of, verdict_order)
        config.pluginmanager.register(reporter, "drill-reporter")
        batch.on_case = reporter.case  # type: ignore[assignment]
        notes.start(reporter.note)
        if skipped:
            reporter.note(skipped)


def use_pack(config: pytest.Config) -> None:
    """This session's pack: its catalog (the marks, the order, the blame) and its reference (the default
    ``--impl``), from ``--catalog`` and ``--reference``; the autograd pack's module constants unless told."""
    global CATALOG, MARKERS, ORDER, REFERENCE
    catalog_file, reference = Path(config.getoption("catalog")).resolve(), Path(config.getoption("reference")).resolve()
    CATALOG = _DEFAULT_CATALOG if catalog_file == CATALOG_FILE.resolve() else load_catalog(catalog_file)
    MARKERS = {t.marker: t for t in CATALOG.every}
    ORDER = {t.marker: i for i, t in enumerate(CATALOG.every)}
    REFERENCE = reference
    if config.getoption("impl") is None:
        config.option.impl = str(REFERENCE)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Without a report, the notes the tests gave (grader/notes.py) end pytest's own summary."""
    if notes.GIVEN and not terminalreporter.config.getoption("report_json"):
        terminalreporter.section("notes")
        for text in notes.GIVEN:
            terminalreporter.write_line(f"note: {text}")


def _targets_of(item: pytest.Item) -> list[str]:
    return [MARKERS[m.name].id for m in item.iter_markers() if m.name in MARKERS]


VERDICT_PLACE = pytest.StashKey[int]()
"""A test's place in the verdict: targets in dependency order, each target's tests in file order."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Targets run in dependency order: the failure shown first is the one to fix first.

    Within a target, the verdict lists failures in file order (``VERDICT_PLACE``, the order of the
    report's "collected" event), but the tests run so that a failure comes early: first one case of
    every test function, in file order (each function checks its own property, often its own
    symbol: a bug meets its test soon), then the other cases, then the tests marked ``costly``."""

    def rank(item: pytest.Item) -> int:
        return min((ORDER[m.name] for m in item.iter_markers() if m.name in ORDER), default=len(ORDER))

    items.sort(key=rank)
    seen: set[tuple[str, str]] = set()
    phase: dict[str, int] = {}
    for place, item in enumerate(items):
        item.stash[VERDICT_PLACE] = place
        function = (item.parent.nodeid if item.parent else "", getattr(item, "originalname", item.name))
        phase[item.nodeid] = 2 if item.get_closest_marker("costly") else 1 if function in seen else 0
        seen.add(function)
    items.sort(key=lambda item: (rank(item), phase[item.nodeid], item.stash[VERDICT_PLACE]))


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """A standby waits here to be told its file; with a report, a long selection runs in ``--shards``
    processes (grader/shards.py)."""
    reporter = session.config.pluginmanager.get_plugin("drill-reporter")
    global _TIMED_OUT
    if session.config.getoption("standby") >= 0 and not _await_go(session.config, reporter):
        return True  # another selection is to be graded: this session ends without a test
    if session.config.getoption("zygote"):
        if session.testsfailed:
            os._exit(3)  # a collection error: the worker grades in a fork of its own, which says it
        zygote.serve(session.config, reporter)  # returns in a fork, told its file and report
        _TIMED_OUT = shards.Timeouts([t.id for t in CATALOG.every])  # its own, not its zygote's
    n = session.config.getoption("shards")
    if reporter is None or n <= 1 or session.testsfailed or session.config.option.collectonly:
        return None  # pytest's own loop (which also stops at a collection error)
    if sum(shards.weight(item) for item in session.items[1:]) < shards.MIN_WEIGHT:
        return None
    return shards.run(session, n, reporter, watch_parent)


def _await_go(config: pytest.Config, reporter: Reporter) -> bool:
    """A grading set up ahead of its save (grader/forks.py, grader/spawn.py), collected: wait for the
    file to grade and the report to write, one JSON line on the ``--standby`` descriptor (the report
    then says "go" after what was done ahead), and say True; at its end (the worker dropped this
    standby, or is gone), end; told that another selection is to be graded (an empty line, in an
    interpreter started ahead of time, which then grades that one itself), say False: the session
    ends without a test, and without a report (the Reporter is unregistered: it would end the process)."""
    fd, data = config.getoption("standby"), b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 65536)
        if not chunk:
            os._exit(0)
        data += chunk
    os.close(fd)
    go = json.loads(data)
    if go.get("impl") is None:
        config.pluginmanager.unregister(reporter)
        return False
    config.option.impl = go["impl"]
    reporter.open(Path(go["report"]))
    reporter.write({"event": "go"})
    return True


def verdict_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` as the verdict lists them (see pytest_collection_modifyitems)."""
    return sorted(items, key=lambda item: item.stash.get(VERDICT_PLACE, len(items)))


# ------------------------------------------------------------------------------ fixtures


@dataclass(frozen=True)
class _Session:
    """What every test of a grading shares: the engine under test (or the failure to import it),
    the oracle and the blame.

    NOTE: ``blame`` is shared, but each test sets its ``target`` (``grade``): read it only during a
    test, never keep what it said for a later one."""

    impl: ModuleType | GradeFailure
    oracle: Oracle
    blame: Blame


# NOTE: one session fixture, not one for each part: pytest looks up, and re-checks, each fixture a
# test needs, the session's cached ones too, and that was a third of a test's own cost (0.2 of 0.5 ms).
@pytest.fixture(scope="session")
def _session(request: pytest.FixtureRequest) -> Iterator[_Session]:
    """The engine imported once by path (a failure to import becomes every test's verdict), then the oracle."""
    config = request.config
    blame = Blame(impl_path=Path(config.getoption("impl")).resolve(), catalog=CATALOG)
    impl = load_solution(blame.impl_path, blame, config.getoption("test_timeout"))
    try:
        oracle = make_oracle(config.getoption("oracle"), Path(config.getoption("oracle_file")))
    except OracleError as exc:
        pytest.exit(f"oracle unavailable: {exc}", returncode=4)
    # What the oracle imported (live torch: 165,000 objects) lives as long as the session: out of every
    # later collection, as the grader's own are (pytest_configure). With torch's, a gc.collect() took
    # 0.18 s, and a run with live torch (the recording's) collects ten times (the memory checks, and
    # pytest's cleanup of unraisable exceptions at the end).
    gc.freeze()
    yield _Session(impl, oracle, blame)
    oracle.close()


@pytest.fixture
def grade(request: pytest.FixtureRequest, _session: _Session) -> Grading:
    """The per-test helper: the engine, the oracle, a seeded RNG and the case name."""
    if isinstance(_session.impl, GradeFailure):
        raise _session.impl
    key = f"{request.node.path.name}::{request.node.name}"
    callspec = getattr(request.node, "callspec", None)
    case = callspec.id if callspec is not None else request.node.originalname.removeprefix("test_")
    targets = _targets_of(request.node)
    _session.blame.target = CATALOG.get(targets[0]) if targets else None
    return Grading(
        impl=_session.impl,
        oracle=OracleView(_session.oracle, key),
        blame=_session.blame,
        case=case,
        rng=np.random.default_rng(zlib.crc32(key.encode())),
    )


# ------------------------------------------------------------------------------ reporting


class NotRun(Exception):  # noqa: N818 - not an error: a test that was not run
    """Raised in a test's setup to skip it: an earlier test of its target ran past its time limit."""


# NOTE: trylast: inside pytest's own capture, which sets sys.stdout as each phase starts; what the
# user's code prints goes to a bounded sink instead (grader/output.py).
@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    stopped = [f"{t} ({_TIMED_OUT[t]})" for t in _targets_of(item) if t in _TIMED_OUT]
    if stopped:
        raise NotRun(f"an earlier test of {', '.join(stopped)} ran past its time limit")
    with bounded_output(item, "setup"), numpy_errors(), time_limit(item.config.getoption("test_timeout")):
        return (yield)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    batched = batch.PARAM in getattr(getattr(item, "callspec", None), "params", {})  # each case is timed instead
    with (
        bounded_output(item, "call"),
        numpy_errors(),
        time_limit(0 if batched else item.config.getoption("test_timeout")),
    ):
        return (yield)


def numpy_errors() -> Any:
    """NumPy's default floating-point error handling, for each phase of each test: the user's
    ``np.seterr`` (at import, or in an earlier test) does not reach the grader's own NumPy code."""
    return np.errstate(divide="warn", over="warn", under="ignore", invalid="warn")


_TIMED_OUT = shards.Timeouts([t.id for t in CATALOG.every])
"""Targets in which a test ran past its time limit, and that test's name (made again for each grading)."""


def pytest_exception_interact(node: pytest.Item | pytest.Collector, call: pytest.CallInfo[None]) -> None:
    """After a test hits its time limit, its target's other tests are not run: they would most
    likely hang the same way, each for the whole limit. Other targets still run."""
    if call.excinfo is not None and isinstance(node, pytest.Item) and _timed_out(call.excinfo.value):
        for target in _targets_of(node):
            _TIMED_OUT.setdefault(target, node.name)


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, TestTimeout) or (isinstance(exc, GradeFailure) and exc.timed_out)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """A verdict's message is the whole report: no traceback into the grader (and no time spent making one).

    A test not run is skipped, and its report says so (``drill_not_run``: why), for the Reporter."""
    if call.excinfo is not None and isinstance(call.excinfo.value, NotRun):
        why = str(call.excinfo.value)
        where = (str(item.path), (item.location[1] or 0) + 1, f"Skipped: not run: {why}")
        return _report(item, call, "skipped", where, drill_not_run=why)
    if call.excinfo is None or not isinstance(call.excinfo.value, (GradeFailure, TestTimeout)):
        return None
    if item.config.getoption("grader_tracebacks"):
        return None
    exc = call.excinfo.value
    record = exc.record() if isinstance(exc, GradeFailure) else {"text": _verdict(item, exc)}
    return _report(item, call, "failed", _verdict(item, exc), drill_failure=record)


def _report(
    item: pytest.Item, call: pytest.CallInfo[None], outcome: str, longrepr: Any, **extra: Any
) -> pytest.TestReport:
    # What the test printed, as pytest's own report would carry it (its capstdout and capstderr).
    sections = [(f"Captured {key} {when}", content) for when, key, content in item._report_sections]
    return pytest.TestReport(
        nodeid=item.nodeid,
        location=item.location,
        keywords=dict.fromkeys(item.keywords, 1),
        outcome=outcome,  # type: ignore[arg-type]
        longrepr=longrepr,
        when=call.when,
        sections=sections,
        duration=call.duration,
        start=call.start,
        stop=call.stop,
        user_properties=item.user_properties,
        **extra,
    )


def _verdict(item: pytest.Item, exc: BaseException) -> str:
    if isinstance(exc, TestTimeout):  # stopped outside the user's code, in the grader's own work
        return f"{item.name}: took longer than {exc.limit:g} s and was stopped"
    return str(exc)
