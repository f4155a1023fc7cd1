"""A tiny tensor autograd engine: micrograd grown to NumPy arrays.

Every op follows one template. Compute ``out``; define a nested ``_backward`` that *adds* the
vector-Jacobian product (the gradient of the loss with respect to each input, given
``out.grad``) into each parent's ``.grad``; attach it; return ``out``. ``backward()`` then runs
those closures once each, in reverse topological order.

Derived ops (``-``, ``/``, the reflected operators) are one-liners over the primitives, so
their gradients come for free.

Two rules hold for every op (each method that returns a new Tensor, and ``cross_entropy``), stated
here once for them all. Its ``_backward`` adds (``+=``) into the ``.grad`` of each of its inputs,
never replacing it: an input used twice collects both gradients. Nothing but ``.grad`` changes,
and each ``.grad`` is a float64 array of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

Axis = int | tuple[int, ...] | None


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the inverse of NumPy broadcasting.

    Broadcasting did two things to an input of ``shape``: it prepended leading axes, and it
    stretched axes of size 1. An input copied along an axis receives the sum of the gradients
    of all its copies, so both are undone by summing. ``grad`` is a float64 array, and is left
    unchanged; the result has exactly ``shape`` (``()`` included).
    """
    grad = np.asarray(grad, dtype=np.float64)
    # Leading axes that broadcasting prepended: (2, 3, 4) -> (3, 4).
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    # Axes of size 1 that broadcasting stretched: (3, 4) -> (1, 4).
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


