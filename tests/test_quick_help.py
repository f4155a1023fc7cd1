"""``drill -h`` and ``drill --help`` start fast (issue 25, point 4): drills/commands/quick_help.py draws
the app's help without typer, from what drills/commands/help_text.py keeps of the app; the same bytes
as typer's, checked here against typer itself, so that neither can go stale.

    python -m tests.test_quick_help        # writes drills/commands/help_text.py from the app (then ruff format)
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer.main
from typer import _click
from typer._click.utils import _detect_program_name
from typer.core import TyperOption

from autograd_drill.commands import help_text, quick_help
from tests.support import ROOT, drill_imports

RUNS = [(module, arg) for module in ("autograd_drill.cli", "autograd_drill.entry") for arg in ("-h", "--help")]
"""Typer's help first (its main), then the fast path's (drills/entry.py): each ``drill ARG``."""
SCRIPT = f"""
import atexit, sys
atexit.register(lambda: None)  # drill's fast path then returns rather than os._exit: the next one runs
for module, arg in {RUNS!r}:
    sys.argv = ["/usr/local/bin/drill", arg]
    try:
        __import__(module, fromlist=["main"]).main()
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    for stream in (sys.stdout, sys.stderr):
        stream.write(f"\\0 exit status {{code}}\\n")
        stream.flush()
"""
STATUS = re.compile("\0 exit status (-?[0-9]+)\n")
"""The line SCRIPT writes on stdout and stderr after each run."""

VARIANTS = {
    "piped": {},
    "narrow": {"COLUMNS": "52"},
    "60 columns": {"COLUMNS": "60"},
    "80 columns": {"COLUMNS": "80"},
    "wide": {"COLUMNS": "200"},
    "TERMINAL_WIDTH": {"TERMINAL_WIDTH": "70", "COLUMNS": "120"},
    "colour": {"FORCE_COLOR": "1", "COLUMNS": "100"},
    "NO_COLOR": {"FORCE_COLOR": "1", "NO_COLOR": "1"},
    "dumb terminal": {"FORCE_COLOR": "1", "TERM": "dumb"},
    "terminal disabled": {"FORCE_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1"},
}

KEPT = Path(help_text.__file__)


Panels = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


def described() -> tuple[str, tuple[tuple[str, str, str], ...], Panels]:
    """What the help draws, read from the typer app as typer reads it (typer/rich_utils.py): the app's
    help (its first paragraph), each option's long and short names and help, the panels of commands
    (their groups, in order) and in each, each command's name and the first paragraph of its short help
    or help. Anything else typer would draw (an argument, a
    default, a panel of its own, an epilog) is refused: drills/commands/quick_help.py draws none of it."""
    from autograd_drill.cli import app

    group = typer.main.get_command(app)
    ctx = _click.Context(group, info_name="drill", **group.context_settings)
    first = inspect.cleandoc(group.help or "").partition("\f")[0].split("\n\n")
    assert len(first) == 1 and not group.epilog and not group.deprecated, "more than quick_help.py draws"
    options = []
    for param in group.get_params(ctx):
        assert isinstance(param, TyperOption) and not param.required and not param.secondary_opts, param
        assert not param.hidden and not getattr(param, "rich_help_panel", None), param
        long = ",".join(o for o in param.opts if "--" in o)
        short = ",".join(o for o in param.opts if "--" not in o)
        paragraphs = [
            p.replace("\n", " ").strip() if not p.startswith("\b") else "{}\n".format(p.strip("\b\n"))
            for p in (param.help or "").split("\n\n")
        ]
        options.append((long, short, inspect.cleandoc("\n".join(paragraphs).strip())))
    panels: dict[str, list[tuple[str, str]]] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if command.hidden:
            continue
        assert not command.deprecated, name
        paragraphs = inspect.cleandoc(command.short_help or command.help or "").split("\n\n")
        head = paragraphs[0].replace("\b\n", "") if paragraphs[0].startswith("\b") else paragraphs[0]
        panel = getattr(command, "rich_help_panel", None) or "Commands"
        panels.setdefault(panel, []).append((command.name or "", inspect.cleandoc(head.strip())))
    assert "Commands" not in panels, "a command with no group (drills/commands/groups.py): typer draws it first"
    commands = tuple((title, tuple(listed)) for title, listed in panels.items())
    app_help = inspect.cleandoc(first[0].replace("\n", " ").strip())
    said = [app_help, *(o[2] for o in options), *(c[1] for _, listed in commands for c in listed)]
    assert not any("\033[" in text for text in said), "typer draws ANSI help as it is: not drawn here"
    return app_help, tuple(options), commands


def source() -> str:
    """drills/commands/help_text.py, as ``described`` reads the app now."""
    app_help, options, commands = described()
    lines = [
        '"""What ``drill -h`` shows of the app, kept for drills/commands/quick_help.py (written by',
        "``python -m tests.test_quick_help`` from drills/cli.py: do not edit; tests/test_quick_help.py",
        'checks it is the app\'s)."""',
        "",
        f"APP_HELP = {app_help!r}",
        "OPTIONS = (",
        *(f"    {option!r}," for option in options),
        ")",
        "COMMANDS = (",
        *(f"    {panel!r}," for panel in commands),
        ")",
        "",
    ]
    return "\n".join(lines)


