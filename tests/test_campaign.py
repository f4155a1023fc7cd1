"""The mutation campaign's mutator (grader/campaign/): its mutants are real, single, stable changes
of the catalog's functions; a small sample is graded for real; the report counts what it should."""

import ast
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_drill.grader import packs
from autograd_drill.grader.campaign import grading, mutate, operators, report, subject
from autograd_drill.grader.catalog import find_functions
from tests import layers_pack
from tests.support import CATALOG, REFERENCE, ROOT, without_torch
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
    """Each mutant changes lines inside one function's body only, and that function still compiles: so
    the whole mutant does (the rest of it is the reference, line for line). Compiling the function
    alone, not the whole file, keeps this a fraction of a second for the 1,000-odd mutants."""
    functions = find_functions(ast.parse(SOURCE))
    for m in mutants:
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
        first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
        depth = function.col_offset  # a method: compiled inside blocks as deep as its class
        blocks = "".join(" " * column + "if True:\n" for column in range(0, depth, 4))
        compile(blocks + "".join(lines[first - 1 : function.end_lineno]), m.id, "exec")


def test_mutants_are_distinct_and_their_ids_unique_and_stable(mutants):
    assert len({m.id for m in mutants}) == len(mutants)
    assert len({m.source for m in mutants}) == len(mutants)
    again = mutate.generate(REFERENCE, CATALOG)
    assert [(m.id, m.source, m.description) for m in again] == [(m.id, m.source, m.description) for m in mutants]
    for m in mutants:
        symbol, line, column, operator = m.id.split(":")
        assert (symbol, operator) == (m.symbol, m.operator) and line.isdigit() and column.isdigit()
        assert m.description.startswith(f"line {m.line}: ") and " -> " in m.description


SNIPPETS = [
    "x = a + 1",
    "x = a + 1  # the same code, a comment aside",
    "x = (a\n     + 1)",
    "x = a + 1.0",
    "x = a + True",
    "x = a - 1",
    "x = b + 1",
    "y = a + 1",
    "x = a + 1; y = 2",
    "x = 0.0",
    "x = -0.0",
    "x = float('nan')",
    "return",
    "return None",
    "f(a, axis=0)",
    "f(a, axis=None)",
    "f(a)",
    "f(a, 0)",
]


def test_mutants_are_compared_with_the_tree_as_ast_dump_compares_them():
    """grader/campaign/operators.py's same_tree, which tells a candidate text of a mutant from the
    mutated tree, agrees with ``ast.dump(a) == ast.dump(b)`` on every pair: positions and comments
    aside, 1, 1.0 and True differ, as do 0.0 and -0.0, a bare return and ``return None``; two NaNs do not."""
    trees = [ast.parse(f"def f():\n    {s.replace(chr(10), chr(10) + '    ')}\n").body[0] for s in SNIPPETS]
    for a, text_a in zip(trees, SNIPPETS, strict=True):
        for b, text_b in zip(trees, SNIPPETS, strict=True):
            assert operators.same_tree(a, b) == (ast.dump(a) == ast.dump(b)), (text_a, text_b)
    assert sum(operators.same_tree(trees[0], b) for b in trees) == 3  # itself, with a comment, on two lines
    # Values an operator may make that no source spells: compared by their repr, as the dump writes them.
    zero, negative_zero, nan = (ast.Constant(value=v) for v in (0.0, -0.0, float("nan")))
    assert not operators.same_tree(zero, negative_zero) and operators.same_tree(nan, ast.Constant(value=float("nan")))


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


def test_a_sample_of_unbroadcast_mutants_is_graded_killed(mutants, tmp_path, monkeypatch):
    """Graded for real by the campaign's warm worker, from the recording alone: torch not importable
    (the worker's ``import torch`` would be most of the cost; the recording answers every case of
    unbroadcast, and tests/test_oracle.py checks that it is live torch's answers)."""
    monkeypatch.setenv("PYTHONPATH", without_torch(tmp_path / "no-torch")["PYTHONPATH"])
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
    text = report.report(outcomes, equivalents, CATALOG, "python -m autograd_drill.grader.campaign", 1.0, stale)
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
    assert not stale, (
        "reference/engine.py changed: rerun python -m autograd_drill.grader.campaign, update grader/campaign.toml"
    )


def test_select_limits_each_target(mutants):
    chosen = mutate.select(mutants, ["unbroadcast", "max"], 3)
    assert [m.symbol for m in chosen] == ["unbroadcast"] * 3 + ["Tensor.max"] * 3
    assert mutate.select(mutants, [], None) == mutants


# ------------------------------------------------------------------------------ the later operators

