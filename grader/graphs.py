"""Glue ops and the checks built on them: composite tests whose verdict depends on one target's code.

Glue ops are built by the grader on the user's ``Tensor`` class (its constructor and nothing
else) with closures of our own, and with ``requires_grad=True``: an engine that honours it, as
torch does, must send gradient through them. They connect one target's ops into graphs with shared nodes
and diamonds without calling the user's other targets. A random graph is a program, a list of
steps, run three ways: in NumPy while it is generated (to know shapes), on the user's engine,
and on torch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pytest

from autograd_drill.grader.blame import NODE_HINT, node_problem
from autograd_drill.grader.check import GradeFailure, Grading
from autograd_drill.grader.compare import add_into
from autograd_drill.grader.localize import culprit
from autograd_drill.grader.programs import Program

DEEP_OPS = 10_000
"""The contract's deep chain (grader/contract.py DEEP): no recursion limit on a chain of this many ops."""


def past_the_recursion_limit() -> int:
    """The length of a chain that no recursion gets through: three times the recursion limit in force
    (the user's engine may have raised it), up to the contract's 10,000 ops.

    A recursive walk (topological order, or backward calling itself on each input) nests one call at
    least per op of a chain, so it fails at 3 times the limit just as at 10,000; a walk that needs
    no recursion does not care how long the chain is. A shorter chain checks the same, in a third of
    the time (each op is a glue node, built and run in Python).
    """
    return min(DEEP_OPS, 3 * sys.getrecursionlimit())


def deep_chains(check: Callable[[int], None]) -> None:
    """``check(n)`` on a chain of ``past_the_recursion_limit()`` ops; again on a longer one while the
    user's code raised the limit meanwhile (it may raise it inside backward, as it runs)."""
    n = past_the_recursion_limit()
    check(n)
    while past_the_recursion_limit() > n:
        n = past_the_recursion_limit()
        check(n)


def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The grader's own unbroadcast, for glue closures."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape) if axes else grad.reshape(shape)


