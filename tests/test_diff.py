"""``drill diff``'s logic (drills/loop/diff.py): when your code may be compared with the reference,
and which version of it; and ``drill diff full`` through the CLI."""

from __future__ import annotations

import pytest
from rich.cells import cell_len as line_width

from autograd_drill.grader.catalog import listed
from autograd_drill.loop import diff, session
from tests.loop import finish_attempt, write
from tests.support import CATALOG, REFERENCE_SOURCE, active, drill, latest, said, use_consoles

# ---------------------------------------------------------------------------- compare with the reference


def test_compare_refuses_before_the_target_passed(history, clock, workspace):
    session.start(history, "unbroadcast", workspace, clock)
    for target in (None, "unbroadcast"):
        with pytest.raises(session.DrillError, match="has not passed yet.*--peek") as info:
            diff.compare(history, target, peek=False)
        assert info.value.code == 2
    assert not history.active().assisted


def test_compare_with_peek_shows_both_and_marks_the_attempt_assisted(history, clock, workspace):
    started = session.start(history, "backward", workspace, clock)
    comparison = diff.compare(history, None, peek=True)
    assert comparison.peeked and comparison.target == "backward"
    assert [p[0] for p in comparison.pairs] == ["Tensor.__init__", "Tensor.backward", "_topological_order"]
    for _symbol, ours, reference in comparison.pairs:
        assert ours is not None and "NotImplementedError" in ours
        assert "NotImplementedError" not in reference and reference.startswith("def ")
    assert history.active().assisted
    assert history.active().id == started.attempt.id and history.active().in_progress


def test_compare_after_give_up_is_allowed_and_not_assisted(history, clock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock)
    started.path.write_text(
        REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)"), encoding="utf-8"
    )
    attempt = session.give_up(history, clock)
    assert attempt.outcome == "gave-up"
    comparison = diff.compare(history, None, peek=False)
    assert not comparison.peeked and comparison.target == "unbroadcast"
    [(symbol, ours, reference)] = comparison.pairs
    assert symbol == "unbroadcast"
    assert ours is not None and "sum(axis=-1)" in ours and "sum(axis=0)" in reference
    assert not history.get(attempt.id).assisted
    assert diff.compare(history, "unbroadcast", peek=False).pairs == comparison.pairs


def test_compare_after_a_pass_shows_the_source_as_last_graded(history, clock, workspace, fake_grading):
    checked = finish_attempt(history, clock, workspace, "unbroadcast", 100)
    checked.attempt.file.write_text("# edited after the pass\n", encoding="utf-8")
    comparison = diff.compare(history, "unbroadcast", peek=False)
    assert not comparison.peeked and "as last graded" in comparison.source_label
    [(_, ours, reference)] = comparison.pairs
    assert ours == reference
    assert not history.get(checked.attempt.id).assisted


def test_compare_a_target_never_attempted(history):
    with pytest.raises(session.DrillError, match="never attempted arith"):
        diff.compare(history, "arith", peek=True)
    with pytest.raises(session.DrillError, match="nothing to compare"):
        diff.compare(history, None, peek=False)


# ---------------------------------------------------------------------------- a full drill, through the CLI

CORE_SYMBOLS = [s for t in CATALOG.targets for s in t.symbols]
BUT_UNBROADCAST = listed([i for i in CATALOG.ids if i != "unbroadcast"])
"""The core targets a full drill has not passed once unbroadcast has, as a refusal lists them."""


def full_drill_passed(clock, workspace) -> None:
    """``drill full``, then one save of the reference that passes every target (stand-in grader)."""
    drill("full")
    clock.advance(600)
    write(workspace / "full.py", [])
    drill("check")


@pytest.mark.parametrize("width", [100, 60])
@pytest.mark.usefixtures("fake_grading")
def test_diff_after_a_full_drill_shows_every_symbol(clock, workspace, monkeypatch, width):
    full_drill_passed(clock, workspace)
    use_consoles(monkeypatch, width=width)
    for args in [("diff",), ("diff", "full")]:
        result = drill(*args)
        assert "Traceback" not in result.output and "Did you mean" not in result.output
        lines = result.output.splitlines()  # but the file's path, whole (tests/test_unbroken_paths.py)
        assert all(line_width(line) <= width for line in lines if str(workspace) not in line)
        for symbol in CORE_SYMBOLS:  # each symbol's heading, and its reference's first line
            assert symbol in result.output, (args, symbol)
        assert "def cross_entropy" in result.output and "def unbroadcast" in result.output
    assert not latest().assisted


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_diff_full_during_the_drill_refuses_then_peeks_at_every_symbol(clock, workspace):
    drill("full")
    clock.advance(60)
    write(workspace / "full.py", [s for s in CORE_SYMBOLS if s != "unbroadcast"])
    drill("check", code=1)  # unbroadcast passed; the others not yet
    refused = said(drill("diff", "full", code=2))
    assert f"{BUT_UNBROADCAST} have not passed yet" in refused
    assert "drill diff full --peek" in refused and "unbroadcast" not in refused.split("have not")[0]
    assert not active().assisted
    alone = said(drill("diff", code=2))  # while it runs: its first target not passed yet, no more
    assert alone.startswith("error: backward has not passed yet") and "drill diff backward --peek" in alone
    assert said(drill("diff", "unbroadcast")).count("unbroadcast") >= 1  # a passed target: allowed, not marked
    assert not active().assisted
    peeked = drill("diff", "full", "--peek").output
    assert all(symbol in peeked for symbol in CORE_SYMBOLS) and "marked assisted" in " ".join(peeked.split())
    assert active().assisted


def test_diff_full_never_drilled_and_full_where_one_target_is_asked_for(clock):
    assert "never drilled full: start with drill full" in said(drill("diff", "full", code=2))
    result = drill("hint", "full", code=2)
    assert "full is the drill of every core target, not one target" in said(result)
    assert "Did you mean 'full'" not in said(result) and "Traceback" not in result.output
    typo = said(drill("diff", "fulll", code=2))
    assert "Did you mean 'full'?" in typo  # a real typo still gets the suggestion


def test_an_unknown_target_is_never_suggested_as_itself():
    with pytest.raises(KeyError) as info:
        CATALOG.get("full")
    assert "Did you mean" not in str(info.value)
    with pytest.raises(KeyError, match="Did you mean 'arith'"):
        CATALOG.get("arth")


@pytest.mark.usefixtures("wide_terminal", "fake_grading")
def test_diff_full_after_an_abandoned_full_drill_names_what_had_not_passed(clock, workspace):
    drill("full")
    clock.advance(60)
    write(workspace / "full.py", [s for s in CORE_SYMBOLS if s != "unbroadcast"])
    drill("check", code=1)
    drill("abandon")
    for args in [("diff",), ("diff", "full")]:
        refused = said(drill(*args, code=2))
        assert f"abandoned before {BUT_UNBROADCAST} passed" in refused
        assert "drill diff full --peek" in refused
    peeked = drill("diff", "full", "--peek").output
    assert all(symbol in peeked for symbol in CORE_SYMBOLS) and not latest().assisted  # it had ended
