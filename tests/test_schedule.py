"""Spaced repetition (drills/store/schedule.py): ratings, the cards replayed from the history, the queue, and
``drill next`` / ``drill list`` through the CLI, ending with a simulated week of practice.

Attempts are recorded straight into the history, or through the CLI with a stand-in grader (every
target passes once the file is the reference), so no test here runs the oracle suite.
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler

from autograd_drill.store import schedule
from autograd_drill.store.history import History
from autograd_drill.views import render
from tests.support import CATALOG, DAY, REFERENCE, ROOT, T0, drill, record_attempt, said

ORDER = [*CATALOG.ids, "full", *(t.id for t in CATALOG.extensions)]


pytestmark = pytest.mark.usefixtures("wide_terminal")


def record(store: History, target: str, seconds: float, at: float, outcome: str = "passed", assisted: bool = False):
    """A finished attempt (tests/support.py); a full drill's passed with a split for each core target."""
    splits = CATALOG.ids if target == "full" else ()
    return record_attempt(store, target, seconds, at, outcome, assisted, splits=splits)


def card_of(store: History, target: str, now: float) -> schedule.TargetCard:
    return next(c for c in schedule.deck(store, now) if c.target == target)


# ---------------------------------------------------------------------------- ratings


@pytest.mark.parametrize(
    ("outcome", "seconds", "assisted", "rating"),
    [
        pytest.param("gave-up", 100, False, Rating.Again, id="gave-up"),
        pytest.param("passed", 301, False, Rating.Hard, id="over-target"),
        pytest.param("passed", 100, True, Rating.Hard, id="assisted-even-fast"),
        pytest.param("passed", 300, False, Rating.Good, id="on-target"),
        pytest.param("passed", 150, False, Rating.Good, id="exactly-half"),
        pytest.param("passed", 149, False, Rating.Easy, id="under-half"),
    ],
)
def test_rating_from_outcome_and_time(store, outcome, seconds, assisted, rating):
    attempt = record(store, "unbroadcast", seconds, T0, outcome, assisted)
    assert schedule.rate(attempt, 300) == rating


def test_the_scheduler_is_deterministic_and_schedules_whole_days():
    assert schedule.scheduler().enable_fuzzing is False
    assert schedule.scheduler().learning_steps == () and schedule.scheduler().relearning_steps == ()


# ---------------------------------------------------------------------------- cards from the history


def test_a_fresh_history_is_all_due_now_in_catalog_order(store):
    queue = schedule.queue(store, T0)
    assert [c.target for c in queue] == ORDER  # core targets, full, then the extensions
    assert all(c.new and c.due == T0 for c in queue)
    assert schedule.choose(store, T0).target == CATALOG.ids[0]


def test_the_card_is_the_replay_of_every_finished_attempt(store):
    """Derived, not stored: the same reviews through fsrs by hand give the same due date."""
    record(store, "arith", 700, T0)  # over 10:00: Hard
    record(store, "arith", 5, T0 + 3600, outcome="abandoned")  # a reset, not a review
    record(store, "arith", 500, T0 + 2 * DAY)  # Good
    record(store, "arith", 200, T0 + 5 * DAY)  # under half: Easy
    store.start("arith", Path("/nowhere/arith.py"), T0 + 20 * DAY)  # in progress: not a review
    now = T0 + 20 * DAY + 60
    card = card_of(store, "arith", now)
    assert [r.rating for r in card.reviews] == ["Hard", "Good", "Easy"]

    by_hand = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    state = Card(card_id=1, due=datetime.fromtimestamp(T0, UTC))
    for rating, end in [(Rating.Hard, T0 + 700), (Rating.Good, T0 + 2 * DAY + 500), (Rating.Easy, T0 + 5 * DAY + 200)]:
        state, _ = by_hand.review_card(state, rating, review_datetime=datetime.fromtimestamp(end, UTC))
    assert card.due == state.due.timestamp()
    assert card.stability == pytest.approx(state.stability)
    assert card_of(store, "arith", now) == card  # the same history, the same card


def test_a_give_up_comes_back_sooner_than_a_slow_pass_sooner_than_a_fast_one(store):
    record(store, "unbroadcast", 100, T0)  # Easy
    record(store, "backward", 400, T0)  # Good
    record(store, "arith", 660, T0)  # Hard
    record(store, "unary", 300, T0 - 30 * DAY)  # passed from memory once: in the schedule
    record(store, "unary", 300, T0, outcome="gave-up")  # Again
    due = {t: card_of(store, t, T0).due - (T0 + 0) for t in ("unbroadcast", "backward", "arith", "unary")}
    assert due["unary"] <= due["arith"] < due["backward"] < due["unbroadcast"]
    assert due["unary"] == pytest.approx(DAY + 300)  # a give-up: tomorrow
    assert due["unbroadcast"] > 5 * DAY


