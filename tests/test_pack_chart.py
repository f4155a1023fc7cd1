"""``drill chart`` and ``drill stats`` for another pack's drills (issue 28): a layers target charted by
its canonical id against its own target time, the overview telling it from the built-in drill at the
same place in the colour cycle, and a pack's full drill (layers/full) drawn with its own runs, target
time, splits of its six targets and sum of best (drills/views/chart.py ``full_progress``, ``draw_full``).
The layers pack installed in process (tests/pack_here.py); attempts recorded straight into the history."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest

from autograd_drill.grader.catalog import format_time
from autograd_drill.store import progress
from autograd_drill.targets import catalog as merged
from autograd_drill.views import chart
from tests.support import DAY, T0, drill, record_attempt, said, use_consoles
from tests.test_pack_installed import IDS

LAYERS = [f"layers/{i}" for i in IDS]


@pytest.fixture(autouse=True)
def console(monkeypatch: pytest.MonkeyPatch) -> None:
    use_consoles(monkeypatch, width=100, height=30)


def test_every_drill_has_a_style_of_its_own_and_the_builtin_ones_are_unchanged():
    assert [chart.style(i) for i in range(12)] == list(zip(chart.COLORS, chart.MARKERS, strict=True))
    assert len({chart.style(i) for i in range(144)}) == 144


def test_the_overview_tells_a_layers_target_from_the_builtin_one_at_its_place(layers_installed, store):
    record_attempt(store, "unbroadcast", 240, T0 - DAY)
    record_attempt(store, "layers/layernorm", 400, T0 - DAY)
    assert merged().drill_ids.index("layers/layernorm") == 12  # where the old cycle gave unbroadcast's ● again
    text = chart.draw(progress.progress(store, T0, UTC), None, 90, 20, color=False)
    assert "● unbroadcast" in text and "◆ layers/layernorm" in text, text


def test_drill_chart_of_a_layers_target(layers_installed, store, clock):
    record_attempt(store, "layers/layernorm", 600, T0 - 2 * DAY)
    record_attempt(store, "layers/layernorm", 300, T0 - DAY)
    text = said(drill("chart", "layernorm"))
    assert "layers/layernorm: time per attempt" in text and "target 8:00" in text
    stats = said(drill("stats", "layers/layernorm"))
    assert "layers/layernorm" in stats and "8:00" in stats and "5:00" in stats  # its target and best


def test_a_packs_full_drill_is_drawn_with_its_own_runs_and_splits(layers_installed, store):
    first = store.start("layers/full", Path("/nowhere/full.py"), T0 - DAY)
    for k, target in enumerate(LAYERS, 1):
        store.add_split(first, target, 200 * k)
    store.finish(first, "passed", T0 - DAY + 1300)
    record_attempt(store, "full", 1800, T0 - DAY, splits=[t.id for t in merged().targets])  # the built-in one
    p = chart.full_progress(store, T0, "layers/full", UTC)
    assert [(r.number, r.seconds, len(r.segments)) for r in p.full] == [(1, 1300, 6)]
    assert p.sum_of_best == 1200
    text = chart.draw_full(p, 100, 40, color=False, drill="layers/full")
    assert "layers/full: each run's total" in text and "layers/full: each target's split per run" in text
    assert f"target {format_time(merged().target_time('layers/full'))}" in text and "sum of best 20:00" in text
    assert all(target in text for target in LAYERS) and "unbroadcast" not in text
    assert chart.full_progress(store, T0, "full", UTC) == progress.progress(store, T0, UTC)


def test_drill_chart_layers_full_draws_its_runs_and_splits(layers_installed, store, clock):
    run = store.start("layers/full", Path("/nowhere/full.py"), T0 - DAY)
    for k, target in enumerate(LAYERS, 1):
        store.add_split(run, target, 150 * k)
    store.finish(run, "passed", T0 - DAY + 1000)
    text = said(drill("chart", "layers/full"))
    assert "layers/full: each run's total" in text and "layers/full: each target's split per run" in text
    assert "Sum of best splits: 15:00" in text and "◆ layers/layernorm" in text
    assert "unbroadcast" not in text