def _reduced_axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    """The non-negative axes that ``sum(axis=...)`` reduces over (None: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % ndim for a in axes))


class Tensor:
    """An n-dimensional float64 array that remembers how it was computed."""

    # NOTE: without this, `ndarray * tensor` makes NumPy loop over the Tensor element by
    # element instead of handing the whole operation to Tensor.__rmul__.
    __array_ufunc__ = None

    def __init__(
        self,
        data: Any,
        requires_grad: bool = False,
        _children: Sequence[Tensor] = (),
        _op: str = "",
    ) -> None:
        """Wrap ``data`` (a number, a nested list, or an ndarray of any dtype) as a tensor.

        ``.data`` is a float64 ndarray with the values of ``data``: a copy, or ``data`` itself when
        that is a float64 ndarray (``np.asarray`` keeps it, as ``torch.as_tensor`` does: allowed, and
        reported as a note); ``Tensor(...)`` leaves the array passed in unchanged. ``.grad`` starts
        as float64 zeros of the same shape (whatever ``data``'s dtype). ``._prev`` holds the tensors
        this one was computed from, ``_children``: a tuple or a set (order and duplicates do not
        matter); a leaf's is empty. ``._op`` is a label for the op.
        ``._backward`` is a no-argument closure that pushes ``self.grad`` into the children's
        ``.grad``; a leaf's does nothing. ``requires_grad`` may be ignored, as here (every tensor
        gets a gradient), or honoured as torch does (an op's output needs a gradient when an input
        does); every tensor the grader needs a gradient of is built with ``requires_grad=True``.
        """
        # NOTE: requires_grad is kept but never read: every tensor here gets a gradient (see above).
        # A copy: the caller may change its array afterwards; our graph must not change with it.
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
        return f"Tensor(shape={self.shape}, op={self._op or 'leaf'!r}, data={self.data!r})"

    # ---------------------------------------------------------------- binary ops (broadcasting)

    def __add__(self, other: Any) -> Tensor:
        """``self + other``, elementwise, with NumPy broadcasting.

        ``other`` is a Tensor, a Python number or an ndarray on the right, and a Python number on
        the left (``2 + x`` reaches here through ``__radd__``); ``a - b`` is ``a + (-b)``. An
        ndarray on the left (``arr + x``, ``arr - x``, ``arr * x``, ``arr / x``) and ``2 / x`` are
        graded only where the file supports them: ``arr + x`` reaches ``__radd__`` only in a class
        that sets ``__array_ufunc__ = None`` (as here), and ``2 / x`` needs ``__rtruediv__``;
        without them, the grader gives a note instead of grading them. Like every op, its ``_backward``
        adds (``+=``) into each input's ``.grad``, since an input may get gradient through other
        paths too, and each input's share is summed back to the input's own shape.
        """
        other = _as_tensor(other)
        out = Tensor(self.data + other.data, _children=(self, other), _op="+")

        def _backward() -> None:
            # NOTE: out.grad has the broadcast shape; each input gets it summed to its own shape.
            self.grad += unbroadcast(out.grad, self.shape)
            other.grad += unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other: Any) -> Tensor:
        """``self * other``, elementwise, with NumPy broadcasting.

        ``other`` is a Tensor, a Python number or an ndarray on the right, and a Python number on
        the left (an ndarray on the left as for ``__add__``); ``-x`` is ``x * -1``. Its ``_backward`` adds (``+=``) into each input's ``.grad``, each share summed
        back to the input's own shape.
        """
        other = _as_tensor(other)
        out = Tensor(self.data * other.data, _children=(self, other), _op="*")

        def _backward() -> None:
            # Each input's gradient is scaled by the *other* input: d(xy)/dx = y.
            self.grad += unbroadcast(out.grad * other.data, self.shape)
            other.grad += unbroadcast(out.grad * self.data, other.shape)

        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Tensor:
        """``self ** exponent``, elementwise, for a Python number ``exponent``.

        The exponent is an int or a float: negative, zero and fractional ones too (``x / y`` is
        ``x * y ** -1``). At a base of exactly 0 its gradient is torch's for an exponent of at least
        1, finite: ``n * 0 ** (n - 1)`` (1 for ``n == 1``, else 0); for ``n == 0`` torch's is 0 and
        ``0 * 0.0 ** -1`` is nan, and either is accepted.
        """
        if not isinstance(exponent, (int, float)):
            raise TypeError(f"only a Python number exponent is supported, got {type(exponent).__name__}")
        out = Tensor(self.data**exponent, _children=(self,), _op=f"**{exponent}")

        def _backward() -> None:
            # NOTE: the power is (exponent - 1), taken of the *input*; out.data ** ... is a classic slip.
            self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other: Any) -> Tensor:
        """``self @ other`` for two Tensors: the matrix product over the last two axes, batched over
        the leading axes with broadcasting (both operands have 2 or more axes).

        Its ``_backward`` adds (``+=``) into each input's ``.grad``; an input whose batch axes were
        broadcast (a weight shared by the whole batch) gets the sum over them.
        """
        other = _as_tensor(other)
        out = Tensor(self.data @ other.data, _children=(self, other), _op="@")  # (..., n, p)

        def _backward() -> None:
            # (..., n, p) @ (..., p, m) -> (..., n, m); (..., m, n) @ (..., n, p) -> (..., m, p)
            grad_self = out.grad @ np.swapaxes(other.data, -1, -2)
            grad_other = np.swapaxes(self.data, -1, -2) @ out.grad
            # NOTE: a weight shared by every batch element gets the sum over the batch:
            # the batch axes were broadcast, so unbroadcast them.
            self.grad += unbroadcast(grad_self, self.shape)
            other.grad += unbroadcast(grad_other, other.shape)

        out._backward = _backward
        return out

    # ---------------------------------------------------------------- derived and reflected ops

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

    def __rmatmul__(self, other: Any) -> Tensor:
        return _as_tensor(other) @ self

    # ---------------------------------------------------------------- reductions

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Sum over ``axis``: an int, a tuple of ints (negatives count from the end), or None for
        all axes; ``keepdims`` keeps the reduced axes with size 1."""
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), _children=(self,), _op="sum")

        def _backward() -> None:
            # Every summed element gets out.grad: put the reduced axes back as size 1, then
            # broadcast. NOTE: without keepdims the reduced axes are gone, and broadcasting
            # (3,) against (3, 4) would line it up with the *last* axis, silently wrong.
            grad = out.grad if keepdims else np.expand_dims(out.grad, _reduced_axes(axis, self.data.ndim))
            self.grad += np.broadcast_to(grad, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """The mean over ``axis``: an int, a tuple of ints (negatives count from the end), or None
        for all axes; ``keepdims`` keeps the reduced axes with size 1."""
        out = Tensor(self.data.mean(axis=axis, keepdims=keepdims), _children=(self,), _op="mean")
        # NOTE: n counts the elements reduced into each output, not all the elements.
        n = self.data.size // max(out.data.size, 1)

        def _backward() -> None:
            grad = out.grad if keepdims else np.expand_dims(out.grad, _reduced_axes(axis, self.data.ndim))
            self.grad += np.broadcast_to(grad, self.shape) / n

        out._backward = _backward
        return out

    def max(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """The largest element over ``axis`` (an int, negatives counting from the end, or None for
        all), keeping the reduced axis with size 1 if ``keepdims``. Ties send the gradient to the
        first maximal element only, as ``torch.max(x, dim)`` does."""
        flat = axis is None
        x = self.data.reshape(-1) if flat else self.data
        ax = 0 if flat else axis
        first = np.expand_dims(np.argmax(x, axis=ax), ax)  # NOTE: argmax picks the *first* maximum
        top = np.take_along_axis(x, first, axis=ax)  # the reduced axis kept, with size 1
        if flat:
            value = top.reshape((1,) * self.data.ndim if keepdims else ())
        else:
            value = top if keepdims else np.squeeze(top, axis=ax)
        out = Tensor(value, _children=(self,), _op="max")

        def _backward() -> None:
            # Only the chosen element moved the output: a one-hot mask of it, times out.grad.
            mask = np.zeros_like(x)
            np.put_along_axis(mask, first, 1.0, axis=ax)
            self.grad += (mask * out.grad.reshape(top.shape)).reshape(self.shape)

        out._backward = _backward
        return out

    # ---------------------------------------------------------------- elementwise functions

    def exp(self) -> Tensor:
        """``e ** x``, elementwise."""
        out = Tensor(np.exp(self.data), _children=(self,), _op="exp")

        def _backward() -> None:
            self.grad += out.data * out.grad  # d exp(x) = exp(x): reuse the forward result

        out._backward = _backward
        return out

    def log(self) -> Tensor:
        """The natural logarithm, elementwise, of positive values."""
        out = Tensor(np.log(self.data), _children=(self,), _op="log")

        def _backward() -> None:
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def relu(self) -> Tensor:
        """``max(x, 0)``, elementwise; its gradient is 0 at exactly 0, as torch's."""
        out = Tensor(np.maximum(self.data, 0.0), _children=(self,), _op="relu")

        def _backward() -> None:
            # NOTE: strictly greater: at exactly 0 the gradient is 0, as in torch.
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self) -> Tensor:
        """``1 / (1 + e ** -x)``, elementwise, without overflow for inputs of any magnitude (1000
        included)."""
        # NOTE: 1 / (1 + exp(-x)) overflows for x << 0; exp(-logaddexp(0, -x)) never does.
        out = Tensor(np.exp(-np.logaddexp(0.0, -self.data)), _children=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = _backward
        return out

    def tanh(self) -> Tensor:
        """The hyperbolic tangent, elementwise."""
        out = Tensor(np.tanh(self.data), _children=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += (1.0 - out.data**2) * out.grad

        out._backward = _backward
        return out

    # ---------------------------------------------------------------- softmax and shapes

    def log_softmax(self, axis: int = -1) -> Tensor:
        """``log(softmax(x))`` along ``axis`` (default -1, the last axis), without overflow for
        logits of magnitude 1000. ``axis`` is an int; negatives count from the end."""
        # NOTE: subtract the max first. exp(1000) overflows to inf; the shift cancels out exactly.
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        out = Tensor(logp, _children=(self,), _op="log_softmax")

        def _backward() -> None:
            # d logp_i / dx_j = [i == j] - softmax_j, so the VJP is g - softmax * sum(g).
            softmax = np.exp(out.data)
            self.grad += out.grad - softmax * out.grad.sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    def softmax(self, axis: int = -1) -> Tensor:
        """``exp(x) / sum(exp(x))`` along ``axis`` (default -1, the last axis), without overflow for
        logits of magnitude 1000. ``axis`` is an int; negatives count from the end."""
        e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))  # NOTE: shifted, as above
        out = Tensor(e / e.sum(axis=axis, keepdims=True), _children=(self,), _op="softmax")

        def _backward() -> None:
            # d s_i / dx_j = s_i ([i == j] - s_j), so the VJP is s * (g - sum(g * s)).
            s = out.data
            self.grad += s * (out.grad - (out.grad * s).sum(axis=axis, keepdims=True))

        out._backward = _backward
        return out

    def reshape(self, *shape: Any) -> Tensor:
        """The same elements in a new shape: ``reshape(2, 3)`` or ``reshape((2, 3))``; one axis may
        be -1."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), _children=(self,), _op="reshape")

        def _backward() -> None:
            self.grad += out.grad.reshape(self.shape)

        out._backward = _backward
        return out

    def transpose(self, *axes: Any) -> Tensor:
        """Permute the axes, given as separate ints: ``transpose(2, 0, 1)``. Negative axes count
        from the end, as in NumPy; with no axes, reverse them all (``.T``)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        ndim = self.data.ndim
        perm = tuple(a % ndim for a in axes) if axes else tuple(reversed(range(ndim)))
        out = Tensor(self.data.transpose(perm), _children=(self,), _op="transpose")

        def _backward() -> None:
            # NOTE: undo the permutation with its inverse (argsort), not by applying it again:
            # a swap is its own inverse, a 3-cycle is not.
            self.grad += out.grad.transpose(np.argsort(perm))

        out._backward = _backward
        return out

    @property
    def T(self) -> Tensor:
        return self.transpose()

    # ---------------------------------------------------------------- backpropagation

    def backward(self, gradient: Any = None, retain_graph: bool = False) -> None:
        """Backpropagation: add d(self)/d(t) into the ``.grad`` of every tensor ``t`` this one depends on.

        Without ``gradient``, the root must have exactly one element (of any shape: ``()``,
        ``(1,)``, ``(1, 1)``); for any other root, raise an error. Seed the root's ``.grad`` with
        ones of its shape (whatever it held before is replaced, not added to), then run every node's
        ``_backward`` exactly once, in reverse topological order: a node runs only after all of its
        consumers have added into its ``.grad``. An engine that honours ``requires_grad`` may skip the
        nodes that need no gradient. No tensor's ``.data`` changes: the root's value stays readable.

        (backward drill) ``gradient`` and ``retain_graph`` are follow-up drills (``cotangent``,
        ``free-memory``): here they keep their defaults, and nothing passes them.

        (cotangent drill) With ``gradient``, a cotangent of the root's shape (torch's
        ``y.backward(v)``; also the first positional parameter), seed the root's ``.grad`` with a
        float64 copy of it instead, whatever the root's shape: the leaves then get the
        vector-Jacobian product. Raise an error for a cotangent whose shape is not the root's, even
        one of the same size, or one that differs only in axes of size 1 (nothing is broadcast or
        reshaped). A cotangent of ints or float32 is seeded as float64 all the same; the caller's array
        is left as it was.

        (free-memory drill) Unless ``retain_graph``, release each node's closure and ``_prev``
        (and so the arrays they hold) as soon as its closure has run, the root's too, so memory
        falls as backward proceeds: pop nodes off the order rather than keep the list. With
        ``retain_graph=True`` the graph is kept, and a second ``backward`` adds the same gradients
        into the leaves again, as torch does: the interior nodes start again from zero.
        """
        if gradient is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() needs a root with one element, got shape {self.shape}: "
                    "reduce it first (e.g. .sum()), or pass gradient= with the root's shape"
                )
            self.grad = np.ones_like(self.data)
        else:  # (cotangent drill)
            seed = np.array(gradient, dtype=np.float64)
            if seed.shape != self.shape:
                raise ValueError(f"gradient has shape {seed.shape}, but the root has shape {self.shape}")
            self.grad = seed
        # NOTE: a node's closure may run only once all of its consumers have added into its
        # .grad, hence the order; and only once, or its parents would be counted twice.
        order = _topological_order(self)
        for node in order:  # (free-memory drill)
            if node._prev and node is not self:  # NOTE: interior nodes start from zero on every pass
                node.grad = np.zeros_like(node.data)
        while order:
            node = order.pop()  # the last in topological order: all its consumers have run
            node._backward()
            if not retain_graph:  # (free-memory drill)
                # The closure holds the node's inputs and the arrays they saved: drop it, and the
                # links to the inputs, so that whatever nothing else holds is freed right now.
                node._backward = lambda: None
                node._prev = ()


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def _topological_order(root: Tensor) -> list[Tensor]:
    """Every tensor ``root`` depends on through ``_prev``, leaves included, once each, each after
    all of its inputs; ``root`` last.

    No recursion limit: a chain of 10,000 ops must work.
    """
    # micrograd's recursive depth-first search, with an explicit stack of (node, its inputs left).
    order: list[Tensor] = []
    visited = {id(root)}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:  # all of node's inputs are placed: place node
            stack.pop()
            order.append(node)
    return order


