"""Broken, hostile and unlucky: every case of issue 5 gets a clear verdict, a clean exit, and leaves
the timer and the history intact. Solutions are graded in real child processes, as users run them:
``drill grade`` in a child of its own, with its own grading interpreter, where the case is about the
grading process (it loops, recurses without end, exits, crashes, exhausts memory or floods its
output); where it is about what the verdict says of a file (it does not compile, import or define
what it should, imports what is refused, exits by SystemExit, writes to its inputs), ``drill grade``
in process, its grading in a fork of the warm worker (tests/conftest.py: the same grading in a child
process, without two interpreters started for it)."""

from __future__ import annotations

import heapq
import json
import os
import random
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograd_drill.loop.stubs import stub_for
from tests.processes import UNBROADCAST_BODY, in_unbroadcast
from tests.support import REFERENCE_SOURCE as SOURCE
from tests.support import (
    drill,
    home_in,
    human_report,
    refused,
    run_drill,
    said,
    spawn_drill,
)

"""The unbroadcast target's tests: one call of the user's unbroadcast each."""

EXP_BODY = '        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")\n'
LOOP_LIMITS = {"DRILL_TEST_TIMEOUT": "0.5", "DRILL_CHECK_TIMEOUT": "60"}
"""The limits of a grading whose verdict is the limit's (an infinite loop): the test's stops the loop,
and only the loop's test runs (its target's others are not run once it is stopped). Every other
grading here has the suite's (tests/conftest.py, GRADING_LIMITS), which a loaded machine cannot
reach: a case that passes (10 MB printed a test) passed at 1.5 s only where the machine was idle."""


def in_exp(code: str) -> str:
    assert SOURCE.count(EXP_BODY) == 1
    return SOURCE.replace(EXP_BODY, "".join(f"        {line}\n" for line in code.splitlines()) + EXP_BODY)


# A correct unbroadcast that then vandalizes the array it was given: the expected values must not
# suffer (the grader hands out copies); only the test that checks the input is left alone fails.
MUTATES = SOURCE.replace(UNBROADCAST_BODY, "    original = grad\n" + UNBROADCAST_BODY, 1).replace(
    "    return grad.reshape(shape)\n",
    "    result = grad.reshape(shape).copy()\n"
    "    if isinstance(original, np.ndarray) and original.ndim:\n"
    "        original[...] = np.nan\n"
    "    return result\n",
    1,
)


@dataclass(frozen=True)
class Case:
    id: str
    source: str | bytes
    target: str
    says: tuple[str, ...]
    """What the verdict must say (each, in the human report)."""
    passes: bool = False
    process: bool = False
    """About the grading process (it ends, hangs or floods): graded by ``drill grade`` in a real child."""
    limited: bool = False
    """Its verdict is the test limit's: graded with LOOP_LIMITS."""


