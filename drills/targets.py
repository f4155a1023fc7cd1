"""The drills of every installed pack as one catalog: what every module of drills/ reads instead of
``load_catalog()`` (issue 28; guarded by tests/test_targets.py).

``catalog()`` is the built-in pack's catalog (grader/catalog.toml) unchanged, its ``targets``, ``ids``
and ``full`` as before packs, with every other installed pack's targets added as ``others`` and its
full drill as ``fulls``. Another pack P's ids are canonical there: ``P/ID`` (``layers/layernorm``, its
full drill ``layers/full``), its ``needs`` too; the built-in ids stay bare (``unbroadcast``, ``full``),
so a history, an export or an interview file written before packs reads unchanged as the autograd
pack's. ``Target.marker`` and ``Target.symbols`` stay the pack's own (its tests' marker, its
reference's names). The history, the splits, the exports and every view keep and show canonical ids.

``pack_of``, ``suite_of``, ``reference_of`` and ``local_id`` say where a canonical id's files are.
``resolve`` is ``Catalog.resolve`` plus the one refusal the catalog cannot make: an id the history
knows of a pack that is no longer installed.

Importing this module imports nothing heavy (no NumPy, no pytest): ``drill list`` reads it. The
merged catalog is read once per process (reading every distribution's entry points), once per set
of packs found; ``clear()`` forgets it and the packs found (tests that install or remove a pack).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from autograd_drill.grader.catalog import (
    BUILTIN,
    FULL,
    SEPARATOR,
    Catalog,
    Full,
    PackNotInstalled,
    Target,
    UnknownTarget,
    canonical,
    load_catalog,
    local_id,
    pack_name,
)
from autograd_drill.grader.packs import Pack

if TYPE_CHECKING:
    from autograd_drill.grader.suite import Suite

# SEPARATOR, canonical, pack_name and local_id (the id rules the docstring states) are grader/catalog.py's, which
# Target.own_id and Catalog.get use too: drills/ imports them from here.


def qualified(target: Target) -> Target:
    """``target`` of its pack's own catalog as the merged catalog holds it: canonical id and needs."""
    if target.pack == BUILTIN:
        return target
    return replace(
        target, id=canonical(target.pack, target.id), needs=tuple(canonical(target.pack, n) for n in target.needs)
    )


def catalog() -> Catalog:
    """Every installed pack's drills (the built-in pack's as before, then each other pack's, canonical)."""
    return _merged(_installed())


@cache
def _merged(packs: tuple[Pack, ...]) -> Catalog:
    """``catalog()`` of these packs: once per set of packs found (a test that clears grader/packs.py's
    cache of the packs found gets the catalog of those it installs)."""
    core = load_catalog()
    others: list[Target] = []
    fulls: list[Full] = []
    for pack in packs[1:]:
        own = load_catalog(pack.catalog)
        mine = [qualified(replace(t, pack=pack.name)) for t in own.every]
        others += mine
        core_ids = set(own.ids)
        fulls.append(
            Full(
                id=canonical(pack.name, FULL),
                pack=pack.name,
                targets=tuple(t for t in mine if local_id(t.id) in core_ids),
                target_time=own.full_time,
                summary=own.full_summary,
                time_reasoning=own.full_reasoning,
            )
        )
    return replace(core, others=tuple(others), fulls=tuple(fulls))


def builtin_catalog() -> Catalog:
    """The built-in pack's catalog alone (grader/catalog.toml): no entry point read. What ``drill grade``
    grades by default, and what the help of the commands names."""
    return load_catalog()


def _installed() -> tuple[Pack, ...]:
    """The packs that load, the built-in one first (grader/packs.py ``installed``)."""
    from autograd_drill.grader.packs import installed

    return installed()


def clear() -> None:
    """Forget the merged catalog and the packs found (a test that installs or removes a pack)."""
    from autograd_drill.grader import packs

    _merged.cache_clear()
    packs._scan.cache_clear()


def resolve(typed: str, history: Path | None = None) -> str:
    """The canonical drill id a user typed (``Catalog.resolve``'s rules). With ``history`` (the history's
    file): a PackNotInstalled when it is no installed pack's but the history has attempts of it
    (``layers/layernorm``, or ``layernorm`` typed bare, with the layers pack gone). The catalog's
    UnknownTarget otherwise."""
    merged = catalog()
    try:
        return merged.resolve(typed)
    except UnknownTarget as exc:
        if type(exc) is not UnknownTarget or history is None:
            raise
        gone = _of_a_pack_gone(typed, set(merged.drill_ids), history)
        if gone is None:
            raise
        raise PackNotInstalled(typed, pack_name(gone)) from None


def _of_a_pack_gone(typed: str, known: set[str], history: Path) -> str | None:
    """The id of the history's attempts (or splits) that ``typed`` names but no installed pack has."""
    import sqlite3

    if not history.is_file():
        return None
    try:
        with sqlite3.connect(f"file:{history}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT target FROM attempts UNION SELECT target FROM splits").fetchall()
    except sqlite3.Error:
        return None
    seen = {str(r[0]) for r in rows} - known
    wanted = {typed, typed.replace("_", "-")}
    for drill_id in sorted(seen):
        if SEPARATOR in drill_id and (drill_id in wanted or local_id(drill_id) in wanted):
            return drill_id
    return None


def pack_of(drill_id: str) -> Pack:
    """The installed pack of a canonical drill id; a PackNotInstalled when there is none of its name."""
    from autograd_drill.grader.packs import builtin

    name = pack_name(drill_id)
    if name == BUILTIN:
        return builtin()
    found = next((p for p in _installed() if p.name == name), None)
    if found is None:
        raise PackNotInstalled(drill_id, name)
    return found


def suite_of(drill_id: str) -> Suite | None:
    """The files a grading of ``drill_id`` reads (grader/suite.py); None for the built-in pack's: the
    grader's defaults, as before packs."""
    if pack_name(drill_id) == BUILTIN:
        return None
    from autograd_drill.grader.suite import Suite

    return Suite.of(pack_of(drill_id))


def reference_of(drill_id: str) -> Path:
    """The reference module of ``drill_id``'s pack: stubs are cut from it, ``drill diff`` shows it."""
    if pack_name(drill_id) == BUILTIN:
        from autograd_drill.reference import ENGINE

        return ENGINE
    return pack_of(drill_id).reference


def is_full(drill_id: str) -> bool:
    """``drill_id`` is a full drill: ``full``, or another pack's ``P/full`` (by its id alone: an id the
    history keeps of a pack no longer installed reads the same)."""
    return local_id(drill_id) == FULL


def full_drill_of(target: Target) -> str | None:
    """The full drill that blanks ``target`` with its pack's other core targets (``full``, ``layers/full``);
    None for a follow-up, which no full drill blanks."""
    return None if target.extension else canonical(target.pack, FULL)
