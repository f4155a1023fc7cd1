"""Classic bugs: each is the reference engine with one realistic mistake, which must fail its target.
They are data, in tests/mutants.toml (one ``[[mutant]]`` table each); this module loads them."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

MUTANTS_FILE = Path(__file__).with_name("mutants.toml")


@dataclass(frozen=True)
class Mutant:
    id: str
    """Short kebab-case, unique: ``unbroadcast-skips-prepended-axes``."""
    target: str
    """The catalog target it must fail."""
    symbol: str
    """The symbol that is wrong, as the catalog names it: ``unbroadcast``, ``Tensor.__add__``."""
    bug: str
    """One line: the mistake, as a reviewer would describe it."""
    find: str
    """An exact snippet of reference/engine.py that occurs exactly once in it."""
    replace: str
    """What it becomes."""


MUTANTS: tuple[Mutant, ...] = tuple(
    Mutant(**entry) for entry in tomllib.loads(MUTANTS_FILE.read_text(encoding="utf-8"))["mutant"]
)
