"""The contract clauses that the grader's tests rely on.

Only the contract is graded, and the stub is all a user sees: so every test names, with
``@clause(...)``, the sentences of the contract it checks, and each sentence is a phrase that the
docstring of a function its target's stub blanks states word for word (whitespace aside).
``tests/test_contract.py`` proves it for every test case of every target. A test that would
check something no docstring states cannot be written without first stating it there.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from autograd_drill.grader.catalog import Target


def clause(*phrases: str) -> pytest.MarkDecorator:
    """Mark a test (or a ``pytest.param``) with the contract phrases it relies on."""
    return pytest.mark.clause(*phrases)


def register_marks(config: pytest.Config, targets: Iterable[Target]) -> None:
    """The grader's marks: one per target, ``clause`` and ``costly``. grader/conftest.py registers them,
    and so does tests/conftest.py, whose tests import the grader's test modules (which apply them)."""
    for target in targets:
        config.addinivalue_line("markers", f"{target.marker}: oracle tests of the {target.id} target")
    config.addinivalue_line("markers", "clause(*phrases): the contract sentences a test relies on (grader/contract.py)")
    config.addinivalue_line("markers", "costly: far slower than its target's other tests: run after them")


# ---------------------------------------------------------------------------- unbroadcast
UNBROADCAST = "Sum ``grad`` down to ``shape``: the inverse of NumPy broadcasting"
PREPENDED = "it prepended leading axes"
STRETCHED = "stretched axes of size 1"
EXACT_SHAPE = "the result has exactly ``shape`` (``()`` included)"
GRAD_UNCHANGED = "``grad`` is a float64 array, and is left unchanged"

# ---------------------------------------------------------------------------- backward
INIT_DATA = "``.data`` is a float64 ndarray with the values of ``data``"
INIT_ALIAS = "or ``data`` itself when that is a float64 ndarray"
INIT_INTACT = "``Tensor(...)`` leaves the array passed in unchanged"
INIT_GRAD = "``.grad`` starts as float64 zeros of the same shape"
INIT_PREV = "``._prev`` holds the tensors this one was computed from, ``_children``: a tuple or a set"
LEAF_PREV = "a leaf's is empty"
INIT_OP = "``._op`` is a label for the op"
LEAF_BACKWARD = "a leaf's does nothing"
TOPO_ONCE = "Every tensor ``root`` depends on through ``_prev``, leaves included, once each"
TOPO_INPUTS = "each after all of its inputs"
TOPO_ROOT_LAST = "``root`` last"
DEEP = "a chain of 10,000 ops must work"
ONE_ELEMENT = "the root must have exactly one element (of any shape"
OTHER_ROOT_RAISES = "for any other root, raise an error"
SEED_ONES = "Seed the root's ``.grad`` with ones"
SEED_SHAPE = "ones of its shape"
SEED_REPLACES = "whatever it held before is replaced, not added to"
BACKWARD_ADDS = "add d(self)/d(t) into the ``.grad`` of every tensor ``t`` this one depends on"
ONCE_IN_ORDER = "run every node's ``_backward`` exactly once, in reverse topological order"

INTACT = "Nothing but ``.grad`` changes, and each ``.grad`` is a float64 array of its own"
"""Every op's invariant, checked by every test of an op (grade.vjp, graphs.check_program)."""
DATA_INTACT = "No tensor's ``.data`` changes: the root's value stays readable"

# ---------------------------------------------------------------------------- arith
BROADCASTING = "elementwise, with NumPy broadcasting"
OPERANDS = "``other`` is a Tensor, a Python number or an ndarray on the right, and a Python number on the left"
REFLECTED = "are graded only where the file supports them"
SUB = "``a - b`` is ``a + (-b)``"
NEG = "``-x`` is ``x * -1``"
ADDS = "adds (``+=``) into"
POW = "for a Python number ``exponent``"
POW_EXPONENTS = "negative, zero and fractional ones too"
POW_AT_ZERO = "At a base of exactly 0 its gradient is torch's for an exponent of at least 1, finite"
DIV = "``x / y`` is ``x * y ** -1``"
MATMUL = "``self @ other`` for two Tensors: the matrix product over the last two axes"
BATCHED = "batched over the leading axes with broadcasting"
SHARED_WEIGHT = "an input whose batch axes were broadcast (a weight shared by the whole batch) gets the sum over them"

