"""The ``drill`` command line: thin commands over the catalog, the grader and the history."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from drills.loop import clock as clocks
from grader.catalog import Target, UnknownTarget, format_time, load_catalog

if TYPE_CHECKING:
    from datetime import tzinfo

    from drills.store.history import History

app = typer.Typer(
    help="autograd-drill: re-implement a tensor autograd engine from memory, against the clock.",
    add_completion=False,
    rich_markup_mode="rich",
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)
CLOCK: clocks.Clock = clocks.system_clock
"""The clock every command reads; tests replace it with a MockClock."""
TZ: tzinfo | None = None
"""The time zone of calendar days (streaks, chart axes): None is the local one; tests set UTC."""

TargetArg = Annotated[
    str, typer.Argument(help="A target id: unbroadcast, backward, arith, unary, softmax, cross-entropy.")
]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error and return the Exit to raise."""
    err.print(Text("error: ", style="bold red") + Text(message))
    return typer.Exit(code)


@contextmanager
def history() -> Iterator[History]:
    """The user's history, opened for one command; refusals become one-line errors."""
    from drills.loop.session import DrillError
    from drills.store.history import HistoryError, open_history
    from drills.store.paths import history_path

    path = history_path()
    try:
        store, warning = open_history(path)
    except (OSError, HistoryError) as exc:
        raise fail(f"cannot open the history at {path}: {exc}") from None
    if warning:
        err.print(Text("warning: ", style="bold yellow") + Text(warning))
    try:
        yield store
    except DrillError as exc:
        raise fail(str(exc), exc.code) from None
    except UnknownTarget as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()


def resolve_targets(ids: list[str] | None) -> list[Target]:
    """The targets named (in catalog order); none, or 'full', is the six core targets."""
    catalog = load_catalog()
    if not ids:
        return list(catalog.targets)
    chosen = set()
    for target_id in ids:
        if target_id == "full":
            chosen.update(t.id for t in catalog.targets)
            continue
        try:
            chosen.add(catalog.get(target_id.replace("_", "-")).id)
        except UnknownTarget as exc:
            raise fail(str(exc)) from None
    return [t for t in catalog.every if t.id in chosen]


def check_target(target_id: str) -> str:
    """A valid attempt target ('full' or a catalog id), or a did-you-mean error."""
    if target_id == "full":
        return target_id
    try:
        return load_catalog().get(target_id.replace("_", "-")).id
    except UnknownTarget as exc:
        raise fail(str(exc)) from None


# ---------------------------------------------------------------------------- overview


@app.callback(invoke_without_command=True)
def overview(ctx: typer.Context) -> None:
    """autograd-drill: re-implement a tensor autograd engine from memory, against the clock.

    Run [bold]drill[/] alone for the catalog and what to do next.
    """
    if ctx.invoked_subcommand is None:
        show_overview()


def show_overview() -> None:
    """``drill`` alone: a title, the catalog with your times, and what to do next."""
    title = " autograd-drill: re-implement a tensor autograd engine from memory, against the clock\n"
    out.print(Text(title, style="bold"))
    list_targets()


@app.command("list")
def list_targets() -> None:
    """The catalog: each target, what you write, its target time, your best and last times, and when it is due."""
    from drills.loop.session import describe_active, finished_attempts, personal_best
    from drills.store.schedule import queue
    from drills.views.render import catalog_table, due_in, next_step, reason

    catalog = load_catalog()
    with history() as store:
        records = {}
        for target_id in [*catalog.all_ids, "full"]:
            done = finished_attempts(store, target_id)
            last = "-" if not done else format_time(done[-1].time) if done[-1].time is not None else "gave up"
            records[target_id] = (personal_best(store, target_id), last, len(done))
        now = CLOCK()
        cards = queue(store, now)  # spaced repetition: the first is the one to drill now
        out.print(catalog_table(catalog, records, {c.target: due_in(c.due - now) for c in cards}))
        out.print()
        active = store.active()
        if active is not None:
            said = describe_active(active, CLOCK())
            out.print(Text(f" {said[0].upper()}{said[1:]}."))
            out.print(next_step("drill watch", "(or drill status, drill check)"))
        else:
            chosen = cards[0]
            out.print(next_step(f"drill start {chosen.target}", f"{reason(chosen, now)}   (or: drill next --start)"))


