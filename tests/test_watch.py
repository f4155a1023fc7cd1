"""The watch loop (drills/loop/watch.py) in process, over a real history, with the stand-in grader
(``fake_grading``): what it does when the attempt is paused, resumed or ended in another terminal.
Its keys, in a real terminal, are tested in tests/test_watch_keys.py."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from autograd_drill.loop import session
from autograd_drill.loop.watch import LOOK, WatchState, watch_saves
from autograd_drill.loop.watch_state import End
from autograd_drill.store.history import History

WITHIN = 30.0


def until(states: Iterator[WatchState], condition: Callable[[WatchState], bool], what: str) -> WatchState:
    """The first state that meets ``condition``; states come at least every second."""
    deadline = time.monotonic() + WITHIN
    for state in states:
        if condition(state):
            return state
        if time.monotonic() > deadline:
            break
    pytest.fail(f"{what}: not within {WITHIN:g} s")


def test_a_watch_started_paused_waits_then_grades_when_resumed_elsewhere(history, clock, workspace, fake_grading):
    session.start(history, "unbroadcast", workspace, clock)
    session.pause(history, clock)
    states = watch_saves(history, clock)
    try:
        first = next(states)
        assert first.attempt.paused and not first.grading and not fake_grading.calls
        elsewhere = History(history.path)  # another terminal: drill resume
        try:
            session.resume(elsewhere, clock)
        finally:
            elsewhere.close()
        graded = until(states, lambda s: s.graded, "a grading after the resume")
        assert fake_grading.calls == [["unbroadcast"]] and not graded.attempt.paused
        assert graded.first_failure is not None and graded.first_failure.symbol == "unbroadcast"
    finally:
        states.close()


def test_a_piped_watch_ends_with_its_attempt_given_up_elsewhere(history, clock, workspace, fake_grading):
    session.start(history, "unbroadcast", workspace, clock)
    states = watch_saves(history, clock)  # no keys: its output is piped
    try:
        until(states, lambda s: s.graded, "the first grading")
        session.give_up(history, clock)
        last = until(states, lambda s: s.ended is not None, "the end of the watch")
        assert last.ended is last.finished is End.ELSEWHERE and last.said(last.ended) == "ended elsewhere (gave-up)"
        assert next(states, None) is None  # the watch is over
    finally:
        states.close()


def test_a_watch_started_paused_keeps_showing_the_verdict_the_history_holds(history, clock, workspace, fake_grading):
    session.start(history, "unbroadcast", workspace, clock)
    session.check(history, clock)  # graded once: it fails
    session.pause(history, clock)
    states = watch_saves(history, clock)
    try:
        first = next(states)
        assert [s.state for s in first.targets] == ["failing"]
        began = time.monotonic()
        # the first state after two looks at the history (LOOK apart): the next tick's, a second in
        later = until(
            states, lambda s: time.monotonic() - began > 2 * LOOK, "a state after the history was looked at again"
        )
        assert [s.state for s in later.targets] == ["failing"] and not fake_grading.calls[1:]
    finally:
        states.close()


def test_a_grading_no_save_asked_for_is_not_said_to_follow_a_save(history, clock, workspace, fake_grading):
    """The watch's first grading (and one on resume, or on r) follows no save: its footer says how
    long it took, not "after the save"; a save's grading says it followed the save."""
    from autograd_drill.views.report import watch_footer

    session.start(history, "unbroadcast", workspace, clock)
    states = watch_saves(history, clock)
    try:
        first = until(states, lambda s: s.graded, "the first grading")
        said = watch_footer(first).plain
        assert "after the save" not in said and "graded in" in said
        file = first.attempt.file
        time.sleep(0.2)  # the watcher is up, unless the machine is loaded:
        for _ in range(10):  # a save before it is up is graded as one it missed (by the file's stamp): save again
            file.write_text(file.read_text() + "\n# saved\n")
            saved = until(states, lambda s: s.graded, "the grading of the save")
            if saved.after_save:
                break
        assert "after the save" in watch_footer(saved).plain
    finally:
        states.close()


