"""The drill loop's logic (drills/loop/session.py) over a real history and a MockClock.

Most tests grade with a stand-in for the grader (``fake_grading``) so that the logic is checked
exactly and fast; the tests marked "real grading" run the oracle suite on the reference itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from drills.loop import diff, session
from drills.loop.clock import MockClock
from drills.loop.stubs import stub_for
from drills.store import records
from drills.store.history import History
from drills.views.render import SPARKS, delta, sparkline
from drills.views.report import passed_line
from grader.catalog import UnknownTarget
from grader.verdict import Failure, GradeResult, TargetResult
from tests.support import CATALOG, REFERENCE_SOURCE

IDS = [t.id for t in CATALOG.targets]
ALL_SYMBOLS = [s for t in CATALOG.targets for s in t.symbols]


@pytest.fixture
def clock() -> MockClock:
    return MockClock()


@pytest.fixture
def history(tmp_path: Path):
    store = History(tmp_path / "drill-home" / "history.sqlite3")
    yield store
    store.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "solutions"


class FakeGrader:
    """Stands in for the grader: a target passes when none of its symbols (nor those of the targets
    it needs) is still a stub. ``seconds`` is how long a grading takes on the MockClock."""

    def __init__(self, clock: MockClock) -> None:
        self.clock = clock
        self.calls: list[list[str]] = []
        self.seconds = 0.0
        self.during: Callable[[], object] | None = None
        """Run while grading, as another terminal would."""

    def __call__(self, file: Path, targets, oracle: str = "auto", label: str | None = None, **_: object) -> GradeResult:
        self.calls.append([t.id for t in targets])
        source = Path(file).read_text(encoding="utf-8")
        blank = {s for s in ALL_SYMBOLS if f'raise NotImplementedError("{s}")' in source}
        results = []
        for target in targets:
            needed = [*target.symbols, *(s for n in target.needs for s in CATALOG.get(n).symbols)]
            missing = [s for s in needed if s in blank]
            failures = tuple(Failure(f"test_{s}", f"{s}: {s} is not written yet", symbol=s) for s in missing)
            results.append(TargetResult(target.id, 10, len(missing), failures))
        self.clock.advance(self.seconds)
        if self.during is not None:
            self.during()
        return GradeResult(label or str(file), tuple(results), 0.01)


@pytest.fixture
def fake_grading(monkeypatch: pytest.MonkeyPatch, clock: MockClock) -> FakeGrader:
    grader = FakeGrader(clock)
    monkeypatch.setattr(session, "grade_file", grader)
    return grader


def write(path: Path, blanked: list[str]) -> None:
    """The user's file, with these symbols still to write (none: the reference)."""
    path.write_text(stub_for(blanked, "test") if blanked else REFERENCE_SOURCE, encoding="utf-8")


def finish_attempt(
    history: History, clock: MockClock, workspace: Path, target: str, seconds: float, *, hints: int = 0
) -> session.Checked:
    """Start TARGET, take SECONDS, pass it (stand-in grader)."""
    started = session.start(history, target, workspace, clock)
    for _ in range(hints):
        session.hint(history, None)
    clock.advance(seconds)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.finished
    clock.advance(3600)
    return checked


def give_up_attempt(history: History, clock: MockClock, workspace: Path, target: str, seconds: float) -> None:
    session.start(history, target, workspace, clock)
    clock.advance(seconds)
    session.give_up(history, clock)
    clock.advance(3600)


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
    assert started.target_time == 45 * 60
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


def minutes(seconds: list[float]) -> list[float]:
    """Times for each core target: these, then 50 s for each target the catalog has beyond them."""
    return seconds[: len(IDS)] + [50.0] * (len(IDS) - len(seconds))


def run_full(history, clock, workspace, segments: list[tuple[str, float]]) -> session.Checked:
    """A full drill whose targets pass one by one, each after its seconds; the last grading finishes it."""
    started = session.start(history, "full", workspace, clock)
    todo = list(ALL_SYMBOLS)
    checked = None
    for target, seconds in segments:
        clock.advance(seconds)
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(started.path, todo)
        checked = session.check(history, clock)
        assert checked.newly_passed == (target,)
    assert checked is not None and checked.finished
    return checked


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
        assert fake_grading.calls[-1] == IDS  # the full drill grades every target
        assert checked.newly_passed == (target,) and not checked.finished
        assert checked.attempt.splits[target] == at
    session.pause(history, clock)
    clock.advance(999)  # a pause is not on any split
    session.resume(history, clock)
    clock.advance(spent[last])
    write(path, [])
    checked = session.check(history, clock)
    assert checked.finished and checked.newly_passed == (last,)
    attempt = checked.attempt
    total = sum(spent.values())
    cumulative = [sum(list(spent.values())[: k + 1]) for k in range(len(spent))]
    assert attempt.splits == dict(zip(spent, cumulative, strict=True))
    assert attempt.time == total

    board = records.scoreboard(history, attempt)
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

    board = records.scoreboard(history, second.attempt)
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
    board = records.scoreboard(history, session.check(history, clock).attempt)
    assert [r.target for r in board.rows] == IDS
    assert board.rows[0].time == 600  # the first target of the batch carries the segment


