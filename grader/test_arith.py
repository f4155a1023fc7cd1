"""Tensor.__add__, __mul__, __pow__ and __matmul__: values and VJPs, with broadcasting.

Each check runs the op's closures with the grader's own backward pass (check.Grading.vjp),
so the verdict does not depend on the user's Tensor.backward.
"""

import itertools

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader import reflected
from autograd_drill.grader.batch import batched, seeds
from autograd_drill.grader.check import torch_const
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import check_program, check_shared_input, each_op_both_orders
from autograd_drill.grader.programs import Op, Step, pick, random_program

pytestmark = [pytest.mark.arith, clause(c.INTACT)]  # every test checks the invariant (grade.vjp)

BROADCAST = [
    pytest.param((2, 3), (2, 3), id="same-shape"),
    pytest.param((2, 3), (3,), id="prepended-right"),
    pytest.param((3,), (2, 3), id="prepended-left"),
    pytest.param((2, 3), (1, 3), id="stretched-row"),
    pytest.param((2, 3), (2, 1), id="stretched-col"),
    pytest.param((2, 1), (1, 3), id="outer"),
    pytest.param((4, 2, 3), (2, 1), id="prepended-and-stretched"),
    pytest.param((2, 3), (), id="0d-right"),
    pytest.param((), (2, 3), id="0d-left"),
    pytest.param((), (), id="0d-both"),
]


@clause(c.BROADCASTING, c.ADDS)
@pytest.mark.parametrize(("a", "b"), BROADCAST)
def test_op_add(grade, a, b):
    grade.vjp("Tensor.__add__", lambda x, y: x + y, [a, b])


@clause(c.BROADCASTING, c.ADDS)
@pytest.mark.parametrize(("a", "b"), BROADCAST)
def test_op_mul(grade, a, b):
    grade.vjp("Tensor.__mul__", lambda x, y: x * y, [a, b])


C = np.array([0.5, -1.5, 2.0])


def _left(case):
    """What a case has on the left of its operator, by its id (``ndarray-over``, ``number-minus-tensor``);
    ``ndarray`` and ``2 /`` are graded only where the file supports them (grader/reflected.py)."""
    return next((kind for kind in ("ndarray", "number") if case.startswith(kind)), "tensor")


@clause(c.OPERANDS, c.BROADCASTING, c.REFLECTED)
@pytest.mark.parametrize(
    ("symbol", "ours", "theirs"),
    [
        pytest.param("Tensor.__add__", lambda x: x + 2.5, None, id="tensor-plus-number"),
        pytest.param("Tensor.__add__", lambda x: 2.5 + x, None, id="number-plus-tensor"),
        pytest.param("Tensor.__add__", lambda x: x + C, lambda x: x + torch_const(C), id="tensor-plus-ndarray"),
        pytest.param("Tensor.__add__", lambda x: C + x, lambda x: torch_const(C) + x, id="ndarray-plus-tensor"),
        pytest.param("Tensor.__mul__", lambda x: x * -3.0, None, id="tensor-times-number"),
        pytest.param("Tensor.__mul__", lambda x: -3.0 * x, None, id="number-times-tensor"),
        pytest.param("Tensor.__mul__", lambda x: x * C, lambda x: x * torch_const(C), id="tensor-times-ndarray"),
        pytest.param("Tensor.__mul__", lambda x: C * x, lambda x: torch_const(C) * x, id="ndarray-times-tensor"),
    ],
)
def test_op_add_mul_constants(grade, symbol, ours, theirs):
    if reflected.graded(grade.Tensor, _left(grade.case), "+" if symbol == "Tensor.__add__" else "*"):
        grade.vjp(symbol, ours, [(2, 3)], theirs=theirs)


