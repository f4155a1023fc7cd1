"""Records (drills/store/records.py) as the drill loop makes them: the full drill's splits and
scoreboard, personal bests, stats, over a real history with the stand-in grader (``fake_grading``)."""

from __future__ import annotations

import pytest

from autograd_drill.loop import session
from autograd_drill.loop.standing import standings
from autograd_drill.store import records
from autograd_drill.store.history import Attempt, History
from autograd_drill.views.render import SPARKS, delta, sparkline
from autograd_drill.views.report import passed_line
from tests.loop import ALL_SYMBOLS, IDS, finish_attempt, give_up_attempt, minutes, run_full, write
from tests.support import CATALOG


def board_of(history: History, attempt: Attempt) -> records.Scoreboard:
    """An attempt's scoreboard as the finish screen reads it: from its drill's standing."""
    return standings(history, attempt.ended_at or 0.0)[attempt.target].scoreboard(attempt)


def stats_of(history: History, drill_id: str) -> records.TargetStats:
    """A drill's recall row as ``drill stats`` reads it: from its standing."""
    return standings(history, 0.0)[drill_id].stats()


# ---------------------------------------------------------------------------- the full drill


def test_full_drill_records_splits_per_target_and_a_scoreboard_in_pass_order(history, clock, workspace, fake_grading):
    started = session.start(history, "full", workspace, clock)
    path = started.path
    todo = list(ALL_SYMBOLS)
    # pass the targets out of catalog order: the fourth before the third; the last one after a pause
    *first, last = IDS
    order = [first[0], first[1], first[3], first[2], *first[4:]]
    spent = dict(zip([*order, last], minutes([120, 300, 200, 400, 100, 80]), strict=True))
    at = 0.0
    for target in order:
        clock.advance(spent[target])
        at += spent[target]
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(path, todo)
        checked = session.check(history, clock)
        assert target in fake_grading.calls[-1]  # graded again: its code changed (others kept their verdicts)
        assert checked.newly_passed == (target,) and not checked.finished
        assert checked.attempt.splits[target] == at
    session.pause(history, clock)
    clock.advance(999)  # a pause is not on any split
    session.resume(history, clock)
    clock.advance(spent[last])
    write(path, [])
    checked = session.check(history, clock)
    assert checked.finished and checked.newly_passed == (last,)
    assert fake_grading.calls[-1] == IDS  # the end: every target graded on the same save
    attempt = checked.attempt
    total = sum(spent.values())
    cumulative = [sum(list(spent.values())[: k + 1]) for k in range(len(spent))]
    assert attempt.splits == dict(zip(spent, cumulative, strict=True))
    assert attempt.time == total

    board = board_of(history, attempt)
    assert [r.target for r in board.rows] == [*order, last]  # in pass order
    assert [r.time for r in board.rows] == list(spent.values())  # time spent on each, since the last split
    assert [r.target_time for r in board.rows] == [CATALOG.get(r.target).target_time for r in board.rows]
    assert [r.best for r in board.rows] == list(spent.values())
    assert all(r.new_best and not r.assisted for r in board.rows)
    assert board.total is not None
    assert board.total.target == "full" and board.total.target_time == CATALOG.full_time
    assert board.total.time == total and board.total.delta == total - CATALOG.full_time
    assert board.total.best == total and board.total.attempts == 1 and board.total.new_best
    assert board.sum_of_best == total
    assert board.new_best


def test_full_drill_sum_of_best_takes_the_best_split_of_each_target(history, clock, workspace, fake_grading):
    first_times = dict(zip(IDS, minutes([120, 300, 400, 200, 100, 80]), strict=True))
    second_times = dict(zip(IDS, minutes([60, 400, 300, 300, 50, 100]), strict=True))
    first = run_full(history, clock, workspace, list(first_times.items()))
    clock.advance(86_400)
    second = run_full(history, clock, workspace, list(second_times.items()))
    assert first.attempt.time == sum(first_times.values()) and second.attempt.time == sum(second_times.values())

    board = board_of(history, second.attempt)
    rows = {r.target: r for r in board.rows}
    assert {t: r.time for t, r in rows.items()} == second_times
    best = {t: min(first_times[t], second_times[t]) for t in IDS}
    assert {t: r.best for t, r in rows.items()} == best
    assert {t for t, r in rows.items() if r.new_best} == {t for t in IDS if second_times[t] < first_times[t]}
    assert board.sum_of_best == sum(best.values())
    assert board.total is not None
    assert board.total.time == second.attempt.time and board.total.best == first.attempt.time
    assert board.total.attempts == 2 and not board.total.new_best  # 1210 s is slower than 1200 s


