"""Every screen at 60 columns: the ids you type are never cut, tables fit, help names no types."""

from __future__ import annotations

import itertools
import re

import pytest
import typer.main
from rich.cells import cell_len

from autograd_drill import cli
from autograd_drill.views.reviews import load_reviews
from tests.support import CATALOG, DAY, REFERENCE_SOURCE, T0, drill, seed, use_consoles

pytestmark = pytest.mark.usefixtures("narrow_terminal")

CUT = re.compile(r"[\w-]+…")
"""A word rich cut short with an ellipsis."""


PATH = re.compile(r"(?<!\S)/\S+")
"""An absolute path (the tests' are under /tmp), with what sticks to it (``:LINE``, a colon)."""


def widest(output: str) -> int:
    """The widest line, in terminal cells (a combining mark, as in x̄, takes none), its absolute paths
    not counted: a path is printed whole, past the width if it must (the terminal soft-wraps it,
    tests/test_unbroken_paths.py), and the rest of its line wraps to fit."""
    return max(cell_len(PATH.sub("", line)) for line in output.splitlines())


def history_of_every_kind() -> None:
    """Times in every column: a pass, a give-up, an assisted pass, days ago and today."""
    for i, target in enumerate(CATALOG.drill_ids):
        seed(target, 125.0 + i, at=T0 - (i + 1) * DAY)
        seed(target, 3000.0, at=T0 - DAY / 2, outcome="gave-up" if i % 2 else "passed", assisted=i % 3 == 0)


def first_cells(output: str) -> set[str]:
    return {line.split()[0] for line in output.splitlines() if line.strip()}


@pytest.mark.parametrize("command", [[], ["list"], ["stats"]])
def test_every_id_is_whole_in_the_tables(clock, command):
    history_of_every_kind()
    output = drill(*command).output
    assert not CUT.findall(output), output
    assert set(CATALOG.drill_ids) <= first_cells(output), output
    assert widest(output) <= 60


@pytest.mark.parametrize("command", [[], ["list"]])
def test_what_you_write_wraps_only_between_symbols(clock, command):
    """Each symbol the catalog names is shown whole on one line: "Tensor.backw" / "ard" is never drawn."""
    history_of_every_kind()
    output = drill(*command).output
    assert widest(output) <= 60
    lines = output.splitlines()
    for target in CATALOG.targets:
        row = next(i for i, line in enumerate(lines) if line.startswith(target.id + " "))
        block = [lines[row]]
        block += [line for line in itertools.takewhile(lambda line: line.startswith(" "), lines[row + 1 :])]
        text = " ".join(line[len(target.id) :] for line in block[:1]) + " " + " ".join(block[1:])
        words = set(re.findall(r"[\w.]+", text))
        for symbol in target.symbols:
            short = symbol if symbol in words else symbol.rsplit(".", 1)[-1]
            assert short in words, (target.id, symbol, "\n".join(block))


@pytest.mark.parametrize("command", [["ladder"], ["list"], ["stats"]])
def test_the_rungs_of_the_ladder_fit(clock, command):
    """Every kind of time, as in history_of_every_kind, on the copy and cloze rungs for the core targets
    (an attempt on a lower rung than recall would be practice, and leave the target on recall)."""
    for i, target in enumerate(CATALOG.drill_ids):
        rung = ("copy", "cloze")[i % 2] if target in CATALOG.ids else "recall"
        seed(target, 125.0 + i, at=T0 - (i + 1) * DAY, rung=rung)
        seed(target, 3000.0, at=T0 - DAY / 2, outcome="gave-up" if i % 2 else "passed", assisted=i % 3 == 0, rung=rung)
    output = drill(*command).output
    assert not CUT.findall(output), output
    assert set(CATALOG.drill_ids) <= first_cells(output), output
    assert widest(output) <= 60
    assert re.search(r"^unbroadcast .*\b(copy|cloze)\b", output, re.M), (
        output
    )  # its copy attempt, or the rung it took it to


def test_the_queue_names_whole_ids(clock):
    history_of_every_kind()
    output = drill("next").output
    assert not CUT.findall(output), output
    named = re.findall(r"([a-z][\w-]*) \((?:now|in \d|\d+ days? ago)", output)
    assert len(named) >= 4 and set(named) <= set(CATALOG.drill_ids), output


