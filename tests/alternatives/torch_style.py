"""Alternative engine, style: torch's ``requires_grad`` and ``autograd.Function``.

Every op is a ``Function`` subclass with a ``forward(ctx, *arrays, **params)`` on NumPy arrays
and a ``backward(ctx, grad)`` that returns one gradient per tensor input, as
``torch.autograd.Function`` does; ``ctx`` saves what backward needs and says, in
``ctx.needs_input_grad``, which inputs want a gradient at all (backward skips the others, e.g.
matmul does not form ``swapaxes(a) @ g`` for a constant ``b``).

``requires_grad`` is honoured as torch does:

- a constant (Python number or ndarray) is wrapped as a tensor with ``requires_grad=False``;
- an op's output has ``requires_grad = any(input.requires_grad)``, and only such an output gets
  a ``_backward`` closure: one computed from constants keeps the leaf's no-op;
- the closure adds a gradient only into the inputs that require one (a constant's ``.grad``
  stays zero);
- ``backward`` runs the closures of the nodes that require grad and skips the rest.

A tensor built directly takes ``requires_grad`` as given (a caller that builds its own interior
node with ``_children`` says whether it needs a gradient); ``.grad`` always starts as a zero array
of the data's shape. ``_topological_order`` is the order of torch's engine: count each node's
consumers, release a node from the root down once all of its consumers have been, then
reverse that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

Axis = int | tuple[int, ...] | None


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """torch's ``sum_to``: sum ``grad`` over the dims broadcasting added or stretched, to ``shape``."""
    grad = np.asarray(grad, dtype=np.float64)
    lead = grad.ndim - len(shape)
    dims = list(range(lead))
    dims += [lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1]
    if dims:
        grad = grad.sum(axis=tuple(dims), keepdims=True)
    return grad.reshape(shape)


