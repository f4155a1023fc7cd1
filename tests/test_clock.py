"""The attempt's clock (drills/loop/clock.py, drills/store/history.py): monotonic time within a boot,
the wall clock only for dates; work done while the clock is stopped earns no time. Over a real
history, a MockClock and the stand-in grader (``fake_grading``)."""

from __future__ import annotations

import pytest
from fsrs import Rating

from autograd_drill.loop import session
from autograd_drill.loop.clock import MockClock, Reading, system_clock
from autograd_drill.loop.ladder import place
from autograd_drill.store.attempt import CHANGED_ACROSS_REBOOT, EDITED_WHILE_PAUSED
from autograd_drill.store.history import History
from autograd_drill.store.records import personal_best, scoreboard
from autograd_drill.store.schedule import rate
from tests.loop import write

pytestmark = pytest.mark.usefixtures("fake_grading")


def test_the_system_clock_reads_wall_monotonic_and_boot():
    a, b = system_clock(), system_clock()
    assert isinstance(a, Reading) and isinstance(a, float) and a.boot == b.boot and a.boot
    assert b.mono >= a.mono


@pytest.mark.parametrize("jump", [-7200.0, -30.0, 30.0, 8 * 3600.0])
def test_a_wall_clock_change_during_an_attempt_changes_nothing(history: History, clock: MockClock, workspace, jump):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(60)
    clock.set_wall(clock.wall + jump)  # the user (or NTP) sets the clock
    assert history.active().elapsed(clock()) == 60
    clock.advance(30)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.finished and checked.elapsed == 90 and checked.attempt.time == 90
    assert personal_best(history.attempts("unbroadcast")) == 90
    ended = checked.attempt
    assert ended.ended_at == max(clock.wall, ended.started_at + 90)  # the calendar: the wall clock
    assert ended.paused_total >= 0 and ended.ended_at - ended.started_at - ended.paused_total == 90  # as exported