def test_targets_passing_in_one_grading_keep_the_catalog_order(history, clock, workspace, fake_grading):
    started = session.start(history, "full", workspace, clock)
    clock.advance(600)
    batch, rest = IDS[:4], CATALOG.targets[4:]
    write(started.path, [s for t in rest for s in t.symbols])  # the first four written, the rest blank
    checked = session.check(history, clock)
    assert checked.newly_passed == tuple(batch)
    assert list(checked.attempt.splits) == batch
    clock.advance(100)
    write(started.path, [])
    board = board_of(history, session.check(history, clock).attempt)
    assert [r.targets for r in board.rows] == [tuple(batch), tuple(IDS[4:])]  # each batch: one segment
    assert [r.time for r in board.rows] == [600, 100]
    shared = board.rows[0]
    assert shared.target == " + ".join(batch) and shared.time == 600 and shared.best == 600  # no 0:00 anywhere
    assert shared.target_time == sum(CATALOG.get(t).target_time for t in batch)
    assert all(r.time and r.time > 0 for r in board.rows) and board.regressions == 0
    best = records.best_segments(history.attempts("full"))
    assert best[tuple(sorted(batch))] == 600 and not any((t,) in best for t in batch)  # no target's best alone


def test_sum_of_best_covers_every_target_once_with_solo_or_shared_segments(history):
    """A shared segment is a best of its targets together: the sum of best takes, for every core target
    once, the fastest of the recorded segments, a shared one or the solo ones of its targets."""
    a, b, *rest = IDS
    best = {(a,): 30.0, (b,): 200.0, tuple(sorted((a, b))): 100.0, **{(t,): 50.0 for t in rest}}
    assert records.sum_of_best(best) == 100 + 50 * len(rest)  # a and b together (1:40) beat 0:30 + 3:20
    best[(b,)] = 60.0
    assert records.sum_of_best(best) == 90 + 50 * len(rest)  # now apart
    del best[(a,)], best[(b,)]
    assert records.sum_of_best(best) == 100 + 50 * len(rest)  # only ever passed together: still covered
    del best[(rest[0],)]
    assert records.sum_of_best(best) is None  # a core target in no segment
    assert records.sum_of_best({tuple(sorted(IDS)): 900.0}) == 900  # every target on one save
    assert records.sum_of_best({**best, (rest[0], "max"): 1.0}) is None  # a follow-up is no core segment


def test_segments_of_one_save_are_one_and_the_regressions_are_the_rest(history, clock, workspace, fake_grading):
    """The segments of a full drill and its regressions add up to its time, whatever its splits."""
    started = session.start(history, "full", workspace, clock)
    attempt = started.attempt
    for target, at in [(IDS[0], 60.0), (IDS[1], 60.0), (IDS[2], 200.0), *((t, 500.0) for t in IDS[3:])]:
        history.add_split(attempt, target, at)
    history.finish(attempt, "passed", attempt.started_at + 640)
    done = history.get(attempt.id)
    got = records.segments(done)
    assert [(s.targets, s.seconds, s.at) for s in got] == [
        (tuple(IDS[:2]), 60, 60),
        ((IDS[2],), 140, 200),
        (tuple(IDS[3:]), 300, 500),
    ]
    assert got[0].shared and not got[1].shared and got[0].label == f"{IDS[0]} + {IDS[1]}"
    assert records.regressions(done) == 140
    assert sum(s.seconds for s in got) + 140 == done.time == 640


# ---------------------------------------------------------------------------- records


def test_first_unassisted_pass_is_a_new_best_then_only_faster_ones(history, clock, workspace, fake_grading):
    first = finish_attempt(history, clock, workspace, "unbroadcast", 200)
    board = board_of(history, first.attempt)
    [row] = board.rows
    assert board.total is None and board.sum_of_best is None
    assert (row.target, row.target_time, row.time, row.best, row.attempts) == ("unbroadcast", 300, 200, 200, 1)
    assert row.delta == -100 and not row.assisted
    assert row.new_best and board.new_best

    slower = finish_attempt(history, clock, workspace, "unbroadcast", 320)
    [row] = board_of(history, slower.attempt).rows
    assert row.time == 320 and row.delta == 20 and row.best == 200 and row.attempts == 2
    assert not row.new_best

    faster = finish_attempt(history, clock, workspace, "unbroadcast", 150)
    [row] = board_of(history, faster.attempt).rows
    assert row.best == 150 and row.attempts == 3 and row.new_best

    # the board of an older attempt is still about that attempt
    [row] = board_of(history, first.attempt).rows
    assert row.time == 200 and row.new_best and row.best == 150


def test_personal_best_ignores_assisted_attempts(history, clock, workspace, fake_grading):
    finish_attempt(history, clock, workspace, "unbroadcast", 200)
    assisted = finish_attempt(history, clock, workspace, "unbroadcast", 30, hints=1)
    assert assisted.attempt.assisted
    assert records.personal_best(history.attempts("unbroadcast")) == 200
    [row] = board_of(history, assisted.attempt).rows
    assert row.assisted and not row.new_best
    assert row.time == 30 and row.best == 200
    assert session.start(history, "unbroadcast", workspace, clock).best == 200


