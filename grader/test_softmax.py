"""Tensor.log_softmax, softmax, reshape and transpose: values and VJPs."""

import itertools

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched, seeds
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import check_beside_sin, check_program, each_op_both_orders
from autograd_drill.grader.programs import Op, Step, pick, random_program

pytestmark = [pytest.mark.softmax, clause(c.INTACT)]  # every test checks the invariant (grade.vjp)

SOFTMAX_CASES = [
    pytest.param((3, 4), -1, 1.0, id="2d-axis-1"),
    pytest.param((3, 4), 0, 1.0, id="2d-axis0"),
    pytest.param((2, 3, 4), 1, 1.0, id="3d-axis1"),
    pytest.param((2, 3, 4), -1, 1.0, id="3d-axis-1"),
    pytest.param((3, 4), -1, 1000.0, id="logits-1000-axis-1", marks=clause(c.STABLE)),
    pytest.param((3, 4), 0, 1000.0, id="logits-1000-axis0", marks=clause(c.STABLE)),
    pytest.param((5,), -1, 1.0, id="1d"),
]


def _check_along_axis(grade, method, shape, axis, scale, offset=0.0):
    """``x.<method>(axis=axis)``, softmax or log_softmax, against torch's: random logits of magnitude
    ``scale`` around ``offset``."""
    x = offset + scale * grade.rng.standard_normal(shape)
    grade.vjp(
        f"Tensor.{method}",
        lambda t: getattr(t, method)(axis=axis),
        [x],
        theirs=lambda t: getattr(t, method)(dim=axis),
    )


@clause(c.SOFTMAX)
@pytest.mark.parametrize(("shape", "axis", "scale"), SOFTMAX_CASES)
def test_op_softmax(grade, shape, axis, scale):
    _check_along_axis(grade, "softmax", shape, axis, scale)


@clause(c.LOG_SOFTMAX)
@pytest.mark.parametrize(("shape", "axis", "scale"), SOFTMAX_CASES)
def test_op_log_softmax(grade, shape, axis, scale):
    _check_along_axis(grade, "log_softmax", shape, axis, scale)


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


# Each op with the shape of its input, so that a glue path of the same input can be added to it.
SHARED = {
    "softmax": (lambda t: t.softmax(axis=-1), lambda t: t.softmax(dim=-1)),
    "log_softmax": (lambda t: t.log_softmax(axis=-1), lambda t: t.log_softmax(dim=-1)),
    "reshape": (lambda t: t.reshape(6).reshape(2, 3), lambda t: t.reshape(6).reshape(2, 3)),
    "transpose": (lambda t: t.transpose(1, 0).transpose(1, 0), lambda t: t.permute(1, 0).permute(1, 0)),
}


@clause(c.ADDS)
@each_op_both_orders(SHARED)
def test_op_shared_input(grade, op, first):
    """x feeds the op and a glue sin: the op's closure must add into x.grad, not overwrite it."""
    ours_op, torch_op = SHARED[op]
    check_beside_sin(grade, f"Tensor.{op}", ours_op, torch_op, (2, 3), first)


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
    from autograd_drill.grader.check import torch_const

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
@batched("seed", seeds(40), size=10)
def test_softmax_random_graph(grade, seed):
    rng = np.random.default_rng(3000 + seed)
    program = random_program(
        rng, [(2, 3, 4)] * int(rng.integers(1, 3)), SOFTMAX_OPS, _draw_softmax, int(rng.integers(2, 10))
    )
    check_program(grade, program, "the softmax ops")


# ------------------------------------------------------------------------------ generated cases
# The input space of each contract, walked systematically (itertools over the dimensions below).
# Deterministic: the arguments are fixed, the values come from the case's own rng.


def _shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def _args_id(args):
    return ",".join(str(a) for a in args).replace(" ", "")


# Softmax's axis: every non-negative axis and -1 ("the last axis"), ranks 1 to 4, size-1 axes
# included; logits of scale 1 and of magnitude 1000.
SOFTMAX_SHAPES = [(5,), (1,), (3, 4), (1, 4), (3, 1), (2, 1, 3), (2, 3, 1, 2)]
SCALES = {"": 1.0, "-logits1000": 1000.0}
OFFSETS = {"plus1000": 1000.0, "minus1000": -1000.0}


def _softmax_cases(method):
    own = c.SOFTMAX if method == "softmax" else c.LOG_SOFTMAX
    cases = [
        pytest.param(
            shape,
            axis,
            scale,
            0.0,
            id=f"{_shape_id(shape)}-axis={axis}{suffix}",
            marks=clause(
                own,
                *([c.DEFAULT_AXIS] if axis == -1 else []),
                *([c.SOFTMAX_AXIS] if axis < 0 else []),
                *([c.STABLE] if scale > 1 else []),
            ),
        )
        for shape in SOFTMAX_SHAPES
        for axis in range(-len(shape), len(shape))
        for suffix, scale in SCALES.items()
    ]
    cases += [  # every logit near +-1000: exp overflows, or underflows to 0 / 0, unless shifted by the max
        pytest.param((3, 4), axis, 1.0, offset, id=f"3x4-axis={axis}-{name}", marks=clause(own, c.STABLE))
        for axis in (0, 1)
        for name, offset in OFFSETS.items()
    ]
    return cases


@batched(("shape", "axis", "scale", "offset"), _softmax_cases("softmax"))
def test_op_softmax_generated(grade, shape, axis, scale, offset):
    _check_along_axis(grade, "softmax", shape, axis, scale, offset)