@pytest.mark.parametrize("end", [session.abandon, session.give_up])
def test_a_watch_says_the_attempt_ended_not_that_its_file_is_missing(
    history, clock, workspace, fake_grading, end, monkeypatch
):
    """``drill abandon`` (or give-up) elsewhere archives the file: the watch says the attempt ended,
    never that the file is missing nor that drill restore would help."""
    session.start(history, "unbroadcast", workspace, clock)
    states = watch_saves(history, clock)
    try:
        until(states, lambda s: s.graded, "the first grading")
        time.sleep(0.2)  # the watcher is up
        archive = session.archive_file

        def slowly(path):  # drill abandon archives the file, then ends the attempt: the watcher sees the file go
            archived = archive(path)
            time.sleep(0.05)
            return archived

        monkeypatch.setattr(session, "archive_file", slowly)
        elsewhere = History(history.path)
        try:
            end(elsewhere, clock)
        finally:
            elsewhere.close()
        seen: list[WatchState] = []
        last = until(states, lambda s: seen.append(s) or s.ended is not None, "the end of the watch")
        messages = [s.message for s in seen if s.message]
        assert not [m for m in messages if "missing" in m or "restore" in m], messages
        assert last.finished is End.ELSEWHERE
    finally:
        states.close()


def test_a_watch_says_the_file_is_missing_while_the_attempt_runs(history, clock, workspace, fake_grading):
    session.start(history, "unbroadcast", workspace, clock)
    states = watch_saves(history, clock)
    try:
        first = until(states, lambda s: s.graded, "the first grading")
        time.sleep(0.2)  # the watcher is up
        first.attempt.file.unlink()
        said = until(states, lambda s: s.message is not None, "a word on the file gone")
        assert "is missing" in str(said.message) and "drill restore" in str(said.message)
    finally:
        states.close()


def test_a_history_the_grader_thread_cannot_open_is_said_and_the_watch_goes_on(
    history, clock, workspace, fake_grading, monkeypatch
):
    """The grader thread opens a History of its own: locked by another program between the watch's
    open and its own, that is a message naming the cause on each save, not a dead thread and a hang."""
    import sqlite3
    import threading

    from autograd_drill.loop import watch

    session.start(history, "unbroadcast", workspace, clock)
    opened = History.__init__
    fails = {"left": 1}

    def locked_once(self: History, *args, **kwargs) -> None:
        if threading.current_thread().name == "drill-grader" and fails["left"]:
            fails["left"] -= 1
            error = sqlite3.OperationalError("database is locked")
            error.sqlite_errorcode, error.sqlite_errorname = 5, "SQLITE_BUSY"  # type: ignore[attr-defined]
            raise error
        opened(self, *args, **kwargs)

    monkeypatch.setattr(watch.History, "__init__", locked_once)
    states = watch_saves(history, clock)
    try:
        said = until(states, lambda s: s.message is not None, "the first save's message")
        assert "is locked by another program" in said.message and str(history.path) in said.message
        (workspace / "unbroadcast.py").write_text("# saved again\n", encoding="utf-8")
        until(states, lambda s: s.graded and s.checked is not None, "a grading once the lock is gone")
    finally:
        states.close()


def test_a_save_shows_its_first_failure_while_its_other_tests_run(history, clock, workspace, tmp_path):
    """The real grader: unbroadcast fails its first case at once, then its next call waits for a flag
    this test raises only once the watch has shown that failure with the grading still under way."""
    from tests.processes import in_unbroadcast

    flag = tmp_path / "go"
    session.start(history, "unbroadcast", workspace, clock)
    code = (
        "import builtins, os, time\n"
        "builtins._drill_calls = getattr(builtins, '_drill_calls', 0) + 1\n"
        "if builtins._drill_calls == 1:\n"
        "    return np.zeros(shape)  # the first case: wrong at once\n"
        f"while not os.path.exists({str(flag)!r}):\n"
        "    time.sleep(0.02)\n"
    )
    (workspace / "unbroadcast.py").write_text(in_unbroadcast(code), encoding="utf-8")
    states = watch_saves(history, clock, oracle="replay")
    try:
        early = until(states, lambda s: s.early is not None, "the first failure, before the verdict")
        assert early.grading and not early.graded and early.early.symbol == "unbroadcast"
        import io

        from rich.console import Console

        from autograd_drill.views.report import watch_screen

        out = Console(width=100, record=True, file=io.StringIO())
        out.print(watch_screen(early, clock(), 300))
        drawn = out.export_text()
        assert "this save, so far" in drawn and "unbroadcast [" in drawn, drawn
        flag.touch()
        graded = until(states, lambda s: s.graded and s.checked is not None, "the verdict")
        assert graded.early is None and not graded.grading
        assert graded.first_failure is not None and graded.first_failure.symbol == "unbroadcast"
    finally:
        flag.touch()
        states.close()