def _dims(axis: Axis, ndim: int) -> tuple[int, ...]:
    """A reduction's dims, wrapped and sorted; None: all of them."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        return (int(axis) % ndim,)
    return tuple(sorted(int(a) % ndim for a in axis))


class Context:
    """What a Function's forward leaves for its backward (torch's ``ctx``)."""

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self.saved: tuple[np.ndarray, ...] = ()

    def save_for_backward(self, *arrays: np.ndarray) -> None:
        self.saved = arrays


Grads = tuple[np.ndarray | None, ...]


class Function:
    """``torch.autograd.Function``: subclasses define ``forward`` and ``backward``; ``apply`` builds the node."""

    name: ClassVar[str] = ""

    @staticmethod
    def forward(ctx: Context, *args: Any, **params: Any) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        raise NotImplementedError

    @classmethod
    def apply(cls, *inputs: Any, **params: Any) -> Tensor:
        tensors = tuple(_as_tensor(x) for x in inputs)
        ctx = Context(tuple(t.requires_grad for t in tensors))
        data = cls.forward(ctx, *(t.data for t in tensors), **params)
        requires_grad = any(ctx.needs_input_grad)
        out = Tensor(data, requires_grad=requires_grad, _children=tensors, _op=cls.name or cls.__name__)
        if requires_grad:  # NOTE: an output of constants only keeps the leaf's no-op _backward
            out._backward = _backward_of(cls.backward, ctx, tensors, out)
        return out


def _backward_of(
    vjp: Callable[[Context, np.ndarray], Grads], ctx: Context, inputs: Sequence[Tensor], out: Tensor
) -> Callable[[], None]:
    """The node's closure: the Function's backward, each gradient summed to its input's shape and
    added into the inputs that require grad (and only those)."""

    def _backward() -> None:
        grads = vjp(ctx, out.grad)
        for tensor, needed, grad in zip(inputs, ctx.needs_input_grad, grads, strict=True):
            if needed and grad is not None:
                tensor.grad += unbroadcast(grad, tensor.shape)

    return _backward


# ---------------------------------------------------------------------------- the Functions


class Add(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        return grad, grad


class Sub(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a - b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        return grad, -grad if ctx.needs_input_grad[1] else None


class Mul(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        a, b = ctx.saved
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None), (grad * a if need_b else None)


class Div(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        a, b = ctx.saved
        need_a, need_b = ctx.needs_input_grad
        return (grad / b if need_a else None), (-grad * a / (b * b) if need_b else None)


class Neg(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        return -a

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        return (-grad,)


class Pow(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, exponent: float) -> np.ndarray:
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return a**exponent

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (a,) = ctx.saved
        p = ctx.exponent
        if p == 0:  # as torch: the gradient of x ** 0 is 0, even at x = 0
            return (np.zeros_like(grad),)
        return (grad * p * a ** (p - 1),)


class MatMul(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        a, b = ctx.saved
        need_a, need_b = ctx.needs_input_grad
        # Batch axes that were broadcast are summed away by unbroadcast in the closure.
        grad_a = grad @ np.swapaxes(b, -1, -2) if need_a else None
        grad_b = np.swapaxes(a, -1, -2) @ grad if need_b else None
        return grad_a, grad_b


class Sum(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return a.sum(axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        kept = grad if ctx.keepdim else np.expand_dims(grad, ctx.dims)
        return (np.broadcast_to(kept, ctx.shape),)


class Mean(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        ctx.count = int(np.prod([a.shape[d] for d in dims]))
        return a.mean(axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        kept = grad if ctx.keepdim else np.expand_dims(grad, ctx.dims)
        return (np.broadcast_to(kept, ctx.shape) / ctx.count,)


class Exp(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        result = np.exp(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (result,) = ctx.saved
        return (grad * result,)


class Log(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (a,) = ctx.saved
        return (grad / a,)


class ReLU(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(a > 0)  # torch's threshold_backward: strictly positive
        return np.maximum(a, 0.0)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (positive,) = ctx.saved
        return (np.where(positive, grad, 0.0),)


class Sigmoid(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        result = np.exp(-np.logaddexp(0.0, -a))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (s,) = ctx.saved
        return (grad * s * (1.0 - s),)


class Tanh(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        result = np.tanh(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (t,) = ctx.saved
        return (grad * (1.0 - t * t),)


class LogSoftmax(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, dim: int) -> np.ndarray:
        shifted = a - a.max(axis=dim, keepdims=True)
        result = shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))
        ctx.save_for_backward(result)
        ctx.dim = dim
        return result

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (result,) = ctx.saved
        return (grad - np.exp(result) * grad.sum(axis=ctx.dim, keepdims=True),)


class Softmax(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, dim: int) -> np.ndarray:
        e = np.exp(a - a.max(axis=dim, keepdims=True))
        result = e / e.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(result)
        ctx.dim = dim
        return result

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        (s,) = ctx.saved
        return (s * (grad - (grad * s).sum(axis=ctx.dim, keepdims=True)),)


class View(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, shape: tuple[int, ...]) -> np.ndarray:
        ctx.shape = a.shape
        return a.reshape(shape)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        return (grad.reshape(ctx.shape),)


class Permute(Function):
    @staticmethod
    def forward(ctx: Context, a: np.ndarray, *, dims: tuple[int, ...]) -> np.ndarray:
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return a.transpose(dims)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        return (grad.transpose(ctx.inverse),)


class NllLoss(Function):
    """torch's ``nll_loss`` with mean reduction: ``-mean(logp[i, y[i]])``; the labels get no gradient."""

    @staticmethod
    def forward(ctx: Context, logp: np.ndarray, *, target: np.ndarray) -> np.ndarray:
        ctx.shape, ctx.target = logp.shape, target
        return -logp[np.arange(len(target)), target].mean()

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Grads:
        n = len(ctx.target)
        result = np.zeros(ctx.shape)
        result[np.arange(n), ctx.target] = -grad / n
        return (result,)


# ---------------------------------------------------------------------------- the Tensor


