"""The order a grading runs its tests in (issue 25): a failure early, the verdict in its own order.

Within a target, one case of every test function runs first, then the other cases, then the tests
marked costly; the verdict lists failures in file order all the same (grader/conftest.py). The
deep-chain tests use a chain three times the recursion limit in force, not longer (grader/graphs.py).
"""

import json
import threading
from pathlib import Path

from autograd_drill.grader import shards
from autograd_drill.grader.run import grade_file, pytest_args
from tests.mutants import MUTANTS
from tests.support import CATALOG, REFERENCE_SOURCE

RECURSIVE_TOPO = """
def _topological_order(root):
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order
"""


def _events(engine, targets, tmp_path, runner):
    report = tmp_path / "report.jsonl"
    runner(pytest_args(engine, [CATALOG.get(t) for t in targets], report), 120.0)
    return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def _function(nodeid):
    return nodeid.partition("[")[0]


def test_one_case_of_every_function_runs_first_and_costly_tests_last(tmp_path, warm_runner, monkeypatch):
    # The run order, in one process (in several, each takes the next test in this order: test_shards.py)
    monkeypatch.setenv(shards.SHARDS_ENV, "1")
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE)
    events = _events(engine, ["backward", "arith"], tmp_path, warm_runner)
    collected = next(e["tests"] for e in events if e["event"] == "collected")
    started = [e["nodeid"] for e in events if e["event"] == "start"]
    assert sorted(started) == sorted(collected)
    for target in ("backward", "arith"):
        mine = [n for n in started if target in collected[n]]
        costly = [n for n in mine if "past_the_recursion_limit" in n]
        assert costly == mine[len(mine) - len(costly) :], f"{target}: the costly tests do not run last"
        functions = [_function(n) for n in mine if n not in costly]
        firsts = len(dict.fromkeys(functions))
        assert len(set(functions[:firsts])) == firsts, f"{target}: a second case ran before some function's first"
    # Targets still run in dependency order: all of backward's tests before arith's.
    last_backward = max(i for i, n in enumerate(started) if "backward" in collected[n])
    assert all("arith" in collected[n] for n in started[last_backward + 1 :])


def test_the_verdict_lists_failures_in_file_order(tmp_path, warm_runner):
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE)
    events = _events(engine, ["arith"], tmp_path, warm_runner)
    collected = list(next(e["tests"] for e in events if e["event"] == "collected"))
    files = [n.partition("::")[0] for n in collected]
    assert files == sorted(files, key=files.index)  # each file's tests together, as collected
    started = [e["nodeid"] for e in events if e["event"] == "start"]
    assert started != collected  # the run order differs: the verdict's is kept apart
    for mutant in [m for m in MUTANTS if m.target == "arith"][:3]:
        engine.write_text(mutant.apply(REFERENCE_SOURCE))
        result = grade_file(engine, [CATALOG.get("arith")], runner=warm_runner).get("arith")
        tests = [f.test for f in result.failures]
        assert tests and tests == [n for n in collected if n in tests], mutant.id


def test_a_recursive_order_fails_even_when_it_raises_the_recursion_limit_as_it_runs(tmp_path, warm_runner):
    # On a RecursionError it raises the limit to 3,500 and tries again: a chain of 3 times the limit
    # in force at the start (3,000 ops) would pass; the grader measures again and runs 10,000.
    retrying = RECURSIVE_TOPO.replace("    visit(root)\n", RETRY)
    start = REFERENCE_SOURCE.index("def _topological_order(")
    end = REFERENCE_SOURCE.index("\ndef ", start + 1)
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE[:start] + retrying.strip() + "\n\n" + REFERENCE_SOURCE[end:])
    result = grade_file(engine, [CATALOG.get("backward")], runner=warm_runner).get("backward")
    deep = [f for f in result.failures if "past_the_recursion_limit" in f.test]
    assert len(deep) == 2 and all(f.symbol == "_topological_order" for f in deep), result.messages
    assert all("RecursionError" in f.message for f in deep)


RETRY = """    import sys

    try:
        visit(root)
    except RecursionError:
        sys.setrecursionlimit(3500)
        order.clear(), seen.clear()
        visit(root)
"""


def test_the_first_failure_is_told_while_the_grading_runs(tmp_path, warm_runner):
    # Told once, before the verdict; a correct engine: never.
    mutant = next(m for m in MUTANTS if m.target == "arith")
    engine = tmp_path / "engine.py"
    engine.write_text(mutant.apply(REFERENCE_SOURCE))
    told = []
    result = grade_file(engine, [CATALOG.get("arith")], runner=warm_runner, on_failure=told.append).get("arith")
    assert len(told) == 1 and told[0].test in {f.test for f in result.failures}
    assert told[0].symbol == mutant.symbol and told[0].message
    engine.write_text(REFERENCE_SOURCE)
    told.clear()
    assert grade_file(engine, [CATALOG.get("arith")], runner=warm_runner, on_failure=told.append).passed
    assert told == []


def test_the_first_failure_is_told_before_the_grading_ends(tmp_path):
    # A runner that reports a failure, then waits to hear of it before it ends the grading.
    heard, in_time = threading.Event(), []

    def runner(args, timeout, stalled=None):
        report = Path(next(a for a in args if a.startswith("--report-json=")).partition("=")[2])
        result = {"event": "result", "nodeid": "t.py::test_a", "targets": ["arith"], "outcome": "failed"}
        lines = [{"event": "collected", "tests": {"t.py::test_a": ["arith"], "t.py::test_b": ["arith"]}}]
        lines.append({**result, "message": "Tensor.__add__ [x]: wrong", "failure": None, "output": "", "duration": 0})
        report.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        in_time.append(heard.wait(20))
        with report.open("a", encoding="utf-8") as f:
            f.write(json.dumps({**result, "nodeid": "t.py::test_b", "outcome": "passed", "message": ""}) + "\n")
            f.write(json.dumps({"event": "finished", "notes": []}) + "\n")
        return 0, ""

    told = []

    def tell(failure):
        told.append(failure)
        heard.set()

    result = grade_file(tmp_path / "engine.py", [CATALOG.get("arith")], runner=runner, on_failure=tell)
    assert in_time == [True] and [f.test for f in told] == ["t.py::test_a"] == [
        f.test for f in result.get("arith").failures
    ]
