"""One grading in several processes (grader/shards.py): every test run once, in one of them; a copy
that dies, hangs or prints ends the grading as one process would, naming the test it was in."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from autograd_drill.grader import shards
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.process import run_in_subprocess
from autograd_drill.grader.run import Limits, grade_file, pytest_args
from tests.support import REFERENCE_SOURCE

CATALOG = load_catalog()
EXP_BODY = '        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")\n'


SLOW = "import time\ntime.sleep(0.05)"
"""What the grading itself runs in exp, by default: slow there, it leaves a copy some of exp's tests."""


def in_copies_exp(code: str, elsewhere: str = SLOW) -> str:
    """The reference, whose ``Tensor.exp`` runs ``code`` first in a copy of the grading (a process
    other than the one that imported the file), and ``elsewhere`` in the grading itself."""
    assert REFERENCE_SOURCE.count(EXP_BODY) == 1 and REFERENCE_SOURCE.count("import numpy as np\n") == 1
    source = REFERENCE_SOURCE.replace(
        "import numpy as np\n", "import numpy as np\nimport os as _os\n\n_ROOT = _os.getpid()\n"
    )
    inserted = "        if _os.getpid() != _ROOT:\n" + "".join(f"            {line}\n" for line in code.splitlines())
    inserted += "        else:\n" + "".join(f"            {line}\n" for line in elsewhere.splitlines())
    return source.replace(EXP_BODY, inserted + EXP_BODY)


@pytest.fixture
def two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shards.SHARDS_ENV, "2")


def graded(tmp_path: Path, source: str, *targets: str, **limits: float) -> object:
    file = tmp_path / "engine.py"
    file.write_text(source, encoding="utf-8")
    chosen = [CATALOG.get(t) for t in targets]
    return grade_file(file, chosen, runner=run_in_subprocess, limits=Limits(**limits) if limits else None)


def test_every_test_runs_once_in_one_of_the_processes(tmp_path: Path, two: None) -> None:
    report, engine = tmp_path / "report.jsonl", tmp_path / "engine.py"
    engine.write_text(
        in_copies_exp("pass", "import time\ntime.sleep(0.02)")
    )  # the grading slow: the copy takes its part
    targets = [CATALOG.get("unbroadcast"), CATALOG.get("unary")]
    status, output = run_in_subprocess(pytest_args(engine, targets, report), 300)
    assert status == 0, output
    events = [json.loads(line) for line in report.read_text().splitlines()]
    (named,) = [e for e in events if e["event"] == "shards"]
    copy = [json.loads(line) for line in Path(named["files"][0]).read_text().splitlines()]
    collected = next(e["tests"] for e in events if e["event"] == "collected")
    started = [e["nodeid"] for e in events + copy if e["event"] == "start"]
    assert sorted(started) == sorted(collected), "each test started exactly once"
    assert any(e["event"] == "start" for e in copy), "the copy ran tests"
    passed = [e["nodeid"] for e in events + copy if e["event"] == "result" and e["outcome"] == "passed"]
    assert sorted(passed) == sorted(collected)
    assert copy[-1]["event"] == "shard-done" and events[-1]["event"] == "finished"


def test_one_process_and_two_give_the_same_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = REFERENCE_SOURCE.replace("self.grad += out.data * out.grad", "self.grad += out.grad")
    verdicts = []
    for n in ("1", "2"):
        monkeypatch.setenv(shards.SHARDS_ENV, n)
        result = graded(tmp_path, wrong, "unbroadcast", "unary")
        verdicts.append([(t.target, t.tests, t.failed, sorted(f.test for f in t.failures)) for t in result.targets])
    assert verdicts[0] == verdicts[1]
    assert verdicts[0][1][2] > 0, "the wrong exp fails"


def until_the_copy_ended(ends: str, marker: Path) -> str:
    """The reference whose copy of the grading runs ``ends`` (it exits, or kills itself) at its first
    exp, a mark left first in ``marker``; the grading itself is SLOW in exp until that mark is there,
    and then quick: the tests it has left to run take no 0.05 s each once the copy is gone."""
    return in_copies_exp(
        f"open({str(marker)!r}, 'w').close()\n{ends}",
        f"if not _os.path.exists({str(marker)!r}):\n" + "".join(f"    {line}\n" for line in SLOW.splitlines()),
    )


def test_a_copy_that_exits_ends_the_grading_naming_its_test(tmp_path: Path, two: None) -> None:
    result = graded(tmp_path, until_the_copy_ended("_os._exit(3)", tmp_path / "ended"), "unbroadcast", "unary")
    unbroadcast, unary = result.targets
    assert unbroadcast.passed
    assert unary.failed == 1, unary
    failure = unary.failures[0]
    # the test the copy was running when it exited: exp's own, or a random graph that drew exp (which of
    # them the copy takes first depends on which process is free first)
    assert "exp" in failure.test or "random_graph" in failure.test, failure.test
    assert "ended with status 3 in the middle of the tests" in failure.message


def test_a_copy_killed_by_a_signal_is_named(tmp_path: Path, two: None) -> None:
    killed = until_the_copy_ended(f"_os.kill(_os.getpid(), {int(signal.SIGSEGV)})", tmp_path / "ended")
    result = graded(tmp_path, killed, "unary")
    (unary,) = result.targets
    assert unary.failed == 1 and "segmentation fault" in unary.failures[0].message, unary


def test_a_copy_past_its_time_limit_stops_its_target(tmp_path: Path, two: None) -> None:
    result = graded(tmp_path, in_copies_exp("while True:\n    pass"), "unary", test_seconds=1.0)
    (unary,) = result.targets
    assert any("took longer than 1 s" in f.message for f in unary.failures), unary
    assert unary.not_run > 0 and "ran past its time limit" in unary.not_run_reason


def test_what_a_copy_writes_to_its_descriptors_stays_with_its_test(tmp_path: Path, two: None) -> None:
    says = "import time\ntime.sleep(0.02)\n_os.write(1, b'from the {}\\n' * 200)\nreturn self * 0"
    result = graded(tmp_path, in_copies_exp(says.format("copy"), says.format("grading")), "unary")
    (unary,) = result.targets
    assert unary.failed > 1
    for failure in unary.failures:  # each test's own output, whole, whichever process ran it
        assert sorted(set(failure.output.splitlines())) in (["from the copy"], ["from the grading"]), failure.output
    assert {f.output.splitlines()[0] for f in unary.failures} == {"from the copy", "from the grading"}


def test_timeouts_are_seen_by_every_process() -> None:
    timeouts = shards.Timeouts(["unary", "softmax"])
    pid = os.fork()
    if pid == 0:
        timeouts.setdefault("softmax", "test_softmax_rows[3]")
        os._exit(0)
    os.waitpid(pid, 0)
    assert "unary" not in timeouts and timeouts["softmax"] == "test_softmax_rows[3]"
    assert timeouts.setdefault("softmax", "another") == "test_softmax_rows[3]"


def test_the_queue_gives_each_test_once_in_the_run_order() -> None:
    queue = shards.Queue(list(range(300)))  # type: ignore[arg-type]
    pid = os.fork()
    if pid == 0:  # a copy takes every other test meanwhile, and tells which
        taken = []
        while (item := queue.take()) is not None:
            taken.append(item)
        os._exit(0 if taken == sorted(taken) else 1)
    mine = []
    while (item := queue.take()) is not None:
        mine.append(item)
    _, status = os.waitpid(pid, 0)
    assert status == 0 and mine == sorted(mine) and len(set(mine)) == len(mine)
    assert queue.take() is None
