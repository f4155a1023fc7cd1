"""The ``drill`` command line: thin commands over the catalog, the grader and the history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from drills.catalog import Target, UnknownTarget, load_catalog

app = typer.Typer(
    help="autograd-drill: re-implement a tensor autograd engine from memory, against the clock.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


@app.callback()
def _drill() -> None:
    """autograd-drill: re-implement a tensor autograd engine from memory, against the clock."""


def resolve_targets(ids: list[str] | None) -> list[Target]:
    catalog = load_catalog()
    if not ids:
        return list(catalog.targets)
    chosen = set()
    for target_id in ids:
        try:
            chosen.add(catalog.get(target_id.replace("_", "-")).id)
        except UnknownTarget as exc:
            raise fail(str(exc)) from None
    return [t for t in catalog.targets if t.id in chosen]


@app.command()
def grade(
    file: Annotated[Path, typer.Argument(help="An engine file that follows the API contract (SPEC §2).")],
    target: Annotated[
        list[str] | None, typer.Option("--target", "-t", help="Grade only this target (repeatable). Default: all.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (SPEC §3) instead of a report.")
    ] = False,
    oracle: Annotated[
        str, typer.Option(help="auto (recorded answers, else live torch), live, replay or record.", hidden=True)
    ] = "auto",
) -> None:
    """Grade any engine file against torch.autograd, outside a drill.

    Exit status: 0 all graded targets passed, 1 some failed, 2 bad usage or unreadable file.
    """
    from drills.grading import GradeError
    from drills.grading import grade as run_grade
    from drills.render import grade_report

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


def main() -> None:
    app()