def test_the_scoreboard_fits_with_the_difference_from_your_best(clock, workspace, passing_grader):
    seed("cross-entropy", 100, at=T0 - DAY)
    drill("start", "cross-entropy")
    clock.advance(130)
    (workspace / "cross-entropy.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    output = drill("check").output
    assert widest(output) <= 60
    header = next(line for line in output.splitlines() if "Δ best" in line)
    board = next(line for line in output.splitlines() if line.startswith("cross-entropy "))
    assert header.split() == ["target", "target", "time", "Δ", "Δ", "best", "best"]
    assert board.split() == ["cross-entropy", "3:00", "2:10", "−0:50", "+0:30", "1:40"]
    assert "2 attempts; unassisted" in output
    assert formula_shown(output) == load_reviews()["cross-entropy"].formula.split()  # the card after a pass


def formula_shown(output: str) -> list[str]:
    """The words of the key formula, as a review card drew them (its border left out)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "Key formula" in line)
    end = next(i for i, line in enumerate(lines) if "Classic bugs" in line)
    return [word for line in lines[start + 1 : end] for word in line.strip("│ ").split()]


@pytest.mark.parametrize("target", sorted(load_reviews()))
def test_a_review_card_wraps_its_formula_whole(clock, target):
    output = drill("review", target).output
    assert widest(output) <= 60
    assert formula_shown(output) == load_reviews()[target].formula.split()


def given_up_with_a_bug(workspace) -> None:
    """An unbroadcast that sums the wrong axis, given up: drill diff may show it."""
    drill("start", "unbroadcast")
    (workspace / "unbroadcast.py").write_text(
        REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)"), encoding="utf-8"
    )
    drill("give-up")


def test_diff_is_unified_with_marks_in_a_narrow_terminal(clock, workspace):
    given_up_with_a_bug(workspace)
    output = drill("diff").output
    assert widest(output) <= 60 and "┃" not in output
    lines = output.splitlines()
    assert [line.rstrip() for line in lines if line.startswith(("- ", "+ ")) and "grad.sum(axis" in line] == [
        "-         grad = grad.sum(axis=-1)",
        "+         grad = grad.sum(axis=0)",
    ]
    assert any(line.startswith("      while grad.ndim > len(shape):") for line in lines)  # unchanged: no mark


def test_the_diff_names_a_long_path_whole(clock, workspace, monkeypatch):
    """The legend names your file on a line of its own, whole though it is wider than the terminal (it
    was cut after a ``/``, which a terminal cannot open: tests/test_unbroken_paths.py)."""
    deep = workspace.parent / "a-rather-long-folder-name-for-a-workspace" / "and-deeper-still" / "solutions"
    monkeypatch.setenv("DRILL_WORKSPACE", str(deep))
    given_up_with_a_bug(deep)
    lines = drill("diff").output.splitlines()
    assert widest("\n".join(lines)) <= 60
    path = str(deep / "unbroadcast.py")
    assert len(path) > 60 and lines[0].rstrip() in (f"- yours: {path}", "- yours:"), lines[:3]
    assert path in lines[0] or lines[1].strip().startswith(path), lines[:3]
    assert lines[1 + (path not in lines[0])].startswith("+ the reference"), lines[:3]


def test_a_wrapped_line_of_the_diff_keeps_its_indent(clock, workspace):
    """A line too long for 60 columns goes on under its own indent, deeper, not at the left edge."""
    drill("start", "unbroadcast")
    long = "grad = grad.sum(axis=-1)  # summed over the last axis, which broadcasting never appends"
    (workspace / "unbroadcast.py").write_text(
        REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", long), encoding="utf-8"
    )
    drill("give-up")
    output = drill("diff").output
    assert widest(output) <= 60
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if "grad = grad.sum(axis=-1)" in line)
    first = lines[at]
    lead = len(first) - len(first[1:].lstrip()) - 1  # the mark, then the code's own indent
    rest = list(
        itertools.takewhile(lambda line: not line.startswith(("-", "+")) and "grad" not in line, lines[at + 1 :])
    )
    assert rest, output
    for line in rest[:2]:
        assert len(line) - len(line.lstrip()) > lead, (first, line)
    assert " ".join(" ".join(lines[at : at + 1 + len(rest)]).split()[1:]).startswith(" ".join(long.split())[:60])


def test_a_verdict_wraps_under_its_own_indent(clock, workspace):
    """drill check at 60 columns: the failure's location and hint lines, when they wrap, go on under
    their own indent, not back under the verdict's."""
    drill("start", "unbroadcast")
    (workspace / "unbroadcast.py").write_text(
        REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)"), encoding="utf-8"
    )
    lines = [line.rstrip() for line in drill("check", code=1).output.splitlines()]
    assert widest("\n".join(lines)) <= 60
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("hint:"))
    indent = len(lines[at]) - len(lines[at].lstrip())
    assert indent > len(lines[at - 1]) - len(lines[at - 1].lstrip()) - 1 and lines[at + 1].strip(), lines
    assert len(lines[at + 1]) - len(lines[at + 1].lstrip()) == indent, "\n".join(lines[at - 2 : at + 2])
    located = next(i for i, line in enumerate(lines) if "unbroadcast.py:" in line)  # its path, then a continuation
    assert len(lines[located + 1]) - len(lines[located + 1].lstrip()) == indent, lines


def test_diff_is_side_by_side_with_marks_in_a_wide_terminal(clock, workspace, monkeypatch):
    given_up_with_a_bug(workspace)
    use_consoles(monkeypatch, width=120)
    lines = drill("diff").output.splitlines()
    changed = [line for line in lines if "grad.sum(axis=-1)" in line]
    assert len(changed) == 1 and re.search(
        r"-│\s+grad = grad\.sum\(axis=-1\).*\+│\s+grad = grad\.sum\(axis=0\)", changed[0]
    )
    same = next(line for line in lines if "while grad.ndim" in line)
    assert same.count("while grad.ndim") == 2 and "-│" not in same and "+│" not in same


def commands() -> list[str]:
    return sorted(typer.main.get_command(cli.app).commands)  # type: ignore[attr-defined]


TYPE_NAMES = re.compile(r"<\w+>|\b(?:TEXT|BOOLEAN|INTEGER|FLOAT|PATH)\b")


@pytest.mark.parametrize("command", ["", *commands()])
def test_help_names_no_types(command):
    output = drill(*command.split(), "--help").output
    assert "Usage" in output and "--help" in output
    assert not TYPE_NAMES.findall(output), output


def test_help_shows_what_an_option_takes_and_nothing_after_a_flag():
    lines = drill("start", "--help").output.splitlines()
    workspace = next(line for line in lines if "--workspace" in line)
    edit = next(line for line in lines if "--edit" in line)
    assert re.search(r"--workspace\s+DIR\s", workspace) and re.search(r"--edit\s+Open", edit)
    assert "TARGET" in drill("review", "--help").output
