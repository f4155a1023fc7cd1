"""The catalog proves itself, as rustlings' `dev check` does: ids, symbols, markers and tests agree."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.catalog import UnknownTarget, find_functions, format_time, parse_time
from grader.run import Report, test_files
from tests.support import CATALOG, REFERENCE, ROOT, run_grader

REFERENCE_FUNCTIONS = find_functions(ast.parse(REFERENCE.read_text(encoding="utf-8")))
DOCS = {"docs/contract.md": "### The targets", "README.md": "## The targets"}


def targets_table(path: str, heading: str) -> dict[str, tuple[list[str], str]]:
    """The targets table under ``heading``: id -> (symbols, target time), ``full``'s row included. The
    README writes a row's later methods without ``Tensor.``; they are read back with it."""
    text = (ROOT / path).read_text(encoding="utf-8").split(heading, 1)[1]
    rows = {}
    for line in text.splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([^`]+)`", cells[1])
        cls = names[0].split(".")[0] + "." if names and "." in names[0] else ""
        symbols = [cls + n if cls and "." not in n and n not in REFERENCE_FUNCTIONS else n for n in names]
        rows[cells[0].strip("`")] = (symbols, cells[2])
    return rows


@pytest.mark.parametrize("path", DOCS)
def test_the_targets_tables_say_what_the_catalog_says(path):
    table = targets_table(path, DOCS[path])
    assert table.pop("full")[1] == format_time(CATALOG.full_time)
    assert table == {t.id: (list(t.symbols), format_time(t.target_time)) for t in CATALOG.targets}, (
        f"{path}: its targets table and grader/catalog.toml disagree (README, Adding a drill)"
    )


def test_the_tables_are_read_whole():
    table = targets_table("docs/contract.md", DOCS["docs/contract.md"])
    assert table["unary"] == (
        ["Tensor.sum", "Tensor.mean", "Tensor.exp", "Tensor.log", "Tensor.relu", "Tensor.sigmoid", "Tensor.tanh"],
        "8:00",
    )
    assert len(table) == len(CATALOG.targets) + 1


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
    assert [t.id for t in CATALOG.extensions] == ["max", "cotangent", "gradcheck", "free-memory", "forward-mode"]
    for target in CATALOG.extensions:
        assert len(target.time_reasoning) > 40, target.id
        assert not set(target.symbols) & set(READING_ONLY)


def test_the_full_drill_has_time_for_every_core_target():
    parts = sum(t.target_time for t in CATALOG.targets)
    assert parts <= CATALOG.full_time <= parts + 5 * 60, (
        f"full's {format_time(CATALOG.full_time)} against {format_time(parts)} for its targets: "
        "grader/catalog.toml, [full] (README, Adding a drill)"
    )