# ---------------------------------------------------------------------------- start


@app.command()
def start(
    target: TargetArg,
    workspace: Annotated[
        Path | None,
        typer.Option(help="Folder for your solution file. Default: solutions/ of the clone, or $DRILL_WORKSPACE."),
    ] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR.")] = False,
) -> None:
    """Write the stub of TARGET (its functions blanked) and start the timer. TARGET may be 'full'."""
    from drills.loop.session import start as start_attempt
    from drills.store.paths import default_workspace, display

    target = check_target(target)
    with history() as store:
        started = start_attempt(store, target, workspace or default_workspace(), CLOCK)
    path = display(started.path)
    symbols = list(started.symbols)
    listed = symbols[0] if len(symbols) == 1 else ", ".join(symbols[:-1]) + " and " + symbols[-1]
    if len(symbols) > 6:
        listed = f"all {len(symbols)} functions of the engine"
    verb = "is" if len(symbols) == 1 else "are"
    out.print(f" Wrote [bold]{escape(path)}[/]: {listed} {verb} blank; everything else is the reference.")
    if started.archived:
        out.print(f" Your previous file was archived to {escape(display(started.archived))}.")
    best = "none yet" if started.best is None else format_time(started.best)
    out.print(f" Timer started: [bold]{format_time(started.target_time)}[/] to beat. Your best: {best}.")
    if target == "full":
        out.print(" Each target gets its own split when it first passes, like a speedrun timer.")
    out.print(" Now: open the file in your editor, and run [bold cyan]drill watch[/] in another terminal.")
    if edit:
        import shlex
        import subprocess

        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            raise fail("--edit needs $EDITOR (or $VISUAL) set; the timer is running, open the file yourself")
        # NOTE: Windows paths in $EDITOR keep their backslashes: POSIX quoting rules only on POSIX.
        subprocess.call([*shlex.split(editor, posix=os.name != "nt"), str(started.path)])


@app.command()
def full(
    workspace: Annotated[Path | None, typer.Option(help="Folder for your solution file.")] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR.")] = False,
) -> None:
    """The 45-minute drill: every target blank at once, one split per target."""
    start("full", workspace=workspace, edit=edit)


# ---------------------------------------------------------------------------- grading in a drill


def _show_check(store: History, checked: object) -> None:
    from drills.loop.session import Checked
    from drills.loop.session import scoreboard as make_scoreboard
    from drills.store.schedule import choose
    from drills.views.render import grade_report, next_step, passed_line, reason, review_card, scoreboard
    from drills.views.reviews import review_for

    assert isinstance(checked, Checked)
    out.print(grade_report(checked.result))
    for target in checked.newly_passed:
        if not checked.finished:
            out.print(Text(f" ✓ {target} passed at {format_time(checked.elapsed)}", style="green"))
    if checked.finished:
        board = make_scoreboard(store, checked.attempt)
        out.print(passed_line(checked, board))
        out.print(scoreboard(board))
        target = checked.attempt.target
        card = review_for(target)
        if card is not None:
            out.print(review_card(card))
        compare = target if target != "full" else load_catalog().ids[0]
        out.print(next_step(f"drill diff {compare}", "compare with the reference;  drill stats  for your progress"))
        chosen = choose(store, CLOCK())
        out.print(Text(f" Next due: {chosen.target} ({reason(chosen, CLOCK())}); drill next --start", style="dim"))
    else:
        out.print(
            Text(
                f" Clock: {format_time(checked.attempt.elapsed(CLOCK()))}. Fix the first failure above, save, and check again "
                "(drill watch does it on every save).",
                style="dim",
            )
        )


@app.command()
def check(
    oracle: Annotated[str, typer.Option(hidden=True)] = "auto",
) -> None:
    """Grade the attempt in progress once (drill watch does it on every save)."""
    from drills.loop.session import check as check_attempt

    with history() as store:
        checked = check_attempt(store, CLOCK, oracle=oracle)
        _show_check(store, checked)
    raise typer.Exit(0 if checked.finished else 1)