CASES = [
    Case(
        "syntax-error",
        SOURCE.replace("def _reduced_axes(", "def _reduced_axes(:\ndef x(", 1),
        "unbroadcast",
        ("SyntaxError at {file}:",),  # the path as given, then the line
    ),
    Case(
        "import-error",
        SOURCE.replace("import numpy as np\n", "import numpy as np\nimport no_such_module_for_drill\n", 1),
        "unbroadcast",
        ("could not import", "ModuleNotFoundError", "no_such_module_for_drill"),
    ),
    Case("not-implemented", stub_for(["unbroadcast"], "target unbroadcast"), "unbroadcast", ("not written yet",)),
    Case(
        "infinite-loop",
        in_unbroadcast("while True:\n    pass"),
        "unbroadcast",
        ("was stopped in unbroadcast", "an infinite loop?", "solution.py:"),
        process=True,
        limited=True,
    ),
    Case(
        "unbounded-recursion",
        in_unbroadcast("return unbroadcast(grad, shape)"),
        "unbroadcast",
        ("RecursionError", "explicit stack"),
        process=True,
    ),
    Case(
        "sys-exit-at-import", SOURCE + "\nimport sys\nsys.exit(3)\n", "unbroadcast", ("could not import", "SystemExit")
    ),
    Case("sys-exit-in-an-op", in_exp("import sys\nsys.exit(0)"), "unary", ("Tensor.exp", "SystemExit")),
    Case("os-exit-at-import", SOURCE + "\nimport os\nos._exit(0)\n", "unbroadcast", ("os._exit",), process=True),
    Case("os-exit-in-an-op", in_exp("import os\nos._exit(1)"), "unary", ("os._exit",), process=True),
    Case(
        "segfault",
        in_unbroadcast("import ctypes\nctypes.string_at(0)"),
        "unbroadcast",
        ("segmentation fault",),
        process=True,
    ),
    Case("allocates-100-gb", in_unbroadcast("np.ones(int(100e9 / 8))"), "unbroadcast", ("MemoryError",), process=True),
    Case(
        "prints-10-mb-per-test",
        in_unbroadcast("print('x' * 10_000_000)"),
        "unbroadcast",
        ("{n} tests passed",),
        passes=True,
        process=True,
    ),
    Case(
        "prints-then-fails",
        in_unbroadcast(
            "import sys\nprint('to stdout')\nsys.stderr.write('to stderr\\n')\nsys.stdout.buffer.write(b'as bytes\\n')\nreturn grad"
        ),
        "unbroadcast",
        (
            "your code printed:",
            "│ to stdout │ to stderr",
            "│ as bytes",
        ),  # in the order written (the bytes bypass the text buffer)
        process=True,
    ),
    Case(
        "prints-10-mb-then-fails",
        in_unbroadcast("print('x' * 10_000_000)\nreturn grad"),
        "unbroadcast",
        ("tests failed", "your code printed:", "more line (output was cut)", "MB more than the grader keeps"),
        process=True,
    ),
    Case(
        "mutates-its-inputs",
        MUTATES,
        "unbroadcast",
        ("1 of {n} tests failed", "not in place"),
    ),
    Case("empty-file", "", "unbroadcast", ("is empty",)),
    Case(
        "not-utf8",
        SOURCE.encode().replace(b"micrograd grown", "microgrâd grown".encode("latin-1"), 1),
        "unbroadcast",
        ("not UTF-8",),
    ),
    Case("imports-torch", "import torch\n" + SOURCE, "unbroadcast", ("refused", "imports torch")),
    Case(
        "imports-the-reference",
        SOURCE.replace(
            "import numpy as np\n", "import numpy as np\nfrom autograd_drill.reference.engine import Tensor as T\n", 1
        ),
        "unbroadcast",
        ("refused", "autograd_drill.reference.engine"),
    ),
    Case(
        "imports-torch-at-run-time",
        in_unbroadcast("import importlib\nimportlib.import_module('torch')"),
        "unbroadcast",
        ("refused", "torch"),
    ),
]


def write(path: Path, source: str | bytes) -> None:
    path.write_bytes(source if isinstance(source, bytes) else source.encode("utf-8"))


