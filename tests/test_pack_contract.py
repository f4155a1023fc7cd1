"""Only the contract is graded, in the ``layers`` pack too: every one of its oracle test cases names the
clauses it relies on, and each is stated in the docstrings that its target's stub keeps (the pack's
reference.py, its module docstring included), as tests/test_contract.py proves for the autograd pack."""

import json
import os
import subprocess
import sys

import pytest

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.suite import Suite
from tests.pack_layers_cases import PACKAGE, REFERENCE
from tests.support import ROOT
from tests.test_contract import unstated as contract_unstated

SUITE = Suite(PACKAGE / "tests", PACKAGE / "catalog.toml", REFERENCE, PACKAGE / "recorded" / "oracle.npz")
CATALOG = load_catalog(SUITE.catalog)


def unstated(collected, reference=REFERENCE) -> list[str]:
    """tests/test_contract.py's ``unstated``, on the pack's catalog and reference."""
    return contract_unstated(collected, reference, CATALOG)


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """Every test case of the pack, with its markers and its clauses (param-level ones included)."""
    dump = tmp_path_factory.mktemp("clauses") / "clauses.json"
    command = [sys.executable, "-m", "pytest", str(SUITE.tests), *SUITE.options(), "--collect-only", "-q"]
    command += ["-p", "tests.clause_dump"]
    env = {"DRILL_CLAUSE_DUMP": str(dump), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(dump.read_text(encoding="utf-8"))


def test_every_layers_test_case_relies_only_on_clauses_its_stub_states(collected):
    assert len(collected) == 48 * len(CATALOG.targets)
    assert unstated(collected) == []


def test_every_case_has_its_target_and_the_option_clauses_go_with_their_cases(collected):
    causal = [n for n, f in collected.items() if "test_attention[" in n and "causal=True" in n]
    assert causal and all(any("masks the scores" in c for c in collected[n]["clauses"]) for n in causal)
    plain = [n for n, f in collected.items() if "test_attention[" in n and "causal=False" in n]
    assert plain and not any(any("masks the scores" in c for c in collected[n]["clauses"]) for n in plain)


def test_a_clause_missing_from_the_docstrings_is_caught(collected, tmp_path):
    """The check can fail: a reference whose maxpool docstring no longer states torch's tie rule."""
    tampered = tmp_path / "reference.py"
    source = REFERENCE.read_text(encoding="utf-8")
    phrase = "and on a tie the first maximal element\n    in row-major order within the window"
    assert source.count(phrase) == 1
    tampered.write_text(source.replace(phrase, "and on a tie any of them"), encoding="utf-8")
    problems = unstated(collected, tampered)
    assert problems and all("first maximal element in row-major order" in p for p in problems)
    assert any("test_maxpool2d[" in p for p in problems)
