"""Alternative engine, style: cross_entropy as one fused primitive.

``cross_entropy`` builds a single graph node with its own closure: the forward pass is a
max-shifted logsumexp minus the logit of the true class, averaged over the batch; the backward
pass is the closed form ``(softmax - one_hot) / N``. ``softmax`` is derived from
``log_softmax().exp()``, so only ``log_softmax`` carries a hand-written softmax-family VJP.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``, undoing NumPy broadcasting."""
    grad = np.asarray(grad, dtype=np.float64)
    ndim = len(shape)
    if grad.ndim > ndim:
        grad = grad.sum(axis=tuple(range(grad.ndim - ndim)))
    for axis in range(ndim):
        if shape[axis] == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def _expand_reduced(grad: np.ndarray, axis: Any, ndim: int, keepdims: bool) -> np.ndarray:
    """Put back, as size-1 axes, the axes that a reduction without keepdims removed."""
    if keepdims:
        return grad
    if axis is None:
        return grad.reshape((1,) * ndim)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return np.expand_dims(grad, tuple(sorted(int(a) % ndim for a in axes)))


class Tensor:
    """A float64 NumPy array with reverse-mode autodiff."""

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
        return f"Tensor({self.data!r}, op={self._op or 'leaf'})"

    # ---------------------------------------------------------------- arithmetic

    def __add__(self, other: Any) -> Tensor:
        other = _as_tensor(other)
        out = Tensor(self.data + other.data, _children=(self, other), _op="+")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        other = _as_tensor(other)
        out = Tensor(self.data * other.data, _children=(self, other), _op="*")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad * other.data, self.shape)
            other.grad += unbroadcast(out.grad * self.data, other.shape)

        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError("only Python int/float exponents are supported")
        out = Tensor(self.data**exponent, _children=(self,), _op="**")

        def _backward() -> None:
            if exponent == 0:
                return
            self.grad += out.grad * exponent * self.data ** (exponent - 1)

        out._backward = _backward
        return out

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented  # @ takes two Tensors: `t @ ndarray` is a TypeError
        out = Tensor(self.data @ other.data, _children=(self, other), _op="@")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad @ np.swapaxes(other.data, -1, -2), self.shape)
            other.grad += unbroadcast(np.swapaxes(self.data, -1, -2) @ out.grad, other.shape)

        out._backward = _backward
        return out

    def __neg__(self) -> Tensor:
        return self * -1.0

    def __sub__(self, other: Any) -> Tensor:
        return self + (-_as_tensor(other))

    def __truediv__(self, other: Any) -> Tensor:
        return self * _as_tensor(other) ** -1.0

    def __radd__(self, other: Any) -> Tensor:
        return _as_tensor(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return _as_tensor(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return _as_tensor(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return _as_tensor(other) / self

    # ---------------------------------------------------------------- reductions

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            grad = _expand_reduced(out.grad, axis, self.data.ndim, keepdims)
            self.grad += np.broadcast_to(grad, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        out = Tensor(self.data.mean(axis=axis, keepdims=keepdims), _children=(self,), _op="mean")
        count = self.data.size // max(out.data.size, 1)

        def _backward() -> None:
            grad = _expand_reduced(out.grad, axis, self.data.ndim, keepdims)
            self.grad += np.broadcast_to(grad, self.shape) / count

        out._backward = _backward
        return out

    # ---------------------------------------------------------------- elementwise

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
        out = Tensor(np.maximum(self.data, 0.0), _children=(self,), _op="relu")

        def _backward() -> None:
            self.grad += out.grad * (self.data > 0)

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
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

    # ---------------------------------------------------------------- softmax family and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        lse = _logsumexp(self.data, axis)
        out = Tensor(self.data - lse, _children=(self,), _op="log_softmax")

        def _backward() -> None:
            self.grad += out.grad - np.exp(out.data) * out.grad.sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        return self.log_softmax(axis=axis).exp()

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
        perm = np.array([int(a) % ndim for a in axes] if axes else list(range(ndim))[::-1], dtype=np.intp)
        out = Tensor(self.data.transpose(perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            self.grad += out.grad.transpose(np.argsort(perm))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # ---------------------------------------------------------------- backpropagation

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"can only call backward() on a one-element tensor, got shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    """log(sum(exp(x))) along ``axis`` (kept as size 1), shifted by the max so it never overflows."""
    m = x.max(axis=axis, keepdims=True)
    return m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _topological_order(root: Tensor) -> list[Tensor]:
    """Each node after all of its inputs, root last; iterative depth-first post-order."""
    order: list[Tensor] = []
    seen = {id(root)}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels, one fused node."""
    logits = _as_tensor(logits)
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64).reshape(-1)
    rows = np.arange(n)
    lse = _logsumexp(logits.data, axis=-1)[:, 0]
    loss = np.mean(lse - logits.data[rows, labels])
    out = Tensor(loss, _children=(logits,), _op="cross_entropy")

    def _backward() -> None:
        grad = np.exp(logits.data - lse[:, None])  # softmax, from the same stable logsumexp
        grad[rows, labels] -= 1.0
        logits.grad += out.grad * grad / n

    out._backward = _backward
    return out
