"""Messages that name the real cause, on engines written in micrograd's and torch's habits."""

import numpy as np

from grader.compare import compare
from grader.run import grade_file
from tests.support import CATALOG
from tests.support import REFERENCE_SOURCE as SOURCE


def _engine(tmp_path, *edits):
    text = SOURCE
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "engine.py"
    path.write_text(text, encoding="utf-8")
    return path


def _messages(path, target, runner):
    return grade_file(path, [CATALOG.get(target)], runner=runner).get(target).messages


def test_an_unwrapped_operand_is_blamed_on_the_op_not_the_constructor(tmp_path, warm_runner):
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
    messages = _messages(path, "arith", warm_runner)
    ndarray = next(m for m in messages if "[tensor-plus-ndarray]" in m)
    assert "Tensor.__add__ passed an ndarray among the children of Tensor(...)" in ndarray
    assert "_as_tensor" in ndarray and "fix Tensor.__init__" not in ndarray
    number = next(m for m in messages if "[tensor-plus-number]" in m)
    assert number.startswith("Tensor.__add__ [tensor-plus-number]:") and "holds a float, not a Tensor" in number


def test_a_grad_that_is_none_is_called_none():
    said = compare("a.grad", None, np.zeros((2, 3)))
    assert said == "a.grad is None, where torch's is an array of shape (2, 3)"


def test_negative_transpose_axes_get_the_real_cause_not_the_argsort_hint(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        (
            "        perm = tuple(a % ndim for a in axes) if axes else tuple(reversed(range(ndim)))\n",
            "        perm = tuple(axes) if axes else tuple(reversed(range(ndim)))\n",
        ),
    )
    messages = _messages(path, "softmax", warm_runner)
    assert messages and all("negative" in m for m in messages), messages
    first = messages[0]
    assert "turn negative axes positive first" in first and "np.argsort((-1, 0, 1)) is (0, 1, 2)" in first
    assert "a 3-cycle is not its own inverse" not in first


def test_no_constant_factor_hint_for_one_number_or_a_partial_fit():
    from grader.compare import diagnose

    assert diagnose("the value", np.array(3.0), np.array(1.5)) is None  # one number fits any factor
    assert diagnose("a.grad", np.array([3.0]), np.array([1.5])) is None
    assert diagnose("a.grad", np.array([-0.0, 0.0, 0.0]), np.array([1.0, 2.0, 0.0])) is not None  # no gradient
    partial = diagnose("a.grad", np.array([3.0, 6.0, 1.0]), np.array([1.0, 2.0, 0.0]))
    assert partial is None or "constant factor" not in partial  # the zero is not explained by the factor
    assert "constant factor of 3" in diagnose("a.grad", np.array([3.0, 6.0, 0.0]), np.array([1.0, 2.0, 0.0]))


def test_overflow_hints_name_their_cause(tmp_path, warm_runner):
    sigmoid = _engine(
        tmp_path,
        (
            '        out = Tensor(np.exp(-np.logaddexp(0.0, -self.data)), _children=(self,), _op="sigmoid")\n',
            '        out = Tensor(np.exp(self.data) / (1.0 + np.exp(self.data)), _children=(self,), _op="sigmoid")\n',
        ),
    )
    huge = next(m for m in _messages(sigmoid, "unary", warm_runner) if "[huge]" in m)
    assert "exp(-logaddexp(0, -x))" in huge and "subtract the max" not in huge


def test_log_of_an_underflowed_softmax_is_told_from_an_overflow(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        (
            "    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
            "    return -(logits.softmax(axis=-1).log() * one_hot).sum() / n\n",
        ),
    )
    messages = [m for m in _messages(path, "cross-entropy", warm_runner) if "logits-1000" in m]
    assert messages and "underflowed to 0" in messages[0], messages


def test_a_breadth_first_order_is_blamed_on_topological_order(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        (
            SOURCE[SOURCE.index("def _topological_order(") : SOURCE.index("def cross_entropy(")],
            "def _topological_order(root):\n"
            '    """Breadth-first from the root, reversed: wrong when a node is reached by a short and a long path."""\n'
            "    seen, order, queue = {id(root)}, [], [root]\n"
            "    while queue:\n"
            "        node = queue.pop(0)\n"
            "        order.append(node)\n"
            "        for child in node._prev:\n"
            "            if id(child) not in seen:\n"
            "                seen.add(id(child))\n"
            "                queue.append(child)\n"
            "    return order[::-1]\n\n\n",
        ),
    )
    messages = _messages(path, "backward", warm_runner)
    assert messages and all(m.startswith("_topological_order [") for m in messages if "came before" in m)
    assert any("[topological_order_long_and_short_paths]" in m for m in messages)
    assert any(m.startswith("_topological_order [diamond") for m in messages), messages[:3]
