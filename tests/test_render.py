"""The terminal views (drills/views/): data in, text out. Each view is drawn on a plain Console of a
fixed width, and the text is checked for what the user must be able to read there."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from autograd_drill.grader.catalog import format_time, load_catalog
from autograd_drill.grader.verdict import Failure, GradeResult, TargetResult
from autograd_drill.loop.diff import Comparison
from autograd_drill.loop.session import Hints, TargetState
from autograd_drill.loop.watch import WatchState
from autograd_drill.loop.watch_state import End
from autograd_drill.store.history import Attempt
from autograd_drill.store.progress import Streak
from autograd_drill.store.records import DrillRecord, Scoreboard, ScoreRow, TargetStats
from autograd_drill.store.schedule import Review, TargetCard
from autograd_drill.views import card as card_view
from autograd_drill.views import code, render, report
from autograd_drill.views.reviews import ReviewCard

T0 = 1_800_000_000.0
DAY = 86_400
RECALL = load_catalog().target_time("unbroadcast")
"""The target time an unbroadcast attempt's screen is drawn against (the command reads it)."""


def text(view: RenderableType, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, highlight=False, color_system=None)
    console.print(view)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    return output


def attempt(target: str = "unbroadcast", splits: dict[str, float] | None = None, **kw: object) -> Attempt:
    fields: dict[str, object] = dict(
        id=1, target=target, file=Path("/ws/unbroadcast.py"), started_at=T0, paused_at=None, paused_total=0.0,
        ended_at=None, outcome=None, assisted=False, archive=None, splits=splits or {},
    )  # fmt: skip
    fields.update(kw)
    return Attempt(**fields)  # type: ignore[arg-type]


FAILURE = Failure(
    test="test_unbroadcast.py::test_unbroadcast[prepended-one-axis]",
    message="unbroadcast [prepended-one-axis]: raised ValueError: bad\n  engine.py:38 in unbroadcast: return g\n"
    "  hint: sum the leading axis",
    symbol="unbroadcast",
    case="prepended-one-axis",
    text="raised ValueError: bad",
    hint="sum the leading axis",
    location=("engine.py:38 in unbroadcast: return g",),
    output="step 1\nstep 2\n",
)


# ---------------------------------------------------------------------------- gradings


def test_a_failure_shows_its_parts_and_what_the_code_printed():
    shown = text(report.failure_view(FAILURE))
    lines = shown.splitlines()
    assert lines[0] == "unbroadcast [prepended-one-axis]: raised ValueError: bad"
    assert lines[1].strip() == "engine.py:38 in unbroadcast: return g"
    assert "hint: sum the leading axis" in lines[2]
    assert "your code printed:" in shown and "│ step 1" in shown and "│ step 2" in shown


def test_long_printed_output_shows_its_start_then_how_many_more_lines():
    noisy = Failure("t", "x [c]: wrong", "x", "c", "wrong", output="".join(f"line {i}\n" for i in range(100)))
    shown = text(report.failure_view(noisy))
    last = report.OUTPUT_LINES - 1
    assert f"│ line {last}\n" in shown and f"line {last + 1}\n" not in shown
    assert f"... {100 - report.OUTPUT_LINES} more lines" in shown and "cut" not in shown


def test_output_cut_by_the_grader_is_counted_and_said():
    cut = Failure("t", "x [c]: wrong", "x", "c", "wrong", output="a\nb\n[output cut: 12,345 more lines not kept]\n")
    assert cut.printed == (["a", "b"], 12345)
    shown = text(report.failure_view(cut))
    assert "│ a" in shown and "│ b" in shown and "... 12,345 more lines (output was cut)" in shown
    wide = text(report.failure_view(Failure("t", "x [c]: wrong", "x", "c", "wrong", output="y" * 5000)), width=10_000)
    assert "y" * report.LINE_CHARS + "…" in wide and "y" * (report.LINE_CHARS + 1) not in wide


