"""``drill grade``: any engine file, outside a drill, as a report or as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from drills.commands.common import Terminal
from drills.loop.session import DrillError
from drills.views.report import grade_report
from grader.catalog import Target
from grader.run import grade_file
from grader.solution_file import UnreadableFile, read_solution
from grader.verdict import GradeError


def grade(term: Terminal, file: Path, targets: list[Target], as_json: bool, oracle: str) -> int:
    """Grade ``file``; the exit status: 0 when every target passed."""
    try:
        read_solution(file)  # a FIFO, a device, a directory, a huge file: one line, at once
    except UnreadableFile as exc:
        raise DrillError(str(exc)) from None
    try:
        result = grade_file(file, targets, oracle=oracle)
    except GradeError as exc:
        raise DrillError(str(exc)) from None
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        term.out.print(grade_report(result))
    return 0 if result.passed else 1