def test_the_most_overdue_goes_first_then_those_never_drilled(store):
    record(store, "softmax", 300, T0 - 30 * DAY)
    record(store, "softmax", 300, T0, outcome="gave-up")
    record(store, "arith", 660, T0 + 3600)  # Hard: tomorrow
    now = T0 + 3 * DAY
    queue = schedule.queue(store, now)
    assert [c.target for c in queue[:3]] == ["softmax", "arith", "unbroadcast"]
    assert now - queue[0].due > now - queue[1].due > 0
    assert schedule.choose(store, now).target == "softmax"


def test_when_nothing_is_due_the_first_to_come_due_is_chosen(store):
    for target in ORDER:
        record(store, target, 60, T0)  # all fast: Easy (full in a minute, why not)
    record(store, "cross-entropy", 170, T0 + 60)  # a second review, Good, a little later
    chosen = schedule.choose(store, T0 + DAY)
    assert chosen.due > T0 + DAY
    assert chosen.due == min(c.due for c in schedule.deck(store, T0 + DAY))


def test_full_is_a_card_of_its_own(store):
    record(store, "full", 3000, T0)  # over 45:00: Hard
    full = card_of(store, "full", T0 + 3000)
    assert [r.rating for r in full.reviews] == ["Hard"] and full.target_time == CATALOG.full_time
    assert all(not r.full for r in full.reviews)


def test_a_full_drills_splits_are_reviews_of_each_target(store, clock):
    """Each split of a finished full drill reviews its target at the run's end, rated by its segment (the
    time since the previous split); an abandoned run and one in progress review nothing."""
    first, second, *rest = CATALOG.ids
    run = store.start("full", Path("/nowhere/full.py"), T0)
    store.add_split(run, first, 100)  # 100 s of unbroadcast's 5:00: Easy
    store.add_split(run, second, 100 + 500)  # 500 s of backward's 10:00: Good
    store.finish(run, "gave-up", T0 + 900)  # the other targets never passed: not reviewed
    reset = store.start("full", Path("/nowhere/full.py"), T0 + 1000)
    store.add_split(reset, rest[0], 10)
    store.finish(reset, "abandoned", T0 + 1100)
    ongoing = store.start("full", Path("/nowhere/full.py"), T0 + 2000)
    store.add_split(ongoing, rest[1], 10)
    now = T0 + 2100
    cards = {c.target: c for c in schedule.deck(store, now)}
    assert [(r.rating, r.time, r.at, r.full) for r in cards[first].reviews] == [("Easy", 100, T0 + 900, True)]
    assert [(r.rating, r.time) for r in cards[second].reviews] == [("Good", 500)]
    assert all(cards[t].new for t in rest)
    assert [r.rating for r in cards["full"].reviews] == ["Again"]  # the run itself: a give-up
    store.finish(ongoing, "abandoned", now)
    # a later attempt at the target alone is replayed after the split, in time order
    record(store, first, 200, T0 + 3000)  # over half of 5:00: Good
    assert [(r.rating, r.full) for r in card_of(store, first, T0 + 4000).reviews] == [("Easy", True), ("Good", False)]
    # drill next says so: it called a target drilled in a full drill "never drilled", due now
    clock.now = T0 + 4 * DAY
    assert f"{second} (2 days ago)" in said(drill("next")).split("Then:")[1]
    reason = render.reason(card_of(store, second, clock.now), clock.now)
    assert reason == "due 2 days ago: last time passed in 8:20 in a full drill (Good)"


def test_targets_passed_on_one_save_are_rated_by_their_shared_segment(store):
    """Two targets passing on one save share one segment: each is rated by it against their target times
    added up, never by a 0:00 segment of its own (which would rate the second Easy)."""
    first, second, *_ = CATALOG.ids
    run = store.start("full", Path("/nowhere/full.py"), T0)
    together = CATALOG.get(first).target_time + CATALOG.get(second).target_time
    store.add_split(run, first, together * 0.75)  # both on one save, at three quarters of their times: Good
    store.add_split(run, second, together * 0.75)
    store.finish(run, "gave-up", T0 + 3000)
    cards = {c.target: c for c in schedule.deck(store, T0 + 3000)}
    assert [(r.rating, r.time) for r in cards[first].reviews] == [("Good", together * 0.75)]
    assert [(r.rating, r.time) for r in cards[second].reviews] == [("Good", together * 0.75)]


def test_targets_no_longer_in_the_catalog_are_ignored(store):
    record(store, "retired-target", 60, T0)
    assert [c.target for c in schedule.queue(store, T0 + 60)] == ORDER


# ---------------------------------------------------------------------------- drill next, drill list


def test_drill_next_names_the_target_why_and_what_comes_after(clock, store):
    record(store, "backward", 400, T0 - 30 * DAY)
    record(store, "backward", 400, T0 - 3 * DAY, outcome="gave-up")
    text = said(drill("next"))
    assert "Drill now: backward" in text and "due 2 days ago" in text and "you gave up (Again)" in text
    assert "Then: unbroadcast (now), arith (now)" in text
    assert "Next: drill next --start (or drill start backward)" in text


