"""An honest full drill, scripted through the CLI (with a stand-in grader): a target that passed and
fails again shows ✗ in drill check, drill status and drill watch, and the attempt ends, with its
time, on the save where every target passes."""

from __future__ import annotations

import re

import pytest

from autograd_drill.grader.catalog import format_time
from autograd_drill.loop.watch import watch_saves
from autograd_drill.store import progress, records
from autograd_drill.views import report
from tests.loop import ALL_SYMBOLS, IDS, write
from tests.support import CATALOG, REFERENCE_SOURCE, drill, latest, row, said, shown

pytestmark = pytest.mark.usefixtures("wide_terminal")

TANH_VJP = "            self.grad += (1.0 - out.data**2) * out.grad\n"
BROKEN_TANH = REFERENCE_SOURCE.replace(TANH_VJP, "            self.grad += (1.0 - out.data) * out.grad\n")


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
    screen = shown(report.watch_screen(state, clock(), CATALOG.full_time))
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


def board_rows(output: str) -> list[list[str]]:
    """The scoreboard's rows as drawn, below its header (a shared segment's name on its lines, joined)."""
    rows: list[list[str]] = []
    for line in output.splitlines():
        if line.count("│") < 6:  # not a row of the table (its header is drawn with ┃)
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and not any(cells[1:]) and rows:  # a shared segment's name, continued
            rows[-1][0] += " " + cells[0]
        elif cells:
            rows.append(cells)
    return rows


def seconds(shown: str) -> int:
    minutes, secs = shown.split(" ")[0].split(":")
    return 60 * int(minutes) + int(secs)


def test_two_targets_on_one_save_share_a_segment_and_a_regression_has_its_line(clock, workspace, store, fake_grading):
    """The splits of a speedrun timer, honestly: two targets passing on one save share one segment (no
    0:00 best for the second), and the time spent fixing a target that passed and failed again is the
    scoreboard's regressions line; the segments and it add up to the total, drawn and in the data."""
    drill("start", "full")
    path = workspace / "full.py"
    together = IDS[2:4]
    assert "unary" in together and len(IDS) >= 5
    steps = [([IDS[0]], 60), ([IDS[1]], 120), (together, 180), *(([t], 60) for t in IDS[4:-1])]
    todo = list(ALL_SYMBOLS)
    for targets, spent in steps:
        clock.advance(spent)
        todo = [s for s in todo if not any(s in CATALOG.get(t).symbols for t in targets)]
        write(path, todo)
        text = said(drill("check", code=1))
        assert all(f"✓ {t} passed at" in text for t in targets)
    clock.advance(120)  # the last target passes on a save that breaks tanh: unary fails again
    path.write_text(BROKEN_TANH, encoding="utf-8")
    fake_grading.wrong = {"Tensor.tanh"}
    assert "✗ unary passed at" in said(drill("check", code=1))
    clock.advance(90)  # fixed 1:30 later
    fake_grading.wrong = set()
    path.write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    total = sum(spent for _, spent in steps) + 120 + 90
    assert f"✓ full passed at {format_time(total)}" in said(result)

    # the data
    attempt = latest()
    board = records.scoreboard(store.attempts("full"), attempt)
    assert board.total is not None and board.total.time == attempt.time == total
    assert [r.targets for r in board.rows] == [tuple(ts) for ts, _ in steps] + [(IDS[-1],)]
    assert [r.time for r in board.rows] == [spent for _, spent in steps] + [120]
    assert board.regressions == 90
    assert sum(r.time or 0 for r in board.rows) + board.regressions == board.total.time
    shared = board.rows[2]
    assert shared.target == " + ".join(together) and shared.best == 180 and shared.new_best
    assert shared.target_time == sum(CATALOG.get(t).target_time for t in together)
    best = records.best_segments(store.attempts("full"))
    assert min(best.values()) > 0 and tuple(sorted(together)) in best  # no 0:00 best recorded
    assert not any((t,) in best for t in together)  # a shared segment is no target's best alone
    assert board.sum_of_best == total - 90  # every target covered once; the regressions are in no segment

    # the scoreboard as drawn
    rows = board_rows(result.output)
    names = [r[0] for r in rows]
    assert names == [*IDS[:2], " + ".join(together), *IDS[4:], "regressions", "total"]
    drawn = {r[0]: r for r in rows}
    assert sum(seconds(drawn[n][2]) for n in names[:-1]) == seconds(drawn["total"][2]) == total
    assert drawn["regressions"][2] == "1:30" and drawn["regressions"][1] == "-"
    assert drawn[" + ".join(together)][2] == "3:00" and drawn[" + ".join(together)][5] == "3:00 ★"
    assert all(seconds(r[2]) > 0 for r in rows)
    assert "Regressions: 1:30 after the last split" in said(result)
    assert "Targets passed on one save share one segment" in said(result)

    # the chart: what the scoreboard says
    [run] = progress.progress(store, clock()).full
    assert [(s.targets, s.seconds) for s in run.segments] == [(r.targets, r.time) for r in board.rows]
    assert run.regressions == 90 and sum(s.seconds for s in run.segments) + run.regressions == run.seconds
    assert progress.progress(store, clock()).sum_of_best == board.sum_of_best
    drawn_chart = said(drill("chart", "full"))
    assert f"{together[0]} + {together[1]}" in drawn_chart and "! regressions" in drawn_chart
    assert f"Sum of best splits: {format_time(total - 90)}" in drawn_chart
