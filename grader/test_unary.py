"""Tensor.sum, mean, exp, log, relu, sigmoid and tanh: values and VJPs."""

import itertools

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched, seeds
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import check_beside_sin, check_program, each_op_both_orders
from autograd_drill.grader.programs import Op, Step, pick, random_program

pytestmark = [pytest.mark.unary, clause(c.INTACT)]  # every test checks the invariant (grade.vjp)

AXES = [None, 0, 1, -1, (0, 1), (0, 2), (-1, 0)]
REDUCTIONS = [
    pytest.param(axis, keepdims, id=f"axis={axis}{'-keepdims' if keepdims else ''}".replace(" ", ""))
    for axis in AXES
    for keepdims in (False, True)
]


def _torch_reduce(method, axis, keepdims):
    def theirs(x):
        if x.ndim == 0:
            return getattr(x, method)()
        return getattr(x, method)(dim=tuple(range(x.ndim)) if axis is None else axis, keepdim=keepdims)

    return theirs


def _check_reduce(grade, method, shape, axis, keepdims):
    """``x.<method>(axis=axis, keepdims=keepdims)``, sum or mean, of a random ``shape``, against torch's."""
    grade.vjp(
        f"Tensor.{method}",
        lambda x: getattr(x, method)(axis=axis, keepdims=keepdims),
        [shape],
        theirs=_torch_reduce(method, axis, keepdims),
    )


@clause(c.SUM, c.AXIS, c.KEEPDIMS)
@pytest.mark.parametrize(("axis", "keepdims"), REDUCTIONS)
def test_op_sum(grade, axis, keepdims):
    _check_reduce(grade, "sum", (2, 3, 4), axis, keepdims)


@clause(c.MEAN, c.AXIS, c.KEEPDIMS)
@pytest.mark.parametrize(("axis", "keepdims"), REDUCTIONS)
def test_op_mean(grade, axis, keepdims):
    _check_reduce(grade, "mean", (2, 3, 4), axis, keepdims)


@clause(c.AXIS)
@pytest.mark.parametrize(
    "method", [pytest.param("sum", marks=clause(c.SUM)), pytest.param("mean", marks=clause(c.MEAN))]
)
@pytest.mark.parametrize(
    ("shape", "axis"), [pytest.param((4, 4), 0, id="square-axis0"), pytest.param((), None, id="0d")]
)
def test_op_reduce_edge(grade, method, shape, axis):
    grade.vjp(
        f"Tensor.{method}",
        lambda x: getattr(x, method)(axis=axis),
        [shape],
        theirs=lambda x: getattr(x, method)() if axis is None else getattr(x, method)(dim=axis),
    )


@clause(c.EXP)
def test_op_exp(grade):
    grade.vjp("Tensor.exp", lambda x: x.exp(), [3.0 * grade.rng.standard_normal((2, 3))])


@clause(c.LOG)
def test_op_log(grade):
    grade.vjp("Tensor.log", lambda x: x.log(), [np.abs(grade.rng.standard_normal((2, 3))) + 0.1])


@clause(c.RELU)
def test_op_relu(grade):
    x = grade.rng.standard_normal((3, 4))
    grade.vjp("Tensor.relu", lambda t: t.relu(), [x])


@clause(c.RELU, c.RELU_AT_ZERO)
def test_op_relu_at_zero(grade):
    x = np.array([[-1.0, 0.0, 1.0], [0.0, 0.0, -0.0]])
    grade.vjp(
        "Tensor.relu",
        lambda t: t.relu(),
        [x],
        hint="relu's gradient at exactly 0 is 0, as torch's: use x > 0",
        smooth=False,
    )


@clause(c.SIGMOID, c.SIGMOID_STABLE)
@pytest.mark.parametrize(
    "scale", [pytest.param(1.0, id="small"), pytest.param(30.0, id="large"), pytest.param(1000.0, id="huge")]
)
def test_op_sigmoid(grade, scale):
    x = scale * grade.rng.standard_normal((2, 3))
    grade.vjp("Tensor.sigmoid", lambda t: t.sigmoid(), [x])


@clause(c.TANH)
@pytest.mark.parametrize("scale", [pytest.param(1.0, id="small"), pytest.param(30.0, id="large")])
def test_op_tanh(grade, scale):
    grade.vjp("Tensor.tanh", lambda t: t.tanh(), [scale * grade.rng.standard_normal((2, 3))])