# ---------------------------------------------------------------------------- unary
SUM = "Sum over ``axis``"
MEAN = "The mean over ``axis``"
AXIS = "an int, a tuple of ints (negatives count from the end), or None for all axes"
KEEPDIMS = "``keepdims`` keeps the reduced axes with size 1"
EXP = "``e ** x``, elementwise"
LOG = "The natural logarithm, elementwise, of positive values"
RELU = "``max(x, 0)``, elementwise"
RELU_AT_ZERO = "its gradient is 0 at exactly 0"
SIGMOID = "``1 / (1 + e ** -x)``, elementwise"
SIGMOID_STABLE = "without overflow for inputs of any magnitude (1000 included)"
TANH = "The hyperbolic tangent, elementwise"

# ---------------------------------------------------------------------------- softmax
LOG_SOFTMAX = "``log(softmax(x))`` along ``axis``"
SOFTMAX = "``exp(x) / sum(exp(x))`` along ``axis``"
DEFAULT_AXIS = "(default -1, the last axis)"
SOFTMAX_AXIS = "``axis`` is an int; negatives count from the end"
STABLE = "without overflow for logits of magnitude 1000"
RESHAPE = "The same elements in a new shape: ``reshape(2, 3)`` or ``reshape((2, 3))``"
RESHAPE_MINUS_ONE = "one axis may be -1"
TRANSPOSE = "Permute the axes, given as separate ints"
NEGATIVE_AXES = "Negative axes count from the end"
NO_AXES = "with no axes, reverse them all (``.T``)"

# ---------------------------------------------------------------------------- cross-entropy
CROSS_ENTROPY = "Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels ``y``"
LABELS = "(a list or an ndarray)"
SCALAR_TENSOR = "as a scalar Tensor"
CE_STABLE = "stable for logits of magnitude 1000"

# ---------------------------------------------------------------------------- follow-ups
MAX = "The largest element over ``axis``"
MAX_KEEPDIMS = "keeping the reduced axis with size 1 if ``keepdims``"
MAX_TIES = "Ties send the gradient to the first maximal element only"

COTANGENT = "seed the root's ``.grad`` with a float64 copy of it instead, whatever the root's shape"
COTANGENT_POSITIONAL = "also the first positional parameter"
COTANGENT_SHAPE = "Raise an error for a cotangent whose shape is not the root's"
COTANGENT_SAME_SIZE = "even one of the same size, or one that differs only in axes of size 1"
COTANGENT_DTYPE = "A cotangent of ints or float32 is seeded as float64 all the same"
COTANGENT_KEPT = "the caller's array is left as it was"

RELEASE = "release each node's closure and ``_prev``"
MEMORY_FALLS = "so memory falls as backward proceeds"
RETAIN_GRAPH = "With ``retain_graph=True`` the graph is kept"
REPEATED_BACKWARD = "a second ``backward`` adds the same gradients into the leaves again, as torch does"

NUMERICAL_GRAD = "by central differences, one array per input"
INPUTS_KEPT = "``inputs`` are left as they were"
GRADCHECK = "pass if every element is within ``atol + rtol * |numeric|``"
GRADCHECK_BOUNDARY = "the boundary included"
GRADCHECK_NAN = "a nan is never within it"
GRADCHECK_WORST = "its input's position, its index in that input, and its analytic and numeric values"
CENTRAL = "(f(x + eps e_i) - f(x - eps e_i)) / (2 eps)"
INPUTS_EXACT = "left as they were, bit for bit"
PERTURB_A_COPY = "perturb a float64 copy, not the caller's array"
INT_INPUTS = "An input is an ndarray of any dtype, ints included: its gradient is a float64 array of its shape"
GRADCHECK_INT_INPUTS = "``inputs`` are as numerical_grad's (an int array too)"
GRADCHECK_EPS = "central differences of step ``eps`` (numerical_grad's)"
GRADCHECK_NAN_EITHER = "on either side"
WORST_ANY_INPUT = "the one furthest past that tolerance, whichever input it is in"

DUAL_CONSTANT = "``other`` is a Dual or a constant (a zero tangent)"
DUAL_BROADCAST = "a constant of a bigger shape broadcasts the dual, and the result's tangent has the result's shape"
DUAL_EITHER_SIDE = "on either side, with NumPy broadcasting"
DUAL_RULES = {
    "Dual.__add__": "``d(x + y) = dx + dy``",
    "Dual.__mul__": "``d(x y) = dx y + x dy``",
    "Dual.__matmul__": "``d(A B) = dA B + A dB``",
    "Dual.sum": "the tangent is summed the same way",
    "Dual.exp": "``d exp(x) = exp(x) dx``",
    "Dual.log": "``d log(x) = dx / x``",
    "Dual.relu": "``d relu(x) = [x > 0] dx`` (0 at exactly 0, as torch)",
    "Dual.tanh": "``d tanh(x) = (1 - tanh(x)^2) dx``",
}
JVP = "The pair ``(f(primals), J v)``"
HVP = "The Hessian-vector product ``H v`` of ``L(w) = sum(relu(X w)^2)``"
