"""Attribution: which of the user's functions a failure belongs to.

A tensor that ``Tensor.__init__`` left incomplete is ``__init__``'s fault, whatever op tripped over
it (``node_problem``); an exception raised in the user's code is reported at the user's lines, with
the symbol its last frame belongs to, and, when that symbol is another target's, that target
(``Blame.describe``). grader/check.py turns what these say into verdicts.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

import numpy as np

from autograd_drill.grader.catalog import Catalog, Target
from autograd_drill.grader.compare import TestTimeout, article

NODE_ATTRIBUTES = ("data", "grad", "_prev", "_op", "_backward")
"""What ``Tensor.__init__`` sets on every tensor (the contract's INIT_* clauses)."""

INIT_PROBES: tuple[tuple[str, Any], ...] = (
    ("2", 2),
    ("2.5", 2.5),
    ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]),
    ("np.arange(3)", np.arange(3)),
    ("np.arange(3, dtype=np.float32)", np.arange(3, dtype=np.float32)),
    ("np.ones((2, 3))", np.ones((2, 3))),
)
"""Data ``Tensor.__init__`` is probed with when a check fails: numbers, int lists, int and float32 arrays."""


def node_problem(t: Any) -> str | None:
    """What is wrong with a tensor as ``Tensor.__init__`` left it, in words naming it: a contract
    attribute it does not set, or a ``.grad`` that is not a float64 ndarray of ``.data``'s shape."""
    for name in NODE_ATTRIBUTES:
        try:
            getattr(t, name)
        except AttributeError:
            return f"Tensor.__init__ sets no .{name}"
    grad = t.grad
    if not isinstance(grad, np.ndarray):
        return f"Tensor.__init__ leaves .grad {'None' if grad is None else article(type(grad).__name__)}"
    if grad.dtype != np.float64:
        return f"Tensor.__init__ makes .grad an array of {grad.dtype}, not float64"
    if grad.shape != np.shape(t.data):
        return f"Tensor.__init__ makes .grad of shape {grad.shape}, not .data's {np.shape(t.data)}"
    if isinstance(t.data, np.ndarray) and np.may_share_memory(grad, t.data) and np.shares_memory(grad, t.data):
        return "Tensor.__init__ makes .grad share its memory with .data (a gradient is an array of its own)"
    return None


NODE_HINT = (
    "__init__ sets .data (float64), .grad = np.zeros(self.data.shape) (float64, whatever data's dtype),"
    " ._prev, ._op and ._backward on every tensor"
)

DERIVED = {
    "Tensor.__add__": ("Tensor.__sub__", "Tensor.__rsub__", "Tensor.__neg__"),
    "Tensor.__pow__": ("Tensor.__truediv__", "Tensor.__rtruediv__"),
}
"""The ops graded through a primitive (``a - b`` is ``a + (-b)``, ``x / y`` is ``x * y ** -1``), and that
primitive: when the file's own derived op ran (and failed), it is named instead."""


# ------------------------------------------------------------------------------ attribution


@cache
def resolved(filename: str) -> Path:
    """``filename`` resolved, once per process: asked of each frame of a failure's traceback (a
    RecursionError's holds a thousand, all of a few files) and of each case's closure (grader/check.py,
    ``ran``); a resolve is a system call per part of the path."""
    return Path(filename).resolve()


