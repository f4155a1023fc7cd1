"""An honest full drill, scripted through the CLI (with a stand-in grader): a target that passed and
fails again shows ✗ in drill check, drill status and drill watch, and the attempt ends, with its
time, on the save where every target passes."""

from __future__ import annotations

import re

import pytest
from rich.console import RenderableType

from drills.loop.watch import watch_saves
from drills.views import report
from grader.catalog import format_time
from tests.support import ALL_SYMBOLS, CATALOG, IDS, REFERENCE_SOURCE, console, drill, latest, row, said, write

pytestmark = pytest.mark.usefixtures("wide_terminal")

TANH_VJP = "            self.grad += (1.0 - out.data**2) * out.grad\n"
BROKEN_TANH = REFERENCE_SOURCE.replace(TANH_VJP, "            self.grad += (1.0 - out.data) * out.grad\n")


def shown(view: RenderableType) -> str:
    out = console()
    with out.capture() as captured:
        out.print(view)
    return " ".join(captured.get().split())


def test_a_target_that_fails_again_shows_everywhere_and_the_drill_ends_when_all_pass(
    clock, workspace, store, fake_grading
):
    assert BROKEN_TANH != REFERENCE_SOURCE and "Tensor.tanh" in CATALOG.get("unary").symbols
    drill("start", "full")
    path = workspace / "full.py"
    todo = list(ALL_SYMBOLS)
    *first, last = IDS
    for minute, target in enumerate(first, 1):  # one target a minute
        clock.advance(60)
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(path, todo)
        assert f"✓ {target} passed at {minute}:00" in said(drill("check", code=1))
    unary = format_time(60 * (first.index("unary") + 1))

    # the last target passes on a save that breaks tanh: unary passed, and fails again
    clock.advance(60)
    path.write_text(BROKEN_TANH, encoding="utf-8")
    fake_grading.wrong = {"Tensor.tanh"}
    text = said(drill("check", code=1))
    assert f"✓ {last} passed at {len(IDS)}:00" in text
    assert "✗ unary 1 of 10 tests failed Tensor.tanh [fake]: wrong" in text
    assert f"✗ unary passed at {unary} and fails now" in text
    # tanh's target, those that need it, and the last target (its code is new on this save), in catalog order
    regraded = [t for t in IDS if t in ("unary", last) or "unary" in CATALOG.get(t).needs]
    assert fake_grading.calls[-1] == regraded
    attempt = store.active()
    assert attempt is not None and set(attempt.splits) == set(IDS)  # a split each, yet not over

    text = said(drill("status"))
    assert f"✗ unary regressed (passed at {unary}) Tensor.tanh [fake]: wrong" in text
    assert f"✓ {first[0]} passed at 1:00" in text and f"✓ {last} passed at {len(IDS)}:00" in text

    states = watch_saves(store, clock)
    try:
        before = fake_grading.calls[:]
        state = next(s for s in states if s.graded)  # the file as it is, graded at once (in the background)
    finally:
        states.close()
    assert fake_grading.calls == before  # nothing changed since the last check: every verdict kept
    assert state.graded and state.ended is None
    screen = shown(report.watch_screen(state, clock()))
    assert (
        f"✗ unary {len(IDS)}:00 fails again (passed at {unary}): 1 of 10 tests failed Tensor.tanh [fake]: wrong"
        in screen
    )
    assert f"✓ {last} passed at {len(IDS)}:00" in screen

    # fixed a minute later: the drill ends then, a minute after its last split
    clock.advance(60)
    fake_grading.wrong = set()
    path.write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    end = format_time(60 * (len(IDS) + 1))
    assert f"✓ full passed at {end}" in said(result)
    assert fake_grading.calls[-1] == IDS  # the end is declared on a grading of every target
    attempt = latest()
    assert attempt.outcome == "passed" and attempt.time == 60 * (len(IDS) + 1)
    assert max(attempt.splits.values()) == 60 * len(IDS)  # splits stay: each target's first pass
    assert row(result, "total")[2] == end
    assert row(result, "unary")[2] == "1:00"  # its segment, from its first pass
    listed = drill("list").output
    assert re.search(rf"^full\s.*{format_time(CATALOG.full_time)}\s+{end}\s+{end}\s+1\s", listed, re.M)  # best, last
    for target in IDS:  # each reviewed by its split: not due now, as a target never drilled is
        assert re.search(rf"^{target}\s.*\s0\s+in \d+ days?\s*$", listed, re.M), target
