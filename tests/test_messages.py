"""Messages that name the real cause, on engines written in micrograd's and torch's habits."""

import re

import numpy as np
import pytest

from autograd_drill.grader.compare import compare
from autograd_drill.grader.run import grade_file
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
    from autograd_drill.grader.compare import diagnose

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


# ------------------------------------------------------------------ issue 22: the function at fault, never the grader


def _failures(path, targets, runner):
    """Every failure of a grading on ``targets``; none may point into the grader's own source."""
    result = grade_file(path, [CATALOG.get(t) for t in targets], runner=runner)
    failures = [f for t in result.targets for f in t.failures]
    for failure in failures:
        assert "grader/" not in failure.message and "Traceback" not in failure.message, failure.message
        assert failure.symbol is not None, failure.message
    return result, failures


INIT_GRAD_LINE = "        self.grad = np.zeros_like(self.data)\n        self.requires_grad = requires_grad\n"
INIT_LINES = {
    "_op": "        self._op = _op\n",
    "_prev": "        self._prev = tuple(_children)\n",
    "_backward": "        self._backward = lambda: None\n",
}


@pytest.mark.parametrize("attribute", sorted(INIT_LINES))
def test_an_init_that_sets_no_attribute_is_named(tmp_path, warm_runner, attribute):
    path = _engine(tmp_path, (INIT_LINES[attribute], ""))
    _, failures = _failures(path, ["backward"], warm_runner)
    assert failures
    for failure in failures:
        assert failure.symbol == "Tensor.__init__", failure.message
        assert f"Tensor.__init__ sets no .{attribute}" in failure.text, failure.message


def test_list_data_of_a_delegating_init_is_not_called_children(tmp_path, warm_runner):
    """Tensor.__init__ hands its data to a base class's __init__, which fails on a list: the list is data."""
    path = _engine(
        tmp_path,
        (
            "class Tensor:\n",
            "class _Store:\n    def __init__(self, data):\n"
            "        self.data = data.astype(np.float64) if isinstance(data, np.ndarray) else np.array(float(data))\n\n\n"
            "class Tensor(_Store):\n",
        ),
        ("        self.data = np.array(data, dtype=np.float64)\n", "        _Store.__init__(self, data)\n"),
    )
    _, failures = _failures(path, ["backward"], warm_runner)
    listed = [f for f in failures if f.case == "int-list"]
    assert listed and listed[0].symbol == "Tensor.__init__" and "in _Store.__init__" in listed[0].text
    assert not any("among the children" in f.message for f in failures)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        pytest.param("        self.grad = None\n", "Tensor.__init__ leaves .grad None", id="none"),
        pytest.param(
            "        self.grad = np.zeros_like(np.asarray(data))\n",
            "Tensor.__init__ makes .grad an array of int64, not float64",
            id="data-dtype",
        ),
    ],
)
def test_a_grad_init_left_wrong_is_named_with_what_it_is(tmp_path, warm_runner, line, said):
    path = _engine(tmp_path, (INIT_GRAD_LINE, line + "        self.requires_grad = requires_grad\n"))
    _, failures = _failures(path, ["backward", "arith"], warm_runner)
    assert {f.test.split("::")[0] for f in failures} >= {"test_backward.py", "test_arith.py"}
    for failure in failures:
        assert failure.symbol == "Tensor.__init__", failure.message
    assert any(said in f.text for f in failures if f.test.startswith("test_arith.py")), failures[0].message


def test_a_grad_that_is_the_data_is_named_before_anything_writes_into_it(tmp_path, warm_runner):
    """The grader writes into .grad in place: a .grad that is .data would have its data changed, and the
    failure would blame an op; __init__ is named instead."""
    path = _engine(
        tmp_path, (INIT_GRAD_LINE, "        self.grad = self.data\n        self.requires_grad = requires_grad\n")
    )
    _, failures = _failures(path, ["arith"], warm_runner)
    assert failures and all(f.symbol == "Tensor.__init__" for f in failures)
    assert "share its memory with .data" in failures[0].text


def test_a_float32_grad_is_named_by_the_init_tests(tmp_path, warm_runner):
    """.grad zeros of float32 data (made before the conversion): the generated dtypes of test_init catch it."""
    path = _engine(
        tmp_path,
        (INIT_GRAD_LINE, "        self.grad = np.zeros_like(data)\n        self.requires_grad = requires_grad\n"),
    )
    _, failures = _failures(path, ["backward"], warm_runner)
    said = [f for f in failures if "float32" in f.text]
    assert said and all(f.symbol == "Tensor.__init__" for f in failures)
    assert "makes .grad an array of float32, not float64" in said[0].text


OWN_SUB = """    def __sub__(self, other: Any) -> Tensor:
        other = _as_tensor(other)
        out = Tensor(self.data - other.data, _children=(self, other), _op="-")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)  # the sign is lost

        out._backward = _backward
        return out
"""
OWN_DIV = """    def __truediv__(self, other: Any) -> Tensor:
        other = _as_tensor(other)
        out = Tensor(self.data / other.data, _children=(self, other), _op="/")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad / other.data, self.shape)
            other.grad += unbroadcast(-out.grad * self.data / other.data**2, other.shape)
            raise ValueError("division's closure gave up")

        out._backward = _backward
        return out
"""


