"""Probes: one small, torch-free check per symbol, run when a test fails, on the targets it needs.

A test of ``cross_entropy`` can fail because the user's ``Tensor.__mul__`` is wrong. When it
does, the probes of the targets ``cross-entropy`` needs (catalog ``needs``) find the culprit,
and the failure message says so. Expected values are closed forms in NumPy. Every tensor a probe
needs a gradient of is built with ``requires_grad=True``, as the tests' are.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from autograd_drill.grader.compare import TestTimeout, add_into, backprop, compare

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3))
Y = RNG.standard_normal(3)
G = RNG.standard_normal((2, 3))
W = RNG.standard_normal((3, 4))
GW = RNG.standard_normal((2, 4))
X3 = RNG.standard_normal((2, 3, 4))
G3 = RNG.standard_normal((3, 4, 2))


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _vjp(impl: ModuleType, op: Callable[..., Any], inputs: list[np.ndarray], g: np.ndarray) -> tuple[Any, list[Any]]:
    leaves = [impl.Tensor(x.copy(), requires_grad=True) for x in inputs]
    out = op(*leaves)
    backprop(out, g)
    return out.data, [leaf.grad for leaf in leaves]


def _op_probe(
    op: Callable[..., Any], inputs: list[np.ndarray], g: np.ndarray, value: np.ndarray, grads: list[np.ndarray]
) -> Callable[[ModuleType], str | None]:
    def probe(impl: ModuleType) -> str | None:
        ours_value, ours_grads = _vjp(impl, op, inputs, g)
        named = zip(["a.grad", "b.grad"], ours_grads, grads, strict=False)
        for name, ours, expected in [("its value", ours_value, value), *named]:
            problem = compare(name, ours, expected)
            if problem:
                return problem
        return None

    return probe


def _unbroadcast(impl: ModuleType) -> str | None:
    for grad, shape, expected in [
        (G, (3,), G.sum(0)),
        (G, (2, 1), G.sum(1, keepdims=True)),
        (G3, (1, 2), G3.sum(0).sum(0, keepdims=True)),
    ]:
        problem = compare(f"unbroadcast(grad{grad.shape}, {shape})", impl.unbroadcast(grad.copy(), shape), expected)
        if problem:
            return problem
    return None


def _graph(impl: ModuleType) -> str | None:
    """A diamond of hand-made nodes: x -> (x + x) -> sum, through the user's backward()."""
    x = impl.Tensor(Y.copy(), requires_grad=True)
    double = impl.Tensor(2 * Y, requires_grad=True, _children=(x,), _op="+")

    def double_backward() -> None:
        add_into(x, double.grad)
        add_into(x, double.grad)

    double._backward = double_backward
    root = impl.Tensor(double.data.sum(), requires_grad=True, _children=(double,), _op="sum")

    def root_backward() -> None:
        add_into(double, root.grad * np.ones(3))

    root._backward = root_backward
    root.backward()
    return compare("x.grad of sum(x + x)", x.grad, 2 * np.ones(3))


DX, DY, DW = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
XY = X + Y  # a (2, 3) partner for the binary duals
POSITIVE = np.abs(X) + 1.0


def _dual_probe(
    op: Callable[..., Any], duals: list[tuple[np.ndarray, np.ndarray]], tangent: np.ndarray
) -> Callable[[ModuleType], str | None]:
    """A tangent rule alone: ``op`` on duals made here (so it does not depend on the user's ``jvp``)."""

    def probe(impl: ModuleType) -> str | None:
        out = op(*[impl.Dual(p.copy(), t.copy()) for p, t in duals])
        return compare("its tangent", out.tangent, tangent, source="the rule's")

    return probe