def test_a_report_names_each_target_the_first_failure_and_why_tests_did_not_run():
    result = GradeResult(
        "mine.py",
        (
            TargetResult("unbroadcast", 18, 0),
            TargetResult("arith", 20, 1, (FAILURE,), not_run=3, not_run_reason="an earlier test ran too long"),
        ),
        1.25,
        notes=("your code left a thread running",),
    )
    shown = text(report.grade_report(result))
    assert "✓ unbroadcast   18 tests passed" in shown
    assert "✗ arith" in shown and "1 of 20 tests failed, 3 not run" in shown
    assert "unbroadcast [prepended-one-axis]" in shown
    assert "3 tests not run: an earlier test ran too long" in shown
    assert "note: your code left a thread running" in shown
    assert "1 of 2 targets passed (1.2 s)" in shown


@pytest.mark.parametrize(
    ("tests", "failed", "not_run", "said"),
    [
        (0, 0, 0, "no tests selected"),
        (16, 0, 16, "16 of 16 tests not run"),
        (16, 3, 0, "3 of 16 tests failed"),
        (1, 1, 0, "1 of 1 test failed"),
        (1, 0, 1, "1 of 1 test not run"),
    ],
)
def test_failed_summary(tests, failed, not_run, said):
    assert report.failed_summary(TargetResult("x", tests, failed, not_run=not_run)) == said


def test_a_report_of_one_target_and_one_test_says_them_in_the_singular():
    shown = text(report.grade_report(GradeResult("mine.py", (TargetResult("cotangent", 1, 0),), 0.5)))
    assert "1 test passed" in shown and "1 of 1 target passed" in shown
    assert "tests" not in shown and "targets" not in shown


def test_status_shows_each_target_by_its_split_or_its_first_failure():
    drill = attempt("full", splits={"unbroadcast": 125.0})
    failing = TargetResult("backward", 20, 1, (FAILURE,))
    states = (
        TargetState("unbroadcast", 125.0, None),
        TargetState("backward", None, failing),
        TargetState("arith", None, None),
    )
    shown = text(report.status_view(drill, states, T0 + 300, load_catalog().full_time))
    assert f"full  5:00  target {format_time(load_catalog().full_time)}" in shown
    assert "✓ unbroadcast    passed      at 2:05" in shown
    assert "✗ backward       failing     unbroadcast [prepended-one-axis]: raised ValueError: bad" in shown
    assert "· arith          not graded  save your file, or run drill check" in shown
    assert "Next: drill watch" in shown


def test_the_watch_screen_ticks_and_shows_the_failure_to_fix_first():
    drill = attempt()
    state = WatchState(drill, (TargetState("unbroadcast", None, TargetResult("unbroadcast", 18, 1, (FAILURE,))),))
    shown = text(report.watch_screen(state, T0 + 61, RECALL))
    assert "unbroadcast  1:01 ▶  target 5:00" in shown
    assert "✗ unbroadcast    1:01  1 of 18 tests failed" in shown
    assert shown.count("unbroadcast [prepended-one-axis]: raised ValueError: bad") == 1  # the failure, once
    assert "hint: sum the leading axis" in shown  # the whole failure under its target
    assert "grading" not in shown and "q quit" not in shown  # no keys when the output is piped
    paused = report.watch_screen(WatchState(attempt(paused_at=T0 + 30), state.targets), T0 + 61, RECALL)
    assert "0:30 ⏸ paused" in text(paused)


def test_the_live_watch_marks_a_grading_and_names_its_keys():
    state = WatchState(attempt(), (TargetState("unbroadcast", None, None),), grading=True, keys=True)
    shown = text(report.watch_screen(state, T0 + 61, RECALL))
    assert "1:01 ▶  target 5:00  ⟳ grading" in shown
    assert "h hint · p pause · r grade · d diff · q quit" in shown
    paused = text(
        report.watch_screen(WatchState(attempt(paused_at=T0 + 30), state.targets, keys=True), T0 + 61, RECALL)
    )
    assert "p resume" in paused and "saves are graded on resume" in paused
    passed = WatchState(attempt(), state.targets, finished=End.PASSED, keys=True)
    passed = text(report.watch_screen(passed, T0 + 61, RECALL))
    assert "✓ passed" in passed and "d diff" in passed and "this watch follows it" in passed