@pytest.mark.parametrize(
    ("symbol", "ours", "theirs", "shapes"),
    [
        pytest.param(
            "Tensor.__add__", lambda x, y: x - y, None, [(2, 3), (3,)], id="sub-broadcast", marks=clause(c.SUB, c.NEG)
        ),
        pytest.param(
            "Tensor.__add__",
            lambda x: 1.0 - x,
            None,
            [(2, 3)],
            id="number-minus-tensor",
            marks=clause(c.SUB, c.OPERANDS),
        ),
        pytest.param(
            "Tensor.__add__",
            lambda x: C - x,
            lambda x: torch_const(C) - x,
            [(2, 3)],
            id="ndarray-minus",
            marks=clause(c.SUB, c.OPERANDS, c.REFLECTED),
        ),
        pytest.param("Tensor.__mul__", lambda x: -x, None, [(2, 3)], id="neg", marks=clause(c.NEG)),
        pytest.param(
            "Tensor.__mul__", lambda x, y: x * y * x, None, [(3,), (2, 3)], id="mul-chain-shared", marks=clause(c.ADDS)
        ),
    ],
)
def test_op_derived(grade, symbol, ours, theirs, shapes):
    if reflected.graded(grade.Tensor, _left(grade.case), "-"):
        grade.vjp(symbol, ours, shapes, theirs=theirs)


@clause(c.DIV, c.POW_EXPONENTS, c.OPERANDS, c.REFLECTED)
@pytest.mark.parametrize(
    ("shapes", "ours", "theirs"),
    [
        pytest.param([(2, 3), (3,)], lambda x, y: x / (y * y + 1.0), None, id="div-broadcast"),
        pytest.param([(2, 3)], lambda x: 2.0 / (x * x + 1.0), None, id="number-over-tensor"),
        pytest.param([(2, 3)], lambda x: x / 4.0, None, id="tensor-over-number"),
        pytest.param(
            [(2, 3)], lambda x: C / (x * x + 1.0), lambda x: torch_const(C) / (x * x + 1.0), id="ndarray-over"
        ),
    ],
)
def test_op_div(grade, shapes, ours, theirs):
    if reflected.graded(grade.Tensor, _left(grade.case), "/"):
        grade.vjp("Tensor.__pow__", ours, shapes, theirs=theirs)


@clause(c.POW, c.POW_EXPONENTS)
@pytest.mark.parametrize(
    ("exponent", "positive"),
    [
        pytest.param(2, False, id="square"),
        pytest.param(3, False, id="cube"),
        pytest.param(1, False, id="one"),
        pytest.param(0, False, id="zero"),
        pytest.param(-1, False, id="reciprocal"),
        pytest.param(0.5, True, id="sqrt"),
        pytest.param(1.5, True, id="three-halves"),
        pytest.param(-2.5, True, id="negative-fraction"),
    ],
)
def test_op_pow(grade, exponent, positive):
    x = grade.rng.standard_normal((2, 3))
    x = np.abs(x) + 0.5 if positive else np.where(np.abs(x) < 0.2, 0.5, x)
    grade.vjp("Tensor.__pow__", lambda t: t**exponent, [x])


@clause(c.MATMUL)
@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param((2, 3), (3, 4), id="2x3-3x4"),
        pytest.param((4, 3), (3, 2), id="4x3-3x2"),
        pytest.param((1, 5), (5, 1), id="row-col"),
        pytest.param((3, 3), (3, 3), id="square"),
    ],
)
def test_op_matmul(grade, a, b):
    grade.vjp("Tensor.__matmul__", lambda x, y: x @ y, [a, b])


@clause(c.MATMUL, c.BATCHED, c.SHARED_WEIGHT)
@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param((5, 2, 3), (3, 4), id="shared-weight"),
        pytest.param((2, 3), (5, 3, 4), id="shared-left"),
        pytest.param((5, 2, 3), (5, 3, 4), id="same-batch"),
        pytest.param((2, 1, 2, 3), (4, 3, 2), id="broadcast-batch-axes"),
        pytest.param((1, 2, 3), (3, 3, 2), id="stretched-batch-axis"),
        pytest.param((2, 3, 4, 5), (5, 2), id="two-batch-axes-shared"),
    ],
)
def test_batched_matmul(grade, a, b):
    grade.vjp("Tensor.__matmul__", lambda x, y: x @ y, [a, b])


SHARED = {
    "__add__": (lambda x, y: x + y, [(2, 3), (3,)]),
    "__mul__": (lambda x, y: x * y, [(2, 3), (3,)]),
    "__pow__": (lambda x, y: x**2 * y, [(2, 3), (3,)]),
    "__matmul__": (lambda x, y: x @ y, [(2, 3), (3, 4)]),
}


