"""``2 / t`` and an ndarray on the left are graded only where the file supports them (grader/reflected.py):
read from the class, so a file that has them is graded on them, and one that has not gets a note."""

from __future__ import annotations

import numpy as np
import pytest

from autograd_drill.grader import reflected
from autograd_drill.grader.run import grade_file
from tests.support import CATALOG, REFERENCE_SOURCE

ARITH = CATALOG.get("arith")


class _Reflects:
    def __radd__(self, other):
        return "reflected"


class _OptsOut(_Reflects):
    __array_ufunc__ = None


class _OwnUfunc(_Reflects):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return "reflected"


class _Priority(_Reflects):
    __array_priority__ = 10.0


class _LowPriority(_Reflects):
    __array_priority__ = 0.0


@pytest.mark.parametrize("cls", [_Reflects, _OptsOut, _OwnUfunc, _Priority, _LowPriority], ids=lambda c: c.__name__)
def test_the_class_says_what_numpy_does(cls):
    """What the grader reads from a class is what NumPy does with ``arr + t``: hand it to the class, or
    compute it itself, element by element, into an ndarray."""
    handed = isinstance(np.ones(2) + cls(), str)
    assert reflected.ndarray_on_the_left(cls) is bool(handed)
    assert (reflected.ungraded(cls, "ndarray", "+") is None) is bool(handed)
    assert reflected.ungraded(cls, "number", "+") is None  # a number on the left: always graded
    assert reflected.ungraded(cls, "number", "/") == reflected.NO_RTRUEDIV


def edited(old: str, new: str) -> str:
    assert REFERENCE_SOURCE.count(old) == 1, old
    return REFERENCE_SOURCE.replace(old, new)


def test_a_wrong_rtruediv_is_graded_and_fails(tmp_path, warm_runner):
    path = tmp_path / "engine.py"
    path.write_text(
        edited("        return _as_tensor(other) / self\n", "        return self / _as_tensor(other)\n"),
        encoding="utf-8",
    )
    result = grade_file(path, [ARITH], runner=warm_runner)
    arith = result.get("arith")
    assert not arith.passed and reflected.NO_RTRUEDIV not in result.notes
    assert any(f.case == "number-over-tensor" for f in arith.failures), arith.messages


def test_without_array_ufunc_the_ndarray_on_the_left_is_a_note(tmp_path, warm_runner):
    path = tmp_path / "engine.py"
    path.write_text(edited("    __array_ufunc__ = None\n", ""), encoding="utf-8")
    result = grade_file(path, [ARITH], runner=warm_runner)
    assert result.get("arith").passed, result.get("arith").messages[:1]
    assert result.notes == (reflected.NO_NDARRAY_LEFT,)
