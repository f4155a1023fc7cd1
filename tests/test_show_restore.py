"""``drill show`` (the reference of a target, before you ever drill it) and ``drill restore`` (a
solution file deleted or overwritten, brought back from the graded history)."""

from __future__ import annotations

import os
import signal

import pytest
from rich.cells import cell_len

from autograd_drill.loop.diff import symbol_sources
from tests.processes import STARTED_WITHIN, start_drill, wait_until
from tests.support import (
    CATALOG,
    REFERENCE_SOURCE,
    T0,
    active,
    drill,
    latest,
    open_store,
    said,
    seed,
    sources,
    spawn_drill,
    use_consoles,
)

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
def test_show_leaves_out_the_code_of_other_drills(clock):
    """The core backward is shown as its stub asks it: without the cotangent seed and the freeing of
    free-memory; the cotangent drill shows its own code."""
    core = drill("show", "backward").output
    assert "np.array(gradient, dtype=np.float64)" not in core and "if not retain_graph" not in core
    assert "_topological_order(self)" in core
    own = drill("show", "cotangent").output
    assert "np.array(gradient, dtype=np.float64)" in own and "if not retain_graph" not in own


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


# ---------------------------------------------------------------------------- any graded save


def save_rows(listing: str) -> dict[str, str]:
    """The rows of ``drill restore --list`` by save number, whitespace collapsed (a wrapped verdict
    joined to its row)."""
    rows: dict[str, str] = {}
    last = None
    for line in listing.splitlines():
        words = line.replace("▸", "").split()
        if "▸" in line:
            words.append("(in the file now)")
        if words and words[0].isdigit() and len(words) > 1 and ":" in words[1]:
            last = words[0]
            rows[last] = " ".join(words)
        elif last is not None and words and line.startswith("              "):
            rows[last] += " " + " ".join(words)
        else:
            last = None
    return rows


@pytest.mark.parametrize("width", [100, 60])
@pytest.mark.usefixtures("fake_grading")
def test_restore_list_then_an_earlier_save_after_the_overwrite_was_graded(clock, workspace, monkeypatch, width):
    use_consoles(monkeypatch, width=width)
    stub = started(workspace)
    graded_save(workspace, clock, stub + "# first\n")
    graded_save(workspace, clock, stub + "# second\n")
    overwritten = "# overwritten by mistake\n" + stub  # a stub: the stand-in grader fails it
    graded_save(workspace, clock, overwritten)  # graded too: now the last graded save
    assert "nothing to restore" in said(drill("restore"))  # the latest is in the file...
    assert "drill restore --list" in said(drill("restore"))  # ...and the earlier saves are named
    listing = drill("restore", "--list").output
    assert all(cell_len(line) <= width for line in listing.splitlines() if str(workspace) not in line)
    rows = save_rows(listing)
    assert [r.split()[:2] for r in rows.values()] == [["1", "0:30"], ["2", "1:00"], ["3", "1:30"]]
    assert all("tests failed" in r for r in rows.values()) and "in the file now" in rows["3"]
    assert "in the file now" not in rows["1"] + rows["2"]
    assert "▸ the one your file holds now" in said(drill("restore", "--list"))
    text = said(drill("restore", "--save", "2"))
    assert (workspace / "unbroadcast.py").read_text(encoding="utf-8") == stub + "# second\n"
    assert "save 2 of 3, graded at 1:00 on the clock" in text
    [archived] = (workspace / ".archive").iterdir()  # the file in the way: archived, not lost
    assert archived.read_text(encoding="utf-8") == overwritten
    assert f" {archived}." in text  # whole, however long (tests/test_unbroken_paths.py)
    assert "in the file now" in save_rows(drill("restore", "--list").output)["2"]


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_restore_a_save_of_an_earlier_attempt_and_its_verdict(clock, workspace):
    drill("start", "unbroadcast", "--rung", "recall")
    stub = (workspace / "unbroadcast.py").read_text(encoding="utf-8")
    graded_save(workspace, clock, stub + "# try\n")
    graded_save(workspace, clock, REFERENCE_SOURCE, code=0)
    first = latest()
    started(workspace)
    listing = said(drill("restore", "--list", "--attempt", str(first.id)))
    assert f"Graded saves of attempt {first.id} at unbroadcast (passed)" in listing
    assert "1 0:30 1 of 10 tests failed" in listing and "2 1:00 passed" in listing
    drill("restore", "--attempt", str(first.id), "--save", "1")
    assert (workspace / "unbroadcast.py").read_text(encoding="utf-8") == stub + "# try\n"


@pytest.mark.parametrize(
    ("args", "said_"),
    [
        (("--save", "4"), "has 3 graded saves: --save takes 1 to 3, not 4"),
        (("--save", "0"), "--save takes 1 to 3, not 0"),
        (("--save", "-1"), "--save takes 1 to 3, not -1"),
        (("--list", "--save", "1"), "--list shows the saves and --save restores one"),
    ],
)
@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_restore_a_bad_save_number_is_a_one_line_error(clock, workspace, args, said_):
    stub = started(workspace)
    for n in range(3):
        graded_save(workspace, clock, stub + f"# {n}\n")
    result = drill("restore", *args, code=2)
    assert said_ in said(result) and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert (workspace / "unbroadcast.py").read_text(encoding="utf-8") == stub + "# 2\n"


# ---------------------------------------------------------------------------- while drill watch runs

MINE = REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)")
"""A solution nearly done (one slip: the grader fails it), the save the accident overwrites."""
OVERWRITTEN = "# an editor's template, saved over the solution by mistake\n"


def test_restore_an_earlier_save_after_drill_watch_graded_the_overwrite(tmp_path):
    assert MINE != REFERENCE_SOURCE
    path = start_drill(tmp_path, MINE)
    watcher = spawn_drill("watch")  # a real watch, the real grader, in a session of its own
    try:
        wait_until(lambda: MINE in sources(), STARTED_WITHIN, "the watch to grade the first save")
        path.write_text(OVERWRITTEN, encoding="utf-8")
        wait_until(lambda: sources()[-1:] == [OVERWRITTEN], STARTED_WITHIN, "the watch to grade the overwrite")
        assert "nothing to restore" in said(drill("restore"))  # the overwrite is the last graded save
        rows = save_rows(drill("restore", "--list").output)
        assert list(rows) == ["1", "2"] and "in the file now" in rows["2"]
        assert "tests failed" in rows["1"] and "in the file now" not in rows["1"]
        text = said(drill("restore", "--save", "1"))
        assert path.read_text(encoding="utf-8") == MINE and "save 1 of 2" in text
        [archived] = (path.parent / ".archive").iterdir()
        assert archived.read_text(encoding="utf-8") == OVERWRITTEN
        wait_until(lambda: sources()[-1:] == [MINE], STARTED_WITHIN, "the watch to grade the restored file")
        rows = save_rows(drill("restore", "--list").output)
        assert list(rows) == ["1", "2", "3"] and "same as save 1" in rows["3"]
        assert all("in the file now" in rows[n] for n in ("1", "3")) and "in the file now" not in rows["2"]
        assert watcher.poll() is None  # still watching, the attempt still in progress
        os.killpg(watcher.pid, signal.SIGINT)  # Ctrl-C
        output, errors = watcher.communicate(timeout=60)
    finally:  # a failed test leaves no watcher behind
        if watcher.poll() is None:
            os.killpg(watcher.pid, signal.SIGKILL)
            watcher.wait(10)
    assert watcher.returncode == 0 and "Stopped watching" in " ".join(output.split()), output + errors
    assert active() is not None and path.read_text(encoding="utf-8") == MINE
