"""Tensor.log_softmax, softmax, reshape and transpose: values and VJPs."""

import numpy as np
import pytest

from grader import contract as c
from grader.contract import clause
from grader.graphs import Op, Step, check_program, pick, random_program

pytestmark = pytest.mark.softmax

SOFTMAX_CASES = [
    pytest.param((3, 4), -1, 1.0, id="2d-axis-1"),
    pytest.param((3, 4), 0, 1.0, id="2d-axis0"),
    pytest.param((2, 3, 4), 1, 1.0, id="3d-axis1"),
    pytest.param((2, 3, 4), -1, 1.0, id="3d-axis-1"),
    pytest.param((3, 4), -1, 1000.0, id="logits-1000-axis-1", marks=clause(c.STABLE)),
    pytest.param((3, 4), 0, 1000.0, id="logits-1000-axis0", marks=clause(c.STABLE)),
    pytest.param((5,), -1, 1.0, id="1d"),
]
STABLE = "subtract the max along the axis before exp: exp(1000) overflows"


@clause(c.SOFTMAX)
@pytest.mark.parametrize(("shape", "axis", "scale"), SOFTMAX_CASES)
def test_op_softmax(grade, shape, axis, scale):
    x = scale * grade.rng.standard_normal(shape)
    grade.vjp(
        "Tensor.softmax",
        lambda t: t.softmax(axis=axis),
        [x],
        theirs=lambda t: t.softmax(dim=axis),
        hint=STABLE if scale > 1 else None,
    )


@clause(c.LOG_SOFTMAX)
@pytest.mark.parametrize(("shape", "axis", "scale"), SOFTMAX_CASES)
def test_op_log_softmax(grade, shape, axis, scale):
    x = scale * grade.rng.standard_normal(shape)
    grade.vjp(
        "Tensor.log_softmax",
        lambda t: t.log_softmax(axis=axis),
        [x],
        theirs=lambda t: t.log_softmax(dim=axis),
        hint=STABLE if scale > 1 else None,
    )


@clause(c.SOFTMAX, c.DEFAULT_AXIS)
def test_op_softmax_default_axis(grade):
    grade.vjp("Tensor.softmax", lambda t: t.softmax(), [(3, 4)], theirs=lambda t: t.softmax(dim=-1))


@clause(c.LOG_SOFTMAX, c.DEFAULT_AXIS)
def test_op_log_softmax_default_axis(grade):
    grade.vjp("Tensor.log_softmax", lambda t: t.log_softmax(), [(3, 4)], theirs=lambda t: t.log_softmax(dim=-1))


@clause(c.RESHAPE)
@pytest.mark.parametrize(
    "args",
    [
        pytest.param((6, 4), id="6-4"),
        pytest.param((-1,), id="flatten-minus-1", marks=clause(c.RESHAPE_MINUS_ONE)),
        pytest.param(((4, 6),), id="tuple"),
        pytest.param((2, -1), id="2-minus-1", marks=clause(c.RESHAPE_MINUS_ONE)),
        pytest.param(((3, 2, -1),), id="tuple-minus-1", marks=clause(c.RESHAPE_MINUS_ONE)),
        pytest.param((4, 3, 2), id="reorder-sizes"),
    ],
)
def test_op_reshape(grade, args):
    torch_shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
    grade.vjp("Tensor.reshape", lambda t: t.reshape(*args), [(2, 3, 4)], theirs=lambda t: t.reshape(torch_shape))


CYCLE_HINT = "transpose's VJP applies the inverse permutation, np.argsort(axes): a 3-cycle is not its own inverse"


def _negative_hint(args, perm):
    """The hint for negative axes: what the inverse is, and what argsort of the raw axes gives instead."""
    inverse = tuple(int(i) for i in np.argsort(perm))
    raw = tuple(int(i) for i in np.argsort(args))
    return (
        f"turn negative axes positive first (axis % ndim): transpose{args} is the permutation {perm}, whose "
        f"inverse is np.argsort({perm}) = {inverse}; np.argsort({args}) is {raw}"
    )


@clause(c.TRANSPOSE)
@pytest.mark.parametrize(
    ("args", "perm", "hint"),
    [
        pytest.param((1, 2, 0), (1, 2, 0), CYCLE_HINT, id="3-cycle"),
        pytest.param((2, 0, 1), (2, 0, 1), CYCLE_HINT, id="3-cycle-other"),
        pytest.param((0, 2, 1), (0, 2, 1), None, id="swap-last-two"),
        pytest.param((), (2, 1, 0), None, id="no-axes-reverses", marks=clause(c.NO_AXES)),
        pytest.param(
            (-1, 0, 1),
            (2, 0, 1),
            _negative_hint((-1, 0, 1), (2, 0, 1)),
            id="negative-axes",
            marks=clause(c.NEGATIVE_AXES),
        ),
        pytest.param(
            (0, -1, -2),
            (0, 2, 1),
            _negative_hint((0, -1, -2), (0, 2, 1)),
            id="negative-swap",
            marks=clause(c.NEGATIVE_AXES),
        ),
    ],
)
def test_op_transpose(grade, args, perm, hint):
    grade.vjp(
        "Tensor.transpose",
        lambda t: t.transpose(*args),
        [(2, 3, 4)],
        theirs=lambda t: t.permute(perm),
        hint=hint,
    )


