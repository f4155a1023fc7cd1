"""What the layers pack's oracle tests share: the contract phrases, each case as a pytest parameter, and
the check of a layer (its forward and its backward) against torch, through the grader's oracle.

A layer's test asks the oracle (``grade.oracle.vjp``: torch in float64, live or recorded) for the
output and the gradients of its differentiable inputs at a seeded cotangent, then runs the user's
forward and backward and compares (``grade.expect``), each verdict naming the function that is
wrong, the case (the parameter's id: its index, the inputs' shapes and the options) and what differs.
The phrases below are the contract the tests cite (``@clause``): each is stated, word for word, in
the docstrings of reference.py that the target's stub keeps (tests/test_pack_contract.py checks it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from autograd_drill.grader.contract import clause

# ---------------------------------------------------------------------------- the module's contract
FLOAT64 = "Arrays in and out are float64 NumPy arrays"
NEW_ARRAYS = "Every array returned is a new array"
INPUTS_KEPT = "an input is never modified in place"
NO_VIEWS = "no output is a view that writing to it would change an input"
OUT_CACHE = "A forward returns ``(out, cache)``"
CACHE_OPAQUE = "``cache`` is opaque to the grader"
GRADIENTS = (
    "returns the gradient of each differentiable input, each of that input's shape, in the order"
    " the input comes in the forward's signature"
)
AS_TORCH = "Each layer computes what the ``torch`` expression named in its docstring computes, in float64"
SHARED = (FLOAT64, OUT_CACHE, CACHE_OPAQUE, GRADIENTS, AS_TORCH)
"""What every layer's comparison with torch relies on."""
INTACT = (NEW_ARRAYS, INPUTS_KEPT, NO_VIEWS)
"""What every layer's test of its inputs and results relies on."""


@dataclass(frozen=True)
class Layer:
    """A target's functions and the differentiable inputs, in the order the backward returns them."""

    name: str
    """The generator's name (layers_cases.MAKERS)."""
    forward: str
    backward: str | None
    inputs: tuple[str, ...]
    results: tuple[str, ...] = ()
    """A step's results (``adam_step``'s new param, m and v); a layer's are ``out`` and ``cache``."""

    def gradient_names(self) -> list[str]:
        return [f"d{name}" for name in self.inputs]


def _shown(value: object) -> str:
    if isinstance(value, np.ndarray):
        return str(value.shape).replace(" ", "")
    if isinstance(value, tuple):
        return "(" + ",".join(str(v) for v in value) + ")"
    return f"{value:g}" if isinstance(value, float) else str(value)


def case_id(index: int, case: dict[str, object]) -> str:
    """``07-x(2,3,8)-eps=0.01``: the case's index, its arrays' shapes and its options."""
    parts = [f"{index:02d}"]
    for name, value in case.items():
        parts.append(f"{name}{_shown(value)}" if isinstance(value, np.ndarray) else f"{name}={_shown(value)}")
    return "-".join(parts)


def params(generated: Sequence[dict[str, object]], phrases: Callable[[dict[str, object]], Sequence[str]]) -> list[Any]:
    """Each case as a ``pytest.param`` of its index, with the clauses the case itself relies on
    (``phrases(case)``: a causal mask, a tie, a stride left to its default, ...)."""
    found = []
    for index, case in enumerate(generated):
        own = tuple(phrases(case))
        found.append(pytest.param(index, id=case_id(index, case), marks=[clause(*own)] if own else []))
    return found


def options(layer: Layer, case: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in case.items() if k not in layer.inputs}


def _is_float64(value: object) -> bool:
    return isinstance(value, np.ndarray | np.float64) and np.asarray(value).dtype == np.float64


def _expect_float64(grade: Any, symbol: str, name: str, value: object) -> None:
    __tracebackhide__ = True
    if not _is_float64(value):
        kind = type(value).__name__ + (f" of {value.dtype}" if isinstance(value, np.ndarray) else "")
        raise grade.fail(symbol, f"{name} is {kind}, not a float64 ndarray")


def run_forward(grade: Any, layer: Layer, case: dict[str, object]) -> tuple[Any, Any]:
    """The user's forward on the case: ``(out, cache)``, or a verdict naming the forward."""
    __tracebackhide__ = True
    with grade.running(layer.forward):
        result = getattr(grade.impl, layer.forward)(**case)
    if not (isinstance(result, tuple) and len(result) == 2):
        shown = f"a tuple of {len(result)}" if isinstance(result, tuple) else type(result).__name__
        raise grade.fail(layer.forward, f"returned {shown}, not (out, cache)")
    return result


