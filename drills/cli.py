"""The ``drill`` command line: each command parses its arguments and calls its body in
drills/commands/ with the Terminal (the consoles and the clock). A refusal (DrillError, an unknown
target) is printed as one line, with a non-zero exit status."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from autograd_drill.commands import options as opt
from autograd_drill.commands.common import consoles, error_line
from autograd_drill.commands.groups import group_commands
from autograd_drill.commands.plain_help import PlainGroup, PlainTyper
from autograd_drill.grader.catalog import UnknownTarget
from autograd_drill.interview.plan import DEFAULT_MINUTES
from autograd_drill.loop import clock as clocks
from autograd_drill.loop.watch_keys import key_help

if TYPE_CHECKING:
    from datetime import tzinfo

    from autograd_drill.commands.common import Terminal

app = PlainTyper(
    cls=PlainGroup,
    help="autograd-drill: re-implement a tensor autograd engine from memory, against the clock.",
    add_completion=True,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},  # -h too, as in pip and pytest
)
out, err = consoles()
CLOCK: clocks.Clock = clocks.system_clock
"""The clock every command reads; tests replace it with a MockClock."""
TZ: tzinfo | None = None
"""The time zone of calendar days (streaks, chart axes): None is the local one; tests set UTC."""


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error and return the Exit to raise."""
    err.print(error_line(message))
    return typer.Exit(code)


@contextmanager
def terminal() -> Iterator[Terminal]:
    """The terminal a command body prints to, read now (tests swap the consoles and the clock); its
    refusals become one-line errors."""
    from autograd_drill.commands.common import Terminal
    from autograd_drill.errors import DrillError

    try:
        yield Terminal(out, err, CLOCK, TZ)
    except DrillError as exc:
        raise fail(str(exc), exc.code) from None
    except UnknownTarget as exc:
        raise fail(str(exc)) from None


def run(body: Callable[..., int | None], *args: Any, **kwargs: Any) -> None:
    """Run a command body on the terminal; a body that returns an exit status exits with it."""
    with terminal() as term:
        code = body(term, *args, **kwargs)
    if code is not None:
        raise typer.Exit(code)


def resolve(typed: str) -> str:
    """The canonical drill id a user typed (drills/targets.py), or a did-you-mean error."""
    from autograd_drill.loop.active import typed_drill

    try:
        return typed_drill(typed)
    except UnknownTarget as exc:
        raise fail(str(exc)) from None


def resolve_optional(typed: str | None) -> str | None:
    """``resolve``, for an argument that may be left out."""
    return resolve(typed) if typed else None


# ---------------------------------------------------------------------------- your practice


@app.callback(invoke_without_command=True)
def overview(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", "-V", help="Print the version and exit.", is_eager=True)
    ] = False,
) -> None:
    """autograd-drill: re-implement a tensor autograd engine from memory, against the clock.

    Run [bold]drill[/] alone for the catalog and what to do next.
    """
    if version:
        from autograd_drill import version_line

        out.print(version_line())
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        show_overview()


def show_overview() -> None:
    """``drill`` alone: a title, the catalog with your times, and what to do next."""
    from autograd_drill.commands import practice

    run(practice.overview)


@app.command("list")
def list_targets(as_json: opt.JsonFlag = False) -> None:
    """The catalog: each target, what you write, its target time, your best and last times, and when it is due."""
    from autograd_drill.commands import practice

    run(practice.overview, title=False, as_json=as_json)


@app.command("next")
def next_target(
    start_it: Annotated[
        bool, typer.Option("--start", help="Start the chosen target now, as drill start does.")
    ] = False,
    workspace: opt.NextWorkspaceOption = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR (with --start).")] = False,
    as_json: opt.JsonFlag = False,
) -> None:
    """The target to drill now, chosen by spaced repetition (FSRS) from your history.

    A finished recall attempt is a review (copy and cloze are learning steps: a target joins at its first recall pass, and until then comes before those never drilled): gave up = Again; over the target time, or assisted = Hard; within it = Good; under half of it, unassisted = Easy. The most overdue target comes first; one never drilled is due now.
    """
    from autograd_drill.commands import practice

    with terminal() as term:
        if not start_it:
            practice.next_target(term, as_json)
            return
        chosen = practice.chosen_target(term, as_json)
    start(chosen, workspace=workspace, edit=edit)


