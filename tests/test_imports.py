"""`drill --help`, `drill where` and the commands through typer answer without importing NumPy, pytest or torch
(`drill where` names the recording, and imported the oracle, and NumPy with it, for its path: 0.2 of its 0.46 CPU-s).

A command that goes through typer does not import pydantic (typer 0.29 built a pydantic adapter for every
parameter, even a flag left out: 70 ms of a 0.3 s command; drills/commands/coercion.py), and its values
are coerced as typer's adapters coerce them, value by value; `drill where` imports no interview or drill
machinery for the interviews' folder."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from autograd_drill import cli
from autograd_drill.commands import coercion
from tests.support import REFERENCE, drill_imports

try:
    from typer import _click as click  # typer 0.29 vendors click
except ImportError:  # pragma: no cover - another typer
    import click

FOLLOWED = coercion.RuntimeParam is not None
"""Whether this typer is one drills/commands/coercion.py follows (TYPERS): with another, drill leaves
typer's coercion as it is (pydantic imported, the same values), and the checks of it do not apply."""
only_the_typer_followed = pytest.mark.skipif(
    not FOLLOWED, reason=f"typer {typer.__version__}: drills/commands/coercion.py follows typer {coercion.TYPERS} only"
)

HEAVY = ("numpy", "pytest", "torch", "plotext")
NOT_FOR_WHERE = ("autograd_drill.interview.interviewer", "autograd_drill.loop.session", "autograd_drill.store.history")
"""What drill where imported for the interviews' folder (drills/interview/interviewer.py's, now drills/store/paths.py's)."""


@pytest.mark.parametrize(
    "args",
    [["--help"], ["where"], ["stats", "--json"], ["grade", str(REFERENCE), "-t", "nothing"]],
    ids=["help", "where", "stats-json", "grade-refused"],
)
def test_light_commands_import_nothing_heavy(args):
    """``drill list``, ``status``, ``next`` and ``drill`` typed bare: tests/test_quick_commands.py (no NumPy,
    pytest, torch, plotext, typer or pydantic either). Here the app's help and commands through typer:
    none imports NumPy, pytest, torch or plotext; none pydantic."""
    done, modules = drill_imports(*args, ok=(0, 2))  # grade of an unknown target: a refusal, exit 2
    imported = {name.split(".")[0] for name in modules}
    assert not imported & set(HEAVY), imported & set(HEAVY)
    assert "pydantic" not in imported or not FOLLOWED, done.stderr[-500:]
    if args != ["--help"]:
        assert "autograd_drill.cli" in modules, "not through typer: the test would prove nothing of pydantic"
    if args == ["where"]:
        assert not set(NOT_FOR_WHERE) & modules, set(NOT_FOR_WHERE) & modules


def every_parameter() -> list[tuple[click.Command, click.Parameter]]:
    group = typer.main.get_command(cli.app)
    commands = [group, *group.commands.values()]  # type: ignore[attr-defined]
    return [(command, param) for command in commands for param in command.params]


def samples(param: click.Parameter, tmp: Path) -> list[object]:
    """Values typer hands a parameter: its default, strings as typed (odd ones too), what a flag gives."""
    typed = ["x", "", "-", " 7 ", "5", "1_000", "5.5", "é\udcff", "unbroadcast", str(tmp), str(tmp / "file")]
    return [param.default, None, True, False, 0, 45, *typed, tuple(typed[:3]), [], ["a", "b"]]


def outcome(coerce, value: object, param: click.Parameter, ctx: click.Context) -> object:
    try:
        return ("value", coerce(value, param=param, ctx=ctx))
    except click.ClickException as exc:
        return ("refused", type(exc).__name__, exc.format_message())
    except Exception as exc:  # noqa: BLE001 - whatever typer's own raises, ours must raise too
        return ("raised", type(exc).__name__, str(exc))


@only_the_typer_followed
def test_every_parameter_is_coerced_as_typers_adapter_coerces_it(tmp_path):
    from typer._coercion import build_runtime_param

    (tmp_path / "file").write_text("x", encoding="utf-8")
    checked = 0
    for command, param in every_parameter():
        ctx = click.Context(command, info_name=command.name)
        param._runtime_param = None
        coercion.lighten(param)
        light = param._runtime_param
        assert isinstance(light, coercion.Light), (command.name, param.name)
        typers = build_runtime_param(param.type_descriptor)
        for value in samples(param, tmp_path):
            ours = outcome(light.coerce, value, param, ctx)
            theirs = outcome(typers.coerce, value, param, ctx)
            assert ours == theirs, (command.name, param.name, value)
            checked += 1
    assert checked > 500, checked
