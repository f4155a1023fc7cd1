"""``drill -h`` and ``drill --help`` without typer (issue 25, point 4): typer's rich help of the app,
drawn the way typer 0.29 draws it (typer/rich_utils.py ``rich_format_help``, for what the app has: a
usage line, its help, the Options panel and a panel per group of commands) from what drills/commands/help_text.py
keeps of the app. Building the app and typer's formatter cost twice ``import typer, rich``.

drills/commands/help_text.py is written by ``python -m tests.test_quick_help`` from the app itself;
tests/test_quick_help.py checks that it is the app's and that this draws the same bytes as typer, at
every width, piped, in colour and with NO_COLOR. A usage line click would wrap (a narrow terminal, a
long program name) is left to typer (drills/entry.py asks ``usage`` first)."""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Any

USAGE_ARGS = "[OPTIONS] COMMAND [ARGS]..."
"""What click writes after the program's name in the app's usage line."""


def prog_name(path: str | None = None, main: ModuleType | None = None) -> str:
    """The program's name in the usage line, as click finds it (click/utils.py ``_detect_program_name``):
    ``drill`` run as a script, ``python -m autograd_drill`` run as a module."""
    main = main if main is not None else sys.modules["__main__"]
    path = path or sys.argv[0]
    package = getattr(main, "__package__", None)
    if package in {None, ""} or (
        os.name == "nt" and package == "" and not os.path.exists(path) and os.path.exists(f"{path}.exe")
    ):
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def usage() -> str | None:
    """The usage line of the app's help, as click writes it, when it fits on one line (else None: click
    wraps it, and the help is left to typer)."""
    return usage_line(prog_name())


def usage_line(prog: str) -> str | None:
    import shutil

    width = max(min(shutil.get_terminal_size().columns, 80) - 2, 50)  # click's HelpFormatter
    line = f"Usage: {prog} {USAGE_ARGS}"
    return line if len(line) <= width else None


def print_help(line: str) -> None:
    """Print the app's help on stdout as typer does, under ``line``, the usage line ``usage`` gave."""
    from autograd_drill.commands import help_text

    draw(line, help_text.APP_HELP, help_text.OPTIONS, help_text.COMMANDS)


def draw(
    usage: str,
    app_help: str,
    options: tuple[tuple[str, str, str], ...],
    panels: tuple[tuple[str, tuple[tuple[str, str], ...]], ...],
) -> None:
    """The help, as typer draws it: ``panels`` are the commands' groups (drills/commands/groups.py), each
    its title and its commands, a panel apiece, the commands' column as wide as the longest name."""
    from rich.align import Align
    from rich.columns import Columns
    from rich.console import Console, Group
    from rich.highlighter import RegexHighlighter
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text
    from rich.theme import Theme

    from autograd_drill.commands.common import unpadded

    class OptionHighlighter(RegexHighlighter):
        highlights = [  # typer's (typer/rich_utils.py), as they are
            r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
            r"(?P<types>\<[^\>]+\>)",
            r"(?P<usage>Usage: )",
        ]

    class NegativeOptionHighlighter(RegexHighlighter):
        highlights = [
            r"(^|\W)(?P<negative_switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<negative_option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        ]

    class TypesHighlighter(RegexHighlighter):
        highlights = [r"^(?P<types_sep>(\[|<))", r"(?P<types_sep>\|)", r"(?P<types_sep>(\]|>))(\.\.\.)?$"]

    highlighter, negative, types = OptionHighlighter(), NegativeOptionHighlighter(), TypesHighlighter()
    force = True if os.getenv("GITHUB_ACTIONS") or os.getenv("FORCE_COLOR") or os.getenv("PY_COLORS") else None
    if os.getenv("_TYPER_FORCE_DISABLE_TERMINAL"):
        force = False
    width = os.getenv("TERMINAL_WIDTH")
    theme = {
        "option": "bold cyan",
        "switch": "bold green",
        "negative_option": "bold magenta",
        "negative_switch": "bold red",
        "types": "bold yellow",
        "types_sep": "dim",
        "usage": "yellow",
    }
    console = unpadded(
        Console(
            theme=Theme(theme),
            highlighter=highlighter,
            color_system="auto",
            force_terminal=force,
            width=int(width) if width else None,
        )
    )
    console.print(Padding(highlighter(usage), 1), style="bold")
    console.print(Padding(Align(Group(highlighter(Text.from_markup(app_help))), pad=False), (0, 1, 1, 1)))
    table: dict[str, Any] = {"show_header": False, "expand": True, "box": None, "show_lines": False, "leading": 0}
    table.update(border_style=None, row_styles=None, pad_edge=False, padding=(0, 1))
    grid = Table(highlight=True, **table)
    for long, short, said in options:
        kind = types(Text(style="bold yellow", overflow="fold"))
        grid.add_row(
            highlighter(long),
            highlighter(short),
            negative(""),
            negative(""),
            kind,
            Columns([highlighter(Text.from_markup(said))]),
        )
    console.print(Panel(grid, border_style="dim", title="Options", title_align="left"))
    widest = max((len(name) for _, commands in panels for name, _ in commands), default=0)
    for title, commands in panels:
        listing = Table(highlight=False, **table)
        listing.add_column(style="bold cyan", no_wrap=True, width=widest)
        listing.add_column("Description", justify="left", no_wrap=False, ratio=10)
        for name, said in commands:
            listing.add_row(Text(name), highlighter(Text.from_markup(said)))
        console.print(Panel(listing, border_style="dim", title=title, title_align="left"))
    print()  # click's help option then echoes the help its formatter holds: none (rich drew it), and a newline