@app.command()
def ladder() -> None:
    """The learning ladder: each target's rung (copy, cloze, recall), each rung's target time and why, and what moves it up or down."""
    from autograd_drill.commands import drill

    run(drill.ladder)


@app.command()
def review(target: opt.TargetArg) -> None:
    """The review card of TARGET (or 'full'): the key formula, the classic bugs, what an interviewer asks next."""
    from autograd_drill.commands import practice

    run(practice.review, resolve(target))


@app.command()
def stats(
    target: opt.StatsTarget = None,
    plot: opt.PlotFlag = False,
    as_json: opt.JsonFlag = False,
) -> None:
    """Per target: attempts, best, median of the last five, trend, share under the target time."""
    from autograd_drill.commands import practice

    run(practice.stats, resolve_optional(target), plot, as_json)


@app.command()
def chart(
    target: opt.ChartTarget = None,
) -> None:
    """A chart of your times: each attempt over the days, the target time as a line; and your streak of practice days."""
    from autograd_drill.commands import practice

    run(practice.chart, resolve_optional(target))


@app.command()
def packs(as_json: opt.PacksJsonFlag = False) -> None:
    """The installed drill packs: each one's title, version, targets, full drill's time and where it is."""
    from autograd_drill.commands import packs as body

    run(body.packs, as_json)


# ---------------------------------------------------------------------------- a drill


@app.command()
def start(
    target: opt.TargetArg,
    workspace: opt.WorkspaceOption = None,
    edit: opt.EditFlag = False,
    rung: opt.RungOption = None,
) -> None:
    """Write the stub of TARGET for its rung of the ladder and start the timer. TARGET may be 'full'.

    The rungs: copy (the reference in view above each blank, to retype), cloze (its key lines blank), recall (every function blank, from memory). A target never drilled starts on copy."""
    from autograd_drill.commands import drill

    run(drill.start, resolve(target), workspace, edit, rung.lower() if rung else None)


@app.command()
def full(workspace: opt.WorkspaceOption = None, edit: opt.EditFlag = False, pack: opt.FullPackOption = None) -> None:
    """Every core target blank at once, FULL_TIME to beat, one split per target."""
    from autograd_drill.commands.packs import full_drill

    with terminal():
        drill_id = full_drill(pack)
    start(drill_id, workspace=workspace, edit=edit)


@app.command()
def check(oracle: opt.OracleOption = "auto", as_json: opt.JsonFlag = False) -> None:
    """Grade the attempt in progress once (drill watch does it on every save)."""
    from autograd_drill.commands.quick import no_history
    from autograd_drill.grader.spawn import OneShot

    with OneShot(start=not no_history()) as runner:  # first: its interpreter imports what the grading needs meanwhile
        from autograd_drill.commands import drill

        run(drill.check, oracle, runner, as_json)


@app.command(help=f"Re-grade on every save, with a live timer per target; in a terminal, keys: {key_help()}.")
def watch(oracle: opt.OracleOption = "auto") -> None:
    """``drill watch`` (its help lists the keys from their table, drills/loop/watch_keys.py)."""
    from autograd_drill.commands import drill

    run(drill.watch, oracle)


@app.command()
def status(as_json: opt.JsonFlag = False) -> None:
    """The attempt in progress: its clock, and each target's state."""
    from autograd_drill.commands.status import status as body

    run(body, as_json)


def _clock_command(name: str, doc: str) -> None:
    """``drill pause``, ``resume``, ``abandon``, ``give-up``: no arguments, one body each in drills/commands/drill.py."""

    def command() -> None:
        from autograd_drill.commands import drill

        run(getattr(drill, name.replace("-", "_")))

    command.__doc__ = doc
    app.command(name)(command)


_clock_command("pause", "Stop the clock of the attempt in progress.")
_clock_command("resume", "Restart the clock of a paused attempt.")
_clock_command("abandon", "End the attempt in progress without a verdict; your file is archived, never deleted.")
_clock_command("give-up", "End the attempt as not finished; then drill diff shows the reference.")


@app.command()
def hint(
    target: opt.HintTarget = None,
) -> None:
    """Reveal one more hint for a target (the attempt counts as assisted)."""
    from autograd_drill.commands import drill

    run(drill.hint, resolve_optional(target))


