"""Every command's help as a pipe or a file gets it (``drill start -h | less``): no line padded with
spaces to the console's width (issue 27, point 5), the boxes kept at rich's width (help is
documentation, wrapped at a fixed width as click and git wrap theirs); and the usage line names an
argument as click does, ``TARGET`` or ``[TARGET]`` (typer 0.29 wrote ``{TARGET}``)."""

from __future__ import annotations

import io

import pytest
import typer.main
from rich.console import Console
from typer import _click

from autograd_drill import cli
from tests.support import drill, run_drill


def group() -> _click.Command:
    return typer.main.get_command(cli.app)


def commands() -> list[str]:
    made = group()
    return made.list_commands(_click.Context(made, info_name="drill"))  # type: ignore[attr-defined]


def padded(text: str) -> list[str]:
    return [line for line in text.splitlines() if line != line.rstrip()]


def usage_of(name: str) -> str:
    """The usage line click would write for command ``name``: each argument ``NAME``, ``[NAME]`` when
    it may be left out, ``...`` after one that takes many."""
    made = group()
    command = made.get_command(_click.Context(made, info_name="drill"), name)  # type: ignore[attr-defined]
    pieces = ["[OPTIONS]"]
    for param in command.params:
        if param.param_type_name == "argument":
            shown = param.metavar or param.name.upper()
            shown = shown if param.required else f"[{shown}]"
            pieces.append(shown + ("..." if param.nargs != 1 else ""))
    return f"{name} {' '.join(pieces)}"


@pytest.mark.parametrize("name", ["", *commands()])
def test_no_help_line_is_padded_and_the_boxes_keep_their_width(name):
    text = drill(*([name] if name else []), "-h").output
    assert not padded(text), padded(text)[:3]
    width = Console(file=io.StringIO()).width  # rich's for a console that is not a terminal: 80, or $COLUMNS
    boxes = {len(line) for line in text.splitlines() if line.startswith(("╭", "│", "╰"))}
    assert boxes == {width}, (boxes, width)


@pytest.mark.parametrize("name", commands())
def test_every_usage_line_names_its_arguments_as_click_does(name):
    text = drill(name, "-h").output
    (line,) = [line.strip() for line in text.splitlines() if "Usage:" in line]
    assert line == f"Usage: root {usage_of(name)}" and "{" not in line, line  # root: CliRunner's program


def test_the_usage_lines_of_a_required_and_an_optional_argument():
    assert usage_of("start") == "start [OPTIONS] TARGET"
    assert usage_of("restore") == "restore [OPTIONS] [TARGET]"
    missing = drill("start", code=2).output  # the usage line a refusal shows too
    assert missing.splitlines()[0] == "Usage: root start [OPTIONS] TARGET", missing


def test_the_fast_help_through_a_real_pipe_is_not_padded(tmp_path):
    done = run_drill("-h", env={"DRILL_HOME": str(tmp_path)})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "Usage: python -m autograd_drill [OPTIONS] COMMAND [ARGS]..." in done.stdout
    assert "Drilling" in done.stdout and not padded(done.stdout), padded(done.stdout)[:3]
