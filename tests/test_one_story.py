"""One story per target (issue 23, point 8): after a full drill, every view tells each core target's
rung, best, last and due date alike, read from one place (drills/loop/standing.py)."""

from __future__ import annotations

import re

import pytest

from tests.loop import ALL_SYMBOLS, IDS, write
from tests.support import CATALOG, drill, said

pytestmark = pytest.mark.usefixtures("wide_terminal")


def full_drill(clock, workspace) -> str:
    """A full drill, scripted through the CLI: one target a minute, each within its target time; what
    the last check said."""
    drill("start", "full")
    path, todo = workspace / "full.py", list(ALL_SYMBOLS)
    for target in IDS:
        clock.advance(60)
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(path, todo)
        last = drill("check", code=None)
    clock.advance(3600)
    return said(last)


def test_after_a_full_drill_list_stats_review_ladder_and_next_agree(clock, workspace, store, fake_grading):
    """Each core target passed from memory in the full drill, within its time: on recall in every view
    (not copy in list and ladder, never drilled in review), due the same day in list and review."""
    finished = full_drill(clock, workspace)
    assert "Next: drill diff full " in finished  # all of it compared, not its first target
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


def test_every_view_reads_the_history_once_through_standings(clock, workspace, store, fake_grading, monkeypatch):
    """``list``, ``stats``, ``review``, ``ladder``, ``next`` and the scoreboard after a pass read each
    target's story from one call of ``standings`` (one read of the history's attempts), never their own."""
    from autograd_drill.loop import standing
    from autograd_drill.store import records
    from autograd_drill.store.history import History

    full_drill(clock, workspace)
    calls: list[str] = []
    told: list[dict[str, standing.Standing]] = []
    boards: list[tuple[object, ...]] = []
    attempts, standings, scoreboard = History.attempts, standing.standings, records.scoreboard

    def counted_attempts(self: History, target: str | None = None) -> list:
        calls.append(f"attempts({target})")
        return attempts(self, target)

    def counted_standings(history: History, now: float) -> dict[str, standing.Standing]:
        calls.append("standings")
        told.append(standings(history, now))
        return told[-1]

    def spied_scoreboard(own, attempt, target_time=None):
        boards.append(own)
        return scoreboard(own, attempt, target_time)

    monkeypatch.setattr(History, "attempts", counted_attempts)
    monkeypatch.setattr(standing, "standings", counted_standings)
    monkeypatch.setattr("autograd_drill.commands.practice.standings", counted_standings)
    monkeypatch.setattr(records, "scoreboard", spied_scoreboard)
    for argv in (["list"], ["stats"], ["review", IDS[1]], ["ladder"], ["next"]):
        calls.clear()
        drill(*argv)
        assert calls == ["standings", "attempts(None)"], (argv, calls)
    drill("start", IDS[0])
    write(workspace / f"{IDS[0]}.py", [])
    clock.advance(30)
    calls.clear()
    assert "passed at 0:30" in said(drill("check"))
    assert calls.count("standings") == 1, calls  # the finish screen: its board, rungs and queue from one
    assert boards and boards[-1] is told[-1][IDS[0]].own  # the board is drawn from the standing's attempts