Said = tuple[int, str, str]
"""What one ``drill ARG`` gave: its exit status, stdout and stderr."""


def helps(env: dict[str, str]) -> dict[tuple[str, str], Said]:
    """What each of RUNS gave, one after the other in one fresh interpreter under ``env``, stdout and
    stderr pipes (typer reads the environment as it is imported: one interpreter per environment),
    split apart at SCRIPT's status lines."""
    clean = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    outs, errs = STATUS.split(done.stdout), STATUS.split(done.stderr)
    assert len(outs) == len(errs) == 2 * len(RUNS) + 1 and outs[1::2] == errs[1::2] and not outs[-1] + errs[-1]
    return {run: (int(outs[2 * i + 1]), outs[2 * i], errs[2 * i]) for i, run in enumerate(RUNS)}


def test_what_is_kept_is_the_apps():
    """drills/commands/help_text.py is what the app says now (else: ``python -m autograd_drill.commands.quick_help``)."""
    kept = (help_text.APP_HELP, help_text.OPTIONS, help_text.COMMANDS)
    assert described() == kept, "run python -m tests.test_quick_help, then ruff format"


@pytest.mark.parametrize("env", VARIANTS.values(), ids=VARIANTS.keys())
def test_the_same_bytes_as_typer(env):
    said = helps(env)
    for arg in ("-h", "--help"):
        (fast_code, fast, fast_err), (typer_code, typer, typer_err) = (
            said["autograd_drill.entry", arg],
            said["autograd_drill.cli", arg],
        )
        assert (fast_code, fast_err) == (typer_code, typer_err) == (0, ""), fast_err
        assert fast == typer, arg
        assert "Usage:" in fast and "drill" in fast and "Drilling" in fast


def test_the_program_is_named_as_click_names_it():
    script = SimpleNamespace(__package__=None)
    module = SimpleNamespace(__package__="autograd_drill")
    for path, main in (("/usr/local/bin/drill", script), (str(ROOT / "drills" / "__main__.py"), module)):
        assert quick_help.prog_name(path, main) == _detect_program_name(path, main)  # type: ignore[arg-type]
    assert quick_help.prog_name(str(ROOT / "drills" / "__main__.py"), module) == "python -m autograd_drill"  # type: ignore[arg-type]


@pytest.mark.parametrize("arg", ["-h", "--help"])
def test_the_help_loads_no_typer(arg):
    done, modules = drill_imports(arg)
    assert not {m for m in modules if m.split(".")[0] in ("typer", "click", "pydantic")}
    assert "autograd_drill.cli" not in modules
    assert "Usage: python -m autograd_drill [OPTIONS] COMMAND [ARGS]..." in done.stdout


def test_a_usage_line_click_would_wrap_is_left_to_typer(monkeypatch):
    """``python -m autograd_drill -h`` in 52 columns: click wraps its usage line; then typer draws the help."""
    monkeypatch.setenv("COLUMNS", "52")
    assert quick_help.usage_line("python -m autograd_drill") is None
    assert quick_help.usage_line("drill") == "Usage: drill [OPTIONS] COMMAND [ARGS]..."
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograd_drill", "-h"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "import time:" in done.stderr and "| typer" in done.stderr
    assert [line.strip() for line in done.stdout.splitlines()[1:3]] == [  # the package's name is long: wrapped sooner
        "Usage: python -m autograd_drill",
        "[OPTIONS] COMMAND [ARGS]...",
    ]


if __name__ == "__main__":
    KEPT.write_text(source(), encoding="utf-8")
    print(f"wrote {KEPT}: now ruff format it")
