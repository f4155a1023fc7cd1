"""The argument and option types that several ``drill`` commands share (drills/cli.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from autograd_drill.grader.catalog import format_time, listed, load_catalog
from autograd_drill.interview.plan import MAX_MINUTES, MIN_MINUTES
from autograd_drill.store.states import RUNGS
from autograd_drill.targets import builtin_catalog


def target_ids(incomplete: str) -> list[str]:
    """What the shell completes a target as (``drill --install-completion``): the catalog's ids, core
    and follow-ups, and ``full``, then every other pack's full drill (``layers/full``), those that
    start with what is typed so far."""
    from autograd_drill.grader.catalog import FULL
    from autograd_drill.targets import catalog as merged

    fulls = (f.id for f in merged().fulls)
    return [i for i in (*one_target_ids(incomplete), FULL, *fulls) if i.startswith(incomplete)]


def one_target_ids(incomplete: str) -> list[str]:
    """``target_ids`` where ``full`` is refused (a hint, an interview's task: one target)."""
    from autograd_drill.targets import catalog as merged

    return [t.id for t in merged().every if t.id.startswith(incomplete)]


def target(help: str, full: bool = True) -> Any:
    """A TARGET argument (a drill id, completed by the shell) that may be left out: ``help`` says what
    then; ``full``: it may be ``full``."""
    return Annotated[str | None, typer.Argument(help=help, autocompletion=target_ids if full else one_target_ids)]


TargetArg = Annotated[
    str, typer.Argument(help="A target id, or full: drill list shows them all.", autocompletion=target_ids)
]
StatsTarget = target("One target, or all.")
ChartTarget = target("One target (its times in minutes), 'full' (its splits and sum of best), or all.")
HintTarget = target("Default: the first target not passed yet.", full=False)
DiffTarget = target("Default: the target of your latest attempt.")
RestoreTarget = target("Default: the drill of the attempt in progress.")
InterviewTarget = Annotated[
    str | None,
    typer.Option(metavar="ID", help="The coding task. Default: the schedule's.", autocompletion=one_target_ids),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object instead (its keys: docs/json.md).")]
OracleOption = Annotated[str, typer.Option(hidden=True)]
"""auto (recorded answers, else live torch), live, replay, or fd (finite differences, no torch): checked by
drills/commands/common.py ``oracle_mode``."""


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

WORKSPACE_HELP = (
    "Folder for your solution file (relative: to the current folder). Default: $DRILL_WORKSPACE, else solutions/ "
    "of the clone you run from, else one folder per user (installed); drill where shows it."
)
WorkspaceOption = Annotated[Path | None, typer.Option(metavar="DIR", help=WORKSPACE_HELP)]
NextWorkspaceOption = Annotated[Path | None, typer.Option(metavar="DIR", help=f"With --start: {WORKSPACE_HELP}")]
EditFlag = Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR.")]

CONTRACT = "docs/contract.md of the repository"
TARGETS_HELP = "Grade only this target (repeatable); 'full': the core targets. Default: the core targets; a follow-up only when named."
EngineFileArg = Annotated[Path, typer.Argument(help=f"An engine file that follows the API contract ({CONTRACT}).")]


def pack_target_ids(ctx: typer.Context, incomplete: str) -> list[str]:
    """``target_ids`` of the pack ``--pack`` names, when typed before (drill grade); the built-in's otherwise."""
    from autograd_drill.grader.catalog import FULL
    from autograd_drill.grader.packs import installed

    chosen = ctx.params.get("pack")
    pack = next((p for p in installed() if p.name == chosen), None) if chosen else None
    if pack is None:
        return target_ids(incomplete)
    return [i for i in (*load_catalog(pack.catalog).all_ids, FULL) if i.startswith(incomplete)]


def pack_names(incomplete: str) -> list[str]:
    """What the shell completes ``--pack`` as: the installed packs' names that start with what is typed."""
    from autograd_drill.grader.packs import installed

    return [p.name for p in installed() if p.name.startswith(incomplete)]


GradeTargetsOption = Annotated[
    list[str] | None, typer.Option("--target", "-t", help=TARGETS_HELP, autocompletion=pack_target_ids)
]
PACK_HELP = "Grade against this installed pack's targets (drill packs lists them). Default: autograd, the built-in one."
FULL_PACK_HELP = "The full drill of this installed pack (drill packs lists them). Default: autograd, the built-in one."
FullPackOption = Annotated[
    str | None, typer.Option("--pack", metavar="NAME", help=FULL_PACK_HELP, autocompletion=pack_names)
]
PackOption = Annotated[str | None, typer.Option("--pack", metavar="NAME", help=PACK_HELP, autocompletion=pack_names)]
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

ExportFormatOption = Annotated[
    str,
    typer.Option(
        "--format", "-f", metavar="FORMAT", help="csv (one row per attempt, split and hint) or json (interviews too)."
    ),
]
ExportOutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write to this file, replaced whole and atomically (through a symlink: its target's file); "
        "a FIFO, terminal or device (/dev/stdout) is written to, never replaced. Default: standard output.",
    ),
]
WithSourcesFlag = Annotated[
    bool, typer.Option("--with-sources", help="JSON only: include every graded version of your files.")
]
PacksJsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object instead (its keys: docs/packs.md).")]


def catalog_in_help(grade: Callable[..., Any], full: Callable[..., Any]) -> None:
    """The help of ``drill grade`` names the targets of the catalog, whatever they are; ``drill full``'s, its time."""
    catalog = builtin_catalog()  # the help of every command reads it: no entry point is read for it
    core = listed(catalog.ids)
    follow_ups = ", ".join(t.id for t in catalog.extensions)
    grade.__doc__ = (grade.__doc__ or "").replace("CORE", core).replace("FOLLOW_UPS", follow_ups)
    full.__doc__ = (full.__doc__ or "").replace("FULL_TIME", format_time(catalog.full_time))