EXAMPLE = '''import numpy as np


def f(grad, shape):
    """Doc."""
    grad = np.array(grad, dtype=np.float64)
    for axis in range(len(shape)):
        grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


class Box:
    def g(self, other):
        """Doc."""
        out = self.data.copy()

        def _backward():
            self.grad += np.array(out, copy=True)
            other.grad += np.copy(out)

        return _backward
'''


@pytest.fixture(scope="module")
def example():
    """The mutants of EXAMPLE, as {id: the changed lines, stripped}."""
    target = dataclasses.replace(CATALOG.targets[0], symbols=("f", "Box.g"))
    catalog = dataclasses.replace(CATALOG, targets=(target,), extensions=())
    found = mutate.generate(Path("example.py"), catalog, EXAMPLE)
    old = EXAMPLE.splitlines()
    return {m.id: [b.strip() for a, b in zip(old, m.source.splitlines(), strict=True) if a != b] for m in found}


@pytest.mark.parametrize(
    ("mutant", "line"),
    [
        # An early return: at the top of a function, a bare one and the fast path `return <first parameter>`.
        ("f:1:4:insert-return", "return; grad = np.array(grad, dtype=np.float64)"),
        ("f:1:4:insert-return-grad", "return grad; grad = np.array(grad, dtype=np.float64)"),
        # Before a compound statement (the loop): on the line of the statement before it.
        ("f:2:4:insert-return-grad", "grad = np.array(grad, dtype=np.float64); return grad"),
        # At the end of a loop's body: it returns after one pass.
        ("f:3:8:append-return", "grad = grad.sum(axis=axis, keepdims=True); return"),
        # The fast path returning the name bound last, and `return self` in a method.
        ("Box.g:3:8:insert-return-out", "out = self.data.copy(); return out"),
        ("Box.g:1:8:insert-return-self", "return self; out = self.data.copy()"),
        # Inside a nested _backward: before the second parent's accumulation.
        ("Box.g:5:12:insert-return", "return; other.grad += np.copy(out)"),
        # A local or a parameter replaced by a constant.
        ("f:2:26:name->0", "for axis in range(len(0)):"),
        ("f:4:24:name->None", "return grad.reshape(None)"),
        ("Box.g:4:34:name->1", "self.grad += np.array(1, copy=True)"),
        # Any argument of any call dropped, positional or keyword.
        ("f:2:22:call-drop-arg-0", "for axis in range():"),
        ("f:3:24:call-drop-kw-keepdims", "grad = grad.sum(axis=axis)"),
        ("f:1:20:call-drop-kw-dtype", "grad = np.array(grad)"),
        # A copy made an alias.
        ("f:1:11:array->asarray", "grad = np.asarray(grad, dtype=np.float64)"),
        ("f:1:11:array->alias", "grad = grad"),
        ("Box.g:1:14:copy->alias", "out = self.data"),
        ("Box.g:5:26:copy->alias", "other.grad += out"),
        ("Box.g:4:44:copy=True->False", "self.grad += np.array(out, copy=False)"),
    ],
)
def test_each_later_operator_makes_the_expected_mutant(example, mutant, line):
    assert example[mutant] == [line]


def test_the_later_operators_leave_module_names_builtins_and_objects_alone(example):
    # Only the Loads of grad, shape, axis and out are replaced: never np, range or len, nor self or
    # grad as the object of an attribute (0.data only crashes), nor what a loop runs over.
    named = {mutant.rsplit(":", 1)[0] for mutant in example if ":name->" in mutant}
    assert named == {"f:1:20", "f:2:26", "f:3:29", "f:4:24", "Box.g:4:34", "Box.g:5:34"}
    # No return before a return (drop-call does that), none at the end of the function's body.
    assert not [m for m in example if m.startswith("Box.g:7:") and "-return" in m]
    assert not [m for m in example if m.startswith("f:") and m.endswith("append-return") and not m.startswith("f:3:")]


def test_the_earlier_operators_come_first_so_their_ids_stay(example):
    # axis=axis -> axis=0 is the keyword operator's mutant, not name->0's (which would be the same text).
    assert example["f:3:29:axis->0"] == ["grad = grad.sum(axis=0, keepdims=True)"]
    assert "f:3:29:name->0" not in example