@clause(c.ADDS)
@each_op_both_orders(SHARED)
def test_op_shared_input(grade, op, first):
    """x and y also feed a glue sin: the op's closure must add into their .grad, not overwrite it."""
    fn, shapes = SHARED[op]
    check_shared_input(
        grade,
        f"Tensor.{op}",
        lambda G, x, y: G.total(fn(x, y)),
        lambda G, x, y: G.mul(G.total(G.sin(x)), G.total(G.sin(y))),
        shapes,
        theirs=lambda x, y: fn(x, y).sum() + x.sin().sum() * y.sin().sum(),
        hint="a closure adds into its parents' .grad (+=): they also get a gradient through another path",
        first=first,
    )


# ------------------------------------------------------------------------------ random graphs

ARITH_OPS = {
    "+": Op(2, lambda G, a, b, p: a + b, lambda a, b, p: a + b, lambda a, b, p: a + b, "{0} + {1}"),
    "-": Op(2, lambda G, a, b, p: a - b, lambda a, b, p: a - b, lambda a, b, p: a - b, "{0} - {1}"),
    "*": Op(2, lambda G, a, b, p: a * b, lambda a, b, p: a * b, lambda a, b, p: a * b, "{0} * {1}"),
    "/": Op(
        2,
        lambda G, a, b, p: a / G.pos(b),
        lambda a, b, p: a / (b * b + 1.0),
        lambda a, b, p: a / (b * b + 1.0),
        "{0} / glue({1}**2 + 1)",
    ),
    "**": Op(1, lambda G, a, p: a**p, lambda a, p: a**p, lambda a, p: a**p, "{0} ** {p}"),
    "**pos": Op(
        1,
        lambda G, a, p: G.pos(a) ** p,
        lambda a, p: (a * a + 1.0) ** p,
        lambda a, p: (a * a + 1.0) ** p,
        "glue({0}**2 + 1) ** {p}",
    ),
    "+c": Op(1, lambda G, a, p: _const_plus(a, p), lambda a, p: torch_const(p) + a, lambda a, p: p + a, "const + {0}"),
    "*c": Op(1, lambda G, a, p: a * p, lambda a, p: a * torch_const(p), lambda a, p: a * p, "{0} * const"),
    "@": Op(2, lambda G, a, b, p: a @ b, lambda a, b, p: a @ b, lambda a, b, p: a @ b, "{0} @ {1}"),
}


def _const_plus(a, p):
    """``p + a``, the ndarray on the left where the file supports it (grader/reflected.py), else ``a + p``."""
    return p + a if reflected.ungraded(type(a), "ndarray", "+") is None else a + p


def _draw_arith(rng, values):
    n = len(values)
    op = ("+", "-", "*", "/", "**", "**pos", "+c", "*c", "@", "g+", "gsin")[int(rng.integers(11))]
    a, b = pick(rng, n), pick(rng, n)
    try:
        shape = np.broadcast_shapes(values[a].shape, values[b].shape)
    except ValueError:
        return None
    if op == "@":
        w = 1  # leaf 1 is the (4, 4) weight, shared by every matmul
        return Step(op, (a, w)) if values[a].ndim >= 2 and values[a].shape[-1] == 4 and a != w else None
    if op in ("+", "-", "*", "/", "g+"):
        return Step(op, (a, b)) if len(shape) <= 3 else None
    if op == "**":
        return Step(op, (a,), int(rng.choice([2, 3])))
    if op == "**pos":
        return Step(op, (a,), float(rng.choice([0.5, -1.0, 1.5])))
    if op in ("+c", "*c"):
        return Step(op, (a,), rng.uniform(0.5, 1.5, values[a].shape[-1:]))
    return Step(op, (a,))


@clause(c.BROADCASTING, c.OPERANDS, c.SUB, c.DIV, c.POW, c.MATMUL, c.SHARED_WEIGHT, c.ADDS)
@batched("seed", seeds(60), size=10)
def test_arith_random_graph(grade, seed):
    rng = np.random.default_rng(1000 + seed)
    shapes = [(3, 4), (4, 4), (4,), (1, 4), (3, 1), ()][: int(rng.integers(2, 7))]
    program = random_program(rng, shapes, ARITH_OPS, _draw_arith, int(rng.integers(3, 16)))
    check_program(grade, program, "the arith ops")


