"""Review cards of every installed pack (issue 28, point 1): ``drill review layers/layernorm`` (and
``layernorm`` typed bare) shows the layers pack's card from its own reviews.toml, its local card ids
shown by their canonical ids; ``layers/full`` has its card; the built-in cards are unchanged; a pack's
reviews.toml that does not load is one line on stderr and no card, never a traceback."""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import replace

import pytest

from autograd_drill.targets import pack_of
from autograd_drill.views import reviews
from autograd_drill.views.render import hint_text
from tests.support import drill, said, use_consoles
from tests.test_pack_installed import PACKAGE

LAYERS_CARDS = {
    c["id"]: reviews.ReviewCard(
        c["id"], c["formula"].strip("\n"), tuple(c["classic_bugs"]), tuple(c["interviewer_next"])
    )
    for c in tomllib.loads((PACKAGE / "reviews.toml").read_text(encoding="utf-8"))["card"]
}
"""The layers pack's cards, read from its file here (not by the code under test), by their local ids."""


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    use_consoles(monkeypatch, width=100)


@pytest.mark.parametrize("typed", ["layers/layernorm", "layernorm"])
def test_drill_review_shows_the_packs_card(layers_installed, clock, typed):
    result = drill("review", typed)
    text = said(result)
    card = LAYERS_CARDS["layernorm"]
    assert "review: layers/layernorm" in text
    for line in card.formula.splitlines():
        assert line.strip() in result.output
    for item in (*card.classic_bugs, *card.interviewer_next):
        assert " ".join(hint_text(item).plain.split())[:40] in text
    assert "No card yet" not in text and "Next: drill start layers/layernorm" in text


def test_every_layers_drill_has_its_card_by_canonical_id(layers_installed):
    for local, card in LAYERS_CARDS.items():
        shown = reviews.review_for(f"layers/{local}")
        assert shown == replace(card, target=f"layers/{local}")
    assert "review: layers/full" in said(drill("review", "layers/full"))


def test_the_builtin_cards_are_unchanged_with_a_pack_installed(layers_installed):
    for local, card in reviews.load_reviews().items():
        assert reviews.review_for(local) == card  # bare ids, the built-in file's cards
    assert reviews.review_for("layernorm") is None  # a bare id is the built-in pack's: no such card


def test_the_card_after_a_pass_of_a_layers_target_is_the_packs(layers_installed, clock, passing_grader, tmp_path):
    drill("start", "layers/adam", "--rung", "recall")
    clock.advance(200)
    path = tmp_path / "solutions" / "layers" / "adam.py"
    path.write_text((PACKAGE / "reference.py").read_text(encoding="utf-8"), encoding="utf-8")
    text = said(drill("check"))
    assert "✓ layers/adam passed" in text, text
    assert "review: layers/adam" in text
    assert " ".join(LAYERS_CARDS["adam"].formula.splitlines()[0].split()) in text


def test_a_packs_reviews_toml_that_does_not_parse_is_one_line(layers_installed, clock, tmp_path, monkeypatch, capfd):
    broken = tmp_path / "reviews.toml"
    shutil.copy(PACKAGE / "reviews.toml", broken)
    broken.write_text(broken.read_text(encoding="utf-8") + "\n[[card]\nid = \n", encoding="utf-8")
    pack = pack_of("layers/layernorm")
    monkeypatch.setattr("autograd_drill.targets.pack_of", lambda drill_id: replace(pack, reviews=broken))
    reviews.pack_cards.cache_clear()
    result = drill("review", "layers/layernorm")
    warned = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(warned) == 1 and warned[0].startswith("drill: the review cards of the pack layers do not load: ")
    assert "Traceback" not in result.output and "No card yet for layers/layernorm" in said(result)
    assert "review: unbroadcast" in said(drill("review", "unbroadcast"))  # the built-in cards still work
    reviews.pack_cards.cache_clear()