@clause(c.NO_AXES)
def test_op_transpose_T(grade):  # noqa: N802
    grade.vjp("Tensor.transpose", lambda t: t.T, [(2, 3)], theirs=lambda t: t.permute(1, 0))


# ------------------------------------------------------------------------------ random graphs
# Reshapes and transposes come in sandwiches that return to (2, 3, 4), with a glue op inside.


def _sandwich_reshape(shape):
    return Op(
        1,
        lambda G, a, p: G.scale(a.reshape(shape), p).reshape(2, 3, 4),
        lambda a, p: (a.reshape(shape) * _const(p)).reshape(2, 3, 4),
        lambda a, p: (a.reshape(shape) * p).reshape(2, 3, 4),
        f"(glue_scale({{0}}.reshape{shape})).reshape(2, 3, 4)",
    )


def _sandwich_transpose(perm):
    inverse = tuple(int(i) for i in np.argsort(perm))
    return Op(
        1,
        lambda G, a, p: G.scale(a.transpose(*perm), p).transpose(*inverse),
        lambda a, p: (a.permute(perm) * _const(p)).permute(inverse),
        lambda a, p: (a.transpose(perm) * p).transpose(inverse),
        f"glue_scale({{0}}.transpose{perm}).transpose{inverse}",
    )


def _const(c):
    from grader.check import torch_const

    return torch_const(c)


SOFTMAX_OPS = {
    "softmax": Op(
        1,
        lambda G, a, p: a.softmax(axis=p),
        lambda a, p: a.softmax(dim=p),
        lambda a, p: np.exp(a - a.max(p, keepdims=True)) / np.exp(a - a.max(p, keepdims=True)).sum(p, keepdims=True),
        "{0}.softmax(axis={p})",
    ),
    "log_softmax": Op(
        1,
        lambda G, a, p: a.log_softmax(axis=p),
        lambda a, p: a.log_softmax(dim=p),
        lambda a, p: a - a.max(p, keepdims=True) - np.log(np.exp(a - a.max(p, keepdims=True)).sum(p, keepdims=True)),
        "{0}.log_softmax(axis={p})",
    ),
    "reshape-6x4": _sandwich_reshape((6, 4)),
    "reshape-flat": _sandwich_reshape((-1,)),
    "reshape-4x6": _sandwich_reshape((4, 6)),
    "transpose-120": _sandwich_transpose((1, 2, 0)),
    "transpose-201": _sandwich_transpose((2, 0, 1)),
    "transpose-021": _sandwich_transpose((0, 2, 1)),
}
SANDWICH_SHAPES = {
    "reshape-6x4": (6, 4),
    "reshape-flat": (24,),
    "reshape-4x6": (4, 6),
    "transpose-120": (3, 4, 2),
    "transpose-201": (4, 2, 3),
    "transpose-021": (2, 4, 3),
}


def _draw_softmax(rng, values):
    n = len(values)
    ops = list(SOFTMAX_OPS) + ["g+", "g*", "gsin"]
    op = ops[int(rng.integers(len(ops)))]
    a, b = pick(rng, n), pick(rng, n)
    if op in ("g+", "g*"):
        return Step(op, (a, b))
    if op in ("softmax", "log_softmax"):
        return Step(op, (a,), int(rng.choice([0, 1, 2, -1])))
    if op in SANDWICH_SHAPES:
        return Step(op, (a,), rng.uniform(0.5, 1.5, SANDWICH_SHAPES[op]))
    return Step(op, (a,))


@clause(c.SOFTMAX, c.LOG_SOFTMAX, c.RESHAPE, c.RESHAPE_MINUS_ONE, c.TRANSPOSE, c.ADDS)
@pytest.mark.parametrize("seed", range(40))
def test_softmax_random_graph(grade, seed):
    rng = np.random.default_rng(3000 + seed)
    program = random_program(
        rng, [(2, 3, 4)] * int(rng.integers(1, 3)), SOFTMAX_OPS, _draw_softmax, int(rng.integers(2, 10))
    )
    check_program(grade, program, "the softmax ops")
