"""The catalog proves itself, as rustlings' `dev check` does: ids, symbols, markers and tests agree."""

import ast
import dataclasses
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from autograd_drill import cli
from autograd_drill.grader.catalog import UnknownTarget, find_functions, format_time, parse_time
from autograd_drill.grader.run import Report, test_files
from tests.support import CATALOG, REFERENCE, ROOT, drill, run_grader

TABLES = ROOT / "docs" / "make_tables.py"
CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
OPERATORS = {"__add__": "+", "__mul__": "*", "__pow__": "**", "__matmul__": "@", "__sub__": "-", "__truediv__": "/"}


def test_the_tables_drawn_from_the_catalog_are_current():
    done = subprocess.run([sys.executable, str(TABLES), "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"{done.stdout}{done.stderr}regenerate them with  python docs/make_tables.py"


def test_a_new_target_is_a_new_row_of_every_targets_table():
    """The check can fail: a catalog with one more core target and one more follow-up draws rows
    that the README and the contract do not have."""
    spec = importlib.util.spec_from_file_location("make_tables", TABLES)
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    new = dataclasses.replace(CATALOG.get("unary"), id="abs", marker="abs", symbols=("Tensor.abs",))
    follow = dataclasses.replace(CATALOG.get("max"), id="min", marker="min", symbols=("Tensor.min",), summary="min")
    bigger = dataclasses.replace(CATALOG, targets=(*CATALOG.targets, new), extensions=(*CATALOG.extensions, follow))
    for path, drawn in tables.TABLES.items():
        text = path.read_text(encoding="utf-8")
        redrawn = tables.regenerated(text, drawn, bigger)
        assert redrawn != text and "| `abs` | `Tensor.abs` | 8:00 |" in redrawn, path
        assert tables.regenerated(text, drawn, CATALOG) == text, path
    assert "| `min` | `Tensor.min`: min | 6:00 |" in tables.regenerated(
        tables.README.read_text(), tables.TABLES[tables.README], bigger
    )


def test_the_help_texts_take_their_times_from_the_catalog():
    """No help text says a time (``45:00``, ``45-minute``) that the catalog does not set: ``drill full``'s
    help reads its time from ``[full]``."""
    times = {format_time(t.target_time) for t in CATALOG.every} | {format_time(CATALOG.full_time)}
    for command in ["", *sorted(typer.main.get_command(cli.app).commands)]:  # type: ignore[attr-defined]
        output = " ".join(drill(*command.split(), "--help").output.split())
        assert not re.findall(r"\d+-minute", output), f"drill {command} --help: a time not read from the catalog"
        assert set(re.findall(r"\b\d+:\d\d\b", output)) <= times, f"drill {command} --help"
    assert f"{format_time(CATALOG.full_time)} to beat" in " ".join(drill("full", "--help").output.split())


def _named(symbol: str, text: str) -> bool:
    """Whether ``text`` names ``symbol`` in backquotes: its name (``sum``), its operator for a dunder
    (``a + b``), or its class called for ``__init__`` (``Tensor(data, ...)``)."""
    cls, _, name = symbol.rpartition(".")
    spelled = [re.escape(name)] + ([re.escape(OPERATORS[name])] if name in OPERATORS else [])
    spelled += [re.escape(cls) + r"\("] if name == "__init__" else []
    return any(re.search(rf"`[^`\n]*(?<![\w*]){s}(?![\w*])", text) for s in spelled)


def _section(heading: str) -> str:
    return CONTRACT.split(heading, 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("symbol", [s for t in CATALOG.targets for s in t.symbols])
def test_the_contract_describes_every_core_symbol_and_its_skeleton_lists_it(symbol):
    """docs/contract.md is written by hand, the op it describes by the catalog: each core symbol has
    its place in the description of the engine (before the follow-ups) and in the skeleton (written out
    or in its closing list of ops)."""
    described = CONTRACT.split("## Follow-ups", 1)[0]
    assert _named(symbol, described), f"docs/contract.md: describe {symbol} with the ops (README, Adding a drill)"
    skeleton = _section("## A skeleton").split("```python", 1)[1].split("```", 1)[0]
    name = symbol.rpartition(".")[2]
    assert re.search(rf"(?<!\w){re.escape(name)}(?!\w)", skeleton), f"docs/contract.md: the skeleton lacks {name}"
    top = symbol.split(".")[0]
    assert f"`{top}`" in _section("## A solution file").split("\n\n", 2)[1], f"A solution file: name `{top}`"


@pytest.mark.parametrize("target", CATALOG.extensions, ids=lambda t: t.id)
def test_the_contract_has_a_row_for_every_follow_up(target):
    rows = [line for line in _section("## Follow-ups").splitlines() if line.startswith(f"| `{target.id}` |")]
    assert len(rows) == 1, f"docs/contract.md, Follow-ups: one row for {target.id} (README, Adding a drill)"
    missing = [s for s in target.symbols if not _named(s, rows[0])]
    assert not missing, f"docs/contract.md, Follow-ups: {target.id}'s row does not name {', '.join(missing)}"


READING_ONLY = [
    "_as_tensor",
    "Tensor.__radd__",
    "Tensor.__rsub__",
    "Tensor.__rmul__",
    "Tensor.__rtruediv__",
    "Tensor.__neg__",
    "Tensor.__sub__",
    "Tensor.__truediv__",
    "Tensor.__repr__",
    "Tensor.shape",
    "Tensor.T",
    "Tensor.zero_grad",
]


def test_ids_and_markers_are_unique_identifiers():
    ids = [t.id for t in CATALOG.targets]
    markers = [t.marker for t in CATALOG.targets]
    assert len(set(ids)) == len(ids) and len(set(markers)) == len(markers)
    assert all(re.fullmatch(r"[a-z][a-z_]*", m) for m in markers)


def test_every_symbol_is_a_documented_function_of_the_reference():
    functions = find_functions(ast.parse(REFERENCE.read_text()))
    symbols = [s for t in CATALOG.targets for s in t.symbols]
    assert len(symbols) == len(set(symbols)), "a symbol belongs to one core target"
    for symbol in symbols + [s for t in CATALOG.extensions for s in t.symbols]:
        assert symbol in functions, symbol
        assert ast.get_docstring(functions[symbol]), f"{symbol} needs a docstring: its stub keeps it"
    blanked = set(symbols)
    assert not blanked & set(READING_ONLY)


def test_needs_point_to_earlier_targets_and_hints_exist():
    seen = set()
    for target in CATALOG.every:
        assert set(target.needs) <= seen, f"{target.id} needs a target listed after it"
        owners = [CATALOG.owner(s) for s in target.runs]
        assert all(o is not None and o != target for o in owners), f"{target.id} runs: symbols of other targets"
        assert len(target.hints) >= 3 and target.summary
        seen.add(target.id)


@pytest.mark.parametrize("text,seconds", [("5:00", 300), ("0:59", 59), ("45:00", 2700)])
def test_times(text, seconds):
    assert parse_time(text) == seconds and format_time(seconds) == text
    assert format_time(-132) == "-2:12"


@pytest.mark.parametrize("bad", ["5", "5:0", "5:60", "a:00", ""])
def test_bad_times_are_rejected(bad):
    with pytest.raises(ValueError, match="m:ss"):
        parse_time(bad)


def test_unknown_target_suggests_the_closest():
    with pytest.raises(UnknownTarget, match="Did you mean 'cross-entropy'"):
        CATALOG.get("crossentropy")


@pytest.fixture(scope="module")
def targets_of(tmp_path_factory):
    """Every grader test's node id, with the targets its markers give it (one collection, via --report-json)."""
    report = tmp_path_factory.mktemp("collect") / "report.jsonl"
    proc = run_grader("--collect-only", "--report-json", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return Report(report).read().collected


def test_every_grader_test_belongs_to_exactly_one_target(targets_of):
    assert len(targets_of) > 300
    for nodeid, (target,) in ((n, t) for n, t in targets_of.items() if len(t) == 1):
        files = {Path(f).name for f in test_files([CATALOG.get(target)])}
        assert nodeid.split("::")[0] in files, f"{nodeid}: a target's tests live in {', '.join(sorted(files))}"
    assert all(len(targets) == 1 for targets in targets_of.values()), [n for n, t in targets_of.items() if len(t) != 1]


def own_tests(symbol: str) -> tuple[str, str]:
    """The names a symbol's own tests start with (README, Adding a drill): ``test_<name>`` or
    ``test_op_<name>``, its name without the class and the underscores (``Tensor.__add__``: ``add``)."""
    name = symbol.rpartition(".")[2].strip("_")
    return f"test_{name}", f"test_op_{name}"


@pytest.mark.parametrize("target", CATALOG.targets, ids=lambda t: t.id)
def test_each_target_selection_covers_every_symbol(target, targets_of):
    names = {nodeid.split("::")[1].split("[")[0] for nodeid, ts in targets_of.items() if target.id in ts}
    for symbol in target.symbols:
        assert any(n.startswith(own_tests(symbol)) for n in names), f"no test of {symbol} in -m {target.marker}"


CLASSIC_SELECTIONS = [
    "unbroadcast",
    "twice or diamond",
    "op_add or op_pow or op_matmul or batched",
    "op_sum or op_exp or op_relu or op_sigmoid",
    "op_softmax or op_log_softmax or op_reshape",
    "cross_entropy_helper",
]

SELECTED = """\
import json, sys

import pytest

counts = {}
for selection in json.loads(sys.argv[1]):
    class Count:
        def pytest_collection_finish(self, session):
            counts[selection] = len(session.items)  # after -k has deselected

    status = pytest.main(["grader", "-p", "no:cacheprovider", "--collect-only", "-q", "-k", selection], plugins=[Count()])
    if status not in (0, 5):  # 5: nothing selected, which its test reports
        sys.exit(f"pytest --collect-only -k {selection!r} exited {status}")
print("SELECTED " + json.dumps(counts))
"""


@pytest.fixture(scope="module")
def selected() -> dict[str, int]:
    """How many grader tests each classic selection selects: ``pytest grader --collect-only -k SELECTION``
    for each, all in one child interpreter (pytest.main once a selection), not one interpreter each."""
    proc = subprocess.run(
        [sys.executable, "-c", SELECTED, json.dumps(CLASSIC_SELECTIONS)], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("SELECTED ")]
    return json.loads(line.removeprefix("SELECTED "))


@pytest.mark.parametrize("selection", CLASSIC_SELECTIONS)
def test_classic_selections_select_tests(selection, selected):
    assert selected[selection] >= 1


def test_follow_ups_explain_their_target_times():
    assert CATALOG.extensions, "grader/catalog.toml: the follow-ups, extension = true"
    for target in CATALOG.extensions:
        assert len(target.time_reasoning) > 40, target.id
        assert not set(target.symbols) & set(READING_ONLY)


def test_the_full_drill_has_time_for_every_core_target():
    parts = sum(t.target_time for t in CATALOG.targets)
    assert parts <= CATALOG.full_time <= parts + 5 * 60, (
        f"full's {format_time(CATALOG.full_time)} against {format_time(parts)} for its targets: "
        "grader/catalog.toml, [full] (README, Adding a drill)"
    )