# ------------------------------------------------------------------------------ generated cases
# Systematic rather than hand-picked: every pair of a set of shapes that covers ranks 0 to 4 and
# size-1 axes in every position; numbers and ndarrays (float and int) on both sides of every binary
# op, the ndarray smaller, equal or larger than the tensor (broadcasting the tensor up); every
# kind of exponent; batched matmuls whose batch axes broadcast either way.

SHAPES = [(), (1,), (3,), (2, 1), (1, 3), (2, 3), (4, 1, 3), (4, 2, 1), (1, 1, 1, 3), (2, 1, 2, 3)]


def _shape_pairs():
    for a, b in itertools.product(SHAPES, repeat=2):
        try:
            out = np.broadcast_shapes(a, b)
        except ValueError:
            continue
        if len(out) <= 4:
            yield pytest.param(a, b, id=f"{a}-{b}".replace(" ", ""))


PAIRS = list(_shape_pairs())


@clause(c.BROADCASTING, c.ADDS)
@pytest.mark.parametrize("op", ["+", "*"])
@batched(("a", "b"), PAIRS)
def test_op_broadcast_generated(grade, op, a, b):
    symbol, fn = {"+": ("Tensor.__add__", lambda x, y: x + y), "*": ("Tensor.__mul__", lambda x, y: x * y)}[op]
    grade.vjp(symbol, fn, [a, b])


@clause(c.BROADCASTING, c.SUB, c.NEG, c.DIV, c.POW_EXPONENTS)
@pytest.mark.parametrize("op", ["-", "/"])
@batched(("a", "b"), PAIRS[::3])
def test_op_derived_generated(grade, op, a, b):
    if op == "-":
        grade.vjp("Tensor.__add__", lambda x, y: x - y, [a, b])
    else:
        denominator = np.abs(grade.rng.standard_normal(b)) + 0.5
        grade.vjp("Tensor.__pow__", lambda x, y: x / y, [grade.rng.standard_normal(a), denominator])


CONSTANTS = {
    "float": lambda rng, shape: 2.5,
    "int": lambda rng, shape: 3,
    "array-same": lambda rng, shape: rng.uniform(0.5, 1.5, shape),
    "array-smaller": lambda rng, shape: rng.uniform(0.5, 1.5, shape[-1:]),
    "array-larger": lambda rng, shape: rng.uniform(0.5, 1.5, (2, *shape)),
    "int-array": lambda rng, shape: np.arange(1, int(np.prod(shape)) + 1).reshape(shape),
}
BINARY = {
    "+": ("Tensor.__add__", lambda x, k: x + k, lambda k, x: k + x),
    "-": ("Tensor.__add__", lambda x, k: x - k, lambda k, x: k - x),
    "*": ("Tensor.__mul__", lambda x, k: x * k, lambda k, x: k * x),
    "/": ("Tensor.__pow__", lambda x, k: x / k, lambda k, x: k / x),
}


def _torch_side(k):
    return torch_const(k) if isinstance(k, np.ndarray) else k


@clause(c.OPERANDS, c.BROADCASTING, c.REFLECTED)
@batched(
    ("side", "kind", "shape"),
    [
        pytest.param(side, kind, shape, id=f"{side}-{kind}-{len(shape)}d")
        for side in ("tensor-first", "constant-first")
        for kind in CONSTANTS
        for shape in [(3,), (2, 3)]
    ],
)
@pytest.mark.parametrize("op", list(BINARY))
def test_op_constant_generated(grade, op, side, kind, shape):
    symbol, right, left = BINARY[op]
    k = CONSTANTS[kind](grade.rng, shape)
    x = grade.rng.standard_normal(shape)
    if op == "/" and side == "constant-first":
        x = np.abs(x) + 0.5  # a denominator away from 0
    fn = right if side == "tensor-first" else left
    constant = "ndarray" if isinstance(k, np.ndarray) else "number"
    if side == "constant-first" and not reflected.graded(grade.Tensor, constant, op):
        # The question the case asks, put to the oracle only: the later cases of the batch then draw
        # the values, and ask the oracle the questions, that they were recorded with.
        grade.oracle.vjp(lambda t: _apply(fn, right, t, k), [x], cotangent=grade.rng.standard_normal)
        return
    before = np.array(k, copy=True)
    grade.vjp(symbol, lambda t: fn(t, k) if fn is right else fn(k, t), [x], theirs=lambda t: _apply(fn, right, t, k))
    grade.expect(symbol, "the constant operand after the op and backward", k, before, source="the original")