@app.command()
def watch(
    oracle: Annotated[str, typer.Option(hidden=True)] = "auto",
) -> None:
    """Re-grade on every save, with a live timer per target; exits with the scoreboard when all pass."""
    from drills.loop.watch import run_watch

    with history() as store:
        code = run_watch(store, CLOCK, out, oracle=oracle, show_finish=_show_check)
    raise typer.Exit(code)


@app.command()
def status() -> None:
    """The attempt in progress: its clock, and each target's state."""
    from drills.loop.session import require_active, status_lines, target_time
    from drills.store.paths import display
    from drills.views.render import next_step

    with history() as store:
        attempt = require_active(store)
        elapsed = attempt.elapsed(CLOCK())
        state = " (paused)" if attempt.paused else ""
        out.print(
            f" [bold]{attempt.target}[/]  {format_time(elapsed)}{state}  target {format_time(target_time(attempt.target))}"
            f"   {escape(display(attempt.file))}"
        )
        for target, state_name, detail in status_lines(store, attempt):
            mark = {"passed": "[green]✓[/]", "failing": "[red]✗[/]"}.get(state_name, "·")
            out.print(f"   {mark} {target:<14} {state_name:<11} {escape(detail)}", highlight=False)
        out.print(next_step("drill resume" if attempt.paused else "drill watch"))


@app.command()
def pause() -> None:
    """Stop the clock of the attempt in progress."""
    from drills.loop.session import pause as pause_attempt

    with history() as store:
        attempt = pause_attempt(store, CLOCK)
    out.print(
        f" Paused {attempt.target} at {format_time(attempt.elapsed(CLOCK()))}. [bold cyan]drill resume[/] restarts the clock."
    )


@app.command()
def resume() -> None:
    """Restart the clock of a paused attempt."""
    from drills.loop.session import resume as resume_attempt

    with history() as store:
        attempt = resume_attempt(store, CLOCK)
    out.print(
        f" Resumed {attempt.target} at {format_time(attempt.elapsed(CLOCK()))}. [bold cyan]drill watch[/] grades on save."
    )


@app.command()
def abandon() -> None:
    """End the attempt in progress without a verdict; your file is archived, never deleted."""
    from drills.loop.session import abandon as abandon_attempt
    from drills.store.paths import display

    with history() as store:
        attempt = abandon_attempt(store, CLOCK)
    where = f" Your file is archived at {escape(display(Path(attempt.archive)))}." if attempt.archive else ""
    out.print(f" Abandoned {attempt.target} at {format_time(attempt.elapsed(CLOCK()))}.{where}")
    out.print(f" Start again: [bold cyan]drill start {attempt.target}[/]")


@app.command("give-up")
def give_up() -> None:
    """End the attempt as not finished; then drill diff shows the reference."""
    from drills.loop.session import give_up as give_up_attempt

    with history() as store:
        attempt = give_up_attempt(store, CLOCK)
    out.print(
        f" Gave up {attempt.target} at {format_time(attempt.elapsed(CLOCK()))}; it counts as an attempt, not a time."
    )
    out.print(
        f" Compare with the reference: [bold cyan]drill diff {'' if attempt.target == 'full' else attempt.target}[/]".rstrip()
    )


@app.command()
def hint(
    target: Annotated[str | None, typer.Argument(help="Default: the first target not passed yet.")] = None,
) -> None:
    """Reveal one more hint for a target (the attempt counts as assisted)."""
    from drills.loop.session import hint as next_hint
    from drills.views.render import hints_view

    with history() as store:
        out.print(hints_view(next_hint(store, check_target(target) if target else None)))


@app.command()
def diff(
    target: Annotated[str | None, typer.Argument(help="Default: the target of your latest attempt.")] = None,
    peek: Annotated[
        bool, typer.Option("--peek", help="Show it before the target passed (marks the attempt assisted).")
    ] = False,
) -> None:
    """Your code and the reference side by side, symbol by symbol."""
    from drills.loop.session import compare
    from drills.views.render import comparison

    with history() as store:
        out.print(comparison(compare(store, check_target(target) if target else None, peek)))


