"""Alternative engine, style: every arithmetic op has its own closure.

Nothing is derived: ``-`` (binary and unary), ``/`` and ``mean`` are primitives with their
own VJPs instead of one-liners over ``+``, ``*`` and ``**``. Division applies the quotient rule
directly: d(a/b)/da = 1/b, d(a/b)/db = -a/b**2. ``mean`` divides the broadcast gradient by the
number of elements reduced into each output. The graph is therefore smaller (``a - b`` is one
node, not three) and the reflected operators build the same single nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``, the inverse of NumPy broadcasting."""
    grad = np.asarray(grad, dtype=np.float64)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] > 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        return (int(axis) % ndim,)
    return tuple(sorted(int(a) % ndim for a in axis))


def _lift(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


class Tensor:
    """A float64 array with a gradient and a closure for its vector-Jacobian product."""

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
        return f"Tensor(data={self.data!r}, grad={self.grad!r}, op={self._op!r})"

    # ---------------------------------------------------------------- binary primitives

    def __add__(self, other: Any) -> Tensor:
        other = _lift(other)
        out = Tensor(self.data + other.data, _children=(self, other), _op="add")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __sub__(self, other: Any) -> Tensor:
        other = _lift(other)
        out = Tensor(self.data - other.data, _children=(self, other), _op="sub")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad -= unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        other = _lift(other)
        out = Tensor(self.data * other.data, _children=(self, other), _op="mul")

        def _backward() -> None:
            self.grad += unbroadcast(other.data * out.grad, self.shape)
            other.grad += unbroadcast(self.data * out.grad, other.shape)

        out._backward = _backward
        return out

    def __truediv__(self, other: Any) -> Tensor:
        other = _lift(other)
        out = Tensor(self.data / other.data, _children=(self, other), _op="div")

        def _backward() -> None:
            # Quotient rule: d(a/b)/da = 1/b, d(a/b)/db = -a / b**2.
            self.grad += unbroadcast(out.grad / other.data, self.shape)
            other.grad += unbroadcast(-out.grad * self.data / (other.data * other.data), other.shape)

        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError(f"exponent must be a Python number, not {type(exponent).__name__}")
        out = Tensor(self.data**exponent, _children=(self,), _op="pow")

        def _backward() -> None:
            if exponent != 0:
                self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented  # @ takes two Tensors: `t @ ndarray` is a TypeError
        out = Tensor(self.data @ other.data, _children=(self, other), _op="matmul")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad @ other.data.swapaxes(-1, -2), self.shape)
            other.grad += unbroadcast(self.data.swapaxes(-1, -2) @ out.grad, other.shape)

        out._backward = _backward
        return out

    def __neg__(self) -> Tensor:
        out = Tensor(-self.data, _children=(self,), _op="neg")

        def _backward() -> None:
            self.grad -= out.grad

        out._backward = _backward
        return out

    # Reflected operators: same primitives with the operands in their original order.

    def __radd__(self, other: Any) -> Tensor:
        return _lift(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return _lift(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return _lift(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return _lift(other) / self

    # ---------------------------------------------------------------- reductions

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        reduced = _axes(axis, self.data.ndim)
        out = Tensor(self.data.sum(axis=reduced, keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            grad = out.grad if keepdims else np.expand_dims(out.grad, reduced)
            self.grad += np.broadcast_to(grad, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        reduced = _axes(axis, self.data.ndim)
        count = int(np.prod([self.shape[a] for a in reduced]))
        out = Tensor(self.data.mean(axis=reduced, keepdims=keepdims), _children=(self,), _op="mean")

        def _backward() -> None:
            grad = out.grad if keepdims else np.expand_dims(out.grad, reduced)
            self.grad += np.broadcast_to(grad, self.shape) / count

        out._backward = _backward
        return out

    # ---------------------------------------------------------------- elementwise

    def exp(self) -> Tensor:
        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self) -> Tensor:
        out = Tensor(np.log(self.data), _children=(self,), _op="log")

        def _backward() -> None:
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def relu(self) -> Tensor:
        out = Tensor(self.data * (self.data > 0), _children=(self,), _op="relu")

        def _backward() -> None:
            self.grad += np.where(self.data > 0, out.grad, 0.0)

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
        # exp(-log(1 + exp(-x))): logaddexp never overflows.
        out = Tensor(np.exp(-np.logaddexp(0.0, -self.data)), _children=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += out.grad * out.data * (1.0 - out.data)

        out._backward = _backward
        return out

    def tanh(self) -> Tensor:
        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += out.grad * (1.0 - out.data**2)

        out._backward = _backward
        return out

    # ---------------------------------------------------------------- softmax and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        out = Tensor(
            shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True)), _children=(self,), _op="log_softmax"
        )

        def _backward() -> None:
            self.grad += out.grad - np.exp(out.data) * out.grad.sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))
        out = Tensor(e / e.sum(axis=axis, keepdims=True), _children=(self,), _op="softmax")

        def _backward() -> None:
            s = out.data
            self.grad += s * out.grad - s * (s * out.grad).sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def reshape(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), _children=(self,), _op="reshape")

        def _backward() -> None:
            self.grad += out.grad.reshape(self.shape)

        out._backward = _backward
        return out

    def transpose(self, *axes: Any) -> Tensor:
        ndim = self.data.ndim
        perm = tuple(int(a) % ndim for a in axes) if axes else tuple(reversed(range(ndim)))
        inverse = tuple(int(i) for i in np.argsort(perm))
        out = Tensor(self.data.transpose(perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            self.grad += out.grad.transpose(inverse)

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # ---------------------------------------------------------------- backpropagation

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() needs a scalar (one-element) root, got shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _topological_order(root: Tensor) -> list[Tensor]:
    """Post-order depth-first search with an explicit stack of (node, next input index)."""
    order: list[Tensor] = []
    visited = {id(root)}
    stack: list[list[Any]] = [[root, 0]]
    while stack:
        frame = stack[-1]
        node, i = frame
        if i < len(node._prev):
            frame[1] = i + 1
            child = node._prev[i]
            if id(child) not in visited:
                visited.add(id(child))
                stack.append([child, 0])
        else:
            stack.pop()
            order.append(node)
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64).reshape(-1)
    mask = np.arange(k)[None, :] == labels[:, None]
    return -(logits.log_softmax(axis=-1) * mask).mean(axis=0).sum()