def test_each_failing_target_of_the_watch_shows_its_count_and_first_failure_once():
    other = Failure("t2", "Tensor.exp [x]: wrong", "Tensor.exp", "x", "wrong")
    targets = (
        TargetState("unbroadcast", 30.0, TargetResult("unbroadcast", 18, 0)),
        TargetState("backward", None, TargetResult("backward", 20, 2, (FAILURE, FAILURE))),
        TargetState("arith", None, TargetResult("arith", 30, 1, (other,))),
    )
    shown = text(
        report.watch_screen(WatchState(attempt("full"), targets, keys=True), T0 + 61, load_catalog().full_time)
    )
    assert "2 of 20 tests failed" in shown and "1 of 30 tests failed" in shown
    assert shown.count("raised ValueError: bad") == 1 and "hint: sum the leading axis" in shown
    assert shown.count("Tensor.exp [x]: wrong") == 1  # the second target's first failure: its headline


# ---------------------------------------------------------------------------- records


def test_the_catalog_table_lists_every_drill_with_your_times():
    catalog = load_catalog()
    records = {"unbroadcast": DrillRecord(200.0, "3:20", 2), "full": DrillRecord(None, "gave up", 1)}
    shown = text(render.catalog_table(catalog, records, {"unbroadcast": "in 3 days", "arith": "now"}), width=160)
    rows = {line.split()[0]: line for line in shown.splitlines() if line.strip()}
    assert all(drill_id in rows for drill_id in catalog.drill_ids)
    assert rows["unbroadcast"].split()[-7:] == ["5:00", "3:20", "3:20", "2", "in", "3", "days"]
    assert rows["backward"].split()[-4:] == ["-", "-", "0", "-"]  # never drilled, nothing due
    assert "gave up" in rows["full"] and format_time(catalog.full_time) in rows["full"]
    assert rows["arith"].rstrip().endswith("now")


@pytest.mark.parametrize("color", [None, "truecolor"])
def test_the_catalog_cells_drawn_as_text_are_what_rich_makes_of_them_as_str(monkeypatch, color):
    """``render.as_text`` makes a cell Text before it is drawn (a str is parsed for markup and emoji
    codes as it is drawn): the same bytes as when rich is given the str, at every width, in colour too."""
    catalog = load_catalog()
    records = {"unbroadcast": DrillRecord(200.0, "3:20", 2), "full": DrillRecord(None, "gave up", 1)}
    due = {"unbroadcast": "in 3 days", "arith": "now", "max": "2 days ago"}
    rungs = {"unbroadcast": "recall", "arith": "cloze"}

    def drawn(width: int) -> str:
        console = Console(file=io.StringIO(), width=width, highlight=False, color_system=color)
        console.print(render.catalog_table(catalog, records, due, rungs))
        return console.file.getvalue()  # type: ignore[attr-defined]

    as_text = {width: drawn(width) for width in (12, 30, 45, 60, 80, 99, 100, 140)}
    monkeypatch.setattr(render, "as_text", lambda cell: cell)
    assert {width: drawn(width) for width in as_text} == as_text


def test_a_full_scoreboard_marks_best_splits_and_adds_the_total():
    row = ScoreRow("unbroadcast", 300, 200.0, 200.0, 3, False, True)
    total = ScoreRow("full", 2700, 2000.0, 1900.0, 3, False, False)
    shown = text(render.scoreboard(Scoreboard(attempt("full"), (row,), total, 1850.0)))
    assert "3:20 ★" in shown and "−1:40" in shown  # a best split, under its target time
    assert "total" in shown and "45:00" in shown and "33:20" in shown and "+" not in shown.split("total")[0]
    assert "Sum of best splits: 30:50" in shown


