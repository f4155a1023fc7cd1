"""Comparing an answer with the oracle's, in one line a user reads; and the grader's own backward pass.

Below both the per-test helper (check.py) and the probes (probes.py): they import from here, never
from each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class TestTimeout(BaseException):  # noqa: N818 - not an error of ours, a stop
    """Raised into the user's code when a test runs past its time limit.

    A BaseException, so that a solution's ``except Exception`` cannot swallow it.
    """

    __test__ = False  # not a pytest test class
    limit: float = 0.0


ATOL = 1e-9
RTOL = 1e-7


def _fmt_index(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def article(noun: str) -> str:
    """``"an ndarray"``, ``"a float"``: by the sound (n-darray)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' or noun == 'ndarray' else 'a'} {noun}"


def compare(
    name: str, ours: Any, expected: np.ndarray, source: str = "torch", atol: float = ATOL, rtol: float = RTOL
) -> str | None:
    """None when ``ours`` matches ``expected`` within tolerance, else what differs, in one line.

    ``source`` says where ``expected`` comes from: torch, or (for a check of the contract itself) "expected".
    Whatever ``np.seterr`` the user's code set, no floating-point error is raised here.
    """
    with np.errstate(all="ignore"):
        return _compare(name, ours, expected, source, atol, rtol)


def _compare(
    name: str, ours: Any, expected: np.ndarray, source: str = "torch", atol: float = ATOL, rtol: float = RTOL
) -> str | None:
    """None when ``ours`` matches ``expected`` within tolerance, else what differs, in one line.

    ``source`` says where ``expected`` comes from: torch, or (for a check of the contract itself) "expected".
    Run inside ``compare``'s ``np.errstate(all="ignore")``.
    """
    if ours is None:
        return f"{name} is None, where {source}'s is an array of shape {expected.shape}"
    try:
        ours_arr = np.asarray(ours, dtype=np.float64)
    except (TypeError, ValueError):
        return f"{name} is {type(ours).__name__}, not a numeric array"
    if ours_arr.shape != expected.shape:
        return f"{name} has shape {ours_arr.shape}, {source}'s has shape {expected.shape}"
    # The fast path: finite and close (np.isclose is slower); compare's errstate covers it.
    if (np.abs(ours_arr - expected) <= atol + rtol * np.abs(expected)).all():
        return None
    ok = np.isclose(ours_arr, expected, rtol=rtol, atol=atol, equal_nan=True)
    if ok.all():
        return None
    bad_finite = ~np.isfinite(ours_arr) & np.isfinite(expected)
    if bad_finite.any():
        index = tuple(np.argwhere(bad_finite)[0])
        where = _fmt_index(index) if index else ""
        return (
            f"{name}{where} is {ours_arr[index]} where {source}'s is {_fmt(expected[index])}"
            f" ({int(bad_finite.sum())} of {expected.size} elements are inf or nan)"
        )
    err = np.where(ok, 0.0, np.abs(ours_arr - expected))
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(err)), err.shape))
    where = f" at {_fmt_index(index)}" if index else ""
    return (
        f"{name} differs from {source}'s by up to {err[index]:.3g}{where}"
        f" (ours {_fmt(ours_arr[index])}, {source} {_fmt(expected[index])});"
        f" {int((~ok).sum())} of {expected.size} elements differ"
    )


def diagnose(
    name: str, ours: Any, expected: np.ndarray, out_shape: tuple[int, ...] | None = None, symbol: str = ""
) -> str | None:
    """A hint for the classic mistakes that show in the numbers themselves; None rather than a guess."""
    with np.errstate(all="ignore"):
        return _diagnose(name, ours, expected, out_shape, symbol)


