"""Review cards: what to remember once a target passes, loaded from ``reviews.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REVIEWS_FILE = Path(__file__).with_name("reviews.toml")


@dataclass(frozen=True)
class ReviewCard:
    """One target's card: written for this engine, shown after a pass and by ``drill review``."""

    target: str
    """A catalog target id, or ``full``."""
    formula: str
    """The key formula, a few lines."""
    classic_bugs: tuple[str, ...]
    """The mistakes people make on it."""
    interviewer_next: tuple[str, ...]
    """What an interviewer asks once it works."""


@cache
def load_reviews() -> dict[str, ReviewCard]:
    raw = tomllib.loads(REVIEWS_FILE.read_text(encoding="utf-8"))
    return {
        c["id"]: ReviewCard(
            target=c["id"],
            formula=c["formula"].strip("\n"),
            classic_bugs=tuple(c["classic_bugs"]),
            interviewer_next=tuple(c["interviewer_next"]),
        )
        for c in raw["card"]
    }


def review_for(target_id: str) -> ReviewCard | None:
    """The card of a target, or None when none is written yet."""
    return load_reviews().get(target_id)