def test_a_full_scoreboard_at_60_columns_keeps_every_time_and_says_attempts_and_help_below():
    rows = (
        ScoreRow("cross-entropy", 180, 100.0, 90.0, 3, False, False, 90.0),
        ScoreRow("unbroadcast", 300, 200.0, 200.0, 3, False, True, 230.0),
    )
    total = ScoreRow("full", 2700, 2000.0, 1900.0, 3, True, False, 1900.0)
    shown = text(render.scoreboard(Scoreboard(attempt("full"), rows, total, 1850.0)), width=60)
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 60 and "┃" not in shown
    assert lines[1].split() == ["cross-entropy", "3:00", "1:40", "−1:20", "+0:10", "1:30"]
    assert lines[2].split() == ["unbroadcast", "5:00", "3:20", "−1:40", "−0:30", "3:20", "★"]
    assert "3 attempts; assisted" in shown and "Sum of best splits: 30:50" in shown


def test_a_shared_segment_and_the_regressions_at_60_columns():
    """A shared segment names its targets, never cut mid-word; the regressions line has its time only;
    the times drawn add up to the total."""
    rows = (
        ScoreRow("unbroadcast", 300, 100.0, 100.0, 1, False, True, None, ("unbroadcast",)),
        ScoreRow("backward + arith + unary", 1680, 400.0, 400.0, 1, False, True, None, ("backward", "arith", "unary")),
        ScoreRow("softmax + cross-entropy", 660, 200.0, 150.0, 1, False, False, 150.0, ("softmax", "cross-entropy")),
    )
    total = ScoreRow("full", 2700, 790.0, 790.0, 1, False, True)
    shown = text(render.scoreboard(Scoreboard(attempt("full"), rows, total, 650.0, 90.0)), width=60)
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 60
    assert [line.split() for line in lines[1:8]] == [
        ["unbroadcast", "5:00", "1:40", "−3:20", "-", "1:40", "★"],
        ["backward", "+", "28:00", "6:40", "−21:20", "-", "6:40", "★"],  # their target times added up
        ["arith", "+", "unary"],
        ["softmax", "+", "11:00", "3:20", "−7:40", "+0:50", "2:30"],
        ["cross-entropy"],
        ["regressions", "-", "1:30", "-", "-", "-"],
        ["total", "45:00", "13:10", "−31:50", "-", "13:10"],  # 1:40 + 6:40 + 3:20 + 1:30
    ]
    assert "Regressions: 1:30 after the last split" in " ".join(shown.split())
    assert "share one segment" in shown and "Sum of best splits: 10:50" in shown


def test_stats_show_the_trend_and_the_share_under_the_target():
    stats = TargetStats("unbroadcast", 300, 4, 100.0, 250.0, (400.0, 250.0, 100.0), 0.5, None)
    shown = text(render.stats_table([stats]), width=120)
    assert "50%" in shown and "1:40" in shown and "4:10" in shown
    assert render.sparkline(stats.times) in shown and render.sparkline(stats.times)[0] == render.SPARKS[-1]


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(-3 * DAY, "3 days ago"), (-60, "now"), (90, "in 2 min"), (5 * 3600, "in 5 h"), (DAY, "in 1 day")],
)
def test_due_in(seconds, said):
    assert render.due_in(seconds) == said


def test_the_queue_says_why_and_what_comes_after():
    new = TargetCard("unbroadcast", 0, 300, T0, (), None)
    done = TargetCard("arith", 2, 600, T0 + 2 * DAY, (Review(1, T0 - DAY, "Good", 420.0, False),), 3.0)
    shown = text(render.next_view([new, done], T0))
    assert "Drill now: unbroadcast   never drilled" in shown
    assert "Then: arith (in 2 days)" in shown
    assert "drill next --start" in shown
    assert render.reason(done, T0) == "due in 2 days: last time passed in 7:00 (Good)"


