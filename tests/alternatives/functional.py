"""Alternative engine, style: functional, every op built by one helper.

``_make(out_data, parents, vjps, op)`` builds the output node from the forward value, the
parent tensors and one VJP function per parent (``g -> gradient for that parent``); its single
generic closure applies each VJP to ``out.grad``, sums the result down to the parent's shape with
``unbroadcast`` and accumulates it. The Tensor methods are then one-liners: a forward value and
a list of lambdas. The topological order is an iterative depth-first search over an explicit
stack of ``(node, expanded)`` pairs: a node is emitted when it is popped the second time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Vjp = Callable[[np.ndarray], np.ndarray]


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: prepended axes first, then stretched size-1 axes."""
    grad = np.asarray(grad, dtype=np.float64)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


def _make(out_data: Any, parents: Sequence[Tensor], vjps: Sequence[Vjp], op: str) -> Tensor:
    """A new node with value ``out_data`` whose backward adds ``vjp(out.grad)`` into each parent."""
    out = Tensor(out_data, _children=tuple(parents), _op=op)
    pairs = tuple(zip(parents, vjps, strict=True))

    def _backward() -> None:
        for parent, vjp in pairs:
            parent.grad += unbroadcast(vjp(out.grad), parent.shape)

    out._backward = _backward
    return out


def _t(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def _keep(axis: Any, ndim: int) -> tuple[int, ...]:
    """The shape-independent normal form of a reduction axis: sorted non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        return (int(axis) % ndim,)
    return tuple(sorted(int(a) % ndim for a in axis))


def _spread(g: np.ndarray, axes: tuple[int, ...], keepdims: bool, shape: tuple[int, ...]) -> np.ndarray:
    """Broadcast the gradient of a reduction back over the reduced axes."""
    return np.broadcast_to(g if keepdims else np.expand_dims(g, axes), shape)


def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _check_exponent(exponent: Any) -> float:
    if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
        raise TypeError("** needs a Python number exponent")
    return exponent


def _permutation(axes: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """``transpose(*axes)``'s permutation: separate ints, negatives from the end; none: reversed."""
    return tuple(int(a) % ndim for a in axes) if axes else tuple(range(ndim))[::-1]


def _shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


class Tensor:
    """A float64 array in a graph of ``_make`` nodes."""

    __array_ufunc__ = None

    def __init__(self, data: Any, requires_grad: bool = False, _children: Any = (), _op: str = "") -> None:
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.requires_grad = requires_grad
        self._prev = tuple(_children)
        self._op = _op
        self._backward: Callable[[], None] = lambda: None

    shape = property(lambda self: self.data.shape)
    T = property(lambda self: self.transpose())

    def zero_grad(self) -> None:
        self.grad = np.zeros_like(self.data)

    def __repr__(self) -> str:
        return f"Tensor({self.data!r}, op={self._op!r})"

    # Binary ops: ``o`` is the other operand as a Tensor.

    def __add__(self, other: Any) -> Tensor:
        o = _t(other)
        return _make(self.data + o.data, (self, o), (lambda g: g, lambda g: g), "+")

    def __sub__(self, other: Any) -> Tensor:
        o = _t(other)
        return _make(self.data - o.data, (self, o), (lambda g: g, lambda g: -g), "-")

    def __mul__(self, other: Any) -> Tensor:
        o = _t(other)
        return _make(self.data * o.data, (self, o), (lambda g: g * o.data, lambda g: g * self.data), "*")

    def __truediv__(self, other: Any) -> Tensor:
        o = _t(other)
        return _make(self.data / o.data, (self, o), (lambda g: g / o.data, lambda g: -g * self.data / o.data**2), "/")

    def __pow__(self, exponent: float) -> Tensor:
        p = _check_exponent(exponent)
        return _make(
            self.data**p, (self,), (lambda g: g * p * self.data ** (p - 1) if p != 0 else np.zeros_like(g),), "**"
        )

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented  # @ takes two Tensors only: `t @ ndarray` is a TypeError
        b = other.data
        return _make(self.data @ b, (self, other), (lambda g: g @ _swap(b), lambda g: _swap(self.data) @ g), "@")

    def __neg__(self) -> Tensor:
        return _make(-self.data, (self,), (lambda g: -g,), "neg")

    def __radd__(self, other: Any) -> Tensor:
        return _t(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return _t(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return _t(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return _t(other) / self

    # Reductions.

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        ax = _keep(axis, self.data.ndim)
        return _make(
            self.data.sum(ax, keepdims=keepdims), (self,), (lambda g: _spread(g, ax, keepdims, self.shape),), "sum"
        )

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        ax = _keep(axis, self.data.ndim)
        n = int(np.prod([self.shape[a] for a in ax]))
        spread = (lambda g: _spread(g, ax, keepdims, self.shape) / n,)
        return _make(self.data.mean(ax, keepdims=keepdims), (self,), spread, "mean")

    # Elementwise.

    def exp(self) -> Tensor:
        e = np.exp(self.data)
        return _make(e, (self,), (lambda g: g * e,), "exp")

    def log(self) -> Tensor:
        return _make(np.log(self.data), (self,), (lambda g: g / self.data,), "log")

    def relu(self) -> Tensor:
        return _make(np.maximum(self.data, 0.0), (self,), (lambda g: g * (self.data > 0),), "relu")

    def sigmoid(self) -> Tensor:
        s = np.exp(-np.logaddexp(0.0, -self.data))
        return _make(s, (self,), (lambda g: g * s * (1.0 - s),), "sigmoid")

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)
        return _make(t, (self,), (lambda g: g * (1.0 - t * t),), "tanh")

    # Softmax family and shapes.

    def log_softmax(self, axis: int = -1) -> Tensor:
        lp = _log_softmax(self.data, axis)
        return _make(lp, (self,), (lambda g: g - np.exp(lp) * g.sum(axis=axis, keepdims=True),), "log_softmax")

    def softmax(self, axis: int = -1) -> Tensor:
        s = np.exp(_log_softmax(self.data, axis))
        return _make(s, (self,), (lambda g: s * (g - (g * s).sum(axis=axis, keepdims=True)),), "softmax")

    def reshape(self, *shape: Any) -> Tensor:
        return _make(self.data.reshape(_shape_arg(shape)), (self,), (lambda g: g.reshape(self.shape),), "reshape")

    def transpose(self, *axes: Any) -> Tensor:
        perm = _permutation(axes, self.data.ndim)
        return _make(self.data.transpose(perm), (self,), (lambda g: g.transpose(np.argsort(perm)),), "transpose")

    # Backpropagation.

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() needs a root with exactly one element, got shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _topological_order(root: Tensor) -> list[Tensor]:
    """Iterative DFS over ``(node, expanded)`` pairs; a node is emitted after all its inputs."""
    order: list[Tensor] = []
    visited: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node._prev) if id(child) not in visited)
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64).reshape(-1)
    one_hot = (np.arange(k) == labels[:, None]).astype(np.float64)
    return (logits.log_softmax(-1) * one_hot).sum() * (-1.0 / n)