@app.command()
def stats(
    target: Annotated[str | None, typer.Argument(help="One target, or all.")] = None,
    plot: Annotated[
        bool, typer.Option("--plot", help="Draw the chart of your times instead (as drill chart).")
    ] = False,
) -> None:
    """Per target: attempts, best, median of the last five, trend, share under the target time."""
    from drills.loop.session import stats as target_stats
    from drills.views.render import stats_table

    if plot:
        chart(target)
        return
    ids = [check_target(target)] if target else [*load_catalog().all_ids, "full"]
    with history() as store:
        out.print(stats_table([target_stats(store, i) for i in ids]))


@app.command()
def chart(
    target: Annotated[
        str | None,
        typer.Argument(help="One target (its times in minutes), 'full' (its splits and sum of best), or all."),
    ] = None,
) -> None:
    """A chart of your times: each attempt over the days, the target time as a line; and your streak of practice days."""
    from drills.views.chart import draw, progress
    from drills.views.render import next_step, streak_line

    target = check_target(target) if target else None
    with history() as store:
        data = progress(store, CLOCK(), TZ)
    has = data.full if target == "full" else [s for s in data.series if target in (None, s.target)]
    if not has:
        what = "anything" if target is None else target
        out.print(f" Nothing to chart yet: you have not finished {what} (a pass or a give-up).")
        out.print(next_step(f"drill start {target}" if target else "drill next --start"))
        return
    width = max(40, min(out.size.width, 120))
    height = max(12, min(out.size.height - 4, 30)) * (2 if target == "full" else 1)
    out.print(Text.from_ansi(draw(data, target, width, height)), no_wrap=True, crop=False)
    if target == "full":
        sob = "-" if data.sum_of_best is None else format_time(data.sum_of_best)
        out.print(Text(f" Sum of best splits: {sob}  (every core target's best split of the full drill, added up)"))
    out.print(streak_line(data.streak))


@app.command("next")
def next_target(
    start_it: Annotated[
        bool, typer.Option("--start", help="Start the chosen target now, as drill start does.")
    ] = False,
    workspace: Annotated[Path | None, typer.Option(help="Folder for your solution file (with --start).")] = None,
    edit: Annotated[bool, typer.Option("--edit", help="Open the file in $EDITOR (with --start).")] = False,
) -> None:
    """The target to drill now, chosen by spaced repetition (FSRS) from your history.

    A finished attempt is a review: gave up = Again; over the target time, or assisted = Hard; within it = Good; under half of it, unassisted = Easy. The most overdue target comes first; one never drilled is due now.
    """
    from drills.loop.session import describe_active
    from drills.store.schedule import queue
    from drills.views.render import next_view, reason

    with history() as store:
        now = CLOCK()
        cards = queue(store, now)
        active = store.active()
    chosen = cards[0]
    if start_it:
        out.print(f" drill next chose [bold]{chosen.target}[/]: {escape(reason(chosen, now))}.")
        start(chosen.target, workspace=workspace, edit=edit)
        return
    if active is not None:
        out.print(Text(f" Meanwhile, {describe_active(active, now)}: drill watch", style="yellow"))
    out.print(next_view(cards, now))


@app.command()
def review(target: TargetArg) -> None:
    """The review card of TARGET (or 'full'): the key formula, the classic bugs, what an interviewer asks next."""
    from drills.loop.session import finished_attempts, personal_best
    from drills.store.schedule import deck
    from drills.views.render import due_in, next_step, review_card
    from drills.views.reviews import review_for

    target = check_target(target)
    card = review_for(target)
    if card is None:
        out.print(f" No card yet for {target}. Its hints:  drill hint {target}")
        return
    out.print(review_card(card))
    with history() as store:
        now = CLOCK()
        best, done = personal_best(store, target), len(finished_attempts(store, target))
        slot = next(c for c in deck(store, now) if c.target == target)
    plural = "s" if done != 1 else ""
    mine = "never drilled" if not done else f"{done} attempt{plural}, best {format_time(best) if best else '-'}"
    out.print(next_step(f"drill start {target}", f"yours: {mine}; due {due_in(slot.due - now)}"))


