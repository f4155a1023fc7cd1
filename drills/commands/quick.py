"""The commands run most often, typed bare (``drill``, ``drill list``, ``drill status``, ``drill next``,
``drill check``), answered without typer: drills/entry.py sends them here. ``import typer`` alone takes
as long as the rest of ``drill list``, and there are no arguments to parse. ``drill check`` (GRADING)
imports the grading half, which the others never do (tests/test_quick_commands.py). Each calls the body the typer app calls
(drills/cli.py), on the same consoles and clock, with the same one-line refusals and exit status;
the app's help typed bare (``drill -h``) is drawn by drills/commands/quick_help.py; anything else (a
command's help, an option, an argument) goes through the app.

Importing this module imports nothing: drills/entry.py reads ``COMMANDS`` before it decides."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograd_drill.commands.common import Terminal

COMMANDS: dict[tuple[str, ...], tuple[str, str, dict[str, bool]]] = {
    (): ("practice", "overview", {}),
    ("list",): ("practice", "overview", {"title": False}),
    ("status",): ("status", "status", {}),
    ("next",): ("practice", "next_target", {}),
    ("check",): ("drill", "check_bare", {}),
}
"""The command line (less ``drill``), the module of drills/commands/ and the body it calls, and its
arguments: what drills/cli.py calls for it."""
GRADING = {("check",)}
"""Those of COMMANDS that grade: drills/entry.py has started their grading's interpreter already."""
HELP = {("-h",), ("--help",)}
"""The app's help typed bare: drawn by drills/commands/quick_help.py, as typer draws it."""


def body(args: tuple[str, ...]) -> Callable[[Terminal], int | None]:
    """The body ``drill ARGS`` runs, given the terminal."""
    from importlib import import_module

    module, name, kwargs = COMMANDS[args]
    function = getattr(import_module(f"autograd_drill.commands.{module}"), name)
    return lambda term: function(term, **kwargs)


def answer(args: tuple[str, ...], term: Terminal) -> int:
    """Run ``drill ARGS`` on ``term``: its exit status. A refusal is one line on its stderr, as the
    app prints it (drills/cli.py ``terminal``)."""
    from autograd_drill.commands.common import error_line
    from autograd_drill.errors import DrillError
    from autograd_drill.grader.catalog import UnknownTarget

    try:
        code = body(args)(term)
    except DrillError as exc:
        term.err.print(error_line(str(exc)))
        return exc.code
    except UnknownTarget as exc:
        term.err.print(error_line(str(exc)))
        return 2
    return code or 0


def answer_bare(args: tuple[str, ...]) -> None:
    """``drill ARGS`` on the real terminal and clock; exits with its status."""
    import sys

    from autograd_drill.commands.common import Terminal, consoles
    from autograd_drill.loop.clock import system_clock

    out, err = consoles()
    sys.exit(answer(args, Terminal(out, err, system_clock)))


def no_history() -> bool:
    """No history yet, so no attempt in progress: ``drill check`` refuses before any grading, and starts
    no interpreter for one ahead of it (drills/entry.py, drills/cli.py; grader/spawn.py ``OneShot``)."""
    from autograd_drill.store.paths import history_path

    return not history_path().exists()
