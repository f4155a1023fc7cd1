"""Help without type placeholders: typer (0.29) writes ``<bool>`` after every flag, ``<str>`` after
every argument and ``<path>`` after every option that takes a value, whatever its ``metavar``. Here a
flag shows nothing after its name, an option its metavar (``--workspace DIR``; its name in capitals
when none is given, as click does), an argument its name in capitals (``TARGET``).

The usage line names an argument as click does, ``TARGET`` (``[TARGET]`` when it may be left out):
typer 0.29 writes a required one in braces (``{TARGET}``), which reads as a choice. Help written
elsewhere than a terminal (a pipe, a file) has no line padded with spaces at its end
(drills/commands/common.py ``Unpadded``); it keeps rich's 80 columns, boxes and all, as help is
wrapped at a fixed width by every CLI (click, git)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup


def placeholder(param: Any, ctx: Any = None) -> str | None:
    """What help writes after a parameter's name: an option's metavar, nothing for flags and arguments."""
    if param.param_type_name != "option" or getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    return param.metavar or (param.name or "value").upper()


def usage_pieces(param: Any, ctx: Any = None) -> list[str]:
    """An argument in the usage line, as click writes it: ``TARGET``, ``[TARGET]`` when it is not
    required, ``...`` after it when it takes more than one value."""
    name = param.metavar or (param.name or "value").upper()
    name = name if param.required else f"[{name}]"
    return [f"{name}..." if param.nargs != 1 else name]


def plain(params: list[Any]) -> list[Any]:
    """``params``, their help made to show ``placeholder`` in place of their type, arguments named
    in the usage line by ``usage_pieces``, and their values coerced without pydantic where it adds
    nothing (drills/commands/coercion.py)."""
    from autograd_drill.commands.coercion import lighten

    for param in params:
        lighten(param)
        if param.param_type_name == "argument":
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
            param.get_usage_pieces = partial(usage_pieces, param)
        param.display_type_rich = partial(placeholder, param)
    return params


def unpadded_help(format_help: Callable[[Any, Any], None], ctx: Any, formatter: Any) -> None:
    """``format_help`` (typer's, which prints rich's help itself) with typer's console writing
    ``Unpadded`` where it is not a terminal."""
    from typer import rich_utils

    from autograd_drill.commands.common import unpadded

    made = rich_utils._get_rich_console
    rich_utils._get_rich_console = lambda stderr=False: unpadded(made(stderr=stderr), stderr)
    try:
        format_help(ctx, formatter)
    finally:
        rich_utils._get_rich_console = made


class PlainCommand(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return plain(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        unpadded_help(super().format_help, ctx, formatter)


class PlainGroup(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return plain(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        unpadded_help(super().format_help, ctx, formatter)

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands group by group, as drills/commands/groups.py orders them (the help draws a
        panel per group, in the order of their first command)."""
        from autograd_drill.commands.groups import GROUP_OF, rank

        last = (len(GROUP_OF), 0)
        return sorted(super().list_commands(ctx), key=lambda name: rank(name) if name in GROUP_OF else last)


class PlainTyper(typer.Typer):
    """A typer app whose commands' help shows no type placeholders (its own, with ``cls=PlainGroup``)."""

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Callable:
        return super().command(name, cls=cls or PlainCommand, **kwargs)
