"""Alternative engine, style: topological order by Kahn's algorithm.

``_topological_order`` first collects the graph reachable from the root (an explicit stack),
counts each node's in-degree (one per entry of ``_prev``, so ``x * x`` counts twice), then
releases nodes from a deque as their in-degree drops to zero. The root is the only sink of the
reachable graph, so it comes out last. Every op is written out plainly, one closure each;
``-``, ``/`` and the reflected operators are derived from the primitives.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape`` (undo prepended axes, then stretched size-1 axes)."""
    grad = np.asarray(grad, dtype=np.float64)
    shape = tuple(shape)
    extra = grad.ndim - len(shape)
    for _ in range(extra):
        grad = grad.sum(axis=0)
    for axis in range(len(shape)):
        if shape[axis] == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


def _normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(sorted(int(a) % ndim for a in axis))


def _as_tensor(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return Tensor(value)


class Tensor:
    """A float64 array plus the closure that pushes its gradient back to its inputs."""

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
        return f"Tensor({self.data!r}, op={self._op!r})"

    # -- arithmetic

    def __add__(self, other: Any) -> Tensor:
        other = _as_tensor(other)
        out = Tensor(self.data + other.data, _children=(self, other), _op="add")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        other = _as_tensor(other)
        out = Tensor(self.data * other.data, _children=(self, other), _op="mul")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad * other.data, self.shape)
            other.grad += unbroadcast(out.grad * self.data, other.shape)

        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError("the exponent must be a Python number")
        out = Tensor(self.data**exponent, _children=(self,), _op="pow")

        def _backward() -> None:
            if exponent == 0:
                return
            self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"@ takes two Tensors, got {type(other).__name__}")
        out = Tensor(np.matmul(self.data, other.data), _children=(self, other), _op="matmul")

        def _backward() -> None:
            grad_a = np.matmul(out.grad, np.swapaxes(other.data, -1, -2))
            grad_b = np.matmul(np.swapaxes(self.data, -1, -2), out.grad)
            self.grad += unbroadcast(grad_a, self.shape)
            other.grad += unbroadcast(grad_b, other.shape)

        out._backward = _backward
        return out

    def __neg__(self) -> Tensor:
        return self * -1.0

    def __sub__(self, other: Any) -> Tensor:
        return self + (-_as_tensor(other))

    def __truediv__(self, other: Any) -> Tensor:
        return self * (_as_tensor(other) ** -1)

    def __radd__(self, other: Any) -> Tensor:
        return _as_tensor(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return _as_tensor(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return _as_tensor(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return _as_tensor(other) / self

    # -- reductions

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        out = Tensor(np.sum(self.data, axis=axis, keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            grad = out.grad
            if not keepdims:
                grad = np.expand_dims(grad, _normalize_axes(axis, self.data.ndim))
            self.grad += np.broadcast_to(grad, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        count = 1
        for a in _normalize_axes(axis, self.data.ndim):
            count *= self.shape[a]
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / count)

    # -- elementwise

    def exp(self) -> Tensor:
        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")

        def _backward() -> None:
            self.grad += out.grad * out.data

        out._backward = _backward
        return out

    def log(self) -> Tensor:
        out = Tensor(np.log(self.data), _children=(self,), _op="log")

        def _backward() -> None:
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def relu(self) -> Tensor:
        mask = self.data > 0
        out = Tensor(np.where(mask, self.data, 0.0), _children=(self,), _op="relu")

        def _backward() -> None:
            self.grad += out.grad * mask

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
        x = self.data
        # Branch on the sign so that exp only ever sees a non-positive argument.
        z = np.exp(-np.abs(x))
        value = np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))
        out = Tensor(value, _children=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += out.grad * out.data * (1.0 - out.data)

        out._backward = _backward
        return out

    def tanh(self) -> Tensor:
        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += out.grad * (1.0 - out.data * out.data)

        out._backward = _backward
        return out

    # -- softmax family and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        m = np.max(self.data, axis=axis, keepdims=True)
        lse = m + np.log(np.sum(np.exp(self.data - m), axis=axis, keepdims=True))
        out = Tensor(self.data - lse, _children=(self,), _op="log_softmax")

        def _backward() -> None:
            p = np.exp(out.data)
            self.grad += out.grad - p * np.sum(out.grad, axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        e = np.exp(self.data - np.max(self.data, axis=axis, keepdims=True))
        out = Tensor(e / np.sum(e, axis=axis, keepdims=True), _children=(self,), _op="softmax")

        def _backward() -> None:
            s = out.data
            dot = np.sum(out.grad * s, axis=axis, keepdims=True)
            self.grad += s * (out.grad - dot)

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
        if axes:
            perm = [int(a) % ndim for a in axes]
        else:
            perm = list(range(ndim))[::-1]
        out = Tensor(np.transpose(self.data, perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            self.grad += np.transpose(out.grad, np.argsort(perm))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # -- backpropagation

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() needs a one-element root, got shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _topological_order(root: Tensor) -> list[Tensor]:
    """Kahn's algorithm over the graph reachable from ``root``: inputs before consumers."""
    # 1. The reachable nodes, and for each one the consumers that read it (once per use).
    nodes: dict[int, Tensor] = {id(root): root}
    consumers: dict[int, list[Tensor]] = {id(root): []}
    stack = [root]
    while stack:
        node = stack.pop()
        for parent in node._prev:
            if id(parent) not in nodes:
                nodes[id(parent)] = parent
                consumers[id(parent)] = []
                stack.append(parent)
            consumers[id(parent)].append(node)
    # 2. In-degree = number of inputs still to be placed; leaves start ready.
    in_degree = {key: len(node._prev) for key, node in nodes.items()}
    ready = deque(node for key, node in nodes.items() if in_degree[key] == 0)
    order: list[Tensor] = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for consumer in consumers[id(node)]:
            in_degree[id(consumer)] -= 1
            if in_degree[id(consumer)] == 0:
                ready.append(consumer)
    if len(order) != len(nodes):
        raise RuntimeError("the graph has a cycle")
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64).reshape(-1)
    one_hot = np.zeros((n, k))
    one_hot[np.arange(n), labels] = 1.0
    picked = (logits.log_softmax(axis=-1) * one_hot).sum()
    return picked * (-1.0 / n)
