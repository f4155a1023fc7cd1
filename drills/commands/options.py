"""The argument and option types that several ``drill`` commands share (drills/cli.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from drills.interview.plan import MAX_MINUTES, MIN_MINUTES
from drills.store.states import RUNGS
from grader.catalog import format_time, listed, load_catalog

TargetArg = Annotated[str, typer.Argument(help="A target id, or full: drill list shows them all.")]
OracleOption = Annotated[str, typer.Option(hidden=True)]
"""auto (recorded answers, else live torch), live, replay, or fd (finite differences, no torch): ``oracle_mode``."""
ORACLES = ("auto", "live", "replay", "fd")
"""The oracles a grading from ``drill`` may use. Not the grader's ``record``, which rewrites the shipped
recording: that is ``python -m grader.record``'s alone (grader/conftest.py refuses it elsewhere)."""


def oracle_mode(typed: str) -> str:
    """``--oracle``, checked: one of ORACLES, or a one-line refusal (a DrillError)."""
    if typed in ORACLES:
        return typed
    from drills.errors import DrillError

    extra = " (the recording is rewritten by python -m grader.record alone)" if typed == "record" else ""
    raise DrillError(f"--oracle {typed}: choose {', '.join(ORACLES)}{extra}")


MinutesOption = Annotated[
    int, typer.Option(metavar="N", help=f"How long it lasts: {MIN_MINUTES} to {MAX_MINUTES} minutes.")
]
"""drill interview's length (drills/interview/plan.py's ``DEFAULT_MINUTES`` when not given)."""

PlotFlag = Annotated[bool, typer.Option("--plot", help="Draw the chart of your times instead (as drill chart).")]
PeekFlag = Annotated[
    bool, typer.Option("--peek", help="Show it before the target passed (marks the attempt assisted).")
]
RUNG_HELP = f"{', '.join(RUNGS[:-1])} or {RUNGS[-1]} (drill ladder). Default: the target's rung; full: recall only."
RungOption = Annotated[str | None, typer.Option(metavar="RUNG", help=RUNG_HELP)]

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        metavar="DIR", help="Folder for your solution file. Default: solutions/ of the clone, or $DRILL_WORKSPACE."
    ),
]
EditFlag = Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR.")]

CONTRACT = "docs/contract.md of the repository"
TARGETS_HELP = "Grade only this target (repeatable); 'full': the core targets. Default: the core targets; a follow-up only when named."
EngineFileArg = Annotated[Path, typer.Argument(help=f"An engine file that follows the API contract ({CONTRACT}).")]
GradeTargetsOption = Annotated[list[str] | None, typer.Option("--target", "-t", help=TARGETS_HELP)]
JsonReportFlag = Annotated[
    bool, typer.Option("--json", help=f"Print one JSON object instead of a report (its keys: {CONTRACT}).")
]

AttemptOption = Annotated[
    int | None,
    typer.Option("--attempt", metavar="N", help="This attempt's (drill restore names the others)."),
]
SaveOption = Annotated[
    int | None,
    typer.Option(
        "--save",
        metavar="N",
        help="This graded save of the attempt, from 1 (--list numbers them).",
    ),
]
ListSavesFlag = Annotated[bool, typer.Option("--list", help="List the attempt's graded saves: number, clock, verdict.")]
PacksJsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object instead (its keys: docs/packs.md).")]


def catalog_in_help(grade: Callable[..., Any], full: Callable[..., Any]) -> None:
    """The help of ``drill grade`` names the targets of the catalog, whatever they are; ``drill full``'s, its time."""
    catalog = load_catalog()
    core = listed(catalog.ids)
    follow_ups = ", ".join(t.id for t in catalog.extensions)
    grade.__doc__ = (grade.__doc__ or "").replace("CORE", core).replace("FOLLOW_UPS", follow_ups)
    full.__doc__ = (full.__doc__ or "").replace("FULL_TIME", format_time(catalog.full_time))