def cross_entropy(logits: Tensor, y: Any) -> Tensor:
    """Mean softmax cross-entropy of ``(N, K)`` logits and ``(N,)`` integer labels ``y`` (a list or
    an ndarray), as a scalar Tensor; stable for logits of magnitude 1000."""
    n, k = logits.shape
    labels = np.asarray(y.data if isinstance(y, Tensor) else y).astype(np.int64)
    one_hot = np.zeros((n, k))
    one_hot[np.arange(n), labels] = 1.0
    # NOTE: log_softmax, not log(softmax(...)): softmax underflows to 0 at large logits, log(0) = -inf.
    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n


# ---------------------------------------------------------------------------- checking gradients


class GradcheckResult(NamedTuple):
    """A gradcheck's verdict and its worst element: ``inputs[input][index]``."""

    passed: bool
    input: int
    index: tuple[int, ...]
    analytic: float
    numeric: float


def numerical_grad(f: Callable[..., Tensor], inputs: Sequence[Any], eps: float = 1e-6) -> list[np.ndarray]:
    """The gradient of the scalar ``f(*tensors)`` by central differences, one array per input;
    ``inputs`` are left as they were, bit for bit (perturb a float64 copy, not the caller's array).
    An input is an ndarray of any dtype, ints included: its gradient is a float64 array of its shape,
    measured at its values as floats.

    d f / d x[i] ~ (f(x + eps e_i) - f(x - eps e_i)) / (2 eps): an error of order eps**2, two
    evaluations of ``f`` per element. Slow and approximate, but it needs no backward at all.
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    grads = []
    for x in arrays:
        grad = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            original = x[i]
            x[i] = original + eps
            plus = float(f(*[Tensor(a) for a in arrays]).data)
            x[i] = original - eps
            minus = float(f(*[Tensor(a) for a in arrays]).data)
            x[i] = original  # NOTE: restore before the next element, or every later one is shifted
            grad[i] = (plus - minus) / (2 * eps)
        grads.append(grad)
    return grads


def gradcheck(
    f: Callable[..., Tensor], inputs: Sequence[Any], eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3
) -> GradcheckResult:
    """Compare ``f``'s backward with central differences of step ``eps`` (numerical_grad's); pass if
    every element is within ``atol + rtol * |numeric|``, the boundary included (a nan is never within
    it, on either side). The result says whether it passed, and gives the worst element (the one
    furthest past that tolerance, whichever input it is in): its input's position, its index in that
    input, and its analytic and numeric values. ``inputs`` are as numerical_grad's (an int array too),
    and are left as they were."""
    tensors = [Tensor(np.array(x, dtype=np.float64), requires_grad=True) for x in inputs]
    f(*tensors).backward()
    numeric = numerical_grad(f, inputs, eps)
    worst = GradcheckResult(True, 0, (), 0.0, 0.0)
    worst_excess = -np.inf
    for k, (tensor, expected) in enumerate(zip(tensors, numeric, strict=True)):
        if expected.size == 0:
            continue
        excess = np.abs(tensor.grad - expected) - (atol + rtol * np.abs(expected))
        excess = np.where(np.isnan(excess), np.inf, excess)  # NOTE: nan > x is False: a nan would hide
        i = tuple(int(j) for j in np.unravel_index(np.argmax(excess), excess.shape))
        if excess[i] > worst_excess:
            worst_excess = float(excess[i])
            worst = GradcheckResult(bool(excess[i] <= 0), k, i, float(tensor.grad[i]), float(expected[i]))
    return worst._replace(passed=bool(worst_excess <= 0))


# ---------------------------------------------------------------------------- forward mode


class Dual:
    """A value and its tangent: forward mode carries d(value) along with the value, op by op.

    For ``y = f(x)`` and a tangent ``dx``, each op maps (x, dx) to (f(x), J dx): one pass gives a
    Jacobian-vector product, where reverse mode gives a vector-Jacobian product.
    """

    __array_ufunc__ = None  # NOTE: as in Tensor, so that `ndarray @ dual` reaches Dual.__rmatmul__

    def __init__(self, primal: Any, tangent: Any = None) -> None:
        self.primal = np.array(primal, dtype=np.float64)
        self.tangent = np.zeros_like(self.primal) if tangent is None else np.array(tangent, dtype=np.float64)

    def __add__(self, other: Any) -> Dual:
        """``d(x + y) = dx + dy``; ``other`` is a Dual or a constant (a zero tangent), on either side, with
        NumPy broadcasting: a constant of a bigger shape broadcasts the dual, and the result's tangent has
        the result's shape."""
        other = _as_dual(other)
        return Dual(self.primal + other.primal, self.tangent + other.tangent)

    def __mul__(self, other: Any) -> Dual:
        """``d(x y) = dx y + x dy``: the product rule; ``other`` is a Dual or a constant (a zero tangent), on
        either side, with NumPy broadcasting: a constant of a bigger shape broadcasts the dual, and the
        result's tangent has the result's shape."""
        other = _as_dual(other)
        return Dual(self.primal * other.primal, self.tangent * other.primal + self.primal * other.tangent)

    def __matmul__(self, other: Any) -> Dual:
        """``d(A B) = dA B + A dB``; ``other`` is a Dual or a constant (a zero tangent)."""
        other = _as_dual(other)
        return Dual(self.primal @ other.primal, self.tangent @ other.primal + self.primal @ other.tangent)

    def __radd__(self, other: Any) -> Dual:
        return _as_dual(other) + self

    def __rmul__(self, other: Any) -> Dual:
        return _as_dual(other) * self

    def __rmatmul__(self, other: Any) -> Dual:
        return _as_dual(other) @ self

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Dual:
        """Sum over ``axis`` (as ndarray.sum): sums are linear, so the tangent is summed the same way."""
        return Dual(self.primal.sum(axis=axis, keepdims=keepdims), self.tangent.sum(axis=axis, keepdims=keepdims))

    def exp(self) -> Dual:
        """``d exp(x) = exp(x) dx``."""
        e = np.exp(self.primal)
        return Dual(e, e * self.tangent)

    def log(self) -> Dual:
        """``d log(x) = dx / x``."""
        return Dual(np.log(self.primal), self.tangent / self.primal)

    def relu(self) -> Dual:
        """``d relu(x) = [x > 0] dx`` (0 at exactly 0, as torch)."""
        return Dual(np.maximum(self.primal, 0.0), (self.primal > 0) * self.tangent)

    def tanh(self) -> Dual:
        """``d tanh(x) = (1 - tanh(x)^2) dx``."""
        t = np.tanh(self.primal)
        return Dual(t, (1.0 - t**2) * self.tangent)


