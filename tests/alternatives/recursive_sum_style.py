"""Alternative engine, style: repeated sums, two-stack post-order, closed-form nonlinearities.

- ``unbroadcast`` peels prepended axes off one ``np.sum(..., axis=0)`` at a time, then finds
  the stretched axes with ``np.where`` and sums them all with keepdims.
- ``_topological_order`` is an iterative post-order with two stacks: a work stack of nodes to
  expand and a pending stack of expanded nodes, each remembering the work-stack height at its
  expansion; a pending node is emitted once the work stack is back to that height, i.e. once
  everything pushed on its behalf (its inputs) has been placed.
- ``relu``'s gradient is ``np.heaviside(x, 0)``; ``sigmoid`` is ``0.5 * (1 + tanh(x / 2))`` with
  derivative ``0.25 * (1 - tanh(x / 2) ** 2)``; ``log_softmax`` subtracts a max-shifted
  logsumexp; ``transpose``'s backward builds the inverse permutation with a loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: leading axes one by one, then all stretched axes at once."""
    grad = np.asarray(grad, dtype=np.float64)
    shape = tuple(shape)
    while grad.ndim > len(shape):
        grad = np.sum(grad, axis=0)
    target = np.array(shape, dtype=np.int64)
    current = np.array(grad.shape, dtype=np.int64)
    stretched = tuple(int(a) for a in np.where((target == 1) & (current != 1))[0])
    if stretched:
        grad = np.sum(grad, axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _to_tensor(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


def _reduction_axes(axis: Any, ndim: int) -> list[int]:
    if axis is None:
        return list(range(ndim))
    if np.ndim(axis) == 0:
        axis = [axis]
    return sorted(int(a) % ndim for a in axis)


def _inverse_permutation(perm: list[int]) -> list[int]:
    inverse = [0] * len(perm)
    for position, source in enumerate(perm):
        inverse[source] = position
    return inverse


class Tensor:
    """A float64 array node of the computation graph."""

    __array_ufunc__ = None

    def __init__(self, data: Any, requires_grad: bool = False, _children: Any = (), _op: str = "") -> None:
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.requires_grad = requires_grad
        self._prev = tuple(_children)
        self._op = _op
        self._backward = lambda: None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def zero_grad(self) -> None:
        self.grad = np.zeros_like(self.data)

    def __repr__(self) -> str:
        kind = self._op if self._op else "leaf"
        return f"Tensor<{kind}>(shape={self.shape}, data={self.data!r})"

    # ------------------------------------------------------------- arithmetic

    def __add__(self, other: Any) -> Tensor:
        other = _to_tensor(other)
        out = Tensor(np.add(self.data, other.data), _children=(self, other), _op="add")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        other = _to_tensor(other)
        out = Tensor(np.multiply(self.data, other.data), _children=(self, other), _op="mul")

        def _backward() -> None:
            self.grad += unbroadcast(np.multiply(out.grad, other.data), self.shape)
            other.grad += unbroadcast(np.multiply(out.grad, self.data), other.shape)

        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError("the exponent of ** must be an int or a float")
        out = Tensor(np.power(self.data, exponent), _children=(self,), _op="pow")

        def _backward() -> None:
            if exponent != 0:
                self.grad += out.grad * (exponent * np.power(self.data, exponent - 1))

        out._backward = _backward
        return out

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"@ takes two Tensors, got {type(other).__name__}")
        out = Tensor(np.matmul(self.data, other.data), _children=(self, other), _op="matmul")

        def _backward() -> None:
            a_t = np.swapaxes(self.data, -1, -2)
            b_t = np.swapaxes(other.data, -1, -2)
            self.grad += unbroadcast(np.matmul(out.grad, b_t), self.shape)
            other.grad += unbroadcast(np.matmul(a_t, out.grad), other.shape)

        out._backward = _backward
        return out

    def __neg__(self) -> Tensor:
        return self * -1

    def __sub__(self, other: Any) -> Tensor:
        return self + _to_tensor(other) * -1

    def __truediv__(self, other: Any) -> Tensor:
        return self * _to_tensor(other) ** -1

    def __radd__(self, other: Any) -> Tensor:
        return _to_tensor(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return _to_tensor(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return _to_tensor(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return _to_tensor(other) / self

    # ------------------------------------------------------------- reductions

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axes = _reduction_axes(axis, self.data.ndim)
        out = Tensor(np.sum(self.data, axis=tuple(axes), keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            grad = out.grad
            if not keepdims:
                for a in axes:  # ascending, so each insertion lands where the axis was
                    grad = np.expand_dims(grad, a)
            self.grad += np.broadcast_to(grad, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axes = _reduction_axes(axis, self.data.ndim)
        count = 1
        for a in axes:
            count *= self.shape[a]
        return self.sum(axis=tuple(axes), keepdims=keepdims) / count

    # ------------------------------------------------------------- elementwise

    def exp(self) -> Tensor:
        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self) -> Tensor:
        out = Tensor(np.log(self.data), _children=(self,), _op="log")

        def _backward() -> None:
            self.grad += out.grad * np.reciprocal(self.data)

        out._backward = _backward
        return out

    def relu(self) -> Tensor:
        out = Tensor(np.maximum(self.data, 0.0), _children=(self,), _op="relu")

        def _backward() -> None:
            self.grad += np.heaviside(self.data, 0.0) * out.grad  # step(0) = 0, as torch

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
        half_tanh = np.tanh(self.data / 2.0)  # tanh saturates to +-1, never overflows
        out = Tensor(0.5 * (1.0 + half_tanh), _children=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += 0.25 * (1.0 - half_tanh**2) * out.grad

        out._backward = _backward
        return out

    def tanh(self) -> Tensor:
        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += (1.0 - out.data**2) * out.grad

        out._backward = _backward
        return out

    # ------------------------------------------------------------- softmax and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        peak = np.max(self.data, axis=axis, keepdims=True)
        logsumexp = peak + np.log(np.sum(np.exp(self.data - peak), axis=axis, keepdims=True))
        out = Tensor(self.data - logsumexp, _children=(self,), _op="log_softmax")

        def _backward() -> None:
            probs = np.exp(out.data)
            self.grad += out.grad - probs * np.sum(out.grad, axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        peak = np.max(self.data, axis=axis, keepdims=True)
        e = np.exp(self.data - peak)
        out = Tensor(e / np.sum(e, axis=axis, keepdims=True), _children=(self,), _op="softmax")

        def _backward() -> None:
            s = out.data
            jvp = s * out.grad
            self.grad += jvp - s * np.sum(jvp, axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def reshape(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(np.reshape(self.data, shape), _children=(self,), _op="reshape")

        def _backward() -> None:
            self.grad += np.reshape(out.grad, self.shape)

        out._backward = _backward
        return out

    def transpose(self, *axes: Any) -> Tensor:
        ndim = self.data.ndim
        perm = [int(a) % ndim for a in axes] if axes else [ndim - 1 - i for i in range(ndim)]
        out = Tensor(np.transpose(self.data, perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            self.grad += np.transpose(out.grad, _inverse_permutation(perm))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # ------------------------------------------------------------- backpropagation

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() is only defined for a one-element root, not shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _topological_order(root: Tensor) -> list[Tensor]:
    """Post-order with two stacks: ``work`` (nodes to expand) and ``pending`` (expanded nodes).

    A node expanded when ``work`` had height h pushes its unexpanded inputs above h; by the time
    ``work`` is back down to h, every one of them has been expanded and emitted, so the node is
    emitted next. (The textbook two-stack tree post-order, which emits the reverse of a preorder,
    is *not* a topological order on a DAG with shared nodes, hence the heights.)
    """
    order: list[Tensor] = []
    expanded: set[int] = set()
    work: list[Tensor] = [root]
    pending: list[tuple[Tensor, int]] = []
    while work:
        node = work.pop()
        if id(node) not in expanded:
            expanded.add(id(node))
            pending.append((node, len(work)))
            work.extend(child for child in node._prev if id(child) not in expanded)
        while pending and pending[-1][1] == len(work):
            order.append(pending.pop()[0])
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64).reshape(-1)
    one_hot = np.zeros((n, k))
    for row, label in enumerate(labels):
        one_hot[row, label] = 1.0
    return (logits.log_softmax(axis=-1) * one_hot).sum() * (-1.0 / n)
