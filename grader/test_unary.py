"""Tensor.sum, mean, exp, log, relu, sigmoid and tanh: values and VJPs."""

import numpy as np
import pytest

from grader import contract as c
from grader.contract import clause
from grader.graphs import Glue, Op, Step, check_program, pick, random_program

pytestmark = pytest.mark.unary

AXES = [None, 0, 1, -1, (0, 1), (0, 2), (-1, 0)]
REDUCTIONS = [
    pytest.param(axis, keepdims, id=f"axis={axis}{'-keepdims' if keepdims else ''}".replace(" ", ""))
    for axis in AXES
    for keepdims in (False, True)
]


def _torch_dims(axis):
    return tuple(range(3)) if axis is None else axis


@clause(c.SUM, c.AXIS, c.KEEPDIMS)
@pytest.mark.parametrize(("axis", "keepdims"), REDUCTIONS)
def test_op_sum(grade, axis, keepdims):
    grade.vjp(
        "Tensor.sum",
        lambda x: x.sum(axis=axis, keepdims=keepdims),
        [(2, 3, 4)],
        theirs=lambda x: x.sum(dim=_torch_dims(axis), keepdim=keepdims),
    )


@clause(c.MEAN, c.AXIS, c.KEEPDIMS)
@pytest.mark.parametrize(("axis", "keepdims"), REDUCTIONS)
def test_op_mean(grade, axis, keepdims):
    grade.vjp(
        "Tensor.mean",
        lambda x: x.mean(axis=axis, keepdims=keepdims),
        [(2, 3, 4)],
        theirs=lambda x: x.mean(dim=_torch_dims(axis), keepdim=keepdims),
    )


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
@pytest.mark.parametrize("first", [pytest.param(True, id="op-first"), pytest.param(False, id="op-second")])
@pytest.mark.parametrize("op", list(SHARED))
def test_op_shared_input(grade, op, first):
    """x feeds the op and a glue sin: the op's closure must add into x.grad, not overwrite it."""
    ours_op, torch_op = SHARED[op]
    glue = Glue(grade)

    def ours(x):
        y, s = ours_op(x), glue.sin(x)
        return glue.add(y, s) if first else glue.add(s, y)

    x = np.abs(grade.rng.standard_normal((2, 3))) + 0.1
    grade.vjp(
        f"Tensor.{op}",
        ours,
        [x],
        theirs=lambda t: (torch_op or ours_op)(t) + t.sin(),
        hint="a closure adds into its parent's .grad (+=): x also gets a gradient through another path",
    )


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
@pytest.mark.parametrize("seed", range(50))
def test_unary_random_graph(grade, seed):
    rng = np.random.default_rng(2000 + seed)
    program = random_program(rng, [(3, 4)] * int(rng.integers(1, 3)), UNARY_OPS, _draw_unary, int(rng.integers(3, 14)))
    check_program(grade, program, "the unary ops")