def test_only_assisted_passes_mean_no_personal_best(history, clock, workspace, fake_grading):
    checked = finish_attempt(history, clock, workspace, "unbroadcast", 30, hints=2)
    assert records.personal_best(history.attempts("unbroadcast")) is None
    [row] = board_of(history, checked.attempt).rows
    assert row.best is None and not row.new_best


def test_gave_up_counts_as_an_attempt_abandoned_does_not(history, clock, workspace, fake_grading):
    give_up_attempt(history, clock, workspace, "unbroadcast", 100)
    session.start(history, "unbroadcast", workspace, clock)
    session.abandon(history, clock)
    checked = finish_attempt(history, clock, workspace, "unbroadcast", 250)
    [row] = board_of(history, checked.attempt).rows
    assert row.attempts == 2 and row.new_best


def test_delta_is_green_under_the_target_and_red_over():
    under, over = delta(-132), delta(45)
    assert str(under) == "−2:12" and under.style == "green"
    assert str(over) == "+0:45" and over.style == "red"
    assert str(delta(None)) == "-"


def test_a_slower_full_run_does_not_claim_a_new_personal_best(history, clock, workspace, fake_grading):
    run_full(history, clock, workspace, [(t, 100) for t in IDS])  # 100 s a target
    clock.advance(86_400)
    slower = run_full(history, clock, workspace, [(IDS[0], 50), *((t, 200) for t in IDS[1:])])  # one split better
    board = board_of(history, slower.attempt)
    assert board.total is not None and not board.total.new_best
    assert "new personal best" not in passed_line(slower, board).plain


# ---------------------------------------------------------------------------- stats and what next


def test_stats_median_of_last_five_share_under_target_and_trend(history, clock, workspace, fake_grading):
    for seconds in (400, 200, 350):
        finish_attempt(history, clock, workspace, "unbroadcast", seconds)
    give_up_attempt(history, clock, workspace, "unbroadcast", 500)
    for seconds in (250, 300, 100):
        finish_attempt(history, clock, workspace, "unbroadcast", seconds)
    session.start(history, "unbroadcast", workspace, clock)
    session.abandon(history, clock)  # a reset, not an attempt

    s = stats_of(history, "unbroadcast")
    assert s.target == "unbroadcast" and s.target_time == 300
    assert s.attempts == 7
    assert s.times == (400, 200, 350, 250, 300, 100)  # oldest first: the sparkline's input
    assert s.best == 100
    assert s.median_last_five == 250  # median of 200, 350, 250, 300, 100
    assert s.share_under == pytest.approx(4 / 7)  # 200, 250, 300 (at the target counts) and 100
    assert s.last is not None and s.last.time == 100

    line = sparkline(s.times)
    assert len(line) == 6 and set(line) <= set(SPARKS)
    assert line[0] == SPARKS[-1] and line[-1] == SPARKS[0]  # slowest highest, fastest lowest


def test_stats_of_a_target_never_drilled(history):
    s = stats_of(history, "arith")
    assert s.attempts == 0 and s.best is None and s.median_last_five is None
    assert s.times == () and s.share_under is None and s.last is None
    assert sparkline(s.times) == ""


def test_stats_best_ignores_assisted_passes(history, clock, workspace, fake_grading):
    finish_attempt(history, clock, workspace, "unbroadcast", 200)
    finish_attempt(history, clock, workspace, "unbroadcast", 50, hints=1)
    s = stats_of(history, "unbroadcast")
    assert s.best == 200 and s.attempts == 2


def test_stats_of_the_full_drill(history, clock, workspace, fake_grading):
    started = session.start(history, "full", workspace, clock)
    clock.advance(1500)
    write(started.path, [])
    session.check(history, clock)
    s = stats_of(history, "full")
    assert s.target_time == CATALOG.full_time and s.attempts == 1 and s.best == 1500 and s.share_under == 1


def test_the_schedule_follows_the_drills_finished(history, clock, workspace, fake_grading):
    """Attempts finished through the drill loop are the reviews drills/store/schedule.py chooses from."""
    from autograd_drill.store.schedule import choose

    assert choose(history, clock()).target == "unbroadcast"  # nothing drilled: the first in the catalog
    finish_attempt(history, clock, workspace, "unbroadcast", 100)  # under half of 5:00: Easy
    assert choose(history, clock()).target == "backward"
    give_up_attempt(history, clock, workspace, "backward", 100)  # never passed from memory: learning, due now
    assert choose(history, clock()).target == "backward"
    finish_attempt(history, clock, workspace, "backward", 400)  # its first recall pass: in the schedule
    give_up_attempt(history, clock, workspace, "backward", 100)  # Again: due tomorrow
    assert choose(history, clock()).target == "arith"
    clock.advance(2 * 86_400)
    assert choose(history, clock()).target == "backward"  # overdue comes before never drilled
