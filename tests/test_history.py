"""The SQLite history (drills/store/history.py): timers that survive the terminal, splits, every graded
source, hints, one attempt at a time, WAL, and a corrupt file moved aside instead of lost."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from autograd_drill.store.history import History, HistoryError, open_history
from tests.support import T0


@pytest.fixture
def history(tmp_path: Path):
    store = History(tmp_path / "history.sqlite3")
    yield store
    store.close()


@pytest.fixture
def file(tmp_path: Path) -> Path:
    return tmp_path / "solutions" / "unbroadcast.py"


# ---------------------------------------------------------------------------- the clock


def test_a_new_attempt_is_in_progress_and_its_clock_runs(history, file):
    attempt = history.start("unbroadcast", file, T0)
    assert attempt.in_progress and not attempt.paused
    assert attempt.target == "unbroadcast" and attempt.file == file
    assert attempt.started_at == T0 and attempt.outcome is None and not attempt.assisted
    assert attempt.elapsed(T0) == 0
    assert attempt.elapsed(T0 + 90) == 90
    assert attempt.elapsed(T0 - 5) == 0  # a clock set back never shows a negative time


def test_elapsed_leaves_out_every_pause(history, file):
    attempt = history.start("unbroadcast", file, T0)
    attempt = history.pause(attempt, T0 + 60)
    assert attempt.paused and attempt.in_progress
    assert attempt.elapsed(T0 + 60) == 60
    assert attempt.elapsed(T0 + 10_000) == 60  # frozen while paused
    attempt = history.resume(attempt, T0 + 600)
    assert not attempt.paused and attempt.paused_total == 540
    assert attempt.elapsed(T0 + 630) == 90
    attempt = history.pause(attempt, T0 + 700)
    attempt = history.resume(attempt, T0 + 1000)
    assert attempt.paused_total == 840
    assert attempt.elapsed(T0 + 1000) == 160
    assert attempt.elapsed(T0 + 1040) == 200


def test_pausing_twice_keeps_the_first_pause_and_resuming_a_running_clock_changes_nothing(history, file):
    attempt = history.start("unbroadcast", file, T0)
    history.pause(attempt, T0 + 30)
    attempt = history.pause(attempt, T0 + 80)
    assert attempt.paused_at == T0 + 30
    attempt = history.resume(attempt, T0 + 100)
    attempt = history.resume(attempt, T0 + 500)
    assert attempt.paused_total == 70 and not attempt.paused
    assert attempt.elapsed(T0 + 130) == 60


def test_finish_stops_the_clock(history, file):
    attempt = history.start("unbroadcast", file, T0)
    attempt = history.finish(attempt, "gave-up", T0 + 125)
    assert not attempt.in_progress and attempt.outcome == "gave-up"
    assert attempt.ended_at == T0 + 125
    assert attempt.elapsed(T0 + 125) == 125
    assert attempt.elapsed(T0 + 99_999) == 125
    assert attempt.time is None  # a given-up attempt has no finishing time


def test_finish_while_paused_freezes_the_clock_at_the_pause(history, file):
    attempt = history.start("unbroadcast", file, T0)
    attempt = history.pause(attempt, T0 + 60)
    history.resume(attempt, T0 + 100)  # 40 s paused
    attempt = history.pause(history.get(attempt.id), T0 + 200)  # clock at 160
    attempt = history.finish(attempt, "abandoned", T0 + 5_000, archive="/somewhere/unbroadcast-001.py")
    assert not attempt.paused and not attempt.in_progress
    assert attempt.outcome == "abandoned" and attempt.archive == "/somewhere/unbroadcast-001.py"
    assert attempt.elapsed(T0 + 5_000) == 160
    assert attempt.elapsed(T0 + 50_000) == 160


def test_the_timer_is_stored_not_held_by_a_process(tmp_path, file):
    path = tmp_path / "history.sqlite3"
    first = History(path)
    attempt = first.start("backward", file, T0)
    first.pause(attempt, T0 + 30)
    first.close()
    second = History(path)
    try:
        again = second.active()
        assert again is not None and again.id == attempt.id and again.paused
        assert again.elapsed(T0 + 3_600) == 30
    finally:
        second.close()


# ---------------------------------------------------------------------------- splits


def test_splits_keep_the_first_pass_of_each_target_in_pass_order(history, file):
    attempt = history.start("full", file, T0)
    history.add_split(attempt, "unary", 300)
    history.add_split(attempt, "unbroadcast", 120)
    history.add_split(attempt, "unbroadcast", 500)  # passing again later does not move the split
    history.add_split(attempt, "backward", 420)
    splits = history.get(attempt.id).splits
    assert splits == {"unbroadcast": 120, "unary": 300, "backward": 420}
    assert list(splits) == ["unbroadcast", "unary", "backward"]


def test_time_of_a_passed_attempt_is_its_last_split(history, file):
    attempt = history.start("full", file, T0)
    history.add_split(attempt, "unbroadcast", 120)
    history.add_split(attempt, "backward", 700)
    assert history.get(attempt.id).time is None  # not finished
    attempt = history.finish(attempt, "passed", T0 + 700)
    assert attempt.time == 700


def test_splits_belong_to_their_attempt(history, file):
    first = history.start("unbroadcast", file, T0)
    history.add_split(first, "unbroadcast", 200)
    history.finish(first, "passed", T0 + 200)
    second = history.start("unbroadcast", file, T0 + 1000)
    assert history.get(second.id).splits == {}
    assert history.get(first.id).splits == {"unbroadcast": 200}


# ---------------------------------------------------------------------------- submissions


def test_submissions_keep_the_full_source_as_graded(history, file):
    attempt = history.start("unbroadcast", file, T0)
    big = "import numpy as np\n" + "".join(f"x_{i} = {i}  # ünïcödé ✓ λ\n" for i in range(5_000))
    result = json.dumps({"passed": False, "failures": {"unbroadcast": ["unbroadcast [same-shape]: wrong"]}})
    first = history.add_submission(attempt, T0 + 10, 10.0, big, result, passed=False)
    second = history.add_submission(attempt, T0 + 20, 20.0, big + "# fixed\n", "{}", passed=True)
    assert first < second
    subs = history.submissions(attempt)
    assert [s.id for s in subs] == [first, second]
    assert subs[0].source == big and len(subs[0].source) == len(big)
    assert subs[1].source == big + "# fixed\n"
    assert json.loads(subs[0].result) == json.loads(result)
    assert [s.passed for s in subs] == [False, True]
    assert [s.elapsed for s in subs] == [10.0, 20.0]
    assert all(s.attempt_id == attempt.id for s in subs)
    digest = history.db.execute("SELECT sha256 FROM submissions WHERE id = ?", (first,)).fetchone()[0]
    assert digest == hashlib.sha256(big.encode()).hexdigest()


def test_a_source_that_is_not_valid_utf8_is_kept_byte_for_byte(history, file):
    attempt = history.start("unbroadcast", file, T0)
    raw = b"x = 1\n# \xff\xfe broken bytes\n"
    source = raw.decode("utf-8", "surrogateescape")
    history.add_submission(attempt, T0 + 1, 1.0, source, "{}", passed=False)
    kept = history.submissions(attempt)[0].source
    assert kept.encode("utf-8", "surrogateescape") == raw


def test_submissions_are_per_attempt(history, file):
    a = history.start("unbroadcast", file, T0)
    history.add_submission(a, T0 + 1, 1.0, "first", "{}", passed=False)
    history.finish(a, "gave-up", T0 + 2)
    b = history.start("unbroadcast", file, T0 + 10)
    history.add_submission(b, T0 + 11, 1.0, "second", "{}", passed=False)
    assert [s.source for s in history.submissions(a)] == ["first"]
    assert [s.source for s in history.submissions(b)] == ["second"]


# ---------------------------------------------------------------------------- hints


def test_hints_count_one_more_per_call_and_mark_the_attempt_assisted(history, file):
    attempt = history.start("full", file, T0)
    assert history.hints_shown(attempt, "backward") == 0
    assert not history.get(attempt.id).assisted
    assert history.show_hint(attempt, "backward") == 1
    assert history.get(attempt.id).assisted
    assert history.show_hint(attempt, "backward") == 2
    assert history.show_hint(attempt, "backward") == 3
    assert history.hints_shown(attempt, "backward") == 3
    assert history.hints_shown(attempt, "arith") == 0  # counted per target
    assert history.show_hint(attempt, "arith") == 1


def test_hints_are_counted_per_attempt(history, file):
    first = history.start("unbroadcast", file, T0)
    history.show_hint(first, "unbroadcast")
    history.show_hint(first, "unbroadcast")
    history.finish(first, "gave-up", T0 + 10)
    second = history.start("unbroadcast", file, T0 + 20)
    assert history.hints_shown(second, "unbroadcast") == 0
    assert not second.assisted
    assert history.show_hint(second, "unbroadcast") == 1


def test_mark_assisted(history, file):
    attempt = history.start("unbroadcast", file, T0)
    history.mark_assisted(attempt)
    assert history.get(attempt.id).assisted


# ---------------------------------------------------------------------------- one attempt at a time


def test_only_one_attempt_is_in_progress_at_a_time(history, file):
    first = history.start("unbroadcast", file, T0)
    with pytest.raises(HistoryError, match="already in progress"):
        history.start("backward", file.with_name("backward.py"), T0 + 5)
    with pytest.raises(HistoryError):
        history.start("unbroadcast", file, T0 + 5)
    assert [a.id for a in history.attempts()] == [first.id]
    assert history.active() == history.get(first.id)
    history.finish(first, "passed", T0 + 100)
    assert history.active() is None
    second = history.start("backward", file.with_name("backward.py"), T0 + 200)
    assert history.active() == second


def test_attempts_by_target_oldest_first(history, file):
    ids = []
    for i, target in enumerate(["unbroadcast", "backward", "unbroadcast", "full"]):
        attempt = history.start(target, file, T0 + 100 * i)
        history.finish(attempt, "gave-up", T0 + 100 * i + 50)
        ids.append(attempt.id)
    assert [a.id for a in history.attempts()] == ids
    assert [a.id for a in history.attempts("unbroadcast")] == [ids[0], ids[2]]
    assert [a.id for a in history.attempts("full")] == [ids[3]]
    assert history.attempts("arith") == []


def test_get_an_unknown_attempt_is_a_key_error(history):
    with pytest.raises(KeyError):
        history.get(12345)


# ---------------------------------------------------------------------------- the database


def test_wal_mode_is_on(history):
    assert history.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other = sqlite3.connect(history.path)
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent, for every connection
    finally:
        other.close()


def test_two_histories_on_one_file_see_each_others_writes(tmp_path, file):
    """drill watch and drill check run at once: each sees what the other wrote."""
    path = tmp_path / "history.sqlite3"
    watch, check = History(path), History(path)
    try:
        attempt = watch.start("unbroadcast", file, T0)
        seen = check.active()
        assert seen is not None and seen.id == attempt.id
        check.pause(seen, T0 + 30)
        assert watch.get(attempt.id).paused
        watch.add_submission(attempt, T0 + 40, 30.0, "src", "{}", passed=False)
        assert [s.source for s in check.submissions(attempt)] == ["src"]
    finally:
        watch.close()
        check.close()


def test_open_history_on_a_good_file_gives_no_message(tmp_path, file):
    path = tmp_path / "data" / "history.sqlite3"
    store, message = open_history(path)  # a new file, in a folder that does not exist yet
    try:
        assert message is None
        store.start("unbroadcast", file, T0)
    finally:
        store.close()
    store, message = open_history(path)
    try:
        assert message is None and store.active() is not None
    finally:
        store.close()


def backups(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(f"{path.name}.corrupt-"))


def test_a_file_that_is_not_a_database_is_moved_aside_and_a_new_history_started(tmp_path, file):
    path = tmp_path / "history.sqlite3"
    garbage = b"this is not a database, it is a shopping list\n" * 200
    path.write_bytes(garbage)
    store, message = open_history(path)
    try:
        [backup] = [b for b in backups(path) if not b.name.endswith(("-wal", "-shm"))]
        assert backup.read_bytes() == garbage  # kept, never deleted
        assert message is not None and str(backup) in message and str(path) in message
        assert store.attempts() == []
        attempt = store.start("unbroadcast", file, T0)
        store.add_submission(attempt, T0 + 1, 1.0, "src", "{}", passed=False)
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        store.close()
    again, message = open_history(path)
    try:
        assert message is None
        assert again.active() is not None
    finally:
        again.close()


def test_a_database_with_damaged_pages_is_moved_aside(tmp_path, file):
    path = tmp_path / "history.sqlite3"
    store = History(path)
    for i in range(150):
        attempt = store.start("unbroadcast", file, T0 + i)
        store.add_submission(attempt, T0 + i, 1.0, "x = 1\n" * 500, "{}", passed=False)
        store.finish(attempt, "gave-up", T0 + i + 1)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(3 * page, len(data) - page, 2 * page):
        data[offset : offset + page] = b"\xff" * page
    path.write_bytes(bytes(data))

    store, message = open_history(path)
    try:
        assert message is not None and "moved to" in message
        [backup] = [b for b in backups(path) if not b.name.endswith(("-wal", "-shm"))]
        assert backup.read_bytes() == bytes(data)
        assert store.attempts() == []
        store.start("unbroadcast", file, T0)
        assert store.active() is not None
    finally:
        store.close()
