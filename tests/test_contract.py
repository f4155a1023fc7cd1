"""Only the contract is graded: every grader test case names the contract clauses it relies on
(``grader/contract.py``), and each clause is stated in a docstring that its target's stub keeps,
so that everything a verdict depends on is in front of the user."""

import ast
import json
import re
from pathlib import Path

import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.catalog import find_functions
from autograd_drill.loop.stubs import stub_for
from tests.support import CATALOG, REFERENCE, run_grader


def _normalized(text: str) -> str:
    return " ".join(text.split())


def stated(symbols, drills, reference: Path = REFERENCE) -> str:
    """The docstrings of ``symbols`` as the stub of ``drills`` shows them, whitespace normalized, after
    the module's: what every op must do is stated there once, and every stub keeps it."""
    tree = ast.parse(stub_for(symbols, "contract", reference, drills=drills))
    functions = find_functions(tree)
    return _normalized(" ".join(ast.get_docstring(d) or "" for d in [tree, *(functions[s] for s in symbols)]))


def unstated(collected, reference: Path = REFERENCE, catalog=CATALOG) -> list[str]:
    """Every (test, clause) whose clause its target's stub does not state; and tests that name none.
    ``catalog`` and ``reference``: a pack's (tests/test_pack_contract.py), by default the autograd one."""
    texts = {t.id: stated(t.symbols, [t.id], reference) for t in catalog.every}
    markers = {t.marker: t for t in catalog.every}
    problems = []
    for nodeid, found in collected.items():
        (target,) = [markers[m] for m in found["markers"] if m in markers]
        if not found["clauses"]:
            problems.append(f"{nodeid}: names no contract clause")
        problems += [
            f"{nodeid}: {phrase!r} is not in the docstrings of {', '.join(target.symbols)}"
            for phrase in found["clauses"]
            if _normalized(phrase) not in texts[target.id]
        ]
    return problems


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """Every grader test case, with its markers and its clauses (param-level ones included)."""
    dump = tmp_path_factory.mktemp("clauses") / "clauses.json"
    proc = run_grader(
        "--collect-only",
        "-q",
        "-p",
        "tests.clause_dump",
        env={"DRILL_CLAUSE_DUMP": str(dump), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(dump.read_text(encoding="utf-8"))


def test_every_test_case_relies_only_on_clauses_its_stub_states(collected):
    assert len(collected) > 400
    assert unstated(collected) == []


def test_the_full_stub_states_every_core_clause(collected):
    core = {t.marker for t in CATALOG.targets}
    text = stated([s for t in CATALOG.targets for s in t.symbols], CATALOG.ids)
    missing = {
        phrase
        for found in collected.values()
        if core & set(found["markers"])
        for phrase in found["clauses"]
        if _normalized(phrase) not in text
    }
    assert missing == set()


def test_a_clause_missing_from_the_docstrings_is_caught(collected, tmp_path):
    """The check can fail: a reference whose transpose docstring no longer states negative axes."""
    tampered = tmp_path / "engine.py"
    source = REFERENCE.read_text(encoding="utf-8")
    assert source.count("Negative axes count\n        from the end, as in NumPy;") == 1
    tampered.write_text(source.replace("Negative axes count\n        from the end, as in NumPy;", ""), encoding="utf-8")
    problems = unstated(collected, tampered)
    assert problems, "removing a clause from a docstring went unnoticed"
    assert all(c.NEGATIVE_AXES in p for p in problems)
    assert any("test_op_transpose[negative-axes]" in p for p in problems)


def _backward_doc(drills) -> str:
    return stated(["Tensor.backward"], drills)


def test_the_core_backward_stub_asks_only_for_the_core():
    core = _backward_doc(["backward"])
    for phrase in (c.ONE_ELEMENT, c.OTHER_ROOT_RAISES, c.SEED_ONES, c.ONCE_IN_ORDER):
        assert _normalized(phrase) in core
    for phrase in (c.COTANGENT, c.COTANGENT_SHAPE, c.RELEASE, c.RETAIN_GRAPH, c.REPEATED_BACKWARD):
        assert _normalized(phrase) not in core, phrase
    assert "follow-up drills" in core


@pytest.mark.parametrize(
    ("drill", "own", "other"),
    [("cotangent", c.COTANGENT, c.RELEASE), ("free-memory", c.RELEASE, c.COTANGENT)],
)
def test_each_follow_up_of_backward_has_its_own_docstring(drill, own, other):
    doc = _backward_doc([drill])
    assert _normalized(own) in doc and _normalized(other) not in doc
    assert "follow-up drills" not in doc and "drill)" not in doc  # the tags themselves are not shown
    assert _normalized(c.SEED_ONES) in doc  # the core paragraph is shared


def test_the_reference_keeps_every_paragraph():
    doc = _normalized(ast.get_docstring(find_functions(ast.parse(REFERENCE.read_text()))["Tensor.backward"]))
    for phrase in (c.SEED_ONES, c.COTANGENT, c.RELEASE, c.REPEATED_BACKWARD):
        assert _normalized(phrase) in doc


def test_a_sentence_every_op_states_is_stated_once():
    """What every op must do is said once, in the module docstring every stub keeps (``stated`` reads
    it for every target), not repeated in each op's docstring (before: two sentences, 17 and 13 times)."""
    tree = ast.parse(REFERENCE.read_text(encoding="utf-8"))
    counts: dict[str, int] = {}
    for node in find_functions(tree).values():
        for sentence in re.split(r"(?<=\.)\s+", _normalized(ast.get_docstring(node) or "")):
            counts[sentence] = counts.get(sentence, 0) + 1
    repeated = {s: n for s, n in counts.items() if n > 2 and len(s) > 20}
    assert not repeated, f"reference/engine.py: state these once in its module docstring: {repeated}"
    module = _normalized(ast.get_docstring(tree) or "")
    assert _normalized(c.INTACT) in module and _normalized(c.ADDS) in module