def _apply(fn, right, t, k):
    return fn(t, _torch_side(k)) if fn is right else fn(_torch_side(k), t)


@clause(c.POW, c.POW_EXPONENTS)
@batched(
    ("exponent", "shape"),
    [
        pytest.param(e, s, id=f"**{e:.3g}-{s}".replace(" ", ""))
        for e in [0, 1, 2, 3, -1, -2, 0.0, 2.0, 0.5, 1.5, -0.5, -2.5, 1 / 3]
        for s in [(), (3,), (2, 1), (2, 1, 3)]
    ],
)
def test_op_pow_generated(grade, exponent, shape):
    x = grade.rng.standard_normal(shape)
    x = np.abs(x) + 0.5 if isinstance(exponent, float) and not float(exponent).is_integer() else x
    x = np.where(np.abs(x) < 0.3, 0.7, x)  # away from 0, where negative powers blow up
    grade.vjp("Tensor.__pow__", lambda t: t**exponent, [x])


def _matmul_cases():
    for (n, m, p), batch_a, batch_b in itertools.product(
        [(2, 3, 4), (1, 3, 1), (3, 1, 2)], [(), (2,), (1,), (2, 1), (3, 2)], [(), (2,), (1,), (3, 1), (1, 2)]
    ):
        try:
            np.broadcast_shapes(batch_a, batch_b)
        except ValueError:
            continue
        a, b = (*batch_a, n, m), (*batch_b, m, p)
        yield pytest.param(a, b, id=f"{a}@{b}".replace(" ", ""))


@clause(c.MATMUL, c.BATCHED, c.SHARED_WEIGHT)
@batched(("a", "b"), list(_matmul_cases()))
def test_batched_matmul_generated(grade, a, b):
    grade.vjp("Tensor.__matmul__", lambda x, y: x @ y, [a, b])


ZERO_BASE_EXPONENTS = [1, 2, 3, 1.0, 2.0, 3.0, 1.5, 2.5, 4 / 3]
"""Exponents of at least 1: for 0, torch's 0 and the textbook's 0 * 0.0 ** -1 = nan are both accepted."""


@clause(c.POW, c.POW_EXPONENTS, c.POW_AT_ZERO)
@batched(
    ("exponent", "shape", "zeros"),
    [
        pytest.param(e, s, z, id=f"**{e:.3g}{'f' if isinstance(e, float) else ''}-{s}-{z}".replace(" ", ""))
        for e in ZERO_BASE_EXPONENTS
        for s in [(), (3,), (2, 3), (2, 1, 3)]
        for z in ("all-zero", "some-zero")
        if not (s == () and z == "some-zero")
    ],
)
def test_op_pow_at_a_zero_base_generated(grade, exponent, shape, zeros):
    """Bases of exactly 0 (and -0.0), where torch's gradient of x ** n is finite for n >= 1: n * 0 ** (n - 1).
    A closure that computes n * out / x gives 0 / 0 = nan there."""
    fractional = not float(exponent).is_integer()
    x = grade.rng.standard_normal(shape)
    x = np.abs(x) + 0.5 if fractional else np.where(np.abs(x) < 0.3, 0.7, x)
    if zeros == "all-zero":
        x = np.zeros(shape)
    else:
        mask = grade.rng.random(shape) < 0.5
        mask.flat[0] = True
        x = np.where(mask, 0.0 if fractional else np.where(grade.rng.random(shape) < 0.5, 0.0, -0.0), x)
    hint = "at a base of exactly 0: n * x ** (n - 1) is finite there for n >= 1; n * out / x is 0 / 0"
    grade.vjp("Tensor.__pow__", lambda t: t**exponent, [x], hint=hint, smooth=False)