SHARED = {
    "exp": (lambda t: t.exp(), None),
    "log": (lambda t: t.log(), None),
    "relu": (lambda t: t.relu(), None),
    "sigmoid": (lambda t: t.sigmoid(), None),
    "tanh": (lambda t: t.tanh(), None),
    "sum": (lambda t: t.sum(axis=0), lambda t: t.sum(dim=0)),
    "mean": (lambda t: t.mean(axis=-1, keepdims=True), lambda t: t.mean(dim=-1, keepdim=True)),
}


@clause(c.ADDS)
@each_op_both_orders(SHARED)
def test_op_shared_input(grade, op, first):
    """x feeds the op and a glue sin: the op's closure must add into x.grad, not overwrite it."""
    ours_op, torch_op = SHARED[op]
    x = np.abs(grade.rng.standard_normal((2, 3))) + 0.1
    check_beside_sin(grade, f"Tensor.{op}", ours_op, torch_op or ours_op, x, first)


# ------------------------------------------------------------------------------ random graphs


def _reduce(method):
    def ours(G, a, p):
        return getattr(a, method)(axis=p[0], keepdims=p[1])

    def theirs(a, p):
        dims = tuple(range(a.ndim)) if p[0] is None else p[0]
        return getattr(a, method)(dim=dims, keepdim=p[1])

    def numpy(a, p):
        return getattr(a, method)(axis=p[0], keepdims=p[1])

    return Op(1, ours, theirs, numpy, f"{{0}}.{method}(axis={{p[0]}}, keepdims={{p[1]}})")


def _fn(name, np_fn):
    return Op(
        1, lambda G, a, p: getattr(a, name)(), lambda a, p: getattr(a, name)(), lambda a, p: np_fn(a), f"{{0}}.{name}()"
    )


UNARY_OPS = {
    "sum": _reduce("sum"),
    "mean": _reduce("mean"),
    "exp": Op(
        1,
        lambda G, a, p: G.sin(a).exp(),
        lambda a, p: a.sin().exp(),
        lambda a, p: np.exp(np.sin(a)),
        "glue_sin({0}).exp()",
    ),
    "log": Op(
        1,
        lambda G, a, p: G.pos(a).log(),
        lambda a, p: (a * a + 1.0).log(),
        lambda a, p: np.log(a * a + 1.0),
        "glue({0}**2 + 1).log()",
    ),
    "relu": _fn("relu", lambda a: np.maximum(a, 0.0)),
    "sigmoid": _fn("sigmoid", lambda a: 1.0 / (1.0 + np.exp(-a))),
    "tanh": _fn("tanh", np.tanh),
}


def _draw_unary(rng, values):
    n = len(values)
    op = ("sum", "mean", "exp", "log", "relu", "sigmoid", "tanh", "g+", "g*")[int(rng.integers(9))]
    a, b = pick(rng, n), pick(rng, n)
    if op in ("g+", "g*"):
        try:
            np.broadcast_shapes(values[a].shape, values[b].shape)
        except ValueError:
            return None
        return Step(op, (a, b))
    if op in ("sum", "mean"):
        ndim = values[a].ndim
        if ndim == 0:
            return None
        choices = [None, *range(ndim), -1, tuple(range(ndim))]
        axis = choices[int(rng.integers(len(choices)))]
        return Step(op, (a,), (axis, bool(rng.integers(2))))
    return Step(op, (a,))


@clause(c.SUM, c.MEAN, c.AXIS, c.KEEPDIMS, c.EXP, c.LOG, c.RELU, c.SIGMOID, c.TANH, c.ADDS)
@batched("seed", seeds(50), size=10)
def test_unary_random_graph(grade, seed):
    rng = np.random.default_rng(2000 + seed)
    program = random_program(rng, [(3, 4)] * int(rng.integers(1, 3)), UNARY_OPS, _draw_unary, int(rng.integers(3, 14)))
    check_program(grade, program, "the unary ops")


# ------------------------------------------------------------------------------ generated cases
# The input space of each contract, walked systematically (itertools over the dimensions below):
# every rank, every axis of every rank (negatives and tuples in any order included), keepdims both
# ways, size-1 axes in every position, and the edge values where torch's value and gradient are
# finite. Deterministic: the values below are fixed, the random ones come from the case's own rng.


def _shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def _axis_id(axis):
    return str(axis).replace(" ", "")


REDUCE_SHAPES = [(), (1,), (3,), (1, 4), (3, 1), (2, 1, 3), (1, 3, 1, 2), (2, 3, 1, 4)]


