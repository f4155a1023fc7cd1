"""Alternative engine, style: micrograd's habits, grown to arrays.

Written the way Karpathy's micrograd ``Value`` is: ``self._prev = set(_children)`` (so the parents
are a set, and ``x * x`` has one parent, whose gradient the closure still adds twice), tensors
hashed by identity and kept in a ``visited`` *set of nodes*, not of ids; the reflected operators
are micrograd's one-liners (``__radd__`` is ``self + other``, ``__rsub__`` is
``other + (-self)``, ``__rtruediv__`` is ``other * self**-1``); ``relu``'s gradient reads
``out.data > 0``; ``backward`` is micrograd's: build the topological order, seed
``self.grad = np.ones_like(self.data)``, then ``for v in reversed(topo): v._backward()``.

The one departure: ``build_topo`` is micrograd's recursive function turned into a generator,
``yield child`` standing for the recursive call ``build_topo(child)``, and driven by a
trampoline over an explicit stack of generators, so a chain of 10,000 ops needs no recursion.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the prepended axes, then the stretched size-1 axes."""
    grad = np.asarray(grad, dtype=np.float64)
    lead = grad.ndim - len(shape)
    if lead > 0:
        grad = grad.sum(axis=tuple(range(lead)))
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The reduced axes of ``sum(axis=...)``, non-negative and sorted (None: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        return (int(axis) % ndim,)
    return tuple(sorted(int(a) % ndim for a in axis))


class Tensor:
    """micrograd's ``Value``, holding a float64 array instead of a float."""

    __array_ufunc__ = None  # `ndarray * tensor` hands the whole op to Tensor.__rmul__

    def __init__(self, data: Any, requires_grad: bool = False, _children: Any = (), _op: str = "") -> None:
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.requires_grad = requires_grad  # accepted; every tensor gets a gradient
        # internal variables used for autograd graph construction
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op  # the op that produced this node, for graphviz / debugging / etc

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def zero_grad(self) -> None:
        self.grad = np.zeros_like(self.data)

    def __add__(self, other: Any) -> Tensor:
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, _children=(self, other), _op="+")

        def _backward() -> None:
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, _children=(self, other), _op="*")

        def _backward() -> None:
            self.grad += unbroadcast(other.data * out.grad, self.shape)
            other.grad += unbroadcast(self.data * out.grad, other.shape)

        out._backward = _backward
        return out

    def __pow__(self, other: float) -> Tensor:
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            raise TypeError("only supporting int/float powers for now")
        out = Tensor(self.data**other, _children=(self,), _op=f"**{other}")

        def _backward() -> None:
            if other != 0:  # x**0 is constant; 0 * 0**-1 would be nan at x = 0
                self.grad += (other * self.data ** (other - 1)) * out.grad

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

    def relu(self) -> Tensor:
        out = Tensor(np.where(self.data < 0, 0.0, self.data), _children=(self,), _op="ReLU")

        def _backward() -> None:
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)
        out = Tensor(t, _children=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def exp(self) -> Tensor:
        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self) -> Tensor:
        out = Tensor(np.log(self.data), _children=(self,), _op="log")

        def _backward() -> None:
            self.grad += (1 / self.data) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
        # 1 / (1 + exp(-x)) written as exp(-log(1 + exp(-x))): no overflow for x << 0.
        s = np.exp(-np.logaddexp(0.0, -self.data))
        out = Tensor(s, _children=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axes = _axes(axis, self.data.ndim)
        out = Tensor(self.data.sum(axis=axes, keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            grad = out.grad if keepdims else np.expand_dims(out.grad, axes)
            self.grad += np.broadcast_to(grad, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axes = _axes(axis, self.data.ndim)
        n = 1
        for a in axes:
            n *= self.shape[a]
        return self.sum(axis=axes, keepdims=keepdims) / n

    def log_softmax(self, axis: int = -1) -> Tensor:
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        out = Tensor(logp, _children=(self,), _op="log_softmax")

        def _backward() -> None:
            self.grad += out.grad - np.exp(logp) * out.grad.sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))
        s = e / e.sum(axis=axis, keepdims=True)
        out = Tensor(s, _children=(self,), _op="softmax")

        def _backward() -> None:
            self.grad += s * (out.grad - (s * out.grad).sum(axis=axis, keepdims=True))

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

    def transpose(self, *axes: int) -> Tensor:
        ndim = self.data.ndim
        perm = [a % ndim for a in axes] if axes else list(reversed(range(ndim)))
        out = Tensor(self.data.transpose(perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            self.grad += out.grad.transpose(np.argsort(perm))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() needs a root with one element, got shape {self.shape}")
        # topological order all of the children in the graph
        topo = _topological_order(self)
        # go one variable at a time and apply the chain rule to get its gradient
        self.grad = np.ones_like(self.data)
        for v in reversed(topo):
            v._backward()

    def __neg__(self) -> Tensor:  # -self
        return self * -1

    def __radd__(self, other: Any) -> Tensor:  # other + self
        return self + other

    def __sub__(self, other: Any) -> Tensor:  # self - other
        return self + (-other)

    def __rsub__(self, other: Any) -> Tensor:  # other - self
        return other + (-self)

    def __rmul__(self, other: Any) -> Tensor:  # other * self
        return self * other

    def __truediv__(self, other: Any) -> Tensor:  # self / other
        other = other if isinstance(other, Tensor) else Tensor(other)
        return self * other**-1

    def __rtruediv__(self, other: Any) -> Tensor:  # other / self
        return other * self**-1

    def __repr__(self) -> str:
        return f"Tensor(data={self.data}, grad={self.grad})"


def _topological_order(root: Tensor) -> list[Tensor]:
    """micrograd's ``build_topo``, run without recursion: every node once, after its inputs."""
    topo: list[Tensor] = []
    visited: set[Tensor] = set()

    def build_topo(v: Tensor) -> Iterator[Tensor]:
        # micrograd's body, line for line; `yield child` is the recursive call build_topo(child)
        if v not in visited:
            visited.add(v)
            for child in v._prev:  # noqa: UP028 - micrograd's loop, kept as written
                yield child  # build_topo(child)
            topo.append(v)

    stack = [build_topo(root)]
    while stack:
        for child in stack[-1]:  # resume the innermost call up to its next "recursive call"
            stack.append(build_topo(child))
            break
        else:  # that call returned
            stack.pop()
    return topo


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y).astype(np.int64).reshape(-1)
    one_hot = np.eye(k)[labels]
    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n
