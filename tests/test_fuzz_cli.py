"""Fuzzed command lines (issue 24, point 8): for every subcommand, argument lists generated from its
own parameters (the real option names; values that are huge or negative integers, odd unicode,
target ids, paths that do not exist, are directories or devices; options repeated, misplaced, left
without their value; stray words) never give a traceback, and exit with 0, 1, 2 or 130.

In process (typer's CliRunner: fast), the user's state under tmp_path and the current folder there
too (a generated ``-o`` or ``--workspace`` lands nowhere else), $EDITOR ``true``, standard input
empty, the grading a stand-in (what is fuzzed is the command line, not the grader: the grader's
odd inputs are tests/test_robustness.py's). State carries over from one example to the next (an
attempt started by one is checked, paused or restored by the next), deterministically:
``derandomize=True`` and a fixed number of examples per command, CASES in all.

Left out: ``watch`` (it waits for saves until stopped: tests/test_watch.py) and ``interview`` without
``--plan`` or ``--list`` (a session waits for its coding task's saves for its whole length).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograd_drill import cli
from autograd_drill.grader import run as grader_run
from autograd_drill.loop import session
from tests.support import CATALOG, DAY, REFERENCE, RUNNER, T0, drill, seed

GROUP = typer.main.get_command(cli.app)
SKIPPED = {"watch"}
COMMANDS = sorted(set(GROUP.commands) - SKIPPED)  # type: ignore[attr-defined]
EXAMPLES = 60
"""Generated command lines per command."""
CASES = EXAMPLES * (len(COMMANDS) + 1)
"""Single command lines in all: every command's, and the bare ``drill``'s (its options and stray
words); test_no_session_gives_a_traceback runs SESSION_EXAMPLES sessions of 2 to 5 lines besides."""
EXITS = {0, 1, 2, 130}

HUGE = st.sampled_from([0, -1, 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**20, -(10**20), 10**400])
INTS = st.one_of(HUGE, st.integers(-1000, 1000)).map(str)
ODD_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00/\\"), min_size=0, max_size=12
)
"""Any text a shell can pass (no NUL), with no path separator: a word, never a place to write to."""
WORDS = st.one_of(
    ODD_TEXT,
    st.sampled_from([*CATALOG.ids, "full", "FULL", "unbroadcast ", "-", "--", "-x", "--no-such-option", "é", "💥"]),
    INTS,
    st.sampled_from(["1e309", "nan", "-0", "0x10", "1_000", " 3", "３"]),  # not ints, or ints in disguise
)


def paths(tmp: Path) -> st.SearchStrategy[str]:
    """Paths of every kind: missing, a directory, a file (an engine, a JSON that is not an export),
    a device, an empty name, one too long, one that is a file in the way of a folder."""
    (tmp / "not-export.json").write_text('{"version": 99}')
    (tmp / "dir").mkdir(exist_ok=True)
    return st.sampled_from(
        [
            "missing.py",
            "dir",
            str(tmp / "dir"),
            str(REFERENCE),
            "not-export.json",
            "/dev/null",
            "",
            "x" * 300,
            "not-export.json/inside",
            "-",
            "out.csv",
        ]
    )


def values(param: Any, tmp: Path) -> st.SearchStrategy[str]:
    annotation = str(param.type_descriptor.annotation)
    if "int" in annotation:
        return st.one_of(INTS, WORDS)
    if "Path" in annotation:
        return st.one_of(paths(tmp), WORDS)
    if param.name in ("oracle",):
        return st.sampled_from(["auto", "replay", "fd", "record", "live ", ""])
    if param.name in ("fmt", "format"):
        return st.sampled_from(["csv", "json", "JSON", "xml", ""])
    if param.name == "rung":
        return st.sampled_from(["copy", "cloze", "recall", "RECALL", "none"])
    return WORDS


def command_lines(name: str | None, tmp: Path) -> st.SearchStrategy[list[str]]:
    """Argument lists for ``drill NAME`` (None: bare ``drill``), from its parameters."""
    command = GROUP if name is None else GROUP.commands[name]  # type: ignore[attr-defined]
    pieces: list[st.SearchStrategy[list[str]]] = []
    for param in command.params:
        if param.param_type_name == "option":
            if param.is_flag:
                pieces.append(st.just([param.opts[0]]))
            else:
                pieces.append(st.tuples(st.sampled_from(param.opts), values(param, tmp)).map(list))
                pieces.append(st.just([param.opts[0]]))  # its value left out
        else:
            pieces.append(values(param, tmp).map(lambda v: [v]))
    pieces.append(WORDS.map(lambda v: [v]))
    if name is None:
        pieces.append(st.sampled_from(["--help", "list", "nope"]).map(lambda v: [v]))
    chosen = st.lists(st.one_of(pieces), max_size=5).map(lambda parts: [w for part in parts for w in part])
    head = [] if name is None else [name]
    if name == "interview":  # only what answers at once
        return chosen.map(lambda rest: [name, st_choice(rest), *rest])
    return chosen.map(lambda rest: [*head, *rest])


def st_choice(rest: list[str]) -> str:
    return "--list" if len(rest) % 2 else "--plan"


@pytest.fixture
def fuzz_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock, passing_grader) -> Path:
    """Everything under tmp_path; the grading a stand-in for check, restore and grade alike."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setattr(grader_run, "grade_file", session.grade_file)  # drill grade's, the same stand-in
    # A history to read, and an attempt in progress with a graded save, for the commands to act on.
    seed("unbroadcast", 200.0, at=T0 - 3 * DAY, rung="copy")
    seed("backward", 700.0, at=T0 - 2 * DAY, outcome="gave-up")
    drill("start", "unbroadcast")
    (tmp_path / "solutions" / "unbroadcast.py").write_text(REFERENCE.read_text(encoding="utf-8"))
    drill("hint")
    return tmp_path


def run_line(args: list[str]) -> None:
    result = RUNNER.invoke(cli.app, args, input="", catch_exceptions=True)
    shown = f"drill {args!r} exited {result.exit_code}:\n{result.output[-3000:]}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(shown) from result.exception
    assert result.exit_code in EXITS, shown
    assert "Traceback" not in result.output, shown


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("name", [None, *COMMANDS], ids=lambda n: n or "drill")
def test_no_command_line_gives_a_traceback(name, fuzz_home):
    @FUZZ
    @given(args=command_lines(name, fuzz_home))
    def check(args: list[str]) -> None:
        run_line(args)

    check()


SESSION_EXAMPLES = 60
"""Generated sessions: two to five command lines in a row, of any commands."""


def test_no_session_gives_a_traceback(fuzz_home):
    """Commands one after the other, so that each finds the state the others left (an attempt started,
    paused, given up; a history exported and imported)."""
    lines = st.sampled_from(COMMANDS).flatmap(lambda name: command_lines(name, fuzz_home))

    @settings(FUZZ, max_examples=SESSION_EXAMPLES)
    @given(session_lines=st.lists(lines, min_size=2, max_size=5))
    def check(session_lines: list[list[str]]) -> None:
        for args in session_lines:
            run_line(args)

    check()


def test_the_fuzzing_covers_every_command():
    assert {"grade", "restore", "import", "export", "start", "check", "interview"} <= set(COMMANDS)
    assert len(COMMANDS) == len(GROUP.commands) - len(SKIPPED)  # type: ignore[attr-defined]
    assert CASES >= 1000, CASES