def drill_fast(*args: str, limited: bool = False) -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` in a child process (with LOOP_LIMITS where ``limited``)."""
    return run_drill(*args, env=LOOP_LIMITS if limited else None, timeout=180)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_grade_gives_a_verdict_that_names_the_cause(case, tmp_path, request, unbroadcast_tests):
    """One `drill grade --json` per case (a real one where the case is about the grading process, see
    above): its exit status and JSON object, then the report a person reads, drawn from that object
    (as `drill status` draws it from the history)."""
    path = tmp_path / "solution.py"
    write(path, case.source)
    if case.process:
        proc = drill_fast("grade", str(path), "-t", case.target, "--json", limited=case.limited)
        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    else:
        request.getfixturevalue("warm_drill_grade")
        done = drill("grade", str(path), "-t", case.target, "--json", code=None)
        code, stdout, stderr = done.exit_code, done.stdout, done.stderr
        assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert code == (0 if case.passes else 1), stdout + stderr
    assert "Traceback" not in stdout + stderr
    verdict = json.loads(stdout)  # the JSON object, in every case
    assert verdict["passed"] is case.passes and list(verdict["targets"]) == [case.target]
    text = human_report(verdict)
    n = str(len(unbroadcast_tests))  # {n}: how many tests unbroadcast has
    for phrase in (p.replace("{file}", str(path)).replace("{n}", n) for p in case.says):
        assert phrase in text, f"{phrase!r} not in:\n{text}"


@pytest.mark.parametrize("case_id", ["infinite-loop", "os-exit-in-an-op", "segfault"])
def test_a_drill_survives_it(case_id, tmp_path):
    """``drill check`` in a real child meets the case; starting the attempt and reading its status
    after are done in process (they start no grading: nothing of the case happens in them)."""
    case = next(c for c in CASES if c.id == case_id)
    drill("start", case.target)
    path = tmp_path / "solutions" / f"{case.target}.py"
    write(path, case.source)
    checked = drill_fast("check", limited=case.limited)
    assert checked.returncode == 1 and "Traceback" not in checked.stdout + checked.stderr
    status = drill("status").output
    assert case.target in status and "failing" in status
    with sqlite3.connect(tmp_path / "drill-home" / "history.sqlite3") as db:
        (outcome,) = db.execute("SELECT outcome FROM attempts").fetchone()
        (source,) = db.execute("SELECT source FROM submissions").fetchone()
    assert outcome is None  # still in progress: the timer runs on
    assert bytes(source) == path.read_bytes()  # the graded version is kept


def _kill_plan(runs: int = 30, seed: int = 5) -> list[tuple[int, str, float | None, float | None]]:
    """The runs of the kill test, drawn up front as one loop of 30 drew them: (run, command, seconds
    before a save while watching, seconds before the SIGKILL; None: the check is waited for)."""
    rng = random.Random(seed)
    plan = []
    for i in range(runs):
        command = rng.choice(["check", "watch"])
        save = rng.uniform(0.2, 1.0) if command == "watch" else None
        # now and then a grading finishes, whatever the machine's load
        kill = None if i % 6 == 5 and command == "check" else rng.uniform(0.0, 1.5)
        plan.append((i, command, save, kill))
    return plan


KILL_PLAN = _kill_plan()
KILL_PARTS = 5
"""The 30 runs are 5 parts of 6 runs, each on a history of its own."""
KILL_LANES = 3
"""How many parts run at once (``side_by_side``): their waits overlap, and few enough drills start at
once that the kills still land in each part of a drill's life. Of 54 kills (twice the 27, at a load
of 2-4), one part at a time: 39 after the check or watch had recorded its verdict; 3 at once: 22, the
others while it graded; 5 at once: none (each drill ran slower, and every kill came while it started
or graded)."""


def side_by_side(lanes: list[Iterator[float]], at_once: int) -> None:
    """Run ``lanes``, ``at_once`` of them at a time, in this thread: each yields the seconds it waits
    before its next step (a save's delay, a kill's), and the others step meanwhile, so that their
    waits overlap; as one ends, the next goes on. Every lane's first step (its set-up) runs first,
    so that none delays a wait of another. Only the waits overlap: each step runs alone, drill in
    process included (typer's CliRunner swaps this process's environment and streams while it runs:
    it cannot run in threads)."""
    try:
        for lane in lanes:
            next(lane)
        started = min(at_once, len(lanes))
        due = [(time.monotonic(), k) for k in range(started)]
        while due:
            at, k = heapq.heappop(due)
            time.sleep(max(0.0, at - time.monotonic()))
            wait = next(lanes[k], None)
            if wait is not None:
                heapq.heappush(due, (time.monotonic() + wait, k))
            elif started < len(lanes):
                heapq.heappush(due, (time.monotonic(), started))
                started += 1
    finally:  # a lane failed: the others end too (each kills the drill it left running)
        for lane in lanes:
            lane.close()


def _kill_runs(part: int, folder: Path) -> Iterator[float]:
    """A part's runs of KILL_PLAN on its own history under ``folder`` (its DRILL_HOME and workspace
    given to each drill, in process and in a child), checked after each kill; yields its waits.

    The part first has one grading finish (in process, on the warm worker: it is not one of the
    runs killed), so that every kill of the part has a graded version to lose."""
    home = home_in(folder)
    db_path, path = folder / "drill-home" / "history.sqlite3", folder / "solutions" / "unbroadcast.py"
    drill("start", "unbroadcast", env=home)
    write(path, in_unbroadcast("x = -1"))
    drill("check", env=home)  # passes: a graded version, and an attempt, to keep
    with sqlite3.connect(db_path, timeout=10) as db:
        kept = dict(db.execute("SELECT id, sha256 FROM submissions").fetchall())
        attempts = {r[0] for r in db.execute("SELECT id FROM attempts")}
    assert kept and attempts
    yield 0.0  # set up: the runs come next
    for i, command, save, kill in KILL_PLAN[6 * part : 6 * part + 6]:
        with sqlite3.connect(db_path, timeout=10) as db:
            in_progress = db.execute("SELECT id FROM attempts WHERE outcome IS NULL").fetchone()
        if in_progress is None:  # the last run passed (or was the first): a new attempt for this one
            drill("start", "unbroadcast", env=home)
        write(path, in_unbroadcast(f"x = {i}") if i % 3 else stub_for(["unbroadcast"], "unbroadcast"))
        proc = spawn_drill(
            command, env={**home, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            if save is not None:
                yield save
                write(path, in_unbroadcast(f"y = {i}"))  # a save while watching
            if kill is None:
                waited = time.monotonic() + 120
                while proc.poll() is None:
                    assert time.monotonic() < waited, f"drill {command} (run {i + 1}) did not finish within 120 s"
                    yield 0.02
            else:
                yield kill
                os.killpg(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:  # this part failed, or another did: no drill left running
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        with sqlite3.connect(db_path, timeout=10) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            rows = dict(db.execute("SELECT id, sha256 FROM submissions").fetchall())
            ids = {r[0] for r in db.execute("SELECT id FROM attempts")}
        assert all(rows.get(k) == v for k, v in kept.items()), "a graded version recorded before a kill is gone"
        assert attempts <= ids, "an attempt recorded before a kill is gone"
        if kill is None:  # a correct file (run 6, 18, 30): the check passed, its graded version recorded
            assert proc.returncode == 0 and len(rows) > len(kept), f"drill check (run {i + 1}) exited {proc.returncode}"
        kept, attempts = rows, ids


def test_kill_check_and_watch_30_times_and_lose_nothing(tmp_path, warm_grading):
    """SIGKILL `drill check` and `drill watch` at random points; the history stays sound and complete.

    KILL_PLAN's 5 parts, KILL_LANES at once, each on a history of its own: a run's save and kill come
    as long after its start as in one loop of 30 (each part's runs one after another), while the other
    parts' runs go on."""
    side_by_side([_kill_runs(part, tmp_path / f"part-{part + 1}") for part in range(KILL_PARTS)], KILL_LANES)


def test_the_kill_plan_waits_for_some_gradings():
    """Across the 30 runs some checks are waited for, as in one loop of 30 (runs 6, 18 and 30)."""
    assert len(KILL_PLAN) == 6 * KILL_PARTS
    assert [i + 1 for i, command, _, kill in KILL_PLAN if kill is None] == [6, 18, 30]


# ---------------------------------------------------------------------------- bad input at the command line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["start", "unbroadcst"], "Did you mean 'unbroadcast'"),
        (["start", "unbroadcast", "--bogus"], "No such option"),
        (["check"], "no attempt in progress"),
        (["diff", "softmax"], "never attempted softmax"),
        (["hint", "nope"], "unknown target"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, says):
    """In process: a refusal comes from the command's own code (or click's parsing), before any
    grading or process of its own; ``drill check`` typed bare with nothing in progress, which
    drills/entry.py sends by its fast path, is refused in a real child by tests/test_quick_commands.py
    (test_drill_check_typed_bare_needs_no_typer) and tests/test_spawn_standby.py."""
    assert says in said(refused(*args))


def test_start_while_in_progress_is_refused():
    drill("start", "arith")
    assert "in progress" in refused("start", "unary").stderr


def test_corrupt_history_is_moved_aside_and_the_user_told(tmp_path):
    home = tmp_path / "drill-home"
    home.mkdir(parents=True)
    (home / "history.sqlite3").write_bytes(b"this is not a database" * 100)
    proc = drill_fast("list")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "could not be read" in proc.stderr and "moved to" in proc.stderr
    backups = list(home.glob("history.sqlite3.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_bytes().startswith(b"this is not a database")
    assert drill_fast("start", "unbroadcast").returncode == 0  # and the new history works, in a real child


def test_unwritable_workspace_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the workspace should be")
    done = refused("start", "unbroadcast", "--workspace", str(blocker / "solutions"))
    assert "cannot write to the workspace" in done.stderr
    assert "No attempt in progress" in drill("status").output  # no attempt was started


def test_a_conftest_beside_the_solution_is_not_loaded(tmp_path, warm_drill_grade):
    """The grader's options are one token each, so the solution's folder never counts as a test path.
    ``drill grade`` in process, its grading in a fork of the warm worker: the fork runs pytest on the
    same arguments (grader/run.py, pytest_args), in a working folder of its own, as a fresh grading
    interpreter does."""
    (tmp_path / "conftest.py").write_text("raise SystemExit('a conftest beside the solution was loaded')\n")
    path = tmp_path / "solution.py"
    write(path, SOURCE)
    done = drill("grade", str(path), "-t", "unbroadcast", "--json", code=0)
    assert json.loads(done.stdout)["passed"] is True
