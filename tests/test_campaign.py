"""The mutation campaign's mutator (grader/campaign/): its mutants are real, single, stable changes
of the catalog's functions; a small sample is graded for real; the report counts what it should."""

import ast

import pytest

from grader.campaign import grading, mutate, report
from grader.catalog import find_functions
from tests.support import CATALOG, REFERENCE
from tests.support import REFERENCE_SOURCE as SOURCE

LINES = SOURCE.splitlines(keepends=True)


@pytest.fixture(scope="module")
def mutants():
    return mutate.generate(REFERENCE, CATALOG)


def test_every_catalog_symbol_core_and_follow_up_has_mutants(mutants):
    mutated = {m.symbol for m in mutants}
    for target in CATALOG.every:
        for symbol in target.symbols:
            assert symbol in mutated, f"{target.id}: no mutant of {symbol}"
    # Tensor.backward is blanked by three targets: its mutants are graded at all three.
    backward = next(m for m in mutants if m.symbol == "Tensor.backward")
    assert backward.targets == ("backward", "cotangent", "free-memory")
    assert all(set(m.targets) == {t.id for t in CATALOG.every if m.symbol in t.symbols} for m in mutants)


def test_each_mutant_compiles_and_differs_from_the_reference_in_one_place_only(mutants):
    functions = find_functions(ast.parse(SOURCE))
    for m in mutants:
        compile(m.source, "engine.py", "exec")
        assert m.source != SOURCE, m.id
        lines = m.source.splitlines(keepends=True)
        assert len(lines) == len(LINES), f"{m.id}: line numbers moved"
        changed = [i + 1 for i, (a, b) in enumerate(zip(LINES, lines, strict=True)) if a != b]
        assert changed and m.line <= changed[0] and changed[-1] <= m.end_line, (m.id, changed)
        # One small change, inside the mutated symbol's own body, and never in its docstring.
        assert sum(len(lines[i - 1]) for i in changed) < 400, m.id
        function = functions[m.symbol]
        assert function.lineno < m.line and m.end_line <= function.end_lineno, m.id
        docstring = function.body[0]
        assert m.line > docstring.end_lineno, f"{m.id}: mutates the docstring"


def test_mutants_are_distinct_and_their_ids_unique_and_stable(mutants):
    assert len({m.id for m in mutants}) == len(mutants)
    assert len({m.source for m in mutants}) == len(mutants)
    again = mutate.generate(REFERENCE, CATALOG)
    assert [(m.id, m.source, m.description) for m in again] == [(m.id, m.source, m.description) for m in mutants]
    for m in mutants:
        symbol, line, column, operator = m.id.split(":")
        assert (symbol, operator) == (m.symbol, m.operator) and line.isdigit() and column.isdigit()
        assert m.description.startswith(f"line {m.line}: ") and " -> " in m.description


def test_the_operators_cover_the_brief(mutants):
    operators = {m.operator for m in mutants}
    for expected in ("Add->Sub", "Mult->Div", "Pow->Mult", "MatMult->Mult", "AugAdd->Assign", "AugAdd->AugSub"):
        assert expected in operators
    for expected in ("Gt->GtE", "NotEq->Eq", "USub-dropped", "0->1", "1->0", "1->2", "-1->1", "-1->0", "0.0->1.0"):
        assert expected in operators
    for expected in ("True->False", "axis->0", "axis->None", "keepdims->True", "swap-args-0-1", "drop", "while->if"):
        assert expected in operators
    assert any(o.startswith("drop-arg-") for o in operators)


def _pick(mutants, operator, needle):
    return next(m for m in mutants if m.symbol == "unbroadcast" and m.operator == operator and needle in m.description)


def test_a_sample_of_unbroadcast_mutants_is_graded_killed(mutants):
    sample = [
        _pick(mutants, "0->1", "grad.sum(axis=0) -> grad.sum(axis=1)"),  # sums a kept axis, not the prepended one
        _pick(mutants, "while->if", "while grad.ndim"),  # only one prepended axis summed
        _pick(mutants, "True->False", "keepdims=False"),  # later axis indices shift
    ]
    outcomes = grading.run(sample, CATALOG, jobs=1)
    for outcome in outcomes:
        assert outcome.killed_by == ("unbroadcast",), (outcome.mutant.id, outcome.first_failure)
        assert outcome.first_failure


def _outcome(mutant, killed_by=()):
    return grading.Outcome(mutant, tuple(killed_by), "boom" if killed_by else "")


def test_the_report_counts_killed_survived_and_equivalent(mutants):
    unbroadcast = [m for m in mutants if m.symbol == "unbroadcast"][:4]
    backward = next(m for m in mutants if m.symbol == "Tensor.backward")
    outcomes = [
        _outcome(unbroadcast[0], ["unbroadcast"]),
        _outcome(unbroadcast[1], ["unbroadcast"]),
        _outcome(unbroadcast[2]),
        _outcome(unbroadcast[3]),
        _outcome(backward, ["cotangent"]),
    ]
    listed = [
        report.Equivalent(unbroadcast[3].id, "the same on every input", report.change_of(unbroadcast[3])),
        report.Equivalent(unbroadcast[1].id, "wrongly listed"),
        report.Equivalent("unbroadcast:1:0:gone", "no longer generated"),
        report.Equivalent(unbroadcast[0].id, "listed for another change", "x -> y"),
    ]
    equivalents, stale = report.split_stale(listed, mutants)
    assert [e.id for e in equivalents] == [unbroadcast[3].id, unbroadcast[1].id]
    rows = {row.target: row for row in report.tally(outcomes, equivalents, CATALOG)}
    assert set(rows) == {"unbroadcast", "backward", "cotangent", "free-memory"}
    row = rows["unbroadcast"]
    assert (row.mutants, row.killed, len(row.survived), len(row.equivalent)) == (4, 2, 1, 1)
    assert row.rate == pytest.approx(2 / 3) and not row.meets_goal
    assert all(rows[t].killed == 1 and rows[t].meets_goal for t in ("backward", "cotangent", "free-memory"))
    text = report.report(outcomes, equivalents, CATALOG, "python -m grader.campaign", 1.0, stale)
    assert "| unbroadcast | 4 | 2 | 1 | 1 | 66.7% | **no** |" in text
    assert f"- `{unbroadcast[2].id}`: {unbroadcast[2].description}" in text
    assert "the same on every input" in text
    assert f"`{unbroadcast[1].id}` is listed as equivalent but was killed" in text
    assert "`unbroadcast:1:0:gone` is listed as equivalent but is no longer generated (stale)" in text
    assert f"`{unbroadcast[0].id}` was listed for `x -> y` but now names" in text
    assert "- cotangent: 1" in text


def test_the_committed_equivalents_have_a_reason_each_and_name_current_mutants(mutants):
    listed = report.load_equivalents()
    assert listed and all(e.why.strip() and e.change for e in listed)
    assert len({e.id for e in listed}) == len(listed)
    _, stale = report.split_stale(listed, mutants)
    assert not stale, "reference/engine.py changed: rerun python -m grader.campaign, update grader/campaign.toml"


def test_select_limits_each_target(mutants):
    chosen = mutate.select(mutants, ["unbroadcast", "max"], 3)
    assert [m.symbol for m in chosen] == ["unbroadcast"] * 3 + ["Tensor.max"] * 3
    assert mutate.select(mutants, [], None) == mutants
