"""``drill``, ``drill list``, ``drill status`` and ``drill next`` typed bare start fast (issue 25, point 4):
they answer without typer (drills/commands/quick.py), say what the app says, and load none of the
grading half of the tool. Checked by what they import (``-X importtime``), not by a stopwatch, so that
a regression shows on a busy machine as on an idle one."""

from __future__ import annotations

import io
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from rich.console import Console

from drills.commands.common import Terminal
from drills.commands.quick import COMMANDS, answer
from drills.loop.clock import MockClock
from tests.support import REFERENCE, REFERENCE_SOURCE, drill, drill_imports, run_drill

BARE = sorted(COMMANDS)
IDS = [" ".join(args) or "bare" for args in BARE]

NOT_ON_THEIR_PATH = {
    "typer",  # and so typer's click and pydantic: the app is built for help, options and the other commands
    "pydantic",
    "drills.cli",
    "drills.commands.options",
    "drills.loop.stubs",  # the ladder's times come from the data folder, not from cutting the reference again
    "drills.loop.cloze",
    "drills.loop.retype",
    "drills.loop.incremental",  # the grading half of the drill loop
    "grader.run",
    "grader.process",
    "grader.reaper",
    "grader.worker",
    "drills.interview.plan",  # the interview tables are opened with the history, no plan is read
    "numpy",
    "torch",
    "pytest",
    "statistics",  # drill stats' medians
}


def loaded(*args: str) -> set[str]:
    """The modules ``python -m drills ARGS`` imports, as a user runs it (its exit status 0)."""
    return drill_imports(*args)[1]


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in NOT_ON_THEIR_PATH or m.split(".")[0] in NOT_ON_THEIR_PATH)


@pytest.mark.parametrize("args", BARE, ids=IDS)
def test_a_first_run_loads_none_of_the_grading_half(args):
    assert not heavy(loaded(*args))


def test_with_a_history_and_an_attempt_in_progress_they_load_none_of_it(workspace):
    """Attempts finished on the copy rung (so the ladder is replayed with its copy times), one in progress
    (so status shows its targets' states and list and next say it is there), made by a real grading."""
    for target in ("unbroadcast", "cross-entropy"):
        assert run_drill("start", target).returncode == 0
        shutil.copy(REFERENCE, workspace / f"{target}.py")
        checked = run_drill("check", "--oracle", "replay")
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert run_drill("start", "arith").returncode == 0
    assert run_drill("list").returncode == 0  # the copy rung's times are kept from here on
    for args in BARE:
        modules = loaded(*args)
        assert not heavy(modules), args
        # the attempt in progress is named by list and next, its targets' states shown by status alone
        assert ("drills.loop.session" in modules) == (args == ("status",)), args


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
    drill("start", "unbroadcast")
    clock.advance(75)
    same()
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    drill("check")
    clock.advance(3600)
    same()


@pytest.mark.usefixtures("wide_terminal")
def test_a_refusal_is_the_same_one_line(clock, drill_home: Path):
    """A history that cannot be opened (its folder is a file): one line on stderr, exit 2, either way."""
    drill_home.parent.mkdir(parents=True, exist_ok=True)
    drill_home.write_text("not a folder", encoding="utf-8")
    for args in BARE:
        code, out, err = bare(args, clock)
        assert (code, out, err) == app(args), args
        assert code == 2 and err.startswith("error: the history") and err.count("\n") == 1, err
