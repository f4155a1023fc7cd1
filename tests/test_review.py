"""Review cards (drills/views/reviews.toml, drills/views/reviews.py): one per core target and for full, shown after a
pass with the scoreboard and by ``drill review TARGET``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from autograd_drill.views import reviews
from autograd_drill.views.render import hint_text
from tests.support import CATALOG, REFERENCE, drill, said, use_consoles

CARDS = reviews.load_reviews()


@pytest.fixture(autouse=True)
def console(monkeypatch: pytest.MonkeyPatch) -> None:
    use_consoles(monkeypatch, width=100)


# ---------------------------------------------------------------------------- the cards, as data


@pytest.mark.parametrize("target", [*CATALOG.ids, "full"])
def test_every_core_target_and_full_has_a_card(target):
    card = reviews.review_for(target)
    assert card is not None, f"drills/views/reviews.toml has no card for {target}"
    assert card.target == target and card.formula.strip()
    assert len(card.classic_bugs) >= 3 and len(card.interviewer_next) >= 3
    assert all(item.strip() for item in (*card.classic_bugs, *card.interviewer_next))


def test_cards_are_for_catalog_targets_only_and_fit_an_80_column_terminal():
    assert set(CARDS) <= {*CATALOG.all_ids, "full"}
    text = Path(reviews.REVIEWS_FILE).read_text(encoding="utf-8")
    ids = re.findall(r'^id = "(.+)"$', text, re.M)
    assert len(ids) == len(set(ids)), "a target has two cards"
    for card in CARDS.values():
        for line in card.formula.splitlines():  # a formula line is never wrapped: it must fit the card
            assert cell_len(line) <= 74, f"{card.target}: {line!r}"


@pytest.mark.parametrize("target", sorted(CARDS))
def test_a_card_draws_its_markdown_not_its_marks(target):
    """A bullet's `code` is drawn bold and its *emphasis* italic, as the hints' are: no mark is typed out."""
    from rich.console import Console

    from autograd_drill.views.card import review_card

    console = Console(width=100, record=True, force_terminal=True, color_system="standard")
    console.print(review_card(CARDS[target]))
    drawn = " ".join(console.export_text().split())
    for item in (*CARDS[target].classic_bugs, *CARDS[target].interviewer_next):
        plain = hint_text(item).plain
        assert " ".join(plain.split())[:50] in drawn.replace(" │ ", " ").replace("│", ""), item
        assert "`" not in plain, item  # every mark of the card is one hint_text draws


def test_review_for_a_target_without_a_card():
    assert reviews.review_for("no-such-target") is None


# ---------------------------------------------------------------------------- drill review


def test_drill_review_shows_the_card_and_where_you_stand(clock):
    result = drill("review", "unbroadcast")
    text = said(result)
    card = CARDS["unbroadcast"]
    assert "review: unbroadcast" in text
    assert "Key formula" in text and "Classic bugs" in text and "What an interviewer asks next" in text
    for line in card.formula.splitlines():
        assert line.strip() in result.output
    for item in (*card.classic_bugs, *card.interviewer_next):
        assert " ".join(hint_text(item).plain.split())[:40] in text  # its marks drawn, not typed
    assert "Next: drill start unbroadcast yours: never drilled; due now" in text
    assert all(cell_len(line) <= 100 for line in result.output.splitlines())


def test_drill_review_full_and_the_marker_spelling(clock):
    assert "review: full" in said(drill("review", "full"))
    assert "review: cross-entropy" in said(drill("review", "cross_entropy"))


def test_drill_review_of_an_unknown_target(clock):
    result = drill("review", "backwrd", code=2)
    assert "Did you mean 'backward'" in said(result) and "Traceback" not in result.output


def test_drill_review_says_no_card_yet_cleanly(clock, monkeypatch):
    monkeypatch.setattr(reviews, "review_for", lambda target: None)
    text = said(drill("review", "arith"))
    assert "No card yet for arith" in text and "drill hint arith" in text


# ---------------------------------------------------------------------------- after a pass


def solve(workspace: Path, target: str) -> None:
    (workspace / f"{target}.py").write_text(REFERENCE.read_text(encoding="utf-8"), encoding="utf-8")


def test_the_card_follows_the_scoreboard_after_a_pass(clock, tmp_path, passing_grader):
    workspace = tmp_path / "solutions"
    drill("start", "softmax", "--rung", "recall")
    clock.advance(200)
    assert "review:" not in said(drill("check", code=1))  # not passed yet: no card
    solve(workspace, "softmax")
    result = drill("check")
    output = result.output
    assert "✓ softmax passed at 3:20" in said(result)
    scoreboard, card, diff = output.index("attempts"), output.index("review: softmax"), output.index("Next: drill diff")
    assert card < scoreboard < diff  # the scoreboard after the card: on the screen at the end
    assert "Next due: unbroadcast (never drilled); drill next --start" in said(result)


def test_a_give_up_shows_no_card(clock, passing_grader):
    drill("start", "arith")
    assert "review:" not in said(drill("give-up"))


def test_the_card_after_a_real_pass(clock, tmp_path):
    """Real grading (the oracle suite in a child, about a second): the reference passes, the card appears."""
    workspace = tmp_path / "solutions"
    drill("start", "cross-entropy", "--rung", "recall")
    clock.advance(95)
    solve(workspace, "cross-entropy")
    text = said(drill("check"))
    assert "✓ cross-entropy passed at 1:35" in text
    assert "review: cross-entropy" in text and "(softmax(x) - one_hot(y)) / N" in text
