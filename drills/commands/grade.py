"""``drill grade``: any engine file, outside a drill, as a report or as JSON.

With ``--json`` it always prints one JSON object on stdout (docs/contract.md, /shared SPEC section 3):
the verdict, or, for a file that does not exist or cannot be read, an unknown target or a refused
option, an error object of the same shape (``"passed": false``, no targets) whose ``error`` says why
(exit status 2, the same line on stderr). Every object carries ``"version"``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from drills.commands.common import Terminal
from drills.commands.options import oracle_mode
from drills.errors import DrillError
from grader.catalog import FULL, Target, UnknownTarget, load_catalog

JSON_VERSION = 1
"""The version of the ``drill grade --json`` object: it grows by one when a key changes meaning or goes."""


def grade(term: Terminal, file: Path, typed: list[str] | None, as_json: bool, oracle: str) -> int:
    """Grade ``file`` for the targets ``typed`` (None: the core ones); the exit status: 0 when every
    target passed, 1 when some failed, 2 when it could not be graded."""
    try:
        return _grade(term, file, chosen_targets(typed), as_json, oracle_mode(oracle))
    except (DrillError, UnknownTarget) as exc:
        if as_json:
            print(json.dumps(error_object(file, str(exc))))
        raise


def chosen_targets(typed: list[str] | None) -> list[Target]:
    """The targets named (in catalog order); none, or 'full', is the core targets."""
    catalog = load_catalog()
    chosen = {t.id for typed_id in typed or [FULL] for t in catalog.drilled(catalog.resolve(typed_id))}
    return [t for t in catalog.every if t.id in chosen]


def error_object(file: Path, message: str) -> dict[str, Any]:
    """The --json object of a file that could not be graded: the verdict's keys, and why."""
    return {"version": JSON_VERSION, "file": str(file), "passed": False, "targets": {}, "notes": [], "error": message}


def _grade(term: Terminal, file: Path, targets: list[Target], as_json: bool, oracle: str) -> int:
    from grader.run import grade_file
    from grader.solution_file import UnreadableFile, read_solution
    from grader.verdict import GradeError

    try:
        read_solution(file)  # missing, a FIFO, a device, a directory, a huge file: one line, at once
    except UnreadableFile as exc:
        raise DrillError(str(exc)) from None
    try:
        result = grade_file(file, targets, oracle=oracle)
    except GradeError as exc:
        raise DrillError(str(exc)) from None
    if as_json:
        print(json.dumps({"version": JSON_VERSION, **result.to_json()}))
    else:
        from drills.views.report import grade_report

        term.out.print(grade_report(result))
    return 0 if result.passed else 1