@dataclass
class Blame:
    """Maps the user's code back to catalog symbols, for messages that name the culprit."""

    impl_path: Path
    catalog: Catalog
    target: Target | None = None
    """The target of the test being run."""

    def symbol_of(self, qualname: str) -> str:
        # "Tensor.__mul__.<locals>._backward" -> "Tensor.__mul__"
        return qualname.split(".<locals>")[0]

    def user_frames(self, tb: TracebackType | None) -> list[tuple[str, int, str]]:
        frames = []
        while tb is not None:
            code = tb.tb_frame.f_code
            if resolved(code.co_filename) == self.impl_path:
                frames.append((code.co_qualname, tb.tb_lineno, code.co_filename))
            tb = tb.tb_next
        return frames

    def foreign_child(self, tb: TracebackType | None) -> tuple[str, str] | None:
        """When the user's ``Tensor.__init__`` failed on children that are not Tensors, passed by one
        of the user's ops: that op (the fix belongs there) and what it passed."""
        user = []
        while tb is not None:
            if resolved(tb.tb_frame.f_code.co_filename) == self.impl_path:
                user.append(tb.tb_frame)
            tb = tb.tb_next
        if len(user) < 2 or user[-1].f_code.co_name != "__init__":
            return None
        init, caller = user[-1], user[-2]
        cls = type(init.f_locals.get("self"))
        names = init.f_code.co_varnames[: init.f_code.co_argcount]
        # NOTE: only the children argument holds children: list *data* (a delegating __init__) is data.
        for name in [n for n in names if "child" in n.lower() or n.lower().strip("_") in ("prev", "parents")]:
            value = init.f_locals.get(name)
            if isinstance(value, (tuple, list, set)):
                strangers = [type(v).__name__ for v in value if not isinstance(v, cls)]
                if strangers and caller.f_code.co_qualname != init.f_code.co_qualname:
                    return self.symbol_of(caller.f_code.co_qualname), strangers[0]
        return None

    def describe(self, exc: BaseException, symbol: str) -> tuple[str, list[str]]:
        """What an exception raised in the user's code says: the verdict's text, and the user's lines it
        went through (``engine.py:12 in Tensor.__mul__: ...``), the last ones."""
        frames = self.user_frames(exc.__traceback__)
        culprit = self.symbol_of(frames[-1][0]) if frames else symbol
        foreign = self.foreign_child(exc.__traceback__)
        if foreign is not None:  # the constructor is fine; the op handed it a child that is not a Tensor
            culprit = foreign[0]
        # A symbol can be drilled by more than one target (Tensor.backward): the current one first.
        owner = self.target if self.target and culprit in self.target.symbols else self.catalog.owner(culprit)
        elsewhere = owner is not None and self.target is not None and owner.id != self.target.id
        named = f"{culprit} (target {owner.id})" if elsewhere and owner else culprit
        if isinstance(exc, NotImplementedError):
            if culprit == symbol and not elsewhere:
                text = f"{symbol} is not written yet (it raises NotImplementedError)"
            else:
                text = f"this needs {named}, which is not written yet"
        else:
            detail = _said(exc)
            if len(detail) > 300:
                detail = detail[:300] + "..."
            kind = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
            text = f"raised {kind}" + (f" in {named}" if culprit != symbol or elsewhere else "")
            if elsewhere:
                text += f"; fix {culprit} first"
            if isinstance(exc, RecursionError):
                text += " (recursion too deep: use an explicit stack instead of recursion)"
            if isinstance(exc, AttributeError) and isinstance(getattr(exc, "obj", None), ModuleType):
                text = f"your file defines no {exc.name} (docs/contract.md lists what a solution defines)"
            elif isinstance(exc, AttributeError) and getattr(exc, "name", None) in NODE_ATTRIBUTES:
                owner_name = type(getattr(exc, "obj", None)).__name__
                if owner_name == "Tensor":
                    text = f"Tensor.__init__ sets no .{exc.name} (raised AttributeError in {culprit})"
            if foreign is not None:
                text += (
                    f" ({culprit} passed {article(foreign[1])} among the children of Tensor(...):"
                    " wrap a number or an ndarray operand with _as_tensor first)"
                )
        if isinstance(exc, TestTimeout):
            stopped = f" in {named}" if frames else ""
            text = f"took longer than {exc.limit:g} s and was stopped{stopped}: an infinite loop?"
        location = [
            f"{filename}:{lineno} in {qualname}: {linecache.getline(filename, lineno).strip()}"
            for qualname, lineno, filename in (frames[-1:] if isinstance(exc, RecursionError) else frames[-3:])
        ]
        return text, location


def _said(exc: BaseException) -> str:
    """The first line of what ``exc`` says; "" when it says nothing, or its ``__str__`` itself fails."""
    try:
        text = str(exc).strip()
    except BaseException:  # noqa: BLE001 - the user's __str__, broken: the class name is all we say
        return ""
    return text.splitlines()[0] if text else ""