DUAL_PROBES: dict[str, Callable[[ModuleType], str | None]] = {
    "Dual.__add__": _dual_probe(lambda a, b: a + b, [(X, DX), (XY, DY)], DX + DY),
    "Dual.__mul__": _dual_probe(lambda a, b: a * b, [(X, DX), (XY, DY)], DX * XY + X * DY),
    "Dual.__matmul__": _dual_probe(lambda a, b: a @ b, [(X, DX), (W, DW)], DX @ W + X @ DW),
    "Dual.sum": _dual_probe(lambda a: a.sum(axis=0), [(X, DX)], DX.sum(0)),
    "Dual.exp": _dual_probe(lambda a: a.exp(), [(X, DX)], np.exp(X) * DX),
    "Dual.log": _dual_probe(lambda a: a.log(), [(POSITIVE, DX)], DX / POSITIVE),
    "Dual.relu": _dual_probe(lambda a: a.relu(), [(X, DX)], (X > 0) * DX),
    "Dual.tanh": _dual_probe(lambda a: a.tanh(), [(X, DX)], (1 - np.tanh(X) ** 2) * DX),
}


S = _softmax(X)
PROBES: dict[str, Callable[[ModuleType], str | None]] = {
    "unbroadcast": _unbroadcast,
    "Tensor.backward": _graph,
    "Tensor.__add__": _op_probe(lambda a, b: a + b, [X, Y], G, X + Y, [G, G.sum(0)]),
    "Tensor.__mul__": _op_probe(lambda a, b: a * b, [X, Y], G, X * Y, [G * Y, (G * X).sum(0)]),
    "Tensor.__pow__": _op_probe(lambda a: a**3, [X], G, X**3, [3 * X**2 * G]),
    "Tensor.__matmul__": _op_probe(lambda a, b: a @ b, [X, W], GW, X @ W, [GW @ W.T, X.T @ GW]),
    "Tensor.sum": _op_probe(lambda a: a.sum(axis=0), [X], G[0], X.sum(0), [np.broadcast_to(G[0], X.shape)]),
    "Tensor.mean": _op_probe(lambda a: a.mean(axis=1), [X], G[:, 0], X.mean(1), [np.repeat(G[:, :1], 3, 1) / 3]),
    "Tensor.exp": _op_probe(lambda a: a.exp(), [X], G, np.exp(X), [G * np.exp(X)]),
    "Tensor.log": _op_probe(lambda a: a.log(), [np.abs(X) + 1], G, np.log(np.abs(X) + 1), [G / (np.abs(X) + 1)]),
    "Tensor.relu": _op_probe(lambda a: a.relu(), [X], G, np.maximum(X, 0), [G * (X > 0)]),
    "Tensor.sigmoid": _op_probe(
        lambda a: a.sigmoid(), [X], G, 1 / (1 + np.exp(-X)), [G * np.exp(-X) / (1 + np.exp(-X)) ** 2]
    ),
    "Tensor.tanh": _op_probe(lambda a: a.tanh(), [X], G, np.tanh(X), [G * (1 - np.tanh(X) ** 2)]),
    "Tensor.softmax": _op_probe(lambda a: a.softmax(), [X], G, S, [S * (G - (G * S).sum(-1, keepdims=True))]),
    "Tensor.log_softmax": _op_probe(lambda a: a.log_softmax(), [X], G, np.log(S), [G - S * G.sum(-1, keepdims=True)]),
    "Tensor.reshape": _op_probe(lambda a: a.reshape(3, 2), [X], G.reshape(3, 2), X.reshape(3, 2), [G]),
    "Tensor.transpose": _op_probe(
        lambda a: a.transpose(1, 2, 0), [X3], G3, X3.transpose(1, 2, 0), [G3.transpose(2, 0, 1)]
    ),
    **DUAL_PROBES,
}


def culprits(impl: ModuleType, symbols: list[str]) -> list[tuple[str, str]]:
    """The symbols among ``symbols`` whose probe fails, with what it found."""
    found = []
    for symbol in symbols:
        probe = PROBES.get(symbol)
        if probe is None:
            continue
        try:
            problem = probe(impl)
        except (KeyboardInterrupt, TestTimeout):
            raise
        except BaseException as exc:  # noqa: BLE001 - any exception in the user's code is a finding
            problem = f"raised {type(exc).__name__}"
        if problem:
            found.append((symbol, problem))
    return found