class Glue:
    """Ops made by the grader on the user's Tensor: of the user's code only ``Tensor.__init__`` runs."""

    def __init__(self, grading: Grading) -> None:
        self.grading = grading
        self.calls: dict[int, int] = {}
        """How many times each glue node's closure ran, by id."""

    def node(self, data: np.ndarray, parents: Sequence[Any], vjps: Sequence[Callable[[np.ndarray], np.ndarray]]) -> Any:
        try:  # not grading.running(): this runs 10,000 times in a chain, and a context manager costs
            out = self.grading.Tensor(data, requires_grad=True, _children=tuple(parents), _op="glue")
        except (GradeFailure, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 - as Grading.running
            raise self.grading.verdict("Tensor.__init__", exc) from None
        problem = node_problem(out)
        if problem is not None:  # the glue closure would trip over it: name __init__, not the op
            raise GradeFailure(problem, "Tensor.__init__", self.grading.case, NODE_HINT)
        self.calls[id(out)] = 0

        def _backward() -> None:
            self.calls[id(out)] += 1
            g = np.asarray(out.grad)
            for parent, vjp in zip(parents, vjps, strict=True):
                contribution = vjp(g)
                if contribution.shape != parent.data.shape:
                    contribution = sum_to(contribution, parent.data.shape)
                add_into(parent, contribution)

        out._backward = _backward
        return out

    def expect_each_ran_once(self) -> None:
        """Fail ``Tensor.backward`` unless every glue node's closure ran exactly once."""
        runs = [n for n in self.calls.values() if n != 1]
        if runs:
            raise self.grading.fail(
                "Tensor.backward",
                f"{len(runs)} of {len(self.calls)} closures ran {max(runs)} times, not once",
                "run each node's _backward exactly once, in reverse topological order",
            )

    def add(self, a: Any, b: Any) -> Any:
        return self.node(a.data + b.data, (a, b), (lambda g: g, lambda g: g))

    def mul(self, a: Any, b: Any) -> Any:
        return self.node(a.data * b.data, (a, b), (lambda g: g * b.data, lambda g: g * a.data))

    def sin(self, a: Any) -> Any:
        return self.node(np.sin(a.data), (a,), (lambda g: g * np.cos(a.data),))

    def pos(self, a: Any) -> Any:
        """``a * a + 1``: positive, for log, division and fractional powers."""
        return self.node(a.data * a.data + 1.0, (a,), (lambda g: 2.0 * a.data * g,))

    def scale(self, a: Any, c: np.ndarray) -> Any:
        return self.node(a.data * c, (a,), (lambda g: g * c,))

    def total(self, a: Any) -> Any:
        return self.node(a.data.sum(), (a,), (lambda g: np.broadcast_to(g, a.data.shape),))


def check_program(grade: Grading, program: Program, what: str) -> None:
    """The user's ops in a random graph, run by the grader's backward pass, against torch. A failure
    is the first step's that is wrong alone (grader/localize.py), when one is."""
    try:
        _check_program(grade, program, what)
    except GradeFailure as failure:
        named = failure.symbol != what or failure.timed_out  # Tensor.__init__'s, say: already named
        found = None if named else culprit(grade, program, Glue(grade))
        if found is None:
            raise
        hint = f"{found.text}; graph: {program.describe()}"
        case = f"{what} {grade.case}"
        raise GradeFailure(failure.text, found.symbol, case, hint, failure.location, failure.notes) from None


def _check_program(grade: Grading, program: Program, what: str) -> None:
    hint = f"graph: {program.describe()}"
    answer = grade.oracle.vjp(program.run_torch, program.leaves)
    glue = Glue(grade)
    leaves = [grade.leaf(x) for x in program.leaves]
    names = [f"x{i}" for i in range(len(leaves))]
    with grade.running(what, hint):
        root = program.run_ours(glue, leaves)
    grade.check_intact(what, names, leaves, program.leaves, "the ops")
    grade.run_backward(what, root, answer.cotangent, hint)
    grade.check_intact(what, names, leaves, program.leaves, "backward")
    for name, leaf, grad in zip(names, leaves, answer.grads, strict=True):
        grade.expect(what, f"{name}.grad", leaf.grad, grad, hint)
        grade.check_grad(what, name, leaf, leaves)


# ------------------------------------------------------------------------------ shared inputs


def each_op_both_orders(ops: Iterable[str]) -> pytest.MarkDecorator:
    """Parametrize a ``check_shared_input`` test over ``op``, each of ``ops``, and ``first``, the op's
    result first or second in the glue add (ids ``{op}-op-first``, ``{op}-op-second``)."""
    return pytest.mark.parametrize(
        ("op", "first"),
        [
            pytest.param(op, first, id=f"{op}-op-{'first' if first else 'second'}")
            for op in ops
            for first in (True, False)
        ],
    )


def check_shared_input(
    grade: Grading,
    symbol: str,
    op: Callable[..., Any],
    other: Callable[..., Any],
    inputs: Sequence[np.ndarray] | Sequence[tuple[int, ...]],
    theirs: Callable[..., Any],
    hint: str,
    first: bool = True,
) -> None:
    """The user's op and another path, of glue, read the same inputs; a glue add joins their results.

    ``op`` and ``other`` take ``(glue, *tensors)``; ``theirs`` is the whole function on torch. The
    order of the add (``first``: the op's result first) decides whose closure runs first: in one of the
    two, an op's closure that overwrites its inputs' ``.grad`` instead of adding into it loses the other
    path's share.
    """
    __tracebackhide__ = True
    glue = Glue(grade)

    def ours(*tensors: Any) -> Any:
        out, rest = op(glue, *tensors), other(glue, *tensors)
        return glue.add(out, rest) if first else glue.add(rest, out)

    grade.vjp(symbol, ours, inputs, theirs=theirs, hint=hint)


BESIDE_SIN_HINT = "a closure adds into its parent's .grad (+=): x also gets a gradient through another path"


def check_beside_sin(
    grade: Grading,
    symbol: str,
    ours_op: Callable[[Any], Any],
    theirs_op: Callable[[Any], Any],
    x: np.ndarray | tuple[int, ...],
    first: bool = True,
    total: bool = False,
) -> None:
    """``check_shared_input`` for a one-input op: x feeds the op and a glue sin. With ``total``, each
    result is summed before the add (an op whose result is not x's shape, as max)."""
    __tracebackhide__ = True

    def ours(G: Glue, t: Any) -> Any:
        return G.total(ours_op(t)) if total else ours_op(t)

    def sin(G: Glue, t: Any) -> Any:
        return G.total(G.sin(t)) if total else G.sin(t)

    def theirs(t: Any) -> Any:
        return theirs_op(t).sum() + t.sin().sum() if total else theirs_op(t) + t.sin()

    check_shared_input(grade, symbol, ours, sin, [x], theirs, BESIDE_SIN_HINT, first)


# ------------------------------------------------------------------------------ scalar functions (gradcheck)


def scalar_functions(glue: Glue | None) -> dict[str, Callable[..., Any]]:
    """Scalar functions with known gradients, on the user's Tensor (glue) or on torch (glue None)."""
    if glue is None:
        return {
            "square": lambda x: (x * x).sum(),
            "sin-product": lambda x, y: (x.sin() * y).sum(),
            "shared": lambda x: (x.sin() * x + x).sum(),
        }
    return {
        "square": lambda x: glue.total(glue.mul(x, x)),
        "sin-product": lambda x, y: glue.total(glue.mul(glue.sin(x), y)),
        "shared": lambda x: glue.total(glue.add(glue.mul(glue.sin(x), x), x)),
    }


SCALAR_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "square": [(3,)],
    "sin-product": [(2, 3), (2, 3)],
    "shared": [(2, 2)],
}


def broken_sum(glue: Glue, x: Any, vjp: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Any:
    """An op whose value is sum(x) but whose closure sends ``vjp(g, x)``: a deliberately wrong gradient."""
    return glue.node(np.asarray(x.data.sum()), (x,), (lambda g: vjp(g, x.data),))