@batched(("shape", "axis", "scale", "offset"), _softmax_cases("log_softmax"))
def test_op_log_softmax_generated(grade, shape, axis, scale, offset):
    _check_along_axis(grade, "log_softmax", shape, axis, scale, offset)


DEFAULT_CASES = [
    pytest.param(
        method,
        shape,
        scale,
        id=f"{method}-{_shape_id(shape)}{suffix}",
        marks=clause(
            c.SOFTMAX if method == "softmax" else c.LOG_SOFTMAX, c.DEFAULT_AXIS, *([c.STABLE] if scale > 1 else [])
        ),
    )
    for method in ("softmax", "log_softmax")
    for shape in [(5,), (3, 4), (2, 3, 4)]
    for suffix, scale in SCALES.items()
]


@batched(("method", "shape", "scale"), DEFAULT_CASES)
def test_op_softmax_default_axis_generated(grade, method, shape, scale):
    x = scale * grade.rng.standard_normal(shape)
    grade.vjp(f"Tensor.{method}", lambda t: getattr(t, method)(), [x], theirs=lambda t: getattr(t, method)(dim=-1))


# Reshape: ranks 0 to 4 on both sides, to and from 0-d; each new shape as separate ints and as a
# tuple, and with -1 in each position (as separate ints and as a tuple in turn). A 0-d target is
# only a tuple, ``reshape(())``: with no argument at all the call names no shape.
RESHAPES = {
    (): [(), (1,), (1, 1), (1, 1, 1, 1)],
    (1,): [(), (1, 1)],
    (1, 1): [(), (1,)],
    (6,): [(2, 3), (3, 1, 2)],
    (2, 3): [(6,), (3, 2), (1, 2, 3, 1)],
    (2, 3, 4): [(24,), (6, 4), (4, 3, 2), (2, 2, 3, 2)],
    (2, 1, 3, 2): [(12,), (3, 4), (2, 3, 2), (1, 12, 1)],
}


def _reshape_cases():
    cases = []
    for source, targets in RESHAPES.items():
        for target in targets:
            name = f"{_shape_id(source)}-to-{_shape_id(target)}"
            if target:
                cases.append(pytest.param(source, target, target, id=f"{name}-ints", marks=clause(c.RESHAPE)))
            cases.append(pytest.param(source, (target,), target, id=f"{name}-tuple", marks=clause(c.RESHAPE)))
            for i in range(len(target)):
                shape = target[:i] + (-1,) + target[i + 1 :]
                args = shape if i % 2 == 0 else (shape,)
                form = "ints" if i % 2 == 0 else "tuple"
                cases.append(
                    pytest.param(
                        source,
                        args,
                        target,
                        id=f"{name}-minus1-at{i}-{form}",
                        marks=clause(c.RESHAPE, c.RESHAPE_MINUS_ONE),
                    )
                )
    return cases


@batched(("source", "args", "target"), _reshape_cases())
def test_op_reshape_generated(grade, source, args, target):
    grade.vjp("Tensor.reshape", lambda t: t.reshape(*args), [source], theirs=lambda t: t.reshape(target))


# Transpose: every permutation of a 3-D input, with a negative axis in each position and all
# negative; every third permutation of a 4-D input, plain and in mixed signs; every sign pattern
# of ranks 1 and 2; and no axes (all reversed) on ranks 1 to 4, as ``transpose()`` and as ``.T``.
TRANSPOSE_SHAPES = {1: (3,), 2: (2, 3), 3: (2, 3, 4), 4: (2, 3, 4, 5)}


def _signed(perm, negative):
    n = len(perm)
    return tuple(a - n if i in negative else a for i, a in enumerate(perm))


def _transpose_cases():
    patterns = []
    for n in (1, 2):  # every sign pattern
        for perm in itertools.permutations(range(n)):
            for k in range(n + 1):
                patterns += [(perm, set(neg)) for neg in itertools.combinations(range(n), k)]
    for perm in itertools.permutations(range(3)):  # positive, one negative in each position, all negative
        patterns += [(perm, set()), *[(perm, {i}) for i in range(3)], (perm, {0, 1, 2})]
    for perm in list(itertools.permutations(range(4)))[::3]:
        patterns += [(perm, set()), (perm, {1, 3})]
    cases = []
    for perm, negative in patterns:
        args = _signed(perm, negative)
        marks = clause(c.TRANSPOSE, *([c.NEGATIVE_AXES] if negative else []))
        cases.append(pytest.param(args, perm, id=f"{len(perm)}d-{_args_id(args)}", marks=marks))
    for n in TRANSPOSE_SHAPES:
        reverse = tuple(reversed(range(n)))
        cases.append(pytest.param((), reverse, id=f"{n}d-no-axes", marks=clause(c.NO_AXES)))
        cases.append(pytest.param(None, reverse, id=f"{n}d-T", marks=clause(c.NO_AXES)))
    return cases


@batched(("args", "perm"), _transpose_cases())
def test_op_transpose_generated(grade, args, perm):
    hint = _negative_hint(args, perm) if args and any(a < 0 for a in args) else None
    if args is not None and perm != tuple(int(i) for i in np.argsort(perm)):  # not its own inverse
        hint = hint or CYCLE_HINT
    grade.vjp(
        "Tensor.transpose",
        (lambda t: t.T) if args is None else (lambda t: t.transpose(*args)),
        [TRANSPOSE_SHAPES[len(perm)]],
        theirs=lambda t: t.permute(perm),
        hint=hint,
    )