def test_the_files_own_sub_and_div_are_named_when_they_ran(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        ("    def __sub__(self, other: Any) -> Tensor:\n        return self + (-_as_tensor(other))\n", OWN_SUB),
        (
            "    def __truediv__(self, other: Any) -> Tensor:\n        return self * _as_tensor(other) ** -1.0\n",
            OWN_DIV,
        ),
    )
    _, failures = _failures(path, ["arith"], warm_runner)
    symbols = {f.symbol for f in failures}
    assert symbols <= {"Tensor.__sub__", "Tensor.__truediv__", "the arith ops"}, symbols
    sub = next(f for f in failures if f.case == "sub-broadcast")
    assert sub.symbol == "Tensor.__sub__" and "b.grad differs" in sub.text
    div = next(f for f in failures if f.symbol == "Tensor.__truediv__")
    assert "raised ValueError: division's closure gave up" in div.text


def test_the_reference_layout_of_sub_still_blames_add(tmp_path, warm_runner):
    """The reference's own ``-`` (``self + (-other)``) ran: its closures are __add__'s and __mul__'s."""
    path = _engine(
        tmp_path,
        (
            "            other.grad += unbroadcast(out.grad, other.shape)\n",
            "            other.grad += 0.5 * unbroadcast(out.grad, other.shape)\n",
        ),
    )
    _, failures = _failures(path, ["arith"], warm_runner)
    sub = next(f for f in failures if f.case == "sub-broadcast")
    assert sub.symbol == "Tensor.__add__"


def test_a_case_hint_is_not_attached_to_an_exception(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        (
            '        out = Tensor(self.data * other.data, _children=(self, other), _op="*")\n',
            '        out = Tensor(self.data * other.dta, _children=(self, other), _op="*")\n',
        ),
    )
    _, failures = _failures(path, ["arith"], warm_runner)
    raised = [f for f in failures if "AttributeError" in f.text]
    assert raised and all("in Tensor.__mul__" in f.text or f.symbol == "Tensor.__mul__" for f in raised)
    # a random graph's description is the case itself, not a hint about the math; before it, the step
    # that raised alone (grader/localize.py)
    alone = re.compile(
        r"(Tensor\.__mul__ alone, as t\d+ = .* on the values it saw here, raised AttributeError; )?graph: "
    )
    assert all(f.hint is None or alone.match(f.hint) for f in raised), [f.hint for f in raised][:3]


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("np.seterr(all='raise')", id="seterr-at-import"),
        pytest.param("import os\nos.close(1)", id="close-fd-1"),
        pytest.param("import os\nos.close(2)", id="close-fd-2"),
    ],
)
def test_hostile_module_code_gets_a_normal_verdict(tmp_path, warm_runner, code):
    path = _engine(tmp_path, ("import numpy as np\n", f"import numpy as np\n\n{code}\n"))
    result, _ = _failures(path, list(CATALOG.ids), warm_runner)
    assert all(t.tests > 0 for t in result.targets)


def test_seterr_inside_an_op_gets_a_normal_verdict(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        (
            '        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")\n',
            '        np.seterr(all="raise")\n        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")\n',
        ),
    )
    result, failures = _failures(path, ["unary", "softmax", "cross-entropy"], warm_runner)
    assert all(t.tests > 0 for t in result.targets)
    assert all(f.symbol for f in failures)


def test_an_exception_whose_str_raises_gets_a_normal_verdict(tmp_path, warm_runner):
    path = _engine(
        tmp_path,
        (
            "class Tensor:\n",
            "class Mute(Exception):\n    def __str__(self):\n        raise RuntimeError('no words')\n\n\nclass Tensor:\n",
        ),
        ('        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")\n', "        raise Mute()\n"),
    )
    _, failures = _failures(path, ["unary"], warm_runner)
    tanh = [f for f in failures if f.symbol == "Tensor.tanh"]
    assert tanh and tanh[0].text.startswith("raised Mute")


@pytest.mark.parametrize("fd", [1, 2])
def test_closing_a_standard_fd_inside_an_op_gets_a_normal_verdict(tmp_path, warm_runner, fd):
    line = '        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")\n'
    path = _engine(tmp_path, (line, f"        import os\n\n        os.close({fd})\n" + line))
    result, failures = _failures(path, ["unary", "softmax"], warm_runner)
    assert all(t.tests > 0 and not t.not_run for t in result.targets)
    assert failures and all("Tensor.tanh" in f.message for f in failures)


def test_a_backward_hint_is_not_attached_to_an_error_backward_raised(tmp_path, warm_runner):
    """test_twice's hint (x.grad must collect both contributions) explains a wrong gradient, not a crash."""
    path = _engine(
        tmp_path,
        (
            "            node._backward()\n",
            "            if len(node._prev) > 1:\n                raise RuntimeError('backward gave up')\n            node._backward()\n",
        ),
    )
    _, failures = _failures(path, ["backward"], warm_runner)
    raised = [f for f in failures if "RuntimeError: backward gave up" in f.text]
    assert raised and all(f.symbol == "Tensor.backward" for f in raised), [f.text for f in failures][:3]
    # a random graph's description is the case itself, not a hint about the math
    assert all(f.hint is None or f.hint.startswith("graph: ") for f in raised), [(f.case, f.hint) for f in raised]
    assert any(f.case == "twice_mul" for f in raised)