def test_a_wall_clock_change_while_paused_changes_nothing(history: History, clock: MockClock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(40)
    session.pause(history, clock)
    clock.set_wall(clock.wall - 3 * 3600)
    clock.advance(100)
    assert history.active().elapsed(clock()) == 40
    session.resume(history, clock)
    clock.set_wall(clock.wall + 5 * 3600)
    clock.advance(20)
    write(started.path, [])
    assert session.check(history, clock).attempt.time == 60


def test_a_suspend_is_not_drill_time(history: History, clock: MockClock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(100)
    clock.suspend(8 * 3600)  # a laptop closed overnight: the monotonic clock does not move
    clock.advance(50)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.attempt.time == 150
    assert place("unbroadcast", history.attempts("unbroadcast")).rung == "recall"


def test_a_reboot_counts_up_to_the_last_event_before_it(history: History, clock: MockClock, workspace):
    """The README's rule: the clock keeps the time of the last clock event before the reboot (the
    start, a graded save, a pause or resume); the gap is not counted; it runs again from there."""
    started = session.start(history, "backward", workspace, clock)
    clock.advance(100)
    assert not session.check(history, clock).finished  # a clock event at 1:40
    clock.advance(50)  # nothing recorded: lost in the reboot
    clock.reboot(120)
    assert history.active().elapsed(clock()) == 100
    clock.advance(20)
    assert history.active().elapsed(clock()) == 100  # frozen until the next event
    assert not session.check(history, clock).finished  # the same file: it resumes at 1:40
    clock.advance(30)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.attempt.time == 130 and not checked.attempt.assisted


def test_a_file_changed_across_a_reboot_is_assisted(history: History, clock: MockClock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(100)
    clock.reboot(60)
    clock.advance(30)
    write(started.path, [])  # written with no clock: nothing recorded it
    checked = session.check(history, clock)
    assert checked.finished and checked.attempt.time == 0  # the clock of the last event: the start
    assert checked.attempt.assisted and checked.attempt.reason == CHANGED_ACROSS_REBOOT
    assert personal_best(history.attempts("unbroadcast")) is None


def test_a_paused_attempt_survives_a_reboot(history: History, clock: MockClock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(70)
    session.pause(history, clock)
    clock.reboot(3600)
    assert history.active().elapsed(clock()) == 70
    session.resume(history, clock)
    clock.advance(10)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.attempt.time == 80 and not checked.attempt.assisted


def test_editing_while_paused_earns_no_best_split_rung_or_rating(history: History, clock: MockClock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock, rung="cloze")
    clock.advance(3)
    session.pause(history, clock)
    clock.advance(600)
    write(started.path, [])  # the whole solution, written while the clock is stopped
    resumed = session.resume(history, clock)
    assert resumed.assisted and resumed.reason == EDITED_WHILE_PAUSED
    checked = session.check(history, clock)
    assert checked.finished and checked.attempt.time == 3
    assert personal_best(history.attempts("unbroadcast"), "cloze") is None
    assert not scoreboard(history.attempts("unbroadcast"), checked.attempt).new_best
    assert place("unbroadcast", history.attempts("unbroadcast")).rung == "cloze"  # no move up
    assert rate(checked.attempt, 300) == Rating.Hard  # as assisted: never Easy nor Good


def test_a_full_drill_edited_while_paused_sets_no_split_best(history: History, clock: MockClock, workspace):
    from tests.loop import ALL_SYMBOLS
    from tests.support import CATALOG

    started = session.start(history, "full", workspace, clock)
    clock.advance(5)
    session.pause(history, clock)
    write(started.path, [s for s in ALL_SYMBOLS if s not in CATALOG.get("unbroadcast").symbols])
    session.resume(history, clock)
    checked = session.check(history, clock)
    assert checked.newly_passed == ("unbroadcast",)
    board = scoreboard(history.attempts("full"), history.get(checked.attempt.id))
    assert all(not r.new_best for r in board.rows)


def test_pausing_and_resuming_without_an_edit_keeps_the_attempt_unassisted(
    history: History, clock: MockClock, workspace
):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(30)
    session.pause(history, clock)
    clock.advance(600)
    started.path.touch()  # saved unchanged: the same bytes
    assert not session.resume(history, clock).assisted
    clock.advance(30)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.attempt.time == 60 and not checked.attempt.assisted
    assert scoreboard(history.attempts("unbroadcast"), checked.attempt).new_best


def test_an_attempt_made_before_the_monotonic_clock_keeps_its_wall_time(history: History, clock: MockClock, workspace):
    """A history from an older version: its attempt in progress has no monotonic mark."""
    started = session.start(history, "unbroadcast", workspace, clock)
    history.db.execute(
        "UPDATE attempts SET clock_banked = NULL, clock_boot = NULL, clock_mono = NULL, clock_wall = NULL, "
        "clock_sha256 = NULL"
    )
    clock.advance(45)
    assert history.active().elapsed(clock()) == 45
    session.pause(history, clock)  # from its first event on, the monotonic clock
    clock.set_wall(clock.wall - 9999)
    session.resume(history, clock)
    clock.advance(15)
    write(started.path, [])
    assert session.check(history, clock).attempt.time == 60


def test_a_history_from_before_the_clock_columns_opens_and_its_attempts_keep_their_times(tmp_path, clock):
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE attempts (id INTEGER PRIMARY KEY, target TEXT NOT NULL, file TEXT NOT NULL,"
        " started_at REAL NOT NULL, paused_at REAL, paused_total REAL NOT NULL DEFAULT 0, ended_at REAL,"
        " outcome TEXT, assisted INTEGER NOT NULL DEFAULT 0, archive TEXT, rung TEXT NOT NULL DEFAULT 'recall');"
    )
    t0 = clock.wall
    db.execute(
        "INSERT INTO attempts (target, file, started_at, paused_total, ended_at, outcome) VALUES (?, ?, ?, ?, ?, ?)",
        ("unbroadcast", "/old/unbroadcast.py", t0 - 900, 100, t0 - 500, "passed"),
    )
    db.execute(
        "INSERT INTO attempts (target, file, started_at, paused_total) VALUES (?, ?, ?, ?)",
        ("arith", "/old/arith.py", t0 - 300, 60),
    )
    db.commit()
    db.close()
    store = History(path)
    try:
        done, running = store.attempts()
        assert done.time == 300 and done.banked is None and done.reason is None
        assert running.elapsed(clock()) == 240  # the wall clock, as it was made
        clock.advance(10)
        store.pause(running, clock())
        assert store.get(running.id).elapsed(clock()) == 250
    finally:
        store.close()


def test_without_a_boot_id_file_the_boot_is_psutils(monkeypatch, tmp_path):
    import psutil

    from autograd_drill.loop import clock as clocks

    monkeypatch.setattr(clocks, "BOOT_ID", tmp_path / "none")
    clocks.boot_id.cache_clear()
    try:
        assert clocks.boot_id() == f"boot-{round(psutil.boot_time() / 60)}"
    finally:
        clocks.boot_id.cache_clear()
