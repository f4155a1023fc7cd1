"""A parameter's value made its type as typer makes it, without pydantic where pydantic adds nothing.

typer (0.29) coerces every parameter's value, even a flag left out (``--help``: None) or a string
typed as a string, through a pydantic TypeAdapter it builds on first use (typer/_coercion.py
``build_runtime_param``): importing pydantic and building the adapters took 70 ms of a 0.3 s
``drill where``, which has nothing to convert. Here a parameter's ``RuntimeParam`` (typer's own
lazy slot, ``_runtime_param``) is ``Light``: what is already its type (a string typed for a ``str``,
a bool for a flag, an int default, strings for a ``list[str]``) is returned as typer's adapter
returns it; a ``Path`` is made from its string as pydantic makes it (``Path(value)``) and then checked
by typer's own ``coerce_cli_path``, as typer's adapter does; anything else (an int typed as text,
a choice, a date) goes to typer's adapter, built when first needed. tests/test_imports.py checks
that the result is typer's, value by value, for every parameter of the app.

This reads typer's private coercion module, so only the typer it was checked against (TYPERS): with
another, ``lighten`` leaves the parameters as typer made them (slower, the same results), and
tests/test_imports.py's check that no command imports pydantic fails, to say it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

TYPERS = ("0.29.",)
"""The typer releases whose private coercion (typer/_coercion.py, _param_types.py) ``Light`` follows."""

try:
    if not typer.__version__.startswith(TYPERS):
        raise ImportError(typer.__version__)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # pragma: no cover - another typer: its own coercion, unchanged
    RuntimeParam = None  # type: ignore[assignment,misc]


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class Light(RuntimeParam):  # type: ignore[misc,valid-type]
        """typer's coercion of one parameter, its pydantic adapter built only for a value that needs it."""

        descriptor: Any = None
        built: list[Any] = field(default_factory=list, compare=False)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            annotation, info = self.annotation, self.parameter_info
            plain = info.parser is None
            if plain and annotation in (str, bool, int) and type(value) is annotation:
                return value
            if plain and getattr(annotation, "__origin__", None) is list and annotation.__args__ == (str,):
                if isinstance(value, (list, tuple)) and all(type(v) is str for v in value):
                    return list(value)
            if plain and annotation is Path and info.path_type is None and type(value) is str:
                return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            return self.typers()._coerce_value(value, param=param, ctx=ctx)

        def typers(self) -> Any:
            """typer's own coercion of this parameter (its pydantic adapter), built once."""
            if not self.built:
                self.built.append(build_runtime_param(self.descriptor))
            return self.built[0]


def lighten(param: Any) -> None:
    """Give ``param`` (a typer parameter) the ``Light`` coercion, unless it has one already."""
    if RuntimeParam is None or getattr(param, "_runtime_param", "absent") is not None:
        return
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or descriptor.file_annotation is not None:  # a file typer opens: its own
        return
    param._runtime_param = Light(
        parameter_info=descriptor.parameter_info, annotation=descriptor.annotation, descriptor=descriptor
    )
