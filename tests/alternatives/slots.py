"""Alternative engine, style: ``__slots__`` and a table of VJPs instead of closures.

``Tensor`` declares ``__slots__``: its instances have no ``__dict__``, only the contract's
attributes (``data``, ``grad``, ``requires_grad``, ``_prev``, ``_op``, ``_backward``) and one more,
``_saved``. No op defines a closure: ``_node`` records the op's name in ``_op``, the arrays and
parameters its VJP needs in ``_saved``, and sets ``_backward`` to the bound method
``out._pull``, which looks the op up in the module-level table ``VJPS`` and adds each returned
gradient, summed to its parent's shape, into the parent's ``.grad``. (``_backward`` stays an
ordinary attribute: a caller may still assign its own no-arg callable to it.)

The topological order is a three-colour depth-first search over an explicit stack: a node is
grey while its inputs are being placed and black once placed; meeting a grey node again means
the graph has a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Grads = tuple[np.ndarray, ...]


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape`` with ``np.add.reduce``: prepended axes, then stretched ones."""
    grad = np.asarray(grad, dtype=np.float64)
    lead = grad.ndim - len(shape)
    if lead > 0:
        grad = np.add.reduce(grad, axis=tuple(range(lead)))
    stretched = tuple(i for i, (want, have) in enumerate(zip(shape, grad.shape, strict=True)) if want == 1 != have)
    if stretched:
        grad = np.add.reduce(grad, axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        return (int(axis) % ndim,)
    return tuple(sorted(int(a) % ndim for a in axis))


def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _spread(g: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """A reduction's output gradient, handed back to every element it reduced."""
    return np.broadcast_to(g if keepdims else np.expand_dims(g, axes), shape)


def _nothing() -> None:
    """A leaf's ``_backward``."""


# Each VJP takes the output's gradient g and the node's _saved, and returns one gradient per parent.
VJPS: dict[str, Callable[..., Grads]] = {
    "add": lambda g: (g, g),
    "sub": lambda g: (g, -g),
    "mul": lambda g, a, b: (g * b, g * a),
    "div": lambda g, a, b: (g / b, -g * a / (b * b)),
    "neg": lambda g: (-g,),
    "pow": lambda g, a, p: (g * p * a ** (p - 1) if p != 0 else np.zeros_like(a),),
    "matmul": lambda g, a, b: (g @ _swap(b), _swap(a) @ g),
    "sum": lambda g, shape, axes, keepdims: (_spread(g, shape, axes, keepdims),),
    "mean": lambda g, shape, axes, keepdims, n: (_spread(g, shape, axes, keepdims) / n,),
    "exp": lambda g, e: (g * e,),
    "log": lambda g, a: (g / a,),
    "relu": lambda g, a: (g * (a > 0),),
    "sigmoid": lambda g, s: (g * s * (1.0 - s),),
    "tanh": lambda g, t: (g * (1.0 - t * t),),
    "log_softmax": lambda g, logp, axis: (g - np.exp(logp) * g.sum(axis=axis, keepdims=True),),
    "softmax": lambda g, s, axis: (s * (g - (g * s).sum(axis=axis, keepdims=True)),),
    "reshape": lambda g, shape: (g.reshape(shape),),
    "transpose": lambda g, inverse: (g.transpose(inverse),),
}


class Tensor:
    """A float64 array in a graph; fixed attributes only (``__slots__``)."""

    __slots__ = ("data", "grad", "requires_grad", "_prev", "_op", "_backward", "_saved")
    __array_ufunc__ = None  # a class attribute: `ndarray + tensor` goes to Tensor.__radd__

    def __init__(self, data: Any, requires_grad: bool = False, _children: Any = (), _op: str = "") -> None:
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.requires_grad = requires_grad
        self._prev = tuple(_children)
        self._op = _op
        self._saved: tuple[Any, ...] = ()
        self._backward: Callable[[], None] = _nothing

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def zero_grad(self) -> None:
        self.grad = np.zeros_like(self.data)

    def __repr__(self) -> str:
        return f"Tensor({self.data!r}, op={self._op or 'leaf'!r})"

    def _pull(self) -> None:
        """This node's backward: the op's VJP from the table, added into the parents."""
        grads = VJPS[self._op](self.grad, *self._saved)
        for parent, grad in zip(self._prev, grads, strict=True):
            parent.grad += unbroadcast(grad, parent.shape)

    # ------------------------------------------------------------------ binary ops

    def __add__(self, other: Any) -> Tensor:
        other = _lift(other)
        return _node("add", self.data + other.data, (self, other))

    def __sub__(self, other: Any) -> Tensor:
        other = _lift(other)
        return _node("sub", self.data - other.data, (self, other))

    def __mul__(self, other: Any) -> Tensor:
        other = _lift(other)
        return _node("mul", self.data * other.data, (self, other), self.data, other.data)

    def __truediv__(self, other: Any) -> Tensor:
        other = _lift(other)
        return _node("div", self.data / other.data, (self, other), self.data, other.data)

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError("** takes a Python number exponent")
        return _node("pow", self.data**exponent, (self,), self.data, exponent)

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented  # @ takes two Tensors: `t @ ndarray` is a TypeError
        return _node("matmul", self.data @ other.data, (self, other), self.data, other.data)

    def __neg__(self) -> Tensor:
        return _node("neg", -self.data, (self,))

    def __radd__(self, other: Any) -> Tensor:
        return _lift(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return _lift(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return _lift(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return _lift(other) / self

    # ------------------------------------------------------------------ reductions

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axes = _axes(axis, self.data.ndim)
        return _node("sum", self.data.sum(axis=axes, keepdims=keepdims), (self,), self.shape, axes, keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axes = _axes(axis, self.data.ndim)
        n = int(np.prod([self.shape[a] for a in axes]))
        return _node("mean", self.data.mean(axis=axes, keepdims=keepdims), (self,), self.shape, axes, keepdims, n)

    # ------------------------------------------------------------------ elementwise

    def exp(self) -> Tensor:
        e = np.exp(self.data)
        return _node("exp", e, (self,), e)

    def log(self) -> Tensor:
        return _node("log", np.log(self.data), (self,), self.data)

    def relu(self) -> Tensor:
        return _node("relu", np.maximum(self.data, 0.0), (self,), self.data)

    def sigmoid(self) -> Tensor:
        s = np.exp(-np.logaddexp(0.0, -self.data))
        return _node("sigmoid", s, (self,), s)

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)
        return _node("tanh", t, (self,), t)

    # ------------------------------------------------------------------ softmax and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        return _node("log_softmax", logp, (self,), logp, axis)

    def softmax(self, axis: int = -1) -> Tensor:
        e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))
        s = e / e.sum(axis=axis, keepdims=True)
        return _node("softmax", s, (self,), s, axis)

    def reshape(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _node("reshape", self.data.reshape(shape), (self,), self.shape)

    def transpose(self, *axes: int) -> Tensor:
        ndim = self.data.ndim
        perm = tuple(a % ndim for a in axes) if axes else tuple(range(ndim - 1, -1, -1))
        return _node("transpose", self.data.transpose(perm), (self,), tuple(np.argsort(perm)))

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # ------------------------------------------------------------------ backpropagation

    def backward(self) -> None:
        if self.data.size != 1:
            raise ValueError(f"backward() needs a one-element root, got shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            node._backward()


def _lift(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


def _node(op: str, data: Any, parents: tuple[Tensor, ...], *saved: Any) -> Tensor:
    """The output of ``op``: its VJP is ``VJPS[op]``, fed ``saved``; no closure is made."""
    out = Tensor(data, _children=parents, _op=op)
    out._saved = saved
    out._backward = out._pull
    return out


WHITE, GREY, BLACK = 0, 1, 2


def _topological_order(root: Tensor) -> list[Tensor]:
    """Three-colour DFS with an explicit stack of (node, index of the next input to visit)."""
    colour: dict[int, int] = {id(root): GREY}
    order: list[Tensor] = []
    stack: list[tuple[Tensor, int]] = [(root, 0)]
    while stack:
        node, i = stack.pop()
        if i < len(node._prev):
            stack.append((node, i + 1))
            child = node._prev[i]
            state = colour.get(id(child), WHITE)
            if state == GREY:
                raise RuntimeError("the graph has a cycle")
            if state == WHITE:
                colour[id(child)] = GREY
                stack.append((child, 0))
        else:
            colour[id(node)] = BLACK
            order.append(node)
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels."""
    n, k = logits.shape
    labels = np.asarray(y).astype(np.int64).reshape(-1)
    picked = np.zeros((n, k))
    picked[np.arange(n), labels] = -1.0 / n
    return (logits.log_softmax(axis=-1) * picked).sum()