def _axis_choices(ndim):
    """None, every int axis (each negative one too), and tuples: pairs (every other one negative
    and unsorted), a one-element tuple, every axis at once in mixed signs, and for 4-D a triple."""
    if ndim == 0:
        return [None]
    pairs = [(a, b) if i % 2 == 0 else (b - ndim, a) for i, (a, b) in enumerate(itertools.combinations(range(ndim), 2))]
    every = [tuple(a - ndim if a % 2 else a for a in reversed(range(ndim)))] if ndim >= 2 else []
    triple = [(0, -1, 1)] if ndim == 4 else []
    return [None, *range(-ndim, ndim), *pairs, (-1,), *every, *triple]


REDUCE_CASES = [
    pytest.param(shape, axis, keepdims, id=f"{_shape_id(shape)}-axis={_axis_id(axis)}{'-keepdims' if keepdims else ''}")
    for shape in REDUCE_SHAPES
    for axis in _axis_choices(len(shape))
    for keepdims in (False, True)
]


@clause(c.SUM, c.AXIS, c.KEEPDIMS)
@batched(("shape", "axis", "keepdims"), REDUCE_CASES)
def test_op_sum_generated(grade, shape, axis, keepdims):
    _check_reduce(grade, "sum", shape, axis, keepdims)


@clause(c.MEAN, c.AXIS, c.KEEPDIMS)
@batched(("shape", "axis", "keepdims"), REDUCE_CASES)
def test_op_mean_generated(grade, shape, axis, keepdims):
    _check_reduce(grade, "mean", shape, axis, keepdims)


RANK_SHAPES = [(), (4,), (2, 3), (2, 1, 3)]
EDGE_VALUES = {
    # Where the function is defined and torch's value and gradient are finite: 0, tiny, small,
    # moderate, and magnitudes up to 1000 (exp: up to where e ** x is finite in float64).
    "exp": [0.0, 1e-300, -1e-300, 1e-8, -1e-8, 1.0, -1.0, 30.0, -30.0, 700.0, -700.0, -1000.0],
    "log": [1e-300, 1e-8, 0.5, 1.0, 2.0, 1000.0, 1e300],
    "relu": [0.0, -0.0, 1e-300, -1e-300, 1e-8, -1e-8, 1.0, -1.0, 1000.0, -1000.0],
    "sigmoid": [0.0, 1e-300, -1e-300, 1e-8, -1e-8, 1.0, -1.0, 30.0, -30.0, 1000.0, -1000.0],
    "tanh": [0.0, 1e-300, -1e-300, 1e-8, -1e-8, 1.0, -1.0, 20.0, -20.0, 1000.0, -1000.0],
}
INT_VALUES = {
    "exp": [[-2, -1, 0], [1, 2, 3]],
    "log": [[1, 2, 3], [4, 5, 1000]],
    "relu": [[-2, -1, 0], [1, 2, 1000]],
    "sigmoid": [[-1000, -1, 0], [1, 2, 1000]],
    "tanh": [[-1000, -1, 0], [1, 2, 1000]],
}
ELEMENTWISE_CLAUSES = {"exp": [c.EXP], "log": [c.LOG], "relu": [c.RELU], "sigmoid": [c.SIGMOID], "tanh": [c.TANH]}


def _random_input(name, rng, shape):
    x = rng.standard_normal(shape)
    return np.abs(x) + 0.1 if name == "log" else 3.0 * x


def _smooth(name, x):
    """Whether central differences (``--oracle fd``, step 1e-6) can stand in for torch at ``x``:
    not at or within a step of relu's kink or log's pole, nor for exp where one huge element
    drowns the others' differences; there the recorded answer is taken."""
    x = np.asarray(x, dtype=np.float64)
    if name == "relu":
        return bool((np.abs(x) >= 1e-3).all())
    if name == "log":
        return bool((x >= 1e-3).all())
    if name == "exp":
        return x.size == 1 or bool(x.max() < 30.0)
    return True


def _value_marks(name, values):
    marks = list(ELEMENTWISE_CLAUSES[name])
    values = np.asarray(values, dtype=np.float64)
    if name == "relu" and (values == 0.0).any():
        marks.append(c.RELU_AT_ZERO)
    if name == "sigmoid" and (np.abs(values) >= 1000.0).any():
        marks.append(c.SIGMOID_STABLE)
    return clause(*marks)


