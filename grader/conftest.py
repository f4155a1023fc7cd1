"""pytest wiring of the oracle suite: ``--impl`` chooses the engine under test, ``--oracle`` the source of truth."""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import sys
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from drills.catalog import load_catalog
from grader.check import Blame, GradeFailure, Grading
from grader.oracle import RECORDING, Oracle, OracleError, OracleView, make_oracle

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "engine.py"
CATALOG = load_catalog()
MARKERS = {t.marker: t for t in CATALOG.targets}
ORDER = {t.marker: i for i, t in enumerate(CATALOG.targets)}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autograd-drill")
    group.addoption("--impl", default=str(REFERENCE), help="engine file to grade (default: the reference)")
    group.addoption(
        "--oracle",
        default="auto",
        choices=("auto", "live", "replay", "record"),
        help="auto: recorded answers, else live torch; live: ask torch; replay: recorded only; record: ask and save",
    )
    group.addoption("--oracle-file", default=str(RECORDING), help="the recorded oracle (.npz)")
    group.addoption("--report-json", default=None, help="write each test's target, outcome and message here")
    group.addoption("--grader-tracebacks", action="store_true", help="show pytest's tracebacks (grader development)")


def pytest_configure(config: pytest.Config) -> None:
    # Gradings build graphs of 10,000 nodes whose closures form reference cycles: with the default
    # thresholds the cycle collector runs hundreds of times per check. Collect rarely instead.
    gc.freeze()
    gc.set_threshold(200_000, 100, 100)
    for target in CATALOG.targets:
        config.addinivalue_line("markers", f"{target.marker}: oracle tests of the {target.id} target")
    if config.getoption("report_json"):
        config.pluginmanager.register(Reporter(Path(config.getoption("report_json")).resolve()), "drill-reporter")


def _targets_of(item: pytest.Item) -> list[str]:
    return [MARKERS[m.name].id for m in item.iter_markers() if m.name in MARKERS]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Dependency order: the failure shown first is the one to fix first.
    def rank(item: pytest.Item) -> int:
        return min((ORDER[m.name] for m in item.iter_markers() if m.name in ORDER), default=len(ORDER))

    items.sort(key=rank)


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def _blame(pytestconfig: pytest.Config) -> Blame:
    return Blame(impl_path=Path(pytestconfig.getoption("impl")).resolve(), catalog=CATALOG)


@pytest.fixture(scope="session")
def _impl(_blame: Blame) -> ModuleType | GradeFailure:
    """The engine under test, imported once by path; an import failure becomes every test's verdict."""
    path = _blame.impl_path
    if not path.is_file():
        return GradeFailure(f"{path} does not exist")
    spec = importlib.util.spec_from_file_location("drill_solution", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["drill_solution"] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        where = f"{path.name}:{exc.lineno}" if exc.lineno else path.name
        text = f"\n    {exc.text.rstrip()}" if exc.text else ""
        return GradeFailure(f"could not import {path.name}: SyntaxError at {where}: {exc.msg}{text}")
    except (Exception, SystemExit) as exc:
        return GradeFailure(f"could not import {path.name}: {_blame.describe(exc, 'the module')}")
    return module


@pytest.fixture(scope="session")
def _oracle(pytestconfig: pytest.Config) -> Iterator[Oracle]:
    try:
        oracle = make_oracle(pytestconfig.getoption("oracle"), Path(pytestconfig.getoption("oracle_file")))
    except OracleError as exc:
        pytest.exit(f"oracle unavailable: {exc}", returncode=4)
    yield oracle
    oracle.close()


@pytest.fixture
def grade(request: pytest.FixtureRequest, _impl: ModuleType | GradeFailure, _oracle: Oracle, _blame: Blame) -> Grading:
    """The per-test helper: the engine, the oracle, a seeded RNG and the case name."""
    if isinstance(_impl, GradeFailure):
        raise _impl
    key = f"{request.node.path.name}::{request.node.name}"
    callspec = getattr(request.node, "callspec", None)
    case = callspec.id if callspec is not None else request.node.originalname.removeprefix("test_")
    targets = _targets_of(request.node)
    _blame.target = CATALOG.get(targets[0]) if targets else None
    return Grading(
        impl=_impl,
        oracle=OracleView(_oracle, key),
        blame=_blame,
        case=case,
        rng=np.random.default_rng(zlib.crc32(key.encode())),
    )


# ------------------------------------------------------------------------------ reporting


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """A verdict's message is the whole report: no traceback into the grader (and no time spent making one)."""
    if call.excinfo is None or not isinstance(call.excinfo.value, GradeFailure):
        return None
    if item.config.getoption("grader_tracebacks"):
        return None
    return pytest.TestReport(
        nodeid=item.nodeid,
        location=item.location,
        keywords=dict.fromkeys(item.keywords, 1),
        outcome="failed",
        longrepr=str(call.excinfo.value),
        when=call.when,
        sections=[],
        duration=call.duration,
        start=call.start,
        stop=call.stop,
        user_properties=item.user_properties,
    )


class Reporter:
    """Writes each test's targets, outcome and message as JSON for ``drill`` to read (``--report-json``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.targets: dict[str, list[str]] = {}
        self.results: list[dict[str, Any]] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.targets = {item.nodeid: _targets_of(item) for item in session.items}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and not report.failed:
            return
        self.results.append(
            {
                "nodeid": report.nodeid,
                "targets": self.targets.get(report.nodeid, []),
                "outcome": report.outcome,
                "message": report.longreprtext if report.failed else "",
                "duration": round(report.duration, 6),
            }
        )

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        payload = {"collected": self.targets, "results": self.results}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".json.tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(payload, f)
        os.replace(tmp, self.path)
