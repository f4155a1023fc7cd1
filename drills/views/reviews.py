"""Review cards: what to remember once a target passes, loaded from ``reviews.toml``: the built-in
pack's (drills/views/reviews.toml), and every other installed pack's own (its ``Pack.reviews``), whose
card ids are its own catalog's (``layernorm``, ``full``) and are shown by their canonical ids
(``layers/layernorm``, ``layers/full``: drills/targets.py).

A pack's reviews.toml that does not load is one line on stderr (the first time a card of it is
asked for) and no card of that pack: never a traceback; the other packs' cards are unaffected."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

REVIEWS_FILE = Path(__file__).with_name("reviews.toml")


@dataclass(frozen=True)
class ReviewCard:
    """One target's card: written for this engine, shown after a pass and by ``drill review``."""

    target: str
    """A catalog target id, or ``full`` (a pack's card: the canonical id, ``layers/layernorm``)."""
    formula: str
    """The key formula, a few lines."""
    classic_bugs: tuple[str, ...]
    """The mistakes people make on it."""
    interviewer_next: tuple[str, ...]
    """What an interviewer asks once it works."""


class CardsProblem(ValueError):
    """A reviews.toml that does not load: one line, naming the file."""


def parse_reviews(text: str, name: str) -> dict[str, ReviewCard]:
    """The cards a reviews.toml text holds, by their ids in it; a CardsProblem naming ``name`` otherwise."""
    try:
        raw = tomllib.loads(text)
        return {
            c["id"]: ReviewCard(
                target=c["id"],
                formula=c["formula"].strip("\n"),
                classic_bugs=tuple(c["classic_bugs"]),
                interviewer_next=tuple(c["interviewer_next"]),
            )
            for c in raw["card"]
        }
    except tomllib.TOMLDecodeError as exc:
        raise CardsProblem(f"{name} is not valid TOML: {exc}") from None
    except (KeyError, TypeError, AttributeError) as exc:  # a field missing, a card that is no table
        raise CardsProblem(f"{name}: a [[card]] lacks or mistypes {exc}") from None


@cache
def load_reviews(path: Path = REVIEWS_FILE) -> dict[str, ReviewCard]:
    """The cards of one reviews.toml by their ids in it (the built-in pack's by default)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CardsProblem(f"{path} cannot be read: {exc}") from None
    return parse_reviews(text, str(path))


@cache
def pack_cards(name: str, path: Path) -> dict[str, ReviewCard]:
    """The cards of the pack ``name`` (its reviews.toml at ``path``), by canonical id; none, and one
    line on stderr, when the file does not load."""
    from autograd_drill.grader.packs import warn_part
    from autograd_drill.targets import canonical

    try:
        cards = load_reviews(path)
    except CardsProblem as exc:
        warn_part(name, "review cards", exc)
        return {}
    return {canonical(name, local): replace(card, target=canonical(name, local)) for local, card in cards.items()}


def review_for(target_id: str) -> ReviewCard | None:
    """The card of a canonical drill id (of any installed pack), or None when none is written yet
    (or its pack's cards do not load, or its pack is not installed)."""
    from autograd_drill.grader.catalog import BUILTIN
    from autograd_drill.targets import pack_name

    if pack_name(target_id) == BUILTIN:
        return load_reviews().get(target_id)
    from autograd_drill.targets import PackNotInstalled, pack_of

    try:
        pack = pack_of(target_id)
    except PackNotInstalled:
        return None
    return pack_cards(pack.name, pack.reviews).get(target_id)
