"""One story per target (issue 23, point 8): after a full drill, every view tells each core target's
rung, best, last and due date alike, read from one place (drills/loop/standing.py)."""

from __future__ import annotations

import re

import pytest

from tests.support import ALL_SYMBOLS, CATALOG, IDS, drill, said, write

pytestmark = pytest.mark.usefixtures("wide_terminal")


def full_drill(clock, workspace) -> None:
    """A full drill, scripted through the CLI: one target a minute, each within its target time."""
    drill("start", "full")
    path, todo = workspace / "full.py", list(ALL_SYMBOLS)
    for target in IDS:
        clock.advance(60)
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(path, todo)
        drill("check", code=None)
    clock.advance(3600)


def test_after_a_full_drill_list_stats_review_ladder_and_next_agree(clock, workspace, store, fake_grading):
    """Each core target passed from memory in the full drill, within its time: on recall in every view
    (not copy in list and ladder, never drilled in review), due the same day in list and review."""
    full_drill(clock, workspace)
    listed = drill("list").output.splitlines()
    ladder = drill("ladder").output.splitlines()
    stats = drill("stats").output
    for target in IDS:
        row = next(line for line in listed if line.startswith(f"{target} "))
        assert row.split()[1] == "recall", row
        due = re.search(r"(in \d+ days?)\s*$", row)
        assert due is not None, row
        step = ladder_row = next(line for line in ladder if line.startswith(f"{target} "))
        assert ladder_row.split()[1] == "recall", step
        review = said(drill("review", target))
        assert "never drilled" not in review
        assert f"yours: passed in 1 full drill; due {due.group(1)}" in review, review
        # stats: its recall row only (no copy or cloze row: it was never drilled below recall)
        assert not re.search(rf"^\W*{re.escape(target)}\s+(copy|cloze)\s", stats, re.M), stats
    assert "rung next" not in said(drill("next"))  # the target chosen next starts on recall


def test_a_split_over_its_time_twice_moves_a_target_down_as_the_ladder_says(clock, workspace, store, fake_grading):
    """The splits count on the ladder as recall passes: two full drills with unbroadcast's segment over
    its recall time move it down to cloze, in list and ladder alike (and drill start starts it there)."""
    slow = CATALOG.get(IDS[0]).target_time + 60
    for _ in range(2):
        drill("start", "full")
        path, todo = workspace / "full.py", list(ALL_SYMBOLS)
        for k, target in enumerate(IDS):
            clock.advance(slow if k == 0 else 60)
            todo = [s for s in todo if s not in CATALOG.get(target).symbols]
            write(path, todo)
            drill("check", code=None)
        clock.advance(86400 * 30)
    listed = next(line for line in drill("list").output.splitlines() if line.startswith(f"{IDS[0]} "))
    laddered = next(line for line in drill("ladder").output.splitlines() if line.startswith(f"{IDS[0]} "))
    assert listed.split()[1] == laddered.split()[1] == "cloze", (listed, laddered)
    assert "its cloze rung next" in said(drill("review", IDS[0]))
    assert "cloze" in said(drill("start", IDS[0]))
