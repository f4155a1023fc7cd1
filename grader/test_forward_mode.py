"""Forward mode: Dual numbers carry tangents (JVPs), checked against torch.func.jvp; and a Hessian-vector
product by forward-over-reverse, checked against torch.autograd.functional.hvp and finite differences."""

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched
from autograd_drill.grader.check import GradeFailure, torch_const
from autograd_drill.grader.contract import clause
from autograd_drill.grader.probes import DUAL_PROBES

pytestmark = pytest.mark.forward_mode

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _jvp_case(grade, symbol, ours, theirs, primals, hint=None):
    tangents = [grade.rng.standard_normal(p.shape) for p in primals]

    def compute(torch, *tensors):
        k = len(primals)
        out, tangent = torch.func.jvp(theirs, tuple(tensors[:k]), tuple(tensors[k:]))
        return [out, tangent]

    value, tangent = grade.oracle.values(compute, [*primals, *tangents])
    try:
        _check_jvp(grade, symbol, ours, primals, tangents, value, tangent, hint)
    except GradeFailure as failure:
        if failure.symbol != "jvp" or symbol != "jvp":
            raise
        raise grade.named_alone(failure, list(DUAL_PROBES)) from None  # jvp ran every rule: the wrong one, alone


def _check_jvp(grade, symbol, ours, primals, tangents, value, tangent, hint):
    with grade.running(symbol, hint):
        if symbol == "jvp":
            out = grade.impl.jvp(ours, [p.copy() for p in primals], [t.copy() for t in tangents])
        else:  # an op alone: duals made here, so the verdict does not depend on the user's jvp
            result = ours(*[grade.impl.Dual(p.copy(), t.copy()) for p, t in zip(primals, tangents, strict=True)])
            out = (result.primal, result.tangent)
    if not isinstance(out, tuple) or len(out) != 2:
        raise grade.fail("jvp", f"returned {type(out).__name__}, not a (value, tangent) pair")
    grade.expect(symbol, "the value", out[0], value, hint)
    grade.expect(symbol, "the tangent", out[1], tangent, hint)


CASES = [
    ("Dual.__add__", lambda x, y: x + y, lambda x, y: x + y, [(2, 3), (2, 3)]),
    ("Dual.__add__", lambda x: x + 2.0, lambda x: x + 2.0, [(3,)]),
    ("Dual.__mul__", lambda x, y: x * y, lambda x, y: x * y, [(2, 3), (2, 3)]),
    ("Dual.__mul__", lambda x: 3.0 * x, lambda x: 3.0 * x, [(3,)]),
    ("Dual.__matmul__", lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3), (3, 4)]),
    ("Dual.__matmul__", lambda w: W @ w, lambda w: torch_const(W) @ w, [(3,)]),
    ("Dual.sum", lambda x: x.sum(), lambda x: x.sum(), [(2, 3)]),
    ("Dual.sum", lambda x: x.sum(axis=0), lambda x: x.sum(dim=0), [(2, 3)]),
    ("Dual.exp", lambda x: x.exp(), lambda x: x.exp(), [(2, 3)]),
    ("Dual.log", lambda x: (x * x + 1.0).log(), lambda x: (x * x + 1.0).log(), [(2, 3)]),
    ("Dual.relu", lambda x: x.relu(), lambda x: x.relu(), [(2, 3)]),
    ("Dual.tanh", lambda x: x.tanh(), lambda x: x.tanh(), [(2, 3)]),
    ("Dual.sum", lambda x: x.sum(axis=1, keepdims=True), lambda x: x.sum(dim=1, keepdim=True), [(2, 3)]),
    ("Dual.sum", lambda x: x.sum(axis=-1), lambda x: x.sum(dim=-1), [(2, 3, 2)]),
    ("Dual.sum", lambda x: x.sum(axis=(0, 2), keepdims=True), lambda x: x.sum(dim=(0, 2), keepdim=True), [(2, 3, 2)]),
    ("Dual.__add__", lambda x: 2.0 + x, lambda x: 2.0 + x, [(3,)]),
    ("Dual.__mul__", lambda x: x * W[0], lambda x: x * torch_const(W[0]), [(2, 3)]),
    ("Dual.__mul__", lambda x, y: x * y + x * x, lambda x, y: x * y + x * x, [(2, 3), (2, 3)]),
    ("Dual.__matmul__", lambda a: a @ W.T, lambda a: a @ torch_const(W.T), [(4, 3)]),
    ("Dual.exp", lambda x: x.exp() * x, lambda x: x.exp() * x, [(3,)]),
]
CONSTANTS = {1, 3, 5, 15, 16, 18}
"""The cases where a constant meets a dual: x + 2.0, 3.0 * x, W @ w, 2.0 + x, x * W[0], a @ W.T."""


def _rule(symbol, constant):
    """The clauses of a case: the op's tangent rule, and constants as zero tangents where a constant takes part."""
    return clause(c.DUAL_RULES[symbol], *([c.DUAL_CONSTANT] if constant else []))


@pytest.mark.parametrize(
    ("symbol", "ours", "theirs", "shapes"),
    [
        pytest.param(*case, id=f"{case[0].split('.')[-1].strip('_')}-{i}", marks=_rule(case[0], i in CONSTANTS))
        for i, case in enumerate(CASES)
    ],
)
def test_jvp_op(grade, symbol, ours, theirs, shapes):
    _jvp_case(grade, symbol, ours, theirs, [grade.rng.standard_normal(s) for s in shapes])


