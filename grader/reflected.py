"""The reflected operators the contract grades only where the file supports them.

A number on the left of ``+ - *`` is always graded (``__radd__``, ``__rsub__`` and ``__rmul__`` are
in every stub). Two more forms are the book's "fine to just read" helpers, and a file may lack
them: ``2 / t`` (``__rtruediv__``), and an ndarray on the left of ``+ - * /``, which reaches the
Tensor's reflected operator only when its class opts out of NumPy's own handling. Whether a file
supports them is read from its class, never from what its code does when tried: a file that has
them is graded on them (a wrong ``__rtruediv__`` fails), one that has not gets a note instead.
"""

from __future__ import annotations

from typing import Any

from autograd_drill.grader import notes

NO_RTRUEDIV = (
    "`2 / t` and `ndarray / t` were not graded: your Tensor defines no __rtruediv__ (a reflected operator, "
    "graded only where the file has it)"
)
NO_NDARRAY_LEFT = (
    "an ndarray on the left of + - * / (`arr + t`) was not graded: your Tensor has no __array_ufunc__ "
    "(`__array_ufunc__ = None` hands `arr + t` to Tensor.__radd__), so NumPy computes it itself, element by "
    "element, and returns an ndarray, not a Tensor"
)

_MISSING = object()


def ndarray_on_the_left(cls: type) -> bool:
    """Whether ``ndarray + t`` reaches ``cls``: NumPy's binary operators defer to an operand whose class
    sets ``__array_ufunc__ = None`` (then its ``__radd__`` runs) or defines ``__array_ufunc__`` (then that
    runs), or has no ``__array_ufunc__`` but an ``__array_priority__`` above the ndarray's 0."""
    if getattr(cls, "__array_ufunc__", _MISSING) is not _MISSING:
        return True
    priority = getattr(cls, "__array_priority__", None)
    try:
        return priority is not None and float(priority) > 0.0
    except (TypeError, ValueError):
        return False


def number_over_tensor(cls: type) -> bool:
    """Whether ``2 / t`` reaches ``cls``: it defines (or inherits) ``__rtruediv__``."""
    return getattr(cls, "__rtruediv__", None) is not None


def ungraded(cls: type, left: str, op: str) -> str | None:
    """Why ``left op t`` is not graded on ``cls`` (the note to give), or None: it is graded.

    ``left`` is ``"tensor"``, ``"number"`` or ``"ndarray"``; ``op`` one of ``+ - * /``."""
    if left == "ndarray" and not ndarray_on_the_left(cls):
        return NO_NDARRAY_LEFT
    if left in ("number", "ndarray") and op == "/" and not number_over_tensor(cls):
        return NO_RTRUEDIV
    return None


def graded(tensor: Any, left: str, op: str) -> bool:
    """Whether the case ``left op t`` is graded on the class ``tensor``; when not, its note is given."""
    why = ungraded(tensor, left, op)
    if why is not None:
        notes.give(why)
    return why is None