@app.command("export")
def export_history(
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="csv (one row per attempt, split and hint) or json.")
    ] = "csv",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file. Default: standard output.")
    ] = None,
    with_sources: Annotated[
        bool, typer.Option("--with-sources", help="JSON only: include every graded version of your files.")
    ] = False,
) -> None:
    """Write your whole history (every finished attempt, its splits and hints) as CSV or JSON; drill import restores it."""
    import sys

    from drills.store.export import ExportError, export
    from drills.store.paths import atomic_write, display

    with history() as store:
        try:
            exported = export(store, fmt.lower(), with_sources)
        except ExportError as exc:
            raise fail(str(exc)) from None
    if output is None:
        sys.stdout.write(exported.text)
        return
    try:
        atomic_write(output, exported.text)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    out.print(f" Wrote {exported.attempts} attempts ({exported.splits} splits) to [bold]{escape(display(output))}[/].")


@app.command("import")
def import_history(
    file: Annotated[Path, typer.Argument(help="A file written by drill export; - reads standard input.")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="csv or json. Default: from the file name, else from its content."),
    ] = None,
) -> None:
    """Restore attempts written by drill export; those already in your history are skipped."""
    import sys

    from drills.store.export import ExportError, parse, restore
    from drills.views.render import next_step

    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise fail(f"no such file: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}") from None
    if fmt is None and file.suffix.lower() in (".csv", ".json"):
        fmt = file.suffix.lower()[1:]
    try:
        records = parse(text, fmt.lower() if fmt else None)
    except ExportError as exc:
        raise fail(f"{file}: {exc}") from None
    with history() as store:
        done = restore(store, records)
    line = f" Imported {done.added} attempts ({done.splits} splits"
    line += f", {done.submissions} graded versions)" if done.submissions else ")"
    if done.skipped:
        line += f"; {done.skipped} already in your history were skipped"
    out.print(line + ".")
    out.print(next_step("drill stats", "(or drill chart, drill next)"))


# ---------------------------------------------------------------------------- grade any file


@app.command()
def grade(
    file: Annotated[
        Path, typer.Argument(help="An engine file that follows the API contract (docs/contract.md of the repository).")
    ],
    target: Annotated[
        list[str] | None,
        typer.Option(
            "--target",
            "-t",
            help="Grade only this target (repeatable); 'full': the six core targets. "
            "Default: the six core targets; a follow-up only when named.",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print one JSON object instead of a report (its keys: docs/contract.md of the repository)."
        ),
    ] = False,
    oracle: Annotated[
        str,
        typer.Option(
            help="auto (recorded answers, else live torch), live, replay, record, or fd (finite differences, no torch).",
            hidden=True,
        ),
    ] = "auto",
) -> None:
    """Grade any engine file against torch.autograd, outside a drill.

    By default the six core targets are graded: unbroadcast, backward, arith, unary, softmax and cross-entropy (--target full, the same). The follow-ups (max, cotangent, gradcheck, free-memory, forward-mode) are graded only when named with --target.

    The API an engine file must follow, and the JSON of --json, are described in docs/contract.md of the repository.

    Exit status: 0 all graded targets passed, 1 some failed, 2 bad usage or unreadable file.
    """
    from drills.views.render import grade_report
    from grader.run import GradeError
    from grader.run import grade as run_grade

    targets = resolve_targets(target)
    if not file.exists():
        raise fail(f"no such file: {file}")
    if not file.is_file():
        raise fail(f"not a file: {file}")
    try:
        with file.open("rb") as f:
            f.read(1)
    except OSError as exc:
        raise fail(f"cannot read {file}: {exc.strerror}") from None
    try:
        result = run_grade(file, targets, oracle=oracle)
    except GradeError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        out.print(grade_report(result))
    raise typer.Exit(0 if result.passed else 1)


# The commands run most often, with no arguments to parse, answer without building the typer app:
# building it imports typer's parameter adapters and pydantic (about 150 ms, more than the rest of
# `drill list`, and a tenth of a one-shot `drill check`). Help, options and every other command go
# through typer.
FAST_PATHS = {(): show_overview, ("list",): list_targets, ("status",): status, ("check",): check}


def main() -> None:
    import sys

    fast = FAST_PATHS.get(tuple(sys.argv[1:]))
    if fast is None:
        app()
        return
    try:
        fast()
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