class Tensor:
    """A float64 array that records its history only when ``requires_grad`` says it must."""

    __array_ufunc__ = None  # `ndarray * tensor` goes to Tensor.__rmul__ as a whole

    def __init__(self, data: Any, requires_grad: bool = False, _children: Any = (), _op: str = "") -> None:
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.requires_grad = bool(requires_grad)
        self._prev = tuple(_children)
        self._op = _op
        self._backward: Callable[[], None] = lambda: None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def is_leaf(self) -> bool:
        return not self._prev

    def zero_grad(self) -> None:
        self.grad = np.zeros_like(self.data)

    def __repr__(self) -> str:
        history = f", grad_fn=<{self._op}>" if self._op and self.requires_grad else ""
        flag = ", requires_grad=True" if self.requires_grad and not self._op else ""
        return f"tensor({self.data!r}{flag}{history})"

    # Arithmetic: a Python number or an ndarray on either side becomes a constant tensor.

    def __add__(self, other: Any) -> Tensor:
        return Add.apply(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return Add.apply(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return Sub.apply(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return Sub.apply(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return Mul.apply(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return Mul.apply(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return Div.apply(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return Div.apply(other, self)

    def __neg__(self) -> Tensor:
        return Neg.apply(self)

    def __pow__(self, exponent: float) -> Tensor:
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError(f"the exponent must be a Python number, not {type(exponent).__name__}")
        return Pow.apply(self, exponent=exponent)

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented  # @ takes two Tensors: `t @ ndarray` is a TypeError
        return MatMul.apply(self, other)

    # Reductions, elementwise functions, softmax and shapes.

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        return Sum.apply(self, dims=_dims(axis, self.data.ndim), keepdim=keepdims)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        return Mean.apply(self, dims=_dims(axis, self.data.ndim), keepdim=keepdims)

    def exp(self) -> Tensor:
        return Exp.apply(self)

    def log(self) -> Tensor:
        return Log.apply(self)

    def relu(self) -> Tensor:
        return ReLU.apply(self)

    def sigmoid(self) -> Tensor:
        return Sigmoid.apply(self)

    def tanh(self) -> Tensor:
        return Tanh.apply(self)

    def log_softmax(self, axis: int = -1) -> Tensor:
        return LogSoftmax.apply(self, dim=axis)

    def softmax(self, axis: int = -1) -> Tensor:
        return Softmax.apply(self, dim=axis)

    def reshape(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return View.apply(self, shape=shape)

    def transpose(self, *dims: int) -> Tensor:
        """torch's ``permute(*dims)``; no dims: reverse them all (``.T``)."""
        ndim = self.data.ndim
        return Permute.apply(self, dims=tuple(d % ndim for d in dims) if dims else tuple(range(ndim))[::-1])

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # Backpropagation.

    def backward(self) -> None:
        """Seed the one-element root with 1 and run, consumers first, the closures of the nodes
        that require grad; the others have nothing to pass back and are skipped."""
        if self.data.size != 1:
            raise RuntimeError(f"grad can be implicitly created only for one-element outputs, not shape {self.shape}")
        self.grad = np.ones_like(self.data)
        for node in reversed(_topological_order(self)):
            if node.requires_grad:
                node._backward()


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x, requires_grad=False)


def _topological_order(root: Tensor) -> list[Tensor]:
    """Every node reachable from ``root``, each after its inputs, ``root`` last.

    As torch's engine: first count each node's dependencies (how many times the reachable graph
    uses it as an input), then release nodes from the root down, a node once every consumer of
    it has been released. That order puts consumers first; reversed, inputs come first.
    """
    dependencies = {id(root): 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for parent in node._prev:
            if id(parent) not in dependencies:
                dependencies[id(parent)] = 0
                stack.append(parent)
            dependencies[id(parent)] += 1
    released: list[Tensor] = []
    ready = [root]
    while ready:
        node = ready.pop()
        released.append(node)
        for parent in node._prev:
            dependencies[id(parent)] -= 1
            if dependencies[id(parent)] == 0:
                ready.append(parent)
    released.reverse()
    return released


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """torch's ``F.cross_entropy``: ``nll_loss(log_softmax(logits))``, mean over the batch."""
    labels = np.asarray(y).astype(np.int64).reshape(-1)
    return NllLoss.apply(logits.log_softmax(axis=-1), target=labels)