def _elementwise_cases(name):
    """Random inputs of ranks 0 to 3; each edge value alone (0-d); all edge values at once, as
    1-D, 2-D and 3-D arrays."""
    cases = [
        pytest.param(shape, None, id=f"random-{_shape_id(shape)}", marks=clause(*ELEMENTWISE_CLAUSES[name]))
        for shape in RANK_SHAPES
    ]
    edges = EDGE_VALUES[name]
    cases += [pytest.param((), np.array(v), id=f"x={v:g}", marks=_value_marks(name, v)) for v in edges]
    for shape in [(len(edges),), (3, 4), (2, 3, 2)]:
        x = np.resize(np.array(edges), shape)
        cases.append(pytest.param(shape, x, id=f"edges-{_shape_id(shape)}", marks=_value_marks(name, x)))
    return cases


def _check_elementwise(grade, name, shape, x):
    if x is None:
        x = _random_input(name, grade.rng, shape)
    hint = "relu's gradient at exactly 0 is 0, as torch's: use x > 0" if name == "relu" else None
    grade.vjp(f"Tensor.{name}", lambda t: getattr(t, name)(), [x], hint=hint, smooth=_smooth(name, x))


def _elementwise_test(name):
    """``test_op_<name>_generated``: Tensor.<name> on every case of ``_elementwise_cases(name)``, in
    batches. One test per op, under its own name, so that ``-k op_<name>`` selects its cases too."""

    def test(grade, shape, x):
        _check_elementwise(grade, name, shape, x)

    test.__name__ = test.__qualname__ = f"test_op_{name}_generated"
    return batched(("shape", "x"), _elementwise_cases(name))(test)


test_op_exp_generated = _elementwise_test("exp")
test_op_log_generated = _elementwise_test("log")
test_op_relu_generated = _elementwise_test("relu")
test_op_sigmoid_generated = _elementwise_test("sigmoid")
test_op_tanh_generated = _elementwise_test("tanh")


def _vjp_of_ints(grade, symbol, ours, x, theirs=None, smooth=True):
    """``grade.vjp`` for one leaf built from the integer array ``x`` itself (torch gets its float64
    copy, since an integer tensor has no gradient in torch)."""
    answer = grade.oracle.vjp(
        theirs or ours,
        [x.astype(np.float64)],
        cotangent=grade.rng.standard_normal,
        forward=grade.reference_forward(ours) if smooth else None,
    )
    leaf = grade.leaf(x, symbol)
    before = [np.array(leaf.data, copy=True)]
    with grade.running(symbol):
        out = ours(leaf)
    grade.check_tensor(symbol, out)
    grade.expect(symbol, "the value", out.data, answer.out)
    grade.check_intact(symbol, "a", [leaf], before, "the op")
    grade.run_backward(symbol, out, answer.cotangent)
    grade.check_intact(symbol, "a", [leaf], before, "backward")
    grade.expect(symbol, "a.grad", leaf.grad, answer.grads[0], out_shape=answer.out.shape)
    grade.check_grad(symbol, "a", leaf, [leaf])


INT_CASES = [
    pytest.param(name, dtype, id=f"{name}-{np.dtype(dtype).name}", marks=_value_marks(name, INT_VALUES[name]))
    for name, dtype in itertools.product(INT_VALUES, (np.int64, np.int32))
]


@batched(("name", "dtype"), INT_CASES)
def test_op_elementwise_of_ints(grade, name, dtype):
    """A leaf whose data is an integer array: the op sees the float64 copy the constructor made."""
    x = np.array(INT_VALUES[name], dtype=dtype)
    _vjp_of_ints(grade, f"Tensor.{name}", lambda t: getattr(t, name)(), x, smooth=_smooth(name, x))


INT_REDUCE_CASES = [
    pytest.param(
        method,
        dtype,
        axis,
        id=f"{method}-{np.dtype(dtype).name}-axis={_axis_id(axis)}",
        marks=clause(c.SUM if method == "sum" else c.MEAN, c.AXIS),
    )
    for method, dtype, axis in itertools.product(("sum", "mean"), (np.int64, np.int32), (None, 0, (-1, 0)))
]


@batched(("method", "dtype", "axis"), INT_REDUCE_CASES)
def test_op_reduce_of_ints(grade, method, dtype, axis):
    """The sum and the mean of a leaf whose data is an integer array (the mean is not rounded)."""
    x = np.array([[1, 2, 4], [-3, 0, 7]], dtype=dtype)
    _vjp_of_ints(
        grade,
        f"Tensor.{method}",
        lambda t: getattr(t, method)(axis=axis),
        x,
        theirs=_torch_reduce(method, axis, False),
    )
