"""Progress charts (drills/views/chart.py): the data gathered from the history, the streak, the text plotext
draws, and ``drill chart`` / ``drill stats --plot`` through the CLI. Days are counted in UTC here."""

from __future__ import annotations

import re
from datetime import UTC, date, timedelta
from pathlib import Path

import pytest

from autograd_drill.grader.catalog import format_time
from autograd_drill.store import progress
from autograd_drill.store.history import History
from autograd_drill.views import chart
from tests.support import CATALOG, DAY, T0, drill, record_attempt, said, use_consoles

TODAY = date(2027, 1, 15)


@pytest.fixture(autouse=True)
def console(monkeypatch: pytest.MonkeyPatch) -> None:
    """An 100x30 terminal: the chart takes its size from the console."""
    use_consoles(monkeypatch, width=100, height=30)


def record_full(store: History, splits: dict[str, float], at: float, outcome: str = "passed") -> None:
    attempt = store.start("full", Path("/nowhere/full.py"), at)
    for target, elapsed in splits.items():
        store.add_split(attempt, target, elapsed)
    store.finish(attempt, outcome, at + max(splits.values(), default=60))


# ---------------------------------------------------------------------------- the streak


def days(*offsets: int) -> set[date]:
    return {TODAY - timedelta(days=k) for k in offsets}


@pytest.mark.parametrize(
    ("practised", "current", "today", "longest"),
    [
        pytest.param(days(), 0, False, 0, id="never"),
        pytest.param(days(0), 1, True, 1, id="today-only"),
        pytest.param(days(0, 1, 2), 3, True, 3, id="three-to-today"),
        pytest.param(days(1, 2, 3, 4), 4, False, 4, id="ends-yesterday-still-alive"),
        pytest.param(days(2, 3), 0, False, 2, id="broken-two-days-ago"),
        pytest.param(days(0, 2, 3, 4, 5, 6), 1, True, 5, id="gap-yesterday"),
    ],
)
def test_streak(practised, current, today, longest):
    streak = progress.streak(practised, TODAY)
    assert (streak.days, streak.today, streak.longest) == (current, today, longest)
    assert len(streak.recent) == 14 and streak.recent[-1] == (TODAY in practised)
    assert sum(streak.recent) == len(practised)


# ---------------------------------------------------------------------------- the data


def test_progress_gathers_finished_attempts_per_target(store):
    record_attempt(store, "unbroadcast", 240, T0 - 2 * DAY)
    record_attempt(store, "unbroadcast", 180, T0 - DAY, assisted=True)
    record_attempt(store, "unbroadcast", 10, T0 - DAY + 600, outcome="abandoned")  # a reset: not charted
    record_attempt(store, "backward", 500, T0 - DAY, outcome="gave-up")
    store.start("arith", Path("/nowhere/arith.py"), T0)  # in progress: not charted
    p = progress.progress(store, T0 + 600, UTC)
    assert [s.target for s in p.series] == ["unbroadcast", "backward"]
    unbroadcast = p.series[0]
    assert [(q.seconds, q.passed, q.assisted) for q in unbroadcast.points] == [(240, True, False), (180, True, True)]
    assert p.series[1].points[0].seconds == 500 and not p.series[1].points[0].passed  # when you gave up
    assert p.first_day == TODAY - timedelta(days=2) and p.today == TODAY
    assert (p.streak.days, p.streak.today) == (2, False)


def test_sum_of_best_counts_the_full_drills_best_splits(store):
    ids = CATALOG.ids
    record_full(store, {t: 300 * (k + 1) for k, t in enumerate(ids)}, T0 - DAY)  # every segment 5:00
    faster = {t: 300 * (k + 1) for k, t in enumerate(ids)}
    faster[ids[0]] = 120  # a 2:00 first segment, so the second one grows to 8:00
    record_full(store, faster, T0)
    record_full(store, {ids[0]: 60}, T0 + 3600, outcome="gave-up")  # splits of a give-up count too
    p = progress.progress(store, T0 + 7200, UTC)
    assert [r.passed for r in p.full] == [True, True, False]
    assert [(s.targets, s.seconds) for s in p.full[1].segments[:2]] == [((ids[0],), 120), ((ids[1],), 480)]
    assert p.sum_of_best == 60 + 300 * (len(ids) - 1)


def test_sum_of_best_needs_every_target(store):
    record_full(store, {CATALOG.ids[0]: 60}, T0, outcome="gave-up")
    assert progress.progress(store, T0 + 3600, UTC).sum_of_best is None


# ---------------------------------------------------------------------------- drawing


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def test_overview_draws_every_target_against_100_percent(store):
    record_attempt(store, "unbroadcast", 240, T0 - 2 * DAY)
    record_attempt(store, "unbroadcast", 120, T0 - DAY)
    record_attempt(store, "arith", 900, T0 - DAY, outcome="gave-up")
    p = progress.progress(store, T0, UTC)
    text = chart.draw(p, None, 90, 20, color=False)
    assert "\x1b[" not in text
    assert all(len(line) <= 90 for line in lines_of(text))
    assert "time per attempt, as a share of the target time" in text
    assert "100%" in text and "● unbroadcast" in text and "■ arith" in text and "✗ gave up" in text
    assert "Wed 13" in text and "Fri 15" in text  # one tick per day, first day to today
    assert text.count("●") >= 3  # two points, and the legend
    assert "✗" in lines_of(text)[1] or any("✗" in line for line in lines_of(text)[:-2])  # the give-up is plotted
    colored = chart.draw(p, None, 90, 20, color=True)
    assert "\x1b[38;5;" in colored