def _diagnose(
    name: str, ours: Any, expected: np.ndarray, out_shape: tuple[int, ...] | None = None, symbol: str = ""
) -> str | None:
    if ours is None:
        return (
            "every tensor the grader needs a gradient of is built with requires_grad=True (op outputs from such"
            " tensors too): its .grad starts as zeros and each closure adds into it"
        )
    try:
        ours = np.asarray(ours, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if ours.shape != expected.shape:
        if out_shape is not None and ours.shape == out_shape:
            return (
                f"{name} has the shape of the op's output {out_shape}: sum it back to the input's shape"
                f" {expected.shape} with unbroadcast (broadcasting prepended or stretched axes)"
            )
        if ours.ndim > expected.ndim:
            return "leading axes that broadcasting prepended were not summed away"
        if ours.ndim == expected.ndim:
            stretched = [i for i, n in enumerate(expected.shape) if n == 1 and ours.shape[i] != 1]
            if stretched:
                return f"axes {stretched} have size 1 in the target shape: sum them with keepdims=True"
        if ours.shape == expected.shape[::-1]:
            return "the shape is reversed: is a transpose (or swapaxes) missing or applied twice?"
        return None
    if not np.isfinite(ours).all() and np.isfinite(expected).all():
        return _instability(ours, symbol)
    scale = np.abs(expected).max(initial=0.0)
    if scale == 0.0:
        return None
    if np.abs(ours).max(initial=0.0) == 0.0:
        return (
            f"no gradient reached {name}: is the closure attached (out._backward = _backward),"
            " and does it add into the parent's .grad?"
        )
    nonzero = np.abs(expected) > 1e-12
    if nonzero.sum() < 2 or not name.endswith(".grad"):
        return None  # one number fits any factor: a guess, and a wrong hint is worse than none
    for factor, text in (
        (2.0, "twice torch's: a contribution is added twice, or a node's _backward runs twice"),
        (0.5, "half of torch's: a tensor used twice must collect both contributions (+=, not =)"),
        (-1.0, "the sign is flipped"),
    ):
        if np.allclose(ours, factor * expected, rtol=1e-6, atol=1e-9):
            return text
    ratio = ours[nonzero] / expected[nonzero]
    factor = float(ratio.flat[0])
    explained = np.allclose(ours, factor * expected, rtol=1e-6, atol=1e-9)  # the zeros too
    if explained and abs(factor) > 1e-6 and abs(factor - 1) > 1e-6:
        return f"off by a constant factor of {factor:.6g}: a count (n, N, K) in the wrong place?"
    return None


def _instability(ours: np.ndarray, symbol: str) -> str:
    """Which overflow or underflow made inf or nan, by the op and by the values."""
    if symbol.endswith("sigmoid"):
        return (
            "inf or nan where torch is finite: exp overflowed for inputs of large magnitude; compute sigmoid as "
            "exp(-logaddexp(0, -x)), or pick 1 / (1 + exp(-x)) or exp(x) / (1 + exp(x)) by the sign of x"
        )
    if symbol == "cross_entropy":  # its own ops are the reference's in its drill: the log is the suspect
        return (
            "inf or nan where torch is finite: log(softmax(x)) is log(0) = -inf where softmax underflowed to 0"
            " at large logits (and -inf * 0 is nan); use log_softmax"
        )
    if np.isneginf(ours).any():
        return (
            "-inf where torch is finite: the log of a value that underflowed to 0, such as log(softmax(x)) at"
            " large logits; compute it as x - max - log(sum(exp(x - max))) (log_softmax)"
        )
    return "inf or nan where torch is finite: exp overflowed? subtract the max along the axis before exp"


def backprop(out: Any, cotangent: np.ndarray) -> None:
    """Seed ``out.grad`` and run every ``_backward`` reachable through ``_prev`` once, consumers first.

    The grader's own backward pass, so that a check of an op does not depend on the user's
    ``Tensor.backward`` and ``_topological_order``.
    """
    seed(out, cotangent)
    for node in reversed(graph_order(out)):
        node._backward()


def _in_place(grad: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``grad`` is an ndarray the grader may write into: writable, of ``shape``."""
    return isinstance(grad, np.ndarray) and grad.shape == shape and grad.flags.writeable


def seed(tensor: Any, cotangent: Any) -> None:
    """Set ``tensor.grad`` to ``cotangent``, into the array that is there when it can (its object and
    dtype kept, a 0-d one included), as an engine's own backward may seed it."""
    value = np.asarray(cotangent, dtype=np.float64)
    grad = getattr(tensor, "grad", None)
    if _in_place(grad, value.shape):
        try:
            np.copyto(grad, value, casting="same_kind")
            return
        except TypeError:  # a .grad of a dtype float64 cannot be cast to: the tests name it
            pass
    tensor.grad = np.array(value, dtype=np.float64)


def add_into(tensor: Any, contribution: Any) -> None:
    """Add ``contribution`` into ``tensor.grad`` as an engine's closure does: into the array that is
    there (its object and dtype kept, a 0-d one included), never rebinding it to a NumPy scalar,
    so that an engine that accumulates or zeroes in place (``np.add(g, x, out=t.grad)``,
    ``t.grad[...] = 0``) keeps working after a grader's op. A ``.grad`` that cannot take it in place
    (not an ndarray, read-only, of another shape or dtype) gets a new array, never a scalar: the
    tests then say what is wrong with it."""
    value = np.asarray(contribution, dtype=np.float64)
    grad = tensor.grad
    if _in_place(grad, value.shape):
        try:
            np.add(grad, value, out=grad, casting="same_kind")
            return
        except TypeError:  # e.g. an integer .grad: float64 cannot be cast into it
            pass
    tensor.grad = np.asarray(grad + value)


def graph_order(out: Any) -> list[Any]:
    """Every node ``out`` depends on through ``_prev``, once each, inputs before their consumers:
    the grader's own topological order."""
    order: list[Any] = []
    seen = {id(out)}
    stack = [(out, iter(tuple(out._prev)))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if id(child) not in seen:
                if not hasattr(child, "_prev"):
                    raise TypeError(
                        f"the _prev of a {getattr(node, '_op', '')!r} node holds {article(type(child).__name__)}, not a"
                        " Tensor: wrap a number or an ndarray operand with _as_tensor first"
                    )
                seen.add(id(child))
                stack.append((child, iter(tuple(child._prev))))
                break
        else:
            stack.pop()
            order.append(node)
    return order
