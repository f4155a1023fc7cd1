"""``drill packs``: the installed drill packs (grader/packs.py), as a table or as JSON; and the warning
of the packs that did not load.

That warning is printed by the commands that list targets (``drill``, ``drill list``) and by ``drill
packs``, not by every command: those are where a pack's targets would show, so where their absence
needs its reason; elsewhere (``drill grade --json`` in a script, ``drill export``, a watch) it would
be noise on stderr, and finding the packs (reading every installed distribution's entry points) would
be paid by every command for nothing."""

from __future__ import annotations

import json
import sys
from typing import Any

from autograd_drill.commands.common import Terminal
from autograd_drill.grader.catalog import FULL, load_catalog
from autograd_drill.grader.packs import Pack, installed, not_loaded

JSON_VERSION = 1
"""The version of the ``drill packs --json`` object (docs/packs.md)."""


def warn_not_loaded(term: Terminal) -> None:
    """One line on stderr per pack that did not load: ``drill: pack NAME not loaded: REASON``."""
    from autograd_drill.views.packs import not_loaded_line

    for name, reason in not_loaded():
        term.err.print(not_loaded_line(name, reason), soft_wrap=True)


def full_drill(name: str | None) -> str:
    """The id of the full drill of the pack named ``name`` (None: the built-in one, ``full``); a one-line
    refusal naming the packs there are when none of that name is installed (``drill full --pack``)."""
    from autograd_drill.commands.grade import chosen_pack
    from autograd_drill.targets import canonical

    return canonical(chosen_pack(name).name, FULL)


def packs(term: Terminal, as_json: bool) -> None:
    """The table (or the JSON object) of the packs, those that did not load included."""
    warn_not_loaded(term)
    if as_json:
        sys.stdout.write(json.dumps(as_object(), indent=1) + "\n")
        return
    from autograd_drill.views.packs import packs_table

    term.out.print(packs_table(installed(), not_loaded()))


def as_object() -> dict[str, Any]:
    """``drill packs --json``: every pack, loaded or not, with the same keys (docs/packs.md)."""
    rows = [_loaded(pack) for pack in installed()]
    blank = {"title": None, "version": None, "targets": [], "follow_ups": [], "full_time": None, "root": None}
    rows += [{"name": name, "loaded": False, "reason": reason, **blank} for name, reason in not_loaded()]
    return {"version": JSON_VERSION, "packs": rows}


def _loaded(pack: Pack) -> dict[str, Any]:
    catalog = load_catalog(pack.catalog)
    return {
        "name": pack.name,
        "loaded": True,
        "reason": None,
        "title": pack.title,
        "version": pack.version,
        "targets": list(catalog.ids),
        "follow_ups": [t.id for t in catalog.extensions],
        "full_time": catalog.full_time,
        "root": str(pack.root),
    }
