"""Messages that name the real cause, on engines written in micrograd's and torch's habits."""

import numpy as np

from drills.grading import grade
from grader.check import compare
from tests.conftest import CATALOG, REFERENCE

SOURCE = REFERENCE.read_text(encoding="utf-8")


def _engine(tmp_path, *edits):
    text = SOURCE
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "engine.py"
    path.write_text(text, encoding="utf-8")
    return path


def _messages(path, target):
    return grade(path, [CATALOG.get(target)]).get(target).failures


def test_an_unwrapped_operand_is_blamed_on_the_op_not_the_constructor(tmp_path):
    """micrograd keeps _prev in a set: an ndarray the op forgot to wrap fails in __init__ (unhashable),
    but the fix belongs in the op."""
    path = _engine(
        tmp_path,
        ("        self._prev = tuple(_children)\n", "        self._prev = set(_children)\n"),
        (
            "        other = _as_tensor(other)\n"
            '        out = Tensor(self.data + other.data, _children=(self, other), _op="+")\n',
            '        out = Tensor(self.data + getattr(other, "data", other), _children=(self, other), _op="+")\n',
        ),
    )
    messages = _messages(path, "arith")
    ndarray = next(m for m in messages if "[tensor-plus-ndarray]" in m)
    assert "Tensor.__add__ passed an ndarray among the children of Tensor(...)" in ndarray
    assert "_as_tensor" in ndarray and "fix Tensor.__init__" not in ndarray
    number = next(m for m in messages if "[tensor-plus-number]" in m)
    assert number.startswith("Tensor.__add__ [tensor-plus-number]:") and "holds a float, not a Tensor" in number


def test_a_grad_that_is_none_is_called_none():
    said = compare("a.grad", None, np.zeros((2, 3)))
    assert said == "a.grad is None, where torch's is an array of shape (2, 3)"


def test_negative_transpose_axes_get_the_real_cause_not_the_argsort_hint(tmp_path):
    path = _engine(
        tmp_path,
        (
            "        perm = tuple(a % ndim for a in axes) if axes else tuple(reversed(range(ndim)))\n",
            "        perm = tuple(axes) if axes else tuple(reversed(range(ndim)))\n",
        ),
    )
    messages = _messages(path, "softmax")
    assert messages and all("negative" in m for m in messages), messages
    first = messages[0]
    assert "turn negative axes positive first" in first and "np.argsort((-1, 0, 1)) is (0, 1, 2)" in first
    assert "a 3-cycle is not its own inverse" not in first