def test_the_legend_names_only_what_the_chart_shows(store):
    record_attempt(store, "unbroadcast", 240, T0 - DAY)
    text = chart.draw(progress.progress(store, T0, UTC), None, 90, 20, color=False)
    assert "● unbroadcast" in text and "gave up" not in text  # no give-up, no give-up in the legend


def test_one_target_in_minutes_with_its_target_time(store):
    record_attempt(store, "unbroadcast", 240, T0 - 2 * DAY)
    record_attempt(store, "unbroadcast", 150, T0 - DAY, assisted=True)
    record_attempt(store, "unbroadcast", 400, T0, outcome="gave-up")
    text = chart.draw(progress.progress(store, T0 + 400, UTC), "unbroadcast", 80, 18, color=False)
    assert "unbroadcast: time per attempt" in text
    assert re.search(r"^\s*5:00┼─+┤$", text, re.M)  # the target time, a line across the chart
    assert "● passed" in text and "○ assisted" in text and "✗ gave up" in text and "─ target 5:00" in text
    assert all(len(line) <= 80 for line in lines_of(text))


def test_full_draws_totals_with_the_sum_of_best_and_the_splits(store):
    ids = CATALOG.ids
    record_full(store, {t: 400 * (k + 1) for k, t in enumerate(ids)}, T0 - DAY)
    record_full(store, {t: 350 * (k + 1) for k, t in enumerate(ids)}, T0)
    text = chart.draw(progress.progress(store, T0 + 3 * 3600, UTC), "full", 100, 40, color=False)
    assert "full: each run's total" in text and "full: each target's split per run" in text
    assert f"─ target {format_time(CATALOG.full_time)}" in text  # the splits are 350 s apart: each segment 350 s
    assert f"─ sum of best {format_time(350 * len(ids))}" in text
    assert "#1" in text and "#2" in text
    for target in ids:
        assert target in text


def test_full_plots_a_shared_segment_once_and_the_regressions_as_the_scoreboard_has_them(store):
    """Two targets passed on one save: one point for them together, none at 0:00; a run that ended after its
    last split: its regressions plotted; the segments and the regressions add up to the run's time."""
    ids = CATALOG.ids
    splits = {t: 300 * (k + 1) for k, t in enumerate(ids)}
    splits[ids[1]] = splits[ids[0]]  # the second on the first one's save
    attempt = store.start("full", Path("/nowhere/full.py"), T0)
    for target, elapsed in splits.items():
        store.add_split(attempt, target, elapsed)
    store.finish(attempt, "passed", T0 + max(splits.values()) + 240)  # 4:00 fixing a target that failed again
    p = progress.progress(store, T0 + 3 * 3600, UTC)
    [run] = p.full
    assert run.segments[0].targets == (ids[0], ids[1]) and run.segments[0].seconds == 300
    assert all(s.seconds > 0 for s in run.segments) and run.regressions == 240
    assert sum(s.seconds for s in run.segments) + run.regressions == run.seconds
    assert p.sum_of_best == max(splits.values())  # the regressions are in no segment
    text = chart.draw(p, "full", 100, 40, color=False)
    splits_chart = text.split("full: each target's split per run")[1]
    assert f"{ids[0]} + {ids[1]}" in splits_chart and "! regressions" in splits_chart
    assert f" {ids[0]} " not in splits_chart.replace(f"{ids[0]} + ", "")  # no point of its own, so no legend
    plotted = splits_chart.split("└")[0]
    assert "!" in plotted  # the regressions point
    zero = next(line for line in plotted.splitlines() if line.lstrip().startswith("0:00"))
    assert set(zero.split("┤", 1)[1]) <= {" ", "│"}  # nothing plotted at 0:00


# ---------------------------------------------------------------------------- the CLI


def test_drill_chart_with_nothing_to_chart(clock):
    text = said(drill("chart"))
    assert "Nothing to chart yet" in text and "drill next --start" in text
    assert "you have not finished unbroadcast" in said(drill("chart", "unbroadcast"))
    assert "Did you mean 'arith'" in said(drill("chart", "arihh", code=2))


def test_drill_chart_and_stats_plot_draw_the_chart_and_the_streak(clock, store):
    for k in range(3):  # yesterday and the two days before: a live streak of three
        record_attempt(store, "unbroadcast", 200 - 30 * k, T0 - (3 - k) * DAY)
    result = drill("chart")
    text = said(result)
    assert "time per attempt, as a share of the target time" in text and "● unbroadcast" in text
    assert "Streak: 3 days: finish an attempt today to keep it" in text and "Longest: 3 days" in text
    assert "Last 14 days: ··········■■■· (today last)" in text
    assert all(len(line) <= 100 for line in result.output.splitlines())
    assert said(drill("stats", "--plot")) == text

    record_attempt(store, "unbroadcast", 100, T0)
    text = said(drill("stats", "unbroadcast", "--plot"))
    assert "unbroadcast: time per attempt" in text and "─ target 5:00" in text
    assert "Streak: 4 days, today included" in text


def test_drill_chart_full_shows_the_sum_of_best(clock, store):
    record_full(store, {t: 300 * (k + 1) for k, t in enumerate(CATALOG.ids)}, T0 - 3600)
    text = said(drill("chart", "full"))
    assert "full: each run's total" in text and "each target's split per run" in text
    assert f"Sum of best splits: {format_time(300 * len(CATALOG.ids))}" in text
