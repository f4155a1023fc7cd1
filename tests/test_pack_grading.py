"""The grader grades a pack: the ``layers`` pack's oracle tests (packs/layers/autograd_drill_layers/tests/)
run through grader/run.py's ``grade_file`` with the pack's files (grader/suite.py), in a child process
as ``drill grade`` runs them, from the pack's recording. The reference passes every target without
torch; both alternatives pass; each classic bug of tests/test_pack_layers.py fails its target with a
verdict naming the function it broke and the case."""

from __future__ import annotations

import ast

import pytest

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.run import grade_file
from autograd_drill.grader.suite import Suite
from tests.pack_layers_cases import ALTERNATIVES, PACKAGE, REFERENCE
from tests.support import without_torch
from tests.test_pack_layers import BUGS, SOURCE

SUITE = Suite(PACKAGE / "tests", PACKAGE / "catalog.toml", REFERENCE, PACKAGE / "recorded" / "oracle.npz")
CATALOG = load_catalog(SUITE.catalog)
IDS = ["layernorm", "batchnorm", "attention", "conv2d", "maxpool2d", "adam"]

SHOWS_IN = {"maxpool sending the gradient to every tied element": "maxpool2d_backward"}
"""Bugs in a forward whose ``out`` is right and whose ``cache`` is not: the cache is opaque to the grader,
so the backward, whose gradient is wrong, is the function the verdict names."""


def graded(file, targets=None, first_failure_only=False):
    targets = CATALOG.targets if targets is None else targets
    return grade_file(file, targets, oracle="replay", suite=SUITE, first_failure_only=first_failure_only)


def test_the_suite_finds_one_test_file_per_target():
    files = SUITE.test_files(CATALOG.targets)
    assert [f.rsplit("/", 1)[1] for f in files] == [f"test_{t.marker}.py" for t in CATALOG.targets]
    assert [t.id for t in CATALOG.targets] == IDS


def test_the_reference_passes_every_target_from_the_recording_without_torch(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", without_torch(tmp_path)["PYTHONPATH"])
    result = graded(REFERENCE)
    assert [t.target for t in result.targets] == IDS
    assert result.passed, [f.message for t in result.targets for f in t.failures][:3]
    assert all(t.tests >= 48 and t.not_run == 0 for t in result.targets), [(t.target, t.tests) for t in result.targets]
    verdict = result.to_json()  # the grader's recording has none of these answers: the pack's was read
    assert verdict["passed"] is True and list(verdict["targets"]) == IDS


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_each_alternative_passes_every_target(path):
    result = graded(path)
    assert result.passed, [f.message for t in result.targets for f in t.failures][:3]


def _function_of(old: str) -> str:
    """The reference's function whose source holds ``old``."""
    start = SOURCE.index(old)
    line = SOURCE.count("\n", 0, start) + 1
    for node in ast.parse(SOURCE).body:
        if isinstance(node, ast.FunctionDef) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return node.name
    raise AssertionError(f"{old!r} is in no function of the reference")


@pytest.mark.parametrize("bug", BUGS)
def test_each_classic_bug_fails_its_target_naming_its_function(bug, tmp_path):
    layer, edits = BUGS[bug]
    source = SOURCE
    for old, new in edits:
        source = source.replace(old, new)
    mutant = tmp_path / "layers.py"
    mutant.write_text(source, encoding="utf-8")
    symbol = SHOWS_IN.get(bug) or _function_of(edits[0][0])
    result = graded(mutant, [CATALOG.get(layer)], first_failure_only=True)
    (verdict,) = result.targets
    assert verdict.failed, f"{bug}: passed every test"
    failure = verdict.failures[0]
    assert failure.symbol == symbol, failure.message
    assert failure.case and failure.message.startswith(f"{symbol} [{failure.case}]"), failure.message