def test_drill_next_when_nothing_is_due(clock, store):
    for target in ORDER:
        record(store, target, 30, T0 - 3600)
    text = said(drill("next"))
    assert "Nothing is due" in text and "Drill now:" in text and "in 8 days" in text


def test_drill_next_start_starts_the_chosen_target(clock, store, workspace):
    record(store, "unbroadcast", 100, T0 - DAY)
    text = said(drill("next", "--start"))
    assert "drill next chose backward: never drilled" in text
    assert "Rung: copy" in text and (workspace / "backward.py").exists()  # never drilled: the ladder's first rung
    assert store.active().target == "backward"
    # an attempt in progress: drill next says so, and --start refuses as drill start does
    assert "Meanwhile, an attempt at backward is in progress" in said(drill("next"))
    assert "drill abandon" in said(drill("next", "--start", code=2))


def test_drill_list_shows_when_each_target_is_due_and_suggests_the_choice(clock, store):
    record(store, "unbroadcast", 100, T0 - 3 * DAY)  # Easy: in 8 days
    record(store, "backward", 400, T0 - 30 * DAY)
    record(store, "backward", 400, T0 - 3 * DAY, outcome="gave-up")  # overdue by 2 days
    result = drill("list")
    assert re.search(r"^unbroadcast\s.*\s1\s+in 5 days\s*$", result.output, re.M)
    assert re.search(r"^backward\s.*\s2\s+2 days ago\s*$", result.output, re.M)
    assert re.search(r"^arith\s.*\s0\s+now\s*$", result.output, re.M)
    assert re.search(r"^full\s.*\s0\s+now\s*$", result.output, re.M)
    said_ = said(result)  # the give-up also moved it down the ladder: drill start starts its cloze
    assert (
        "Next: drill start backward due 2 days ago: last time you gave up (Again); its cloze rung next (or: drill next --start)"
        in said_
    )


def test_drill_list_and_status_do_not_load_fsrs_until_asked():
    """cli.py imports fsrs only inside the commands that schedule: drill status and --help stay light."""
    code = "import sys, autograd_drill.cli; sys.exit('fsrs' in sys.modules or 'plotext' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


# ---------------------------------------------------------------------------- a week of practice


PLAN = {
    # target: the clock at the end of its 1st, 2nd, ... attempt; None: gave up
    "unbroadcast": [120],  # under half of 5:00: Easy, not back this week
    "backward": [None, 540, 420],  # gave up first: back the next day
    "arith": [720, 480],  # over 10:00 first: Hard
    "unary": [300, 280],
    "softmax": [None, 460, 400],
    "cross-entropy": [80],  # Easy
    "full": [2400],
}


def test_a_simulated_week_of_practice(clock, store, workspace, passing_grader):
    """Seven days, three sessions a day (08:00, 13:00, 19:00 UTC): drill next --start, then a pass in the
    planned time (drill check) or a give-up. The order must be what spaced repetition promises."""
    reference = REFERENCE.read_text(encoding="utf-8")
    picks: list[tuple[int, str, str]] = []  # (day, target, outcome)
    counts: dict[str, int] = {}
    for day in range(7):
        for hour in (0, 5, 11):  # hours after 08:00
            clock.now = T0 + day * DAY + hour * 3600
            target = said(drill("next")).split("Drill now: ")[1].split()[0]
            drill("start", target, "--rung", "recall")  # spaced repetition of drills from memory
            n = counts.get(target, 0)
            counts[target] = n + 1
            plan = PLAN.get(target, [])
            seconds = plan[n] if n < len(plan) else 0.8 * CATALOG.target_time(target)
            if seconds is None:
                clock.advance(600)
                drill("give-up")
                picks.append((day, target, "gave up"))
            else:
                clock.advance(seconds)
                (workspace / f"{target}.py").write_text(reference, encoding="utf-8")
                checked = said(drill("check"))
                assert f"✓ {target}" in checked and "Next due:" in checked
                picks.append((day, target, "passed"))
    order = [target for _, target, _ in picks]
    # day 1: nothing drilled yet, so the catalog's order
    # then backward again at once: given up before its first pass from memory, it is still learning
    assert order[:3] == ["unbroadcast", "backward", "backward"]
    # a give-up comes back within a day and a half; a pass under half the target time not this week
    first_give_up = next(i for i, p in enumerate(picks) if p[1] == "backward")
    again = next(i for i, p in enumerate(picks) if p[1] == "backward" and i > first_give_up)
    assert picks[again][0] - picks[first_give_up][0] <= 1
    assert order.count("unbroadcast") == 1 and order.count("cross-entropy") == 1
    # every core target and full came up; given-up targets came up more often than easy ones
    assert {*CATALOG.ids, "full"} <= set(order)
    assert order.count("softmax") > order.count("cross-entropy")
    # the order is the scheduler's: replaying the history gives the same cards
    assert schedule.choose(store, clock()).target == said(drill("next")).split("Drill now: ")[1].split()[0]