@app.command()
def diff(
    target: opt.DiffTarget = None,
    peek: opt.PeekFlag = False,
) -> None:
    """Your code and the reference side by side, symbol by symbol."""
    from autograd_drill.commands import drill

    run(drill.diff, resolve_optional(target), peek)


@app.command()
def show(target: opt.TargetArg) -> None:
    """The reference code of TARGET's functions, to read before you first drill it. It marks nothing, unless an attempt at TARGET is in progress: then that attempt is marked assisted."""
    from autograd_drill.commands import drill

    run(drill.show, resolve(target))


@app.command()
def restore(
    target: opt.RestoreTarget = None,
    attempt: opt.AttemptOption = None,
    save: opt.SaveOption = None,
    listing: opt.ListSavesFlag = False,
) -> None:
    """Bring back a deleted or overwritten solution file: a graded save (the latest, or --save N of --list) of the attempt in progress, or of your latest graded attempt at TARGET. A file in the way is archived in .archive/, never lost."""
    from autograd_drill.commands import drill

    run(drill.restore, resolve_optional(target), attempt, save, listing)


@app.command()
def interview(
    minutes: opt.MinutesOption = DEFAULT_MINUTES,
    target: opt.InterviewTarget = None,
    plan: Annotated[bool, typer.Option("--plan", help="Print the session it would run, and stop.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --plan or --list: as JSON.")] = False,
    past: Annotated[bool, typer.Option("--list", help="The interviews of your history.")] = False,
    oracle: opt.OracleOption = "auto",
) -> None:
    """A mock interview: a coding task (then its follow-up, if time allows) with nudges, then questions, self-checked; a Markdown transcript."""
    from autograd_drill.commands import interview as body

    run(body.interview, minutes, resolve_optional(target), plan, as_json, past, oracle)


@app.command()
def where(
    as_json: Annotated[
        bool, typer.Option("--json", help="As one JSON object: per place, its path and source.")
    ] = False,
) -> None:
    """Where things live: the workspace, the history, the interviews, the recording, the data folder.

    Each with its source ($DRILL_WORKSPACE, clone, per-user default): the workspace (your solution files), the history database, the interviews folder (transcripts, answers), the recording in use (the grader's recorded oracle file, and whether torch is live), and the data folder."""
    from autograd_drill.commands.where import where as body

    run(body, as_json)


# ---------------------------------------------------------------------------- your history, elsewhere


@app.command("export")
def export_history(
    fmt: opt.ExportFormatOption = "csv",
    output: opt.ExportOutputOption = None,
    with_sources: opt.WithSourcesFlag = False,
) -> None:
    """Write your whole history (every finished attempt, its splits and hints) as CSV or JSON; drill import restores it."""
    from autograd_drill.commands import transfer

    run(transfer.export_history, fmt, output, with_sources)


@app.command("import")
def import_history(
    file: Annotated[Path, typer.Argument(help="A file written by drill export; - reads standard input.")],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format", "-f", metavar="FORMAT", help="csv or json. Default: from the file name, else from its content."
        ),
    ] = None,
) -> None:
    """Restore attempts (and, from JSON, interviews) written by drill export; those already in your history are skipped."""
    from autograd_drill.commands import transfer

    run(transfer.import_history, file, fmt)


# ---------------------------------------------------------------------------- grade any file


@app.command()
def grade(
    file: opt.EngineFileArg,
    target: opt.GradeTargetsOption = None,
    as_json: opt.JsonReportFlag = False,
    oracle: opt.OracleOption = "auto",
    pack: opt.PackOption = None,
) -> None:
    """Grade any engine file against torch.autograd, outside a drill.

    By default the core targets are graded: CORE (--target full, the same). The follow-ups (FOLLOW_UPS) are graded only when named with --target.

    The API an engine file must follow, and the JSON of --json, are described in docs/contract.md of the repository.

    FILE must be a regular file of at most 1 MiB.

    Exit status: 0 all graded targets passed, 1 some failed, 2 bad usage or unreadable file.
    """
    from autograd_drill.commands.grade import grade as grade_any

    run(grade_any, file, target, as_json, oracle, pack)


opt.catalog_in_help(grade, full)  # the help of drill grade names the catalog's targets; drill full's, its time
group_commands(app)


def main() -> None:
    """The app. `drill`, `list`, `status`, `next`, `check` and `-h` typed bare do not come here: they need
    no typer (drills/entry.py sends them to drills/commands/quick.py and quick_help.py)."""
    app()