def _as_dual(x: Any) -> Dual:
    return x if isinstance(x, Dual) else Dual(x)  # a constant: its tangent is zero


def jvp(f: Callable[..., Dual], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The pair ``(f(primals), J v)``: the value and its Jacobian-vector product with ``tangents``, in
    one forward pass of ``f`` on duals."""
    out = f(*[Dual(p, t) for p, t in zip(primals, tangents, strict=True)])
    return out.primal, out.tangent


def hvp(X: np.ndarray, w: np.ndarray, v: np.ndarray) -> np.ndarray:  # noqa: N803 - X is a matrix
    """The Hessian-vector product ``H v`` of ``L(w) = sum(relu(X w)^2)``, by forward-over-reverse.

    The reverse pass of L (its gradient, ``X^T (2 relu(X w) [X w > 0])``) is run on duals whose
    tangent is ``v``: the tangent of the gradient is then the derivative of the gradient along
    ``v``, which is ``H v``. No Hessian is ever formed.
    """
    w_dual = Dual(w, v)
    z = X @ w_dual  # (n,)
    a = z.relu()
    # The reverse pass, on duals: dL/da = 2a; dL/dz = dL/da * [z > 0]; dL/dw = X^T dL/dz.
    dz = (a * 2.0) * (z.primal > 0)  # NOTE: the mask is a constant: relu'' = 0 almost everywhere
    grad = X.T @ dz
    return grad.tangent