def test_hints_say_how_many_are_left_and_that_the_attempt_is_assisted():
    shown = text(render.hints_view(Hints("arith", ("first", "second"), 3, counted=True)))
    assert "hint 1 (arith): first" in shown and "hint 2 (arith): second" in shown
    assert "3 more: drill hint arith" in shown and "assisted" in shown
    last = text(render.hints_view(Hints("arith", ("only",), 0, counted=True)))
    assert "That was the last hint" in last and "drill diff arith --peek" in last


def test_hints_render_their_markup_in_drill_hint_the_watch_and_the_interview():
    """The catalog's hints carry a little markdown (*emphasis*, `code`): every view that shows a hint
    renders it, none prints the marks; a lone * (the product rule for *) and _names stay as written."""
    from autograd_drill.views.interview import nudge_view

    hints = load_catalog().get("unbroadcast").hints
    assert "*sum*" in " ".join(hints) and "`shape`" in " ".join(hints)  # the markup this test is about
    shown = Hints("unbroadcast", hints, 0, counted=True)
    for view in (render.hints_view(shown), report.shown_view(shown), nudge_view(shown)):
        said = text(view, width=400)
        assert "*" not in said and "`" not in said, said
    assert "the sum of" in text(render.hints_view(shown), width=400)
    assert "has exactly shape, including" in text(nudge_view(shown), width=400)
    styled = render.hint_text("the *sum* of `shape`: for *, x._prev and a_b_c")
    assert styled.plain == "the sum of shape: for *, x._prev and a_b_c"
    assert {str(span.style) for span in styled.spans} == {"italic", "bold"}


def test_the_diff_puts_yours_beside_the_reference_and_says_what_is_missing():
    comparison = Comparison(
        "arith", "mine.py", (("Tensor.__add__", None, "def __add__(self, other): ..."),), True, True
    )
    shown = text(code.comparison(comparison), width=120)
    assert "Tensor.__add__" in shown and "yours (mine.py)" in shown and "reference" in shown
    assert "(not found in your file)" in shown and "def __add__" in shown
    assert "marked assisted" in shown


def test_a_review_card_keeps_its_formula_whole_at_60_columns():
    card = ReviewCard("arith", "grad_a = g @ swapaxes(b, -1, -2)", ("summing over the wrong axis",), ("why?",))
    shown = text(card_view.review_card(card), width=60)
    assert "grad_a = g @ swapaxes(b, -1, -2)" in shown
    assert "Classic bugs" in shown and "summing over the wrong axis" in shown and "why?" in shown


def test_the_streak_line():
    from datetime import date

    today = date(2027, 1, 15)
    shown = text(render.streak_line(Streak(3, True, 5, today, (False,) * 11 + (True,) * 3)))
    assert "Streak: 3 days, today included" in shown and "Longest: 5 days" in shown
    assert "···········■■■" in shown
    none = text(render.streak_line(Streak(0, False, 2, date(2027, 1, 1), (False,) * 14)))
    assert "none (last practice Fri 01 Jan)" in none


def test_a_formula_line_wraps_under_its_second_column_and_keeps_labels_with_their_formulas():
    two_ops = "   relu   x̄ += (x > 0) z̄       sigmoid  x̄ += z (1 - z) z̄"
    assert card_view.hanging(two_ops, 40) == ["   relu   x̄ += (x > 0) z̄", "   sigmoid  x̄ += z (1 - z) z̄"]
    assert card_view.hanging(two_ops, 80) == [two_ops]
    labelled = "  softmax      s = exp(x - m) / sum exp(x - m) over the op's own axis"
    first, *rest = card_view.hanging(labelled, 40)
    assert first.startswith("  softmax      s = exp") and rest and all(line.startswith(" " * 15) for line in rest)
    assert " ".join(" ".join(card_view.hanging(labelled, 40)).split()) == " ".join(labelled.split())
