"""The drill loop's logic (drills/loop/session.py) over a real history and a MockClock: start,
check, hints, give up, abandon, pause.

Most tests grade with a stand-in for the grader (``fake_grading``) so that the logic is checked
exactly and fast; the tests marked "real grading" run the oracle suite on the reference itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograd_drill.grader.catalog import UnknownTarget
from autograd_drill.grader.verdict import TargetResult
from autograd_drill.loop import session
from autograd_drill.loop.stubs import stub_for
from autograd_drill.store.history import History
from tests.loop import ALL_SYMBOLS, IDS, finish_attempt, write
from tests.support import CATALOG, REFERENCE_SOURCE

# ---------------------------------------------------------------------------- start


def test_start_writes_the_stub_and_starts_the_clock(history, clock, workspace):
    started = session.start(history, "backward", workspace, clock)
    assert started.path == workspace / "backward.py"
    assert started.path.read_text(encoding="utf-8") == stub_for(
        ("Tensor.__init__", "Tensor.backward", "_topological_order"), "target backward", drills=["backward"]
    )
    assert "(cotangent drill)" not in started.path.read_text(encoding="utf-8")  # the core stub asks for the core
    assert started.symbols == ("Tensor.__init__", "Tensor.backward", "_topological_order")
    assert started.archived is None and started.best is None and started.target_time == 600
    attempt = started.attempt
    assert attempt.in_progress and attempt.target == "backward" and attempt.started_at == clock()
    assert attempt.file == started.path.resolve()
    assert history.active() == attempt


def test_start_full_blanks_every_symbol(history, clock, workspace):
    started = session.start(history, "full", workspace, clock)
    assert started.path == workspace / "full.py"
    assert started.symbols == tuple(ALL_SYMBOLS)
    assert started.target_time == CATALOG.full_time
    source = started.path.read_text(encoding="utf-8")
    for symbol in ALL_SYMBOLS:
        assert f'raise NotImplementedError("{symbol}")' in source


def test_start_archives_an_existing_file_and_never_deletes_it(history, clock, workspace):
    workspace.mkdir(parents=True)
    old = workspace / "unbroadcast.py"
    old.write_text("# my work from yesterday\ndef unbroadcast(grad, shape):\n    return grad\n", encoding="utf-8")
    started = session.start(history, "unbroadcast", workspace, clock)
    assert started.archived is not None and started.archived.exists()
    assert started.archived.parent == workspace / ".archive"
    assert started.archived.read_text(encoding="utf-8").startswith("# my work from yesterday")
    assert 'raise NotImplementedError("unbroadcast")' in old.read_text(encoding="utf-8")

    # a second round archives under a new name: the first archive is untouched
    session.give_up(history, clock)
    old.write_text("# second try\n", encoding="utf-8")
    again = session.start(history, "unbroadcast", workspace, clock)
    assert again.archived is not None and again.archived != started.archived
    assert again.archived.read_text(encoding="utf-8") == "# second try\n"
    assert started.archived.read_text(encoding="utf-8").startswith("# my work from yesterday")
    assert len(list((workspace / ".archive").iterdir())) == 2


def test_start_refuses_while_an_attempt_is_in_progress(history, clock, workspace):
    first = session.start(history, "unbroadcast", workspace, clock)
    first.path.write_text("# half done\n", encoding="utf-8")
    clock.advance(65)
    for target in ("unbroadcast", "backward", "full"):
        with pytest.raises(session.DrillError) as info:
            session.start(history, target, workspace, clock)
        assert info.value.code == 2
        message = str(info.value)
        assert "unbroadcast is in progress" in message and "1:05" in message
        assert "drill abandon" in message and "drill watch" in message
    assert first.path.read_text(encoding="utf-8") == "# half done\n"  # never overwritten
    assert not (workspace / "backward.py").exists() and not (workspace / "full.py").exists()
    assert not (workspace / ".archive").exists()
    assert [a.id for a in history.attempts()] == [first.attempt.id]


def test_start_an_unknown_target_suggests_the_closest(history, clock, workspace):
    with pytest.raises(UnknownTarget, match="Did you mean 'backward'"):
        session.start(history, "backwrd", workspace, clock)
    assert history.attempts() == []


def test_start_tells_the_personal_best(history, clock, workspace, fake_grading):
    finish_attempt(history, clock, workspace, "unbroadcast", 200)
    started = session.start(history, "unbroadcast", workspace, clock)
    assert started.best == 200


def test_start_into_a_workspace_that_cannot_be_written(history, clock, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(session.DrillError, match="cannot write to the workspace") as info:
        session.start(history, "unbroadcast", blocker, clock)
    assert info.value.code == 2
    assert history.attempts() == []  # no timer runs for a file that was never written


# ---------------------------------------------------------------------------- check (real grading)


def test_check_records_every_source_and_finishes_when_all_pass(history, clock, workspace):
    """Real grading: the stub fails, the reference passes."""
    started = session.start(history, "unbroadcast", workspace, clock)
    stub = started.path.read_text(encoding="utf-8")
    clock.advance(90)

    checked = session.check(history, clock)
    assert not checked.finished and not checked.result.passed
    assert checked.newly_passed == () and checked.elapsed == 90
    assert checked.attempt.in_progress and checked.attempt.splits == {}
    failing = checked.result.get("unbroadcast")
    assert failing.failed > 0 and any(f.symbol == "unbroadcast" for f in failing.failures)

    clock.advance(150)
    started.path.write_text(REFERENCE_SOURCE, encoding="utf-8")
    checked = session.check(history, clock)
    assert checked.finished and checked.result.passed
    assert checked.newly_passed == ("unbroadcast",)
    attempt = checked.attempt
    assert attempt.outcome == "passed" and not attempt.in_progress
    assert attempt.splits == {"unbroadcast": 240} and attempt.time == 240
    assert attempt.elapsed(clock() + 1000) == 240
    assert history.active() is None

    subs = history.submissions(attempt)
    assert [s.source for s in subs] == [stub, REFERENCE_SOURCE]
    assert [s.passed for s in subs] == [False, True]
    assert [s.elapsed for s in subs] == [90, 240]
    record = json.loads(subs[0].result)
    assert record["passed"] is False and record["targets"]["unbroadcast"]["failures"][0]["symbol"] == "unbroadcast"
    assert json.loads(subs[1].result)["targets"]["unbroadcast"]["passed"] is True


# ---------------------------------------------------------------------------- check (logic)


def test_check_does_not_count_grading_time_nor_pauses(history, clock, workspace, fake_grading):
    fake_grading.seconds = 7.0
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(100)
    session.pause(history, clock)
    clock.advance(5000)
    session.resume(history, clock)
    clock.advance(20)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.elapsed == 120
    assert checked.attempt.time == 120
    assert checked.attempt.elapsed(clock()) == 120  # the grader's 7 s are not the user's time


def test_check_refuses_while_paused_without_grading(history, clock, workspace, fake_grading):
    session.start(history, "unbroadcast", workspace, clock)
    session.pause(history, clock)
    with pytest.raises(session.DrillError, match="paused.*drill resume"):
        session.check(history, clock)
    assert fake_grading.calls == []
    assert history.submissions(history.active()) == []


def test_check_without_an_attempt_says_how_to_start(history, clock, fake_grading):
    with pytest.raises(session.DrillError, match="drill start") as info:
        session.check(history, clock)
    assert info.value.code == 2


def test_check_when_the_file_is_gone(history, clock, workspace, fake_grading):
    started = session.start(history, "unbroadcast", workspace, clock)
    started.path.unlink()
    with pytest.raises(session.DrillError, match="gone.*drill abandon"):
        session.check(history, clock)
    assert history.active() is not None


@pytest.mark.parametrize("end", [session.abandon, session.give_up])
def test_an_attempt_ended_elsewhere_while_grading_stays_ended(history, clock, workspace, fake_grading, end):
    started = session.start(history, "unbroadcast", workspace, clock)
    clock.advance(100)
    write(started.path, [])
    stale = history.get(started.attempt.id)  # drill watch holds the attempt as it was when the save came
    other = History(history.path)  # another terminal
    fake_grading.during = lambda: end(other, clock)
    try:
        session.check(history, clock, attempt=stale)
        ended = other.get(stale.id)
    finally:
        other.close()
    after = history.get(stale.id)
    assert after.outcome == ended.outcome != "passed"
    assert after.archive == ended.archive
    assert after.splits == {}


# ---------------------------------------------------------------------------- hints


def test_hints_reveal_one_more_per_call_and_mark_the_attempt_assisted(history, clock, workspace):
    session.start(history, "unbroadcast", workspace, clock)
    target = CATALOG.get("unbroadcast")
    assert not history.active().assisted
    for n in range(1, len(target.hints) + 1):
        shown = session.hint(history, None)
        assert shown.target == "unbroadcast" and shown.counted
        assert shown.shown == target.hints[:n]
        assert shown.remaining == len(target.hints) - n
        assert history.active().assisted
    extra = session.hint(history, "unbroadcast")  # past the last: all of them, none remaining
    assert extra.shown == target.hints and extra.remaining == 0


def test_hint_in_a_full_drill_is_for_the_first_target_not_passed(history, clock, workspace, fake_grading):
    started = session.start(history, "full", workspace, clock)
    assert session.hint(history, None).target == "unbroadcast"
    clock.advance(60)
    write(started.path, [s for s in ALL_SYMBOLS if s != "unbroadcast"])
    session.check(history, clock)
    shown = session.hint(history, None)
    assert shown.target == "backward" and shown.shown == CATALOG.get("backward").hints[:1]
    assert session.hint(history, "softmax").shown == CATALOG.get("softmax").hints[:1]
    assert len(session.hint(history, "backward").shown) == 2  # counted per target
    write(started.path, [s for s in ALL_SYMBOLS if s not in CATALOG.get("backward").symbols])
    session.check(history, clock)  # backward passes; unbroadcast, which had passed, fails again
    assert set(history.active().splits) == {"unbroadcast", "backward"}
    assert session.hint(history, None).target == "unbroadcast"


def test_hint_for_a_target_outside_the_attempt_is_refused(history, clock, workspace):
    session.start(history, "unbroadcast", workspace, clock)
    with pytest.raises(session.DrillError, match="drills unbroadcast, not arith"):
        session.hint(history, "arith")
    assert not history.active().assisted


def test_hint_without_an_attempt(history):
    shown = session.hint(history, "arith")
    assert not shown.counted and shown.shown == CATALOG.get("arith").hints
    with pytest.raises(session.DrillError, match="drill hint TARGET"):
        session.hint(history, None)
    assert history.attempts() == []


# ---------------------------------------------------------------------------- give up, abandon, pause


def test_abandon_archives_the_file_and_ends_the_attempt(history, clock, workspace):
    started = session.start(history, "unbroadcast", workspace, clock)
    started.path.write_text("# almost there\n", encoding="utf-8")
    clock.advance(42)
    attempt = session.abandon(history, clock)
    assert attempt.outcome == "abandoned" and not attempt.in_progress
    assert attempt.elapsed(clock() + 100) == 42
    assert not started.path.exists()
    assert attempt.archive is not None and Path(attempt.archive).read_text(encoding="utf-8") == "# almost there\n"
    assert history.active() is None


def test_pause_and_resume_refuse_twice(history, clock, workspace):
    session.start(history, "unbroadcast", workspace, clock)
    clock.advance(30)
    with pytest.raises(session.DrillError, match="running"):
        session.resume(history, clock)
    paused = session.pause(history, clock)
    assert paused.paused and paused.elapsed(clock() + 500) == 30
    with pytest.raises(session.DrillError, match="already paused at 0:30"):
        session.pause(history, clock)
    clock.advance(500)
    resumed = session.resume(history, clock)
    assert resumed.elapsed(clock()) == 30


def test_give_up_while_paused_keeps_the_paused_time(history, clock, workspace):
    session.start(history, "unbroadcast", workspace, clock)
    clock.advance(75)
    session.pause(history, clock)
    clock.advance(3600)
    attempt = session.give_up(history, clock)
    assert attempt.elapsed(clock()) == 75


# ---------------------------------------------------------------------------- check, incremental (full drill)


def test_a_full_drill_grades_again_only_the_targets_whose_code_changed(history, clock, workspace, fake_grading):
    started = session.start(history, "full", workspace, clock)
    path = started.path
    todo = [s for s in ALL_SYMBOLS if s not in CATALOG.get("unbroadcast").symbols]
    write(path, todo)
    session.check(history, clock)
    assert fake_grading.calls == [IDS]  # nothing graded before: everything
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    checked = session.check(history, clock)
    assert len(fake_grading.calls) == 1  # saved as it was: every verdict kept, nothing graded
    assert [t.passed for t in checked.result.targets] == [True] + [False] * (len(IDS) - 1)
    assert "not graded again" in checked.result.notes[-1]
    assert len(history.submissions(checked.attempt)) == 2  # each version kept, as ever
    path.write_text("# my full drill\n" + path.read_text(encoding="utf-8").replace("\n\n\n", "\n\n"), encoding="utf-8")
    session.check(history, clock)
    assert len(fake_grading.calls) == 1  # comments and blank lines: no code changed
    todo = [s for s in todo if s not in CATALOG.get("softmax").symbols]
    write(path, todo)
    checked = session.check(history, clock)
    assert checked.newly_passed == ("softmax",)
    assert "softmax" in fake_grading.calls[-1] and "unary" not in fake_grading.calls[-1]
    assert [t.target for t in checked.result.targets] == IDS  # one verdict, in catalog order
    # a file that does not parse is graded whole, and so is the one after it
    path.write_text(path.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    session.check(history, clock)
    write(path, todo)
    session.check(history, clock)
    assert fake_grading.calls[-2:] == [IDS, IDS]


def test_reused_verdicts_never_end_an_attempt(history, clock, workspace, fake_grading, monkeypatch):
    """When kept verdicts make every target pass, the whole file is graded first: its verdict decides."""
    started = session.start(history, "full", workspace, clock)
    write(started.path, list(CATALOG.get("unary").symbols))  # unary still to write
    session.check(history, clock)
    stale = {t: TargetResult(t, 10, 0) for t in ("unary", "cross-entropy")}  # as if a wrong analysis kept passes
    monkeypatch.setattr(session, "reused_verdicts", lambda *_: stale)
    clock.advance(60)
    started.path.write_text(started.path.read_text(encoding="utf-8") + "\n# saved\n", encoding="utf-8")
    checked = session.check(history, clock)
    assert fake_grading.calls[-2:] == [[t for t in IDS if t not in stale], IDS]
    assert not checked.finished and checked.attempt.in_progress and "unary" not in checked.attempt.splits
    assert not checked.result.get("unary").passed
    assert not history.submissions(checked.attempt)[-1].passed  # the full grading is what is kept
