"""``drill grade``: any engine file, outside a drill, as a report or as JSON.

``--pack NAME`` grades against an installed pack's targets (grader/packs.py): its catalog, reference,
oracle tests and recording (grader/suite.py ``Suite.of``); the default is the built-in autograd pack,
graded as before packs existed. With ``--json`` it always prints one JSON object on stdout (docs/contract.md, /shared SPEC section 3):
the verdict, or, for a file that does not exist or cannot be read, an unknown target or a refused
option, an error object of the same shape (``"passed": false``, no targets) whose ``error`` says why
(exit status 2, the same line on stderr). Every object carries ``"version"``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograd_drill.commands.common import Terminal, oracle_mode
from autograd_drill.errors import DrillError
from autograd_drill.grader.catalog import FULL, Target, UnknownTarget, load_catalog
from autograd_drill.grader.packs import BUILTIN, Pack, builtin

if TYPE_CHECKING:
    from autograd_drill.grader.suite import Suite

JSON_VERSION = 1
"""The version of the ``drill grade --json`` object: it grows by one when a key changes meaning or goes."""


def grade(
    term: Terminal, file: Path, typed: list[str] | None, as_json: bool, oracle: str, pack: str | None = None
) -> int:
    """Grade ``file`` for the targets ``typed`` (None: the core ones) of the pack named ``pack`` (None: the
    built-in one); the exit status: 0 when every target passed, 1 when some failed, 2 when it could not
    be graded."""
    try:
        chosen = chosen_pack(pack)
        return _grade(term, file, chosen_targets(typed, chosen), as_json, oracle_mode(oracle), chosen)
    except (DrillError, UnknownTarget) as exc:
        if as_json:
            print(json.dumps(error_object(file, str(exc))))
        raise


def chosen_pack(name: str | None) -> Pack:
    """The installed pack named ``name`` (None: the built-in one); a one-line refusal naming the packs
    there are when there is none of that name, or it did not load (with its reason)."""
    if name is None or name == BUILTIN:
        return builtin()  # the default reads no entry point: drill grade as before packs
    from autograd_drill.grader.packs import installed, not_loaded

    found = {pack.name: pack for pack in installed()}
    if name in found:
        return found[name]
    there = f"the packs installed: {', '.join(found)} (drill packs lists them)"
    reason = dict(not_loaded()).get(name)
    if reason is not None:
        raise DrillError(f"--pack {name}: the pack {name} did not load ({reason}); {there}")
    raise DrillError(f"--pack {name}: no pack of that name; {there}")


def chosen_targets(typed: list[str] | None, pack: Pack | None = None) -> list[Target]:
    """The targets of ``pack`` (default the built-in one) named (in catalog order); none, or 'full', is
    the core targets. A target id may be qualified by its pack's name (``layers/layernorm``); an id
    of another pack is refused, naming that pack."""
    pack = pack or builtin()
    catalog = load_catalog(pack.catalog)
    chosen: set[str] = set()
    for typed_id in typed or [FULL]:
        qualifier, slash, bare = typed_id.partition("/")
        own = bare if slash and qualifier == pack.name else typed_id
        try:
            drill_id = catalog.resolve(own)
        except UnknownTarget:
            _of_another_pack(typed_id, pack)
            raise
        chosen.update(t.id for t in catalog.drilled(drill_id))
    return [t for t in catalog.every if t.id in chosen]


def _of_another_pack(typed_id: str, pack: Pack) -> None:
    """A DrillError when ``typed_id`` (bare, or qualified ``NAME/ID``) is a target of another installed
    pack than ``pack``: the refusal names that pack and the command that grades it."""
    from autograd_drill.grader.packs import installed

    qualifier, slash, bare = typed_id.partition("/")
    for other in installed():
        if other.name == pack.name or (slash and qualifier != other.name):
            continue
        wanted = bare if slash else typed_id
        try:
            found = load_catalog(other.catalog).get(wanted.replace("_", "-")).id
        except UnknownTarget:
            continue
        raise DrillError(
            f"target {typed_id!r} is in the pack {other.name}, not in {pack.name}: "
            f"drill grade FILE --pack {other.name} --target {found}"
        )


def error_object(file: Path, message: str) -> dict[str, Any]:
    """The --json object of a file that could not be graded: the verdict's keys, and why."""
    return {"version": JSON_VERSION, "file": str(file), "passed": False, "targets": {}, "notes": [], "error": message}


def _grade(term: Terminal, file: Path, targets: list[Target], as_json: bool, oracle: str, pack: Pack) -> int:
    from autograd_drill.grader.run import grade_file
    from autograd_drill.grader.solution_file import UnreadableFile, read_solution
    from autograd_drill.grader.verdict import GradeError

    try:
        read_solution(file)  # missing, a FIFO, a device, a directory, a huge file: one line, at once
    except UnreadableFile as exc:
        raise DrillError(str(exc)) from None
    try:
        result = grade_file(file, targets, oracle=oracle, suite=_suite(pack))
    except GradeError as exc:
        raise DrillError(str(exc)) from None
    if as_json:
        print(json.dumps({"version": JSON_VERSION, **result.to_json()}))
    else:
        from autograd_drill.views.report import grade_report

        term.out.print(grade_report(result))
    return 0 if result.passed else 1


def _suite(pack: Pack) -> Suite | None:
    """The files of ``pack``'s grading; None for the built-in pack (the grader's own, as before packs)."""
    if pack.name == BUILTIN and pack.root == builtin().root:
        return None
    from autograd_drill.grader.suite import Suite

    return Suite.of(pack)