@clause(c.JVP)
def test_jvp_returns_value_and_tangent(grade):
    _jvp_case(grade, "jvp", lambda x, y: x * y, lambda x, y: x * y, [grade.rng.standard_normal(3)] * 2)


@clause(c.DUAL_RULES["Dual.relu"])
def test_jvp_relu_at_zero(grade):
    x = np.array([-1.0, 0.0, 2.0, 0.0])
    _jvp_case(grade, "Dual.relu", lambda t: t.relu(), lambda t: t.relu(), [x], "the tangent of relu at exactly 0 is 0")


@clause(c.JVP, *(c.DUAL_RULES[f"Dual.{op}"] for op in ("__matmul__", "tanh", "sum", "__mul__", "exp")), c.DUAL_CONSTANT)
def test_jvp_composite(grade):
    """A small network: tanh(W x) . exp(x) summed, through every rule at once."""

    def ours(x):
        return ((W @ x).tanh().sum() * x.exp()).sum()

    def theirs(x):
        return ((torch_const(W) @ x).tanh().sum() * x.exp()).sum()

    _jvp_case(grade, "jvp", ours, theirs, [grade.rng.standard_normal(3)])


def _loss_grad(X, w):  # noqa: N803
    """The gradient of L(w) = sum(relu(X w)^2), in closed form."""
    z = X @ w
    return X.T @ (2.0 * np.maximum(z, 0.0))


@clause(c.HVP)
@pytest.mark.parametrize("seed", range(4))
def test_hvp(grade, seed):
    rng = np.random.default_rng(seed)
    X, w, v = rng.standard_normal((6, 4)), rng.standard_normal(4), rng.standard_normal(4)  # noqa: N806

    def compute(torch, X, w, v):  # noqa: N803
        return [torch.autograd.functional.hvp(lambda w: (X @ w).relu().pow(2).sum(), w, v)[1]]

    (expected,) = grade.oracle.values(compute, [X, w, v])
    hint = "forward-over-reverse: write the gradient X^T (2 relu(Xw) [Xw > 0]) on Dual(w, v); its tangent is H v"
    with grade.running("hvp", hint):
        ours = grade.impl.hvp(X.copy(), w.copy(), v.copy())
    grade.expect("hvp", "H v", ours, expected, hint)
    eps = 1e-6  # and by finite differences of the gradient, without torch
    fd = (_loss_grad(X, w + eps * v) - _loss_grad(X, w - eps * v)) / (2 * eps)
    if not np.allclose(ours, fd, atol=1e-5, rtol=1e-5):
        raise grade.fail(
            "hvp", f"H v differs from finite differences of the gradient by {np.max(np.abs(ours - fd)):.3g}"
        )


# ------------------------------------------------------------------------------ generated cases
# A constant ndarray that broadcasts the dual (bigger than its primal), or that the dual broadcasts,
# on either side of + and *: the result's tangent has the result's shape.

BROADCAST_PAIRS = [
    ((3,), (2, 3)),
    ((), (3,)),
    ((), (2, 3)),
    ((1, 3), (2, 3)),
    ((3, 1), (3, 4)),
    ((2, 1), (1, 3)),
    ((3,), (4, 2, 3)),
    ((2, 3), (3,)),
    ((2, 3), (2, 1)),
]
DUAL_OPS = {
    "+": ("Dual.__add__", lambda a, b: a + b),
    "*": ("Dual.__mul__", lambda a, b: a * b),
}


@batched(
    ("op", "side", "shapes", "kind"),
    [
        pytest.param(
            op,
            side,
            shapes,
            kind,
            id=f"dual{shapes[0]}{op}const{shapes[1]}-{side}-{kind}".replace(" ", ""),
            marks=clause(rule, c.DUAL_CONSTANT, c.DUAL_BROADCAST, c.DUAL_EITHER_SIDE),
        )
        for op, rule in (("+", c.DUAL_RULES["Dual.__add__"]), ("*", c.DUAL_RULES["Dual.__mul__"]))
        for side in ("dual-first", "constant-first")
        for shapes in BROADCAST_PAIRS
        for kind in ("float", "int")
    ],
)
def test_jvp_constant_broadcasts_the_dual_generated(grade, op, side, shapes, kind):
    """A dual of ``shapes[0]`` and a constant of ``shapes[1]``: the tangent is broadcast with the value. A
    constant's zero tangent of the dual's shape (or none at all: ``Dual(x + c, dx)``) leaves the tangent
    the dual's shape."""
    symbol, fn = DUAL_OPS[op]
    dual_shape, const_shape = shapes
    k = grade.rng.integers(-3, 4, const_shape) if kind == "int" else grade.rng.uniform(0.5, 1.5, const_shape)
    k = np.asarray(k)

    def ours(x):
        return fn(x, k) if side == "dual-first" else fn(k, x)

    def theirs(x):
        return fn(x, torch_const(k)) if side == "dual-first" else fn(torch_const(k), x)

    _jvp_case(
        grade,
        symbol,
        ours,
        theirs,
        [grade.rng.standard_normal(dual_shape)],
        "a constant is a dual with a zero tangent of the constant's own shape: the sum or product broadcasts both",
    )
