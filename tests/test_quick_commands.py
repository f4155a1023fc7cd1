"""``drill``, ``drill list``, ``drill status`` and ``drill next`` typed bare start fast (issue 25, point 4):
they answer without typer (drills/commands/quick.py), say what the app says, and load none of the
grading half of the tool. Checked by what they import (``-X importtime``), not by a stopwatch, so that
a regression shows on a busy machine as on an idle one."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from contextlib import nullcontext
from datetime import UTC
from pathlib import Path

import pytest
from rich.console import Console

from autograd_drill.commands.common import Terminal
from autograd_drill.commands.quick import COMMANDS, GRADING, answer
from autograd_drill.grader import spawn
from autograd_drill.loop import ladder
from autograd_drill.loop.clock import MockClock
from tests.conftest import CPU_LOG
from tests.support import REFERENCE, REFERENCE_SOURCE, drill, drill_imports

BARE = sorted(args for args in COMMANDS if args not in GRADING)
"""The fast paths that read and draw (drill check typed bare grades: its own tests below)."""
IDS = [" ".join(args) or "bare" for args in BARE]

NOT_ON_THEIR_PATH = {
    "typer",  # and so typer's click and pydantic: the app is built for help, options and the other commands
    "importlib.metadata",  # email, zipfile, csv: no pack is installed but ours (grader/packs.py, _ours_alone)
    "pydantic",
    "autograd_drill.cli",
    "autograd_drill.commands.options",
    "autograd_drill.commands.drill",  # the drill loop's commands: drill status is a module of its own
    "autograd_drill.loop.stubs",  # the ladder's times come from the data folder, not from cutting the reference again
    "autograd_drill.loop.cloze",
    "autograd_drill.loop.retype",
    "autograd_drill.loop.incremental",  # the grading half of the drill loop
    "autograd_drill.grader.run",
    "autograd_drill.grader.process",
    "autograd_drill.grader.reaper",
    "autograd_drill.grader.worker",
    "autograd_drill.interview.plan",  # the interview tables are opened with the history, no plan is read
    "numpy",
    "torch",
    "pytest",
    "plotext",  # drill chart's
    "statistics",  # drill stats' medians
    "rich._emoji_codes",  # what a str cell or line is searched for as it is drawn: they are drawn as Text
}


def loaded(*args: str) -> set[str]:
    """The modules ``python -m autograd_drill ARGS`` imports, as a user runs it (its exit status 0)."""
    return drill_imports(*args)[1]


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in NOT_ON_THEIR_PATH or m.split(".")[0] in NOT_ON_THEIR_PATH)


UNANSWERED = {
    "autograd_drill.interview.bank",
    "autograd_drill.interview.due",
    "autograd_drill.interview.store",
    "autograd_drill.views.interview",
}
"""What ``drill next`` reads of the interview's questions once one was answered (their bank, their schedule)."""


FIRST_WORDS = {(): "Next: drill start unbroadcast", ("list",): "Next: drill start unbroadcast"}
FIRST_WORDS |= {("status",): "No attempt in progress", ("next",): "unbroadcast"}
"""What each says on a first run, through a real pipe (drills/entry.py leaves without the interpreter's
exit: its output flushed first)."""


@pytest.mark.parametrize("args", BARE, ids=IDS)
def test_a_first_run_loads_none_of_the_grading_half(args):
    done, modules = drill_imports(*args)
    assert FIRST_WORDS[args] in " ".join(done.stdout.split()) and "Traceback" not in done.stderr, done.stdout
    assert not heavy(modules)
    assert not modules & UNANSWERED  # no question answered: none is due
    assert "autograd_drill.loop.session" not in modules  # no attempt: drill status reads none of the drill loop


def test_with_a_history_and_an_attempt_in_progress_they_load_none_of_it(workspace, warm_grading):
    """Attempts finished on the copy rung (so the ladder is replayed with its copy times), one in progress
    (so status shows its targets' states and list and next say it is there), made by a real grading
    (drill check in process, graded in a fork of the warm worker: the history is what a child's would
    be). drill start and drill list run in process too, with the rung times this process kept for an
    earlier test's data folder forgotten first (drills/loop/ladder.py keeps them per process and writes
    them where a start computes them): they keep them in this data folder, as a child's would. Only the
    commands whose imports are looked at run in children."""
    kept = ladder._kept_times
    kept.cache_clear()
    try:
        for target in ("unbroadcast", "cross-entropy"):
            drill("start", target)
            shutil.copy(REFERENCE, workspace / f"{target}.py")
            drill("check", "--oracle", "replay")
        drill("start", "arith")
        drill("list")  # the copy rung's times are kept from here on
    finally:
        kept.cache_clear()
    assert ladder._times_file().is_file()
    for args in BARE:
        modules = loaded(*args)
        assert not heavy(modules), args
        # the attempt in progress is named by list and next, its targets' states shown by status alone
        assert ("autograd_drill.loop.session" in modules) == (args == ("status",)), args


# ---------------------------------------------------------------------------- the same answers


def bare(args: tuple[str, ...], clock: MockClock) -> tuple[int, str, str]:
    """``drill ARGS`` by the fast path, on consoles like the tests' (drills/cli.py's, 500 wide)."""
    out, err = io.StringIO(), io.StringIO()
    term = Terminal(
        Console(file=out, width=500, highlight=False), Console(file=err, width=500, highlight=False), clock, UTC
    )
    code = answer(args, term)
    return code, out.getvalue(), err.getvalue()


