"""Alternative engine, style: vector-Jacobian products written with ``np.einsum``.

The matmul VJPs are einsum contractions with ``...`` batching (einsum broadcasts the batch
axes, e.g. ``(2, 1, n, m)`` against ``(3, m, p)``), whose broadcast batch axes are then summed
away by ``unbroadcast``. ``unbroadcast`` computes every axis to sum in one go and does a single
``np.sum(..., keepdims=True)`` followed by a reshape. ``sum``/``mean`` backward restore the
reduced axes from the keepdims shape of the forward result and ``np.broadcast_to`` it back.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape`` with one ``np.sum`` over all broadcast axes."""
    grad = np.asarray(grad, dtype=np.float64)
    shape = tuple(shape)
    lead = grad.ndim - len(shape)
    stretched = tuple(lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1)
    axes = tuple(range(lead)) + stretched
    # keepdims keeps the prepended axes as size 1; the reshape drops them.
    return np.sum(grad, axis=axes, keepdims=True).reshape(shape)


def _as_tensor(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


class Tensor:
    """An array that records the op that made it and how to pull gradients back through it."""

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
        return f"Tensor(shape={self.shape}, op={self._op or 'leaf'}, data={self.data!r})"

    # ------------------------------------------------------------------ binary

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
            # Elementwise products as einsum with broadcast ellipses.
            self.grad += unbroadcast(np.einsum("...,...->...", out.grad, other.data), self.shape)
            other.grad += unbroadcast(np.einsum("...,...->...", out.grad, self.data), other.shape)

        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError("** takes a Python number")
        out = Tensor(np.power(self.data, exponent), _children=(self,), _op=f"**{exponent}")

        def _backward() -> None:
            local = np.zeros_like(self.data) if exponent == 0 else exponent * np.power(self.data, exponent - 1)
            self.grad += local * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented  # @ takes two Tensors: `t @ ndarray` is a TypeError
        out = Tensor(np.einsum("...ij,...jk->...ik", self.data, other.data), _children=(self, other), _op="@")

        def _backward() -> None:
            # dL/dA[..., i, j] = sum_k G[..., i, k] B[..., j, k];  dL/dB[..., j, k] = sum_i A[..., i, j] G[..., i, k]
            grad_a = np.einsum("...ik,...jk->...ij", out.grad, other.data)
            grad_b = np.einsum("...ij,...ik->...jk", self.data, out.grad)
            self.grad += unbroadcast(grad_a, self.shape)
            other.grad += unbroadcast(grad_b, other.shape)

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

    # ------------------------------------------------------------------ reductions

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        kept_shape = np.sum(self.data, axis=axis, keepdims=True).shape
        out = Tensor(np.sum(self.data, axis=axis, keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            # out.grad has the reduced shape with or without the size-1 axes: restore them, broadcast.
            self.grad += np.broadcast_to(out.grad.reshape(kept_shape), self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        kept_shape = np.sum(self.data, axis=axis, keepdims=True).shape
        count = self.data.size // int(np.prod(kept_shape))
        out = Tensor(np.mean(self.data, axis=axis, keepdims=keepdims), _children=(self,), _op="mean")

        def _backward() -> None:
            self.grad += np.broadcast_to(out.grad.reshape(kept_shape) / count, self.shape)

        out._backward = _backward
        return out

    # ------------------------------------------------------------------ elementwise

    def exp(self) -> Tensor:
        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")

        def _backward() -> None:
            self.grad += np.einsum("...,...->...", out.data, out.grad)

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
            self.grad += np.einsum("...,...->...", (self.data > 0).astype(np.float64), out.grad)

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
        out = Tensor(np.exp(-np.logaddexp(0.0, -self.data)), _children=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = _backward
        return out

    def tanh(self) -> Tensor:
        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += (1.0 - np.square(out.data)) * out.grad

        out._backward = _backward
        return out

    # ------------------------------------------------------------------ softmax and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        shifted = self.data - np.max(self.data, axis=axis, keepdims=True)
        logp = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
        out = Tensor(logp, _children=(self,), _op="log_softmax")

        def _backward() -> None:
            # Move the softmax axis last, then the row sums are an einsum over it.
            g = np.moveaxis(out.grad, axis, -1)
            p = np.exp(np.moveaxis(out.data, axis, -1))
            total = np.einsum("...k->...", g)[..., None]
            self.grad += np.moveaxis(g - p * total, -1, axis)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        e = np.exp(self.data - np.max(self.data, axis=axis, keepdims=True))
        out = Tensor(e / np.sum(e, axis=axis, keepdims=True), _children=(self,), _op="softmax")

        def _backward() -> None:
            g = np.moveaxis(out.grad, axis, -1)
            s = np.moveaxis(out.data, axis, -1)
            dot = np.einsum("...k,...k->...", g, s)[..., None]
            self.grad += np.moveaxis(s * (g - dot), -1, axis)

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
        perm = tuple(int(a) % ndim for a in axes) if axes else tuple(range(ndim - 1, -1, -1))
        out = Tensor(self.data.transpose(perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            self.grad += out.grad.transpose(np.argsort(perm))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # ------------------------------------------------------------------ backprop

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() requires a single-element root, got shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _topological_order(root: Tensor) -> list[Tensor]:
    """Depth-first post-order with an explicit stack of (node, iterator over its inputs)."""
    order: list[Tensor] = []
    seen = {id(root)}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        child = next((c for c in inputs if id(c) not in seen), None)
        if child is None:
            stack.pop()
            order.append(node)
        else:
            seen.add(id(child))
            stack.append((child, iter(child._prev)))
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64).reshape(-1)
    one_hot = np.eye(k)[labels]
    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n
