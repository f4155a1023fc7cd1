"""``drill diff``'s logic (drills/loop/diff.py): when your code may be compared with the reference,
and which version of it."""

from __future__ import annotations

import pytest

from drills.loop import diff, session
from tests.support import REFERENCE_SOURCE, finish_attempt

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