def app(args: tuple[str, ...]) -> tuple[int, str, str]:
    result = drill(*args, code=None)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.usefixtures("wide_terminal", "passing_grader")
def test_the_fast_path_says_what_the_app_says(clock, workspace):
    """Before any attempt, with one in progress, and with it finished: the same output, exit status
    included (drill status with no attempt says so, exit 0)."""

    def same() -> None:
        for args in BARE:
            assert bare(args, clock) == app(args), args

    same()
    assert bare(("check",), clock) == app(("check",))  # none in progress: the same refusal
    drill("start", "unbroadcast")
    clock.advance(75)
    same()
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    drill("check")
    clock.advance(3600)
    same()


@pytest.mark.usefixtures("wide_terminal")
def test_a_refusal_is_the_same_one_line(clock, drill_home: Path, monkeypatch):
    """A history that cannot be opened (its folder is a file): one line on stderr, exit 2, either way."""
    monkeypatch.setattr(
        spawn, "OneShot", lambda start=True: nullcontext()
    )  # drill check: no interpreter started for it here
    drill_home.parent.mkdir(parents=True, exist_ok=True)
    drill_home.write_text("not a folder", encoding="utf-8")
    for args in sorted(COMMANDS):
        code, out, err = bare(args, clock)
        assert (code, out, err) == app(args), args
        assert code == 2 and err.startswith("error: the history") and err.count("\n") == 1, err


# ---------------------------------------------------------------------------- leaving at once

LEAVE = """
import os, sys
real = os._exit


def noted(code):
    sys.stderr.write(f"left at once: {code}\\n")
    sys.stderr.flush()
    real(code)


os._exit = noted
{before}
sys.argv = ["drill", *sys.argv[1:]]
from autograd_drill.entry import main

main()
"""


def entry(*args: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` by drills/entry.py in a child whose ``os._exit`` says it was called. Not counted
    by the suite's cost report (tests/cpu_accounting.py): its exit handler would be left to run, and
    drill then rightly leaves the slow way."""
    script = LEAVE.replace("{before}", before)
    env = {k: v for k, v in os.environ.items() if k != CPU_LOG}
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("args", BARE, ids=IDS)
def test_they_leave_without_tearing_the_interpreter_down(args, clock):
    """Done, flushed, and with nothing left for the interpreter to run at exit, the fast path exits at
    once (``os._exit``): the modules' teardown cost a sixth of ``import typer, rich``. The output is
    all there (its last line is the one the fast path ends with in process; a second child that
    printed it all was compared before), the status is the command's."""
    done = entry(*args)
    assert done.returncode == 0 and done.stderr == "left at once: 0\n", done.stderr
    code, out, _ = bare(args, clock)
    assert code == 0 and done.stdout.rstrip().splitlines()[-1] == out.rstrip().splitlines()[-1], done.stdout


def test_drill_check_typed_bare_needs_no_typer():
    """``drill check`` alone goes by the fast path (drills/commands/quick.py): its grading half, not typer,
    its click or pydantic (typer's import and the app's parsing were a fifth of a refused check); with
    no attempt in progress, the app's one-line refusal, exit 2."""
    done, modules = drill_imports("check", ok=(2,))
    assert not {m for m in modules if m.split(".")[0] in ("typer", "pydantic")}, "typer imported"
    assert not {"autograd_drill.cli", "autograd_drill.commands.options"} & modules
    assert "autograd_drill.grader.spawn" in modules  # its grading's interpreter started as it started
    assert done.stderr.count("error:") == 1 and "Traceback" not in done.stderr, done.stderr


def test_an_exit_handler_still_runs():
    """Something registered with ``atexit`` (coverage, a temporary folder's cleanup) still runs: then
    the interpreter exits as usual."""
    done = entry("list", before="import atexit\natexit.register(lambda: print('handler ran'))")
    assert done.returncode == 0 and "left at once" not in done.stderr, done.stderr
    assert done.stdout.endswith("handler ran\n")


def test_drill_sets_one_blas_thread_unless_the_user_set_a_count():
    """What drill starts (a grading, the warm worker) inherits it: grader/__init__.py, ONE_BLAS_THREAD."""
    told = "os.environ.pop('OMP_NUM_THREADS', None)\nos.environ['OPENBLAS_NUM_THREADS'] = '3'\nimport atexit\n"
    seen = "print('threads', os.environ.get('OMP_NUM_THREADS'), os.environ['OPENBLAS_NUM_THREADS'])"
    done = entry("list", before=f"{told}atexit.register(lambda: {seen})")
    assert done.returncode == 0 and done.stdout.endswith("threads 1 3\n"), done.stdout[-300:]


def test_a_refusal_leaves_at_once_with_its_status(drill_home: Path):
    drill_home.parent.mkdir(parents=True, exist_ok=True)
    drill_home.write_text("not a folder", encoding="utf-8")
    done = entry("status")
    assert done.returncode == 2 and done.stderr.endswith("left at once: 2\n"), done.stderr
    assert done.stderr.startswith("error: the history")


def test_a_profiler_still_writes_its_figures(tmp_path: Path):
    """``python -m cProfile -o FILE -m autograd_drill list``: the profile is written once the command returns
    (the fast path does not leave at once under a profiler or a tracer)."""
    figures = tmp_path / "list.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(figures), "-m", "autograd_drill", "list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert figures.stat().st_size > 0
