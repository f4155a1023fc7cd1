"""``drill next`` and FSRS over every installed pack (issue 28, its Done-when): one card per canonical
drill id of every pack (drills/store/schedule.py ``deck``), a pack's core targets reviewed by the
splits of that pack's own full drill (``layers/full``), the built-in cards unchanged for a history of
built-in ids, and ``drill next`` choosing a layers target once its history makes it the most overdue.
Attempts are recorded straight into the history (no grading): the layers pack installed in-process."""

from __future__ import annotations

import pytest

from autograd_drill.store import schedule
from autograd_drill.store.history import History
from autograd_drill.targets import builtin_catalog
from autograd_drill.targets import catalog as merged
from tests.support import CATALOG, DAY, T0, drill, record_attempt, said
from tests.test_pack_installed import IDS

LAYERS = [f"layers/{i}" for i in IDS]

pytestmark = pytest.mark.usefixtures("wide_terminal")


def builtin_history(store: History) -> None:
    record_attempt(store, "backward", 400, T0 - 30 * DAY)
    record_attempt(store, "backward", 400, T0 - 3 * DAY, outcome="gave-up")
    record_attempt(store, "full", 2000, T0 - 9 * DAY, splits=CATALOG.ids)
    record_attempt(store, "max", 100, T0 - 2 * DAY)


def test_one_card_per_canonical_id_of_every_pack(layers_installed, store):
    deck = schedule.deck(store, T0)
    assert [c.target for c in deck] == list(merged().drill_ids)
    assert [c.target for c in deck][-7:] == [*LAYERS, "layers/full"]
    assert all(c.new and c.due == T0 for c in deck)
    by_id = {c.target: c for c in deck}
    assert by_id["layers/layernorm"].target_time == 8 * 60 and by_id["layers/full"].target_time == merged().target_time(
        "layers/full"
    )


def test_the_builtin_cards_are_unchanged_by_a_pack(layers_installed, store, monkeypatch):
    """A history of built-in ids: the same built-in cards (due, reviews, order) with the layers pack
    installed as with the built-in catalog alone; the pack's cards after them, never drilled."""
    builtin_history(store)
    both = schedule.deck(store, T0)
    queued = [c.target for c in schedule.queue(store, T0)]
    monkeypatch.setattr(schedule, "merged", builtin_catalog)
    alone = schedule.deck(store, T0)
    assert [c.target for c in alone] == [*CATALOG.ids, "full", *(t.id for t in CATALOG.extensions)]
    assert both[: len(alone)] == alone
    assert [c.target for c in both[len(alone) :]] == [*LAYERS, "layers/full"]
    assert all(c.new for c in both[len(alone) :])
    assert [t for t in queued if not t.startswith("layers/")] == [c.target for c in schedule.in_order(alone)]
    assert any(c.reviews for c in alone) and queued[0] in CATALOG.ids  # the built-in overdue first


def test_a_packs_full_drills_splits_review_its_own_targets(layers_installed, store):
    """layers/full's splits are reviews of the layers targets (rated against their shared segment's
    target times), not of the built-in ones; the run is a review of layers/full."""
    together = sum(merged().get(t).target_time for t in LAYERS)
    record_attempt(store, "layers/full", together * 0.75, T0, splits=LAYERS)
    cards = {c.target: c for c in schedule.deck(store, T0 + DAY)}
    for drill_id in LAYERS:
        assert [(r.rating, r.full) for r in cards[drill_id].reviews] == [("Good", True)], drill_id
        assert cards[drill_id].due > T0 + DAY
    rated = schedule.rating(True, together * 0.75, False, merged().target_time("layers/full")).name
    assert [r.rating for r in cards["layers/full"].reviews] == [rated]
    assert all(cards[t].new for t in (*CATALOG.ids, "full"))


def test_drill_next_chooses_a_layers_target_once_its_history_says_so(layers_installed, clock, store):
    for target in [*CATALOG.ids, "full", *(t.id for t in CATALOG.extensions), *LAYERS, "layers/full"]:
        record_attempt(store, target, 30, T0 - 3600)  # everything drilled fast: due in days
    record_attempt(store, "layers/attention", 600, T0 - 3000, outcome="gave-up")  # Again: due first
    clock.now = T0 + 2 * DAY
    text = said(drill("next"))
    assert "Drill now: layers/attention" in text and "you gave up (Again)" in text, text
    assert "drill next --start (or drill start layers/attention)" in text