# ---------------------------------------------------------------------------- records


def test_first_unassisted_pass_is_a_new_best_then_only_faster_ones(history, clock, workspace, fake_grading):
    first = finish_attempt(history, clock, workspace, "unbroadcast", 200)
    board = records.scoreboard(history, first.attempt)
    [row] = board.rows
    assert board.total is None and board.sum_of_best is None
    assert (row.target, row.target_time, row.time, row.best, row.attempts) == ("unbroadcast", 300, 200, 200, 1)
    assert row.delta == -100 and not row.assisted
    assert row.new_best and board.new_best

    slower = finish_attempt(history, clock, workspace, "unbroadcast", 320)
    [row] = records.scoreboard(history, slower.attempt).rows
    assert row.time == 320 and row.delta == 20 and row.best == 200 and row.attempts == 2
    assert not row.new_best

    faster = finish_attempt(history, clock, workspace, "unbroadcast", 150)
    [row] = records.scoreboard(history, faster.attempt).rows
    assert row.best == 150 and row.attempts == 3 and row.new_best

    # the board of an older attempt is still about that attempt
    [row] = records.scoreboard(history, first.attempt).rows
    assert row.time == 200 and row.new_best and row.best == 150


def test_personal_best_ignores_assisted_attempts(history, clock, workspace, fake_grading):
    finish_attempt(history, clock, workspace, "unbroadcast", 200)
    assisted = finish_attempt(history, clock, workspace, "unbroadcast", 30, hints=1)
    assert assisted.attempt.assisted
    assert records.personal_best(history, "unbroadcast") == 200
    [row] = records.scoreboard(history, assisted.attempt).rows
    assert row.assisted and not row.new_best
    assert row.time == 30 and row.best == 200
    assert session.start(history, "unbroadcast", workspace, clock).best == 200


def test_only_assisted_passes_mean_no_personal_best(history, clock, workspace, fake_grading):
    checked = finish_attempt(history, clock, workspace, "unbroadcast", 30, hints=2)
    assert records.personal_best(history, "unbroadcast") is None
    [row] = records.scoreboard(history, checked.attempt).rows
    assert row.best is None and not row.new_best


def test_gave_up_counts_as_an_attempt_abandoned_does_not(history, clock, workspace, fake_grading):
    give_up_attempt(history, clock, workspace, "unbroadcast", 100)
    session.start(history, "unbroadcast", workspace, clock)
    session.abandon(history, clock)
    checked = finish_attempt(history, clock, workspace, "unbroadcast", 250)
    [row] = records.scoreboard(history, checked.attempt).rows
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
    board = records.scoreboard(history, slower.attempt)
    assert board.total is not None and not board.total.new_best
    assert "new personal best" not in passed_line(slower, board).plain


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


# ---------------------------------------------------------------------------- stats and what next


def test_stats_median_of_last_five_share_under_target_and_trend(history, clock, workspace, fake_grading):
    for seconds in (400, 200, 350):
        finish_attempt(history, clock, workspace, "unbroadcast", seconds)
    give_up_attempt(history, clock, workspace, "unbroadcast", 500)
    for seconds in (250, 300, 100):
        finish_attempt(history, clock, workspace, "unbroadcast", seconds)
    session.start(history, "unbroadcast", workspace, clock)
    session.abandon(history, clock)  # a reset, not an attempt

    s = records.stats(history, "unbroadcast")
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
    s = records.stats(history, "arith")
    assert s.attempts == 0 and s.best is None and s.median_last_five is None
    assert s.times == () and s.share_under is None and s.last is None
    assert sparkline(s.times) == ""


def test_stats_best_ignores_assisted_passes(history, clock, workspace, fake_grading):
    finish_attempt(history, clock, workspace, "unbroadcast", 200)
    finish_attempt(history, clock, workspace, "unbroadcast", 50, hints=1)
    s = records.stats(history, "unbroadcast")
    assert s.best == 200 and s.attempts == 2


def test_stats_of_the_full_drill(history, clock, workspace, fake_grading):
    started = session.start(history, "full", workspace, clock)
    clock.advance(1500)
    write(started.path, [])
    session.check(history, clock)
    s = records.stats(history, "full")
    assert s.target_time == 2700 and s.attempts == 1 and s.best == 1500 and s.share_under == 1


def test_the_schedule_follows_the_drills_finished(history, clock, workspace, fake_grading):
    """Attempts finished through the drill loop are the reviews drills/store/schedule.py chooses from."""
    from drills.store.schedule import choose

    assert choose(history, clock()).target == "unbroadcast"  # nothing drilled: the first in the catalog
    finish_attempt(history, clock, workspace, "unbroadcast", 100)  # under half of 5:00: Easy
    assert choose(history, clock()).target == "backward"
    give_up_attempt(history, clock, workspace, "backward", 100)  # Again: due tomorrow
    assert choose(history, clock()).target == "arith"
    clock.advance(2 * 86_400)
    assert choose(history, clock()).target == "backward"  # overdue comes before never drilled
