"""Alternative engine, style: the book chapter's habits, each kept on purpose.

Written afresh for the tests (not the chapter's text), it does what the chapter's engine does
where the contract leaves a choice or grades only what a file supports:

- ``Tensor.__init__`` keeps ``np.asarray(data, dtype=np.float64)``: a float64 array passed in is
  the tensor's ``.data`` itself (an alias, as ``torch.as_tensor`` makes), not a copy;
- ``_prev`` is ``tuple(_children)``; ``backward`` checks its one-element root with an ``assert``;
- ``_topological_order`` is an iterative depth-first search over ``(node, expanded)`` pairs;
- the class has no ``__array_ufunc__`` (so ``arr + t`` is NumPy's business) and no ``__rtruediv__``
  (so ``2 / t`` raises TypeError);
- and the chapter's one real bug: ``transpose``'s backward inverts the permutation with
  ``np.argsort`` of the axes as given, wrong once one is negative. ``KNOWN_BUG`` below is that
  line and its fix: tests/test_alternatives.py grades the file as it is (it must fail softmax's
  negative-axis cases, and nothing else) and with the fix (it must pass every target).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

KNOWN_BUG = (
    "undo = np.argsort(perm)",
    "undo = np.argsort([p % len(perm) for p in perm])",
)


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Collapse ``grad`` onto ``shape``: first the axes broadcasting put in front, then the size-1
    axes it widened."""
    out = grad
    while out.ndim > len(shape):
        out = out.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and out.shape[i] > 1:
            out = out.sum(axis=i, keepdims=True)
    return out


def _wrap(value: Any) -> Tensor:
    """A Tensor as it is; anything else (a number, an array) as a constant leaf."""
    return value if isinstance(value, Tensor) else Tensor(value)


class Tensor:
    """A float64 array plus what is needed to push gradients back through the ops that made it."""

    def __init__(self, data: Any, requires_grad: bool = False, _children: Iterable[Tensor] = (), _op: str = ""):
        self.data = np.asarray(data, dtype=np.float64)  # no copy when data already is float64
        self.grad = np.zeros_like(self.data)
        self.requires_grad = requires_grad
        self._prev = tuple(_children)
        self._op = _op
        self._backward = lambda: None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def __repr__(self) -> str:
        return f"Tensor({self._op or 'leaf'}, shape={self.shape})"

    def zero_grad(self) -> None:
        self.grad = np.zeros_like(self.data)

    def _child(self, value: np.ndarray, parents: tuple[Tensor, ...], op: str) -> Tensor:
        return Tensor(value, _children=parents, _op=op)

    # ------------------------------------------------------------ the pass itself

    def backward(self) -> None:
        assert self.data.size == 1, "the root of backward() must hold a single number"
        nodes = _topological_order(self)
        self.grad = np.ones_like(self.data)
        for node in nodes[::-1]:
            node._backward()

    # ------------------------------------------------------------ binary ops

    def __add__(self, other: Any) -> Tensor:
        other = _wrap(other)
        out = self._child(self.data + other.data, (self, other), "add")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        other = _wrap(other)
        out = self._child(self.data * other.data, (self, other), "mul")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad * other.data, self.shape)
            other.grad += unbroadcast(out.grad * self.data, other.shape)

        out._backward = _backward
        return out

    def __pow__(self, k: float) -> Tensor:
        assert isinstance(k, (int, float)), "the exponent is a plain number"
        out = self._child(self.data**k, (self,), "pow")

        def _backward() -> None:
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError("@ takes two Tensors")
        out = self._child(self.data @ other.data, (self, other), "matmul")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad @ np.swapaxes(other.data, -1, -2), self.shape)
            other.grad += unbroadcast(np.swapaxes(self.data, -1, -2) @ out.grad, other.shape)

        out._backward = _backward
        return out

    def __neg__(self) -> Tensor:
        return self * -1.0

    def __sub__(self, other: Any) -> Tensor:
        return self + (-_wrap(other))

    def __truediv__(self, other: Any) -> Tensor:
        return self * _wrap(other) ** -1.0

    def __radd__(self, other: Any) -> Tensor:
        return self + other

    def __rmul__(self, other: Any) -> Tensor:
        return self * other

    def __rsub__(self, other: Any) -> Tensor:
        return _wrap(other) - self

    # ------------------------------------------------------------ reductions

    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        out = self._child(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")

        def _backward() -> None:
            g = out.grad if keepdims or axis is None else np.expand_dims(out.grad, axis)
            self.grad += np.broadcast_to(g, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        axes = range(self.data.ndim) if axis is None else np.atleast_1d(axis)
        n = int(np.prod([self.shape[a] for a in axes]))
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / n)

    # ------------------------------------------------------------ elementwise

    def _elementwise(self, value: np.ndarray, slope: np.ndarray, op: str) -> Tensor:
        """An op of one input whose derivative, elementwise, is ``slope``."""
        out = self._child(value, (self,), op)

        def _backward() -> None:
            self.grad += slope * out.grad

        out._backward = _backward
        return out

    def exp(self) -> Tensor:
        e = np.exp(self.data)
        return self._elementwise(e, e, "exp")

    def log(self) -> Tensor:
        return self._elementwise(np.log(self.data), 1.0 / self.data, "log")

    def relu(self) -> Tensor:
        return self._elementwise(np.maximum(self.data, 0.0), (self.data > 0).astype(np.float64), "relu")

    def sigmoid(self) -> Tensor:
        s = 1.0 / (1.0 + np.exp(-self.data))
        return self._elementwise(s, s * (1.0 - s), "sigmoid")

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)
        return self._elementwise(t, 1.0 - t * t, "tanh")

    # ------------------------------------------------------------ softmax and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        z = self.data - self.data.max(axis=axis, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
        out = self._child(logp, (self,), "log_softmax")

        def _backward() -> None:
            self.grad += out.grad - np.exp(logp) * out.grad.sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))
        p = e / e.sum(axis=axis, keepdims=True)
        out = self._child(p, (self,), "softmax")

        def _backward() -> None:
            self.grad += p * (out.grad - (out.grad * p).sum(axis=axis, keepdims=True))

        out._backward = _backward
        return out

    def reshape(self, *shape: Any) -> Tensor:
        out = self._child(self.data.reshape(*shape), (self,), "reshape")

        def _backward() -> None:
            self.grad += out.grad.reshape(self.shape)

        out._backward = _backward
        return out

    def transpose(self, *axes: int) -> Tensor:
        perm = axes if axes else tuple(range(self.data.ndim))[::-1]
        out = self._child(self.data.transpose(perm), (self,), "transpose")

        def _backward() -> None:
            undo = np.argsort(perm)
            self.grad += out.grad.transpose(tuple(undo))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:  # noqa: N802 - NumPy's name
        return self.transpose()


def _topological_order(root: Tensor) -> list[Tensor]:
    """Depth-first, without recursion: a node is pushed once to expand it and once more, under its
    inputs, to be placed once they all are."""
    placed: list[Tensor] = []
    seen: set[int] = set()
    todo: list[tuple[Tensor, bool]] = [(root, False)]
    while todo:
        node, expanded = todo.pop()
        if expanded:
            placed.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            todo.append((node, True))
            todo.extend((parent, False) for parent in node._prev if id(parent) not in seen)
    return placed


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean over the batch of -log softmax(logits)[i, y[i]]."""
    n, k = logits.shape
    pick = np.zeros((n, k))
    pick[np.arange(n), y] = 1.0
    return -(logits.log_softmax(axis=-1) * Tensor(pick)).sum() * (1.0 / n)