def test_the_report_has_a_table_per_operator_family(mutants):
    picked = {
        op: next(m for m in mutants if m.operator == op) for op in ("insert-return", "name->0", "Add->Sub", "drop")
    }
    outcomes = [
        _outcome(picked["insert-return"], picked["insert-return"].targets[:1]),
        _outcome(picked["name->0"]),
        _outcome(picked["Add->Sub"], picked["Add->Sub"].targets[:1]),
        _outcome(picked["drop"]),
    ]
    equivalents = [report.Equivalent(picked["drop"].id, "the same", report.change_of(picked["drop"]))]
    text = report.report(outcomes, equivalents, CATALOG, "python -m autograd_drill.grader.campaign", 1.0)
    assert "| operator | mutants | killed | survived | equivalent | kill rate |" in text
    assert "| early return inserted | 1 | 1 | 0 | 0 | 100.0% |" in text
    assert "| name -> constant | 1 | 0 | 1 | 0 | 0.0% |" in text
    assert "| arithmetic operator | 1 | 1 | 0 | 0 | 100.0% |" in text
    assert "| statement dropped | 1 | 0 | 0 | 1 | 100.0% |" in text
    families = {operators.family(m.operator) for m in mutants}
    for expected in ("early return inserted", "name -> constant", "any call's argument dropped", "copy -> alias"):
        assert expected in families


# ------------------------------------------------------------------------------ another pack's campaign


def test_the_pack_is_found_by_folder_by_name_from_the_clone_and_installed(tmp_path, monkeypatch):
    """``--pack``: the autograd pack by default; a pack's folder as a path; a name, installed (which
    wins) or else packs/NAME/ of this clone; anything else is no pack."""
    own = subject.find(None)
    assert own.suite is None and own.reference == REFERENCE and own.report.name == "campaign-report.md"
    assert subject.find("autograd") == own
    monkeypatch.chdir(ROOT)
    by_folder = subject.find("packs/layers/autograd_drill_layers")
    assert by_folder.suite == layers_pack.SUITE and by_folder.name == "layers"
    assert by_folder.report == layers_pack.PACKAGE / "campaign-report.md"
    assert by_folder.equivalents == layers_pack.PACKAGE / "campaign.toml"
    monkeypatch.setattr(packs, "installed", lambda: (packs.builtin(),))
    from_clone = subject.find("layers")
    assert from_clone.suite == layers_pack.SUITE and from_clone.name == "layers"
    copy = tmp_path / "autograd_drill_layers"
    shutil.copytree(layers_pack.PACKAGE, copy)
    fields = {
        "catalog": "catalog.toml",
        "reference": "reference.py",
        "tests": "tests",
        "recording": "recorded/oracle.npz",
    }
    fields |= {"reviews": "reviews.toml", "questions": "questions.toml"}
    pack = packs.Pack(name="layers", title="t", version="0", root=copy, **{k: copy / v for k, v in fields.items()})
    monkeypatch.setattr(packs, "installed", lambda: (packs.builtin(), pack))
    assert subject.find("layers").reference == copy / "reference.py"
    with pytest.raises(subject.NoSuchPack, match="no pack named nope"):
        subject.find("nope")
    with pytest.raises(subject.NoSuchPack, match="not a pack's folder"):
        subject.find(str(tmp_path))


def test_the_layers_equivalents_have_a_reason_each_and_name_current_mutants():
    """packs/layers/autograd_drill_layers/campaign.toml argues each of its equivalents and names mutants
    the layers reference still makes; every catalog symbol of the pack has mutants."""
    layers = subject.find("layers")
    mutants = mutate.generate(layers.reference, layers_pack.CATALOG)
    assert {m.symbol for m in mutants} == {s for t in layers_pack.CATALOG.every for s in t.symbols}
    listed = report.load_equivalents(layers.equivalents)
    assert listed and all(e.why.strip() and e.change for e in listed)
    _, stale = report.split_stale(listed, mutants)
    assert not stale, "the layers reference changed: rerun the campaign with --pack layers, update its campaign.toml"


def test_a_small_campaign_of_a_layers_target_grades_with_the_packs_tests(tmp_path):
    """The command as a maintainer runs it, from the clone: three mutants of layernorm, graded by the
    pack's oracle tests (their kills), reported in the pack's words; the autograd report is not touched.
    From the pack's recording alone (torch not importable: its import would be most of the cost)."""
    before = (ROOT / "grader" / "campaign-report.md").read_bytes()
    written = tmp_path / "report.md"
    args = ["--pack", "packs/layers/autograd_drill_layers", "--target", "layernorm", "--limit", "3", "--jobs", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "autograd_drill.grader.campaign", *args, "--report", str(written), "--check"],
        cwd=ROOT,
        env=without_torch(tmp_path / "no-torch"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = written.read_text(encoding="utf-8")
    assert text.startswith("# Mutation campaign of the layers pack")
    assert "| layernorm | 3 | 3 | 0 | 0 | 100.0% | yes |" in text
    assert "packs/layers/autograd_drill_layers/reference.py" in text and "reference/engine.py" not in text
    assert "layernorm" in done.stderr and (ROOT / "grader" / "campaign-report.md").read_bytes() == before