def run_backward(grade: Any, layer: Layer, dout: np.ndarray, cache: Any) -> list[Any]:
    """The user's backward: one gradient per differentiable input, or a verdict naming the backward."""
    __tracebackhide__ = True
    assert layer.backward is not None
    with grade.running(layer.backward):
        grads = getattr(grade.impl, layer.backward)(dout, cache)
    if len(layer.inputs) == 1:
        if not isinstance(grads, np.ndarray):
            raise grade.fail(layer.backward, f"returned {type(grads).__name__}, not the one array d{layer.inputs[0]}")
        return [grads]
    if not (isinstance(grads, tuple | list) and len(grads) == len(layer.inputs)):
        shown = f"{len(grads)} values" if isinstance(grads, tuple | list) else type(grads).__name__
        wanted = ", ".join(layer.gradient_names())
        raise grade.fail(layer.backward, f"returned {shown}, not the {len(layer.inputs)} gradients ({wanted})")
    return list(grads)


def check_against_torch(grade: Any, layer: Layer, case: dict[str, object], torch_fn: Callable[..., Any]) -> None:
    """The forward's ``out`` and every gradient the backward returns, against torch's
    ``torch_fn(*inputs, **options)`` and ``torch.autograd.grad(out, inputs, dout)``."""
    __tracebackhide__ = True
    assert layer.backward is not None
    arrays = [np.asarray(case[name]) for name in layer.inputs]
    told = options(layer, case)
    answer = grade.oracle.vjp(lambda *tensors: torch_fn(*tensors, **told), arrays, cotangent=grade.rng.standard_normal)
    out, cache = run_forward(grade, layer, case)
    _expect_float64(grade, layer.forward, "out", out)
    grade.expect(layer.forward, "out", out, answer.out)
    grads = run_backward(grade, layer, np.array(answer.cotangent, copy=True), cache)
    for name, mine, theirs in zip(layer.gradient_names(), grads, answer.grads, strict=True):
        _expect_float64(grade, layer.backward, name, mine)
        grade.expect(layer.backward, name, mine, theirs)


def check_intact(grade: Any, layer: Layer, case: dict[str, object]) -> None:
    """The forward and the backward leave their inputs (``dout`` too) as they were, and every array
    they return is one of its own: no input, nor a view of one."""
    __tracebackhide__ = True
    kept = copy.deepcopy(case)
    inputs = [case[name] for name in layer.inputs]
    if layer.backward is None:  # a step (adam_step): its results are the new state
        with grade.running(layer.forward):
            results = getattr(grade.impl, layer.forward)(**case)
        _unchanged(grade, layer.forward, case, kept)
        returned = results if isinstance(results, tuple | list) else [results]
        for name, result in zip(layer.results, returned, strict=False):
            _own_memory(grade, layer.forward, f"the new {name}", result, inputs)
        return
    out, cache = run_forward(grade, layer, case)
    _unchanged(grade, layer.forward, case, kept)
    _own_memory(grade, layer.forward, "out", out, inputs)
    dout = grade.rng.standard_normal(np.shape(out))
    given = dout.copy()
    grads = run_backward(grade, layer, given, cache)
    _unchanged(grade, layer.backward, case, kept)
    grade.expect(layer.backward, "dout after the backward", given, dout, source="the original")
    for name, grad in zip(layer.gradient_names(), grads, strict=True):
        _own_memory(grade, layer.backward, name, grad, [*inputs, given])


def _unchanged(grade: Any, symbol: str, case: dict[str, object], kept: dict[str, object]) -> None:
    __tracebackhide__ = True
    for name, before in kept.items():
        after = case[name]
        if isinstance(before, np.ndarray):
            grade.expect(symbol, f"the input {name} after {symbol}", after, before, source="the original")
        elif after != before:
            raise grade.fail(symbol, f"the option {name} is {after!r} after the call, not {before!r}")


def _own_memory(grade: Any, symbol: str, name: str, result: object, others: Sequence[object]) -> None:
    __tracebackhide__ = True
    for other in others:
        if isinstance(other, np.ndarray) and np.shares_memory(np.asarray(result), other):
            raise grade.fail(
                symbol,
                f"{name} shares its memory with an array passed in: writing to it would change the caller's",
                "return a new array (np.copy, or arithmetic that makes one), not an input or a view of it",
            )
