"""``drill show`` (the reference of a target, before you ever drill it) and ``drill restore`` (a
solution file deleted or overwritten, brought back from the graded history)."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from drills.loop.diff import symbol_sources
from tests.support import CATALOG, REFERENCE_SOURCE, T0, active, drill, latest, open_store, said, seed, use_consoles

REFERENCE_CODE = symbol_sources(REFERENCE_SOURCE)

# ---------------------------------------------------------------------------- drill show


@pytest.mark.usefixtures("wide_terminal")
def test_show_prints_the_reference_of_each_symbol_and_marks_nothing(clock):
    output = drill("show", "arith").output
    for symbol in CATALOG.get("arith").symbols:
        assert symbol in output
        assert all(line.rstrip() in output for line in REFERENCE_CODE[symbol].splitlines())
    assert "marked assisted" not in output and "drill start arith" in output
    store = open_store()
    try:
        assert store.attempts() == []
    finally:
        store.close()


@pytest.mark.usefixtures("wide_terminal")
def test_show_during_another_drill_marks_nothing(clock):
    drill("start", "unbroadcast")
    assert "marked assisted" not in said(drill("show", "arith"))
    assert not active().assisted


@pytest.mark.usefixtures("wide_terminal")
def test_show_during_an_attempt_at_that_target_says_it_marks_it_assisted(clock):
    drill("start", "full")
    text = said(drill("show", "unbroadcast"))
    assert "during your attempt at unbroadcast: it is marked assisted" in text
    assert active().assisted


def test_show_an_unknown_target_is_a_one_line_error(clock):
    result = drill("show", "unbroadcst", code=2)
    assert "did you mean" in result.output.lower() or "unbroadcast" in result.output
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------- drill restore


def graded_save(workspace, clock, text: str, code: int = 1) -> None:
    (workspace / "unbroadcast.py").write_text(text, encoding="utf-8")
    clock.advance(30)
    drill("check", code=code)


def started(workspace) -> str:
    """``drill start unbroadcast``; its stub, which the stand-in grader fails."""
    drill("start", "unbroadcast")
    return (workspace / "unbroadcast.py").read_text(encoding="utf-8")


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_restore_brings_back_a_deleted_file_as_last_graded(clock, workspace):
    stub = started(workspace)
    graded_save(workspace, clock, stub + "# first\n")
    graded_save(workspace, clock, stub + "# second\n")
    (workspace / "unbroadcast.py").unlink()
    text = said(drill("restore"))
    assert (workspace / "unbroadcast.py").read_text(encoding="utf-8") == stub + "# second\n"
    assert "Restored" in text and "unbroadcast.py" in text and "archived" not in text
    assert not (workspace / ".archive").exists()
    assert "nothing to restore" in said(drill("restore"))  # already there: nothing written, nothing archived
    assert not (workspace / ".archive").exists()


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_a_check_of_a_deleted_file_points_to_restore_and_restore_lets_it_grade(clock, workspace):
    stub = started(workspace)
    graded_save(workspace, clock, stub + "# mine\n")
    (workspace / "unbroadcast.py").unlink()
    refused = drill("check", code=2)
    assert "is gone: bring back the version last graded with drill restore" in said(refused)
    drill("restore")
    graded_save(workspace, clock, (workspace / "unbroadcast.py").read_text(encoding="utf-8"))


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_restore_archives_the_file_in_its_way(clock, workspace):
    mine = started(workspace) + "# mine\n"
    graded_save(workspace, clock, mine)
    (workspace / "unbroadcast.py").write_text("overwritten by mistake\n", encoding="utf-8")
    text = said(drill("restore", "unbroadcast"))
    [archived] = (workspace / ".archive").iterdir()
    assert archived.read_text(encoding="utf-8") == "overwritten by mistake\n"
    assert (workspace / "unbroadcast.py").read_text(encoding="utf-8") == mine
    assert archived.name in text


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_restore_a_finished_attempt_or_an_earlier_one(clock, workspace):
    drill("start", "unbroadcast", "--rung", "recall")
    graded_save(workspace, clock, REFERENCE_SOURCE, code=0)  # passed: the attempt is over
    first = latest()
    clock.advance(3600)
    mine = started(workspace) + "# mine\n"  # the passed file is archived, a fresh stub written
    graded_save(workspace, clock, mine)
    text = said(drill("restore", "--attempt", str(first.id)))
    assert (workspace / "unbroadcast.py").read_text(encoding="utf-8") == REFERENCE_SOURCE
    assert f"attempt {first.id} at unbroadcast (passed)" in text
    assert any(p.read_text(encoding="utf-8") == mine for p in (workspace / ".archive").iterdir())
    again = said(drill("restore", "unbroadcast"))  # the newest again, and the other one named
    assert f"Other graded attempt of unbroadcast: {first.id} " in again


@pytest.mark.parametrize(
    ("args", "said_"),
    [
        ((), "no attempt in progress"),
        (("max",), "no graded save of max"),
        (("--attempt", "99"), "no attempt 99"),
    ],
)
def test_restore_with_nothing_to_bring_back_is_a_one_line_error(clock, args, said_):
    seed("max", 100, at=T0 - 86_400)
    result = drill("restore", *args, code=2)
    assert said_ in said(result) and "Traceback" not in result.output


@pytest.mark.parametrize("width", [100, 60])
def test_show_full_prints_every_core_symbol(clock, monkeypatch, width):
    use_consoles(monkeypatch, width=width)
    output = drill("show", "full").output
    assert all(cell_len(line) <= width for line in output.splitlines())
    for symbol in [s for t in CATALOG.targets for s in t.symbols]:
        assert symbol in output
        assert REFERENCE_CODE[symbol].splitlines()[0].strip()[:40] in " ".join(output.split())
    assert "drill start full" in output and "marked assisted" not in output
