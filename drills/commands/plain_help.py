"""Help without type placeholders: typer (0.29) writes ``<bool>`` after every flag, ``<str>`` after
every argument and ``<path>`` after every option that takes a value, whatever its ``metavar``. Here a
flag shows nothing after its name, an option its metavar (``--workspace DIR``; its name in capitals
when none is given, as click does), an argument its name in capitals (``TARGET``)."""

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


def plain(params: list[Any]) -> list[Any]:
    """``params``, their help made to show ``placeholder`` in place of their type."""
    for param in params:
        if param.param_type_name == "argument" and param.metavar is None:
            param.metavar = (param.name or "value").upper()
        param.display_type_rich = partial(placeholder, param)
    return params


class PlainCommand(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return plain(super().get_params(ctx))


class PlainGroup(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return plain(super().get_params(ctx))

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands group by group, as drills/commands/groups.py orders them (the help draws a
        panel per group, in the order of their first command)."""
        from drills.commands.groups import GROUP_OF, rank

        last = (len(GROUP_OF), 0)
        return sorted(super().list_commands(ctx), key=lambda name: rank(name) if name in GROUP_OF else last)


class PlainTyper(typer.Typer):
    """A typer app whose commands' help shows no type placeholders (its own, with ``cls=PlainGroup``)."""

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Callable:
        return super().command(name, cls=cls or PlainCommand, **kwargs)
