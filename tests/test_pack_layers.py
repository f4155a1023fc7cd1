"""The ``layers`` pack's answer key (packs/layers/autograd_drill_layers/reference.py) and its correct
alternatives (packs/layers/alternatives/) agree with torch in float64 on generated cases, forward and
every gradient, and leave their inputs alone; classic bugs made from the reference fail the same
comparison, so it can fail. The cases and torch's answers are in tests/pack_layers_cases.py."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from tests.mutants import LAYERS_MUTANTS
from tests.pack_layers_cases import (
    COUNT,
    LAYERS,
    MODULES,
    REFERENCE,
    answers,
    assert_close,
    cases,
    load,
)


def _own_memory(results: tuple[object, ...], inputs: list[object], where: str) -> None:
    """No result is an input, or a view of one: writing to it would change the caller's array."""
    for result in results:
        shared = [i for i, a in enumerate(inputs) if np.shares_memory(np.asarray(result), np.asarray(a))]
        assert not shared, f"{where}: a result shares its memory with input {shared[0]}"


def check(module: object, layer: str, case: dict[str, object], index: int) -> None:
    """One case through the module's forward and backward, against torch; an AssertionError naming the
    case and what differs otherwise."""
    spec = LAYERS[layer]
    where = f"{layer} case {index}"
    kept = copy.deepcopy(case)
    forward = getattr(module, spec.forward)
    expected = answers(layer)[index]
    if spec.backward is None:  # adam: one step, no backward
        ours = forward(**case)
        assert isinstance(ours, tuple) and len(ours) == 3, f"{where}: adam_step returns (param, m, v)"
        for name, mine, theirs in zip(("param", "m", "v"), ours, expected, strict=True):
            assert_close(mine, theirs, f"{where}, new {name}")
        _own_memory(ours, [case[n] for n in spec.inputs], where)
    else:
        out, cache = forward(**case)
        assert_close(out, expected[0], f"{where}, out")
        dout, wanted = expected[1], expected[2:]
        given = dout.copy()
        grads = getattr(module, spec.backward)(given, cache)
        grads = (grads,) if isinstance(grads, np.ndarray) else grads
        assert len(grads) == len(spec.inputs), f"{where}: the backward returns one gradient per input"
        scale = max(float(np.abs(w).max()) for w in wanted if w.size)
        for name, mine, theirs in zip(spec.inputs, grads, wanted, strict=True):
            assert_close(mine, theirs, f"{where}, d{name}", scale)
        assert np.array_equal(given, dout), f"{where}: the backward modified dout"
        _own_memory((out, *grads), [*(case[n] for n in spec.inputs), given], where)
    for name, before in kept.items():
        after = case[name]
        same = np.array_equal(after, before) if isinstance(before, np.ndarray) else after == before
        assert same, f"{where}: the input {name} was modified in place"


@pytest.fixture(scope="module", params=MODULES, ids=lambda p: p.stem)
def module(request):
    return load(request.param)


@pytest.mark.parametrize("layer", LAYERS)
def test_every_implementation_agrees_with_torch_on_every_case(module, layer):
    for index, case in enumerate(cases(layer)):
        check(module, layer, case, index)


def test_there_are_at_least_two_alternatives_with_every_function():
    assert len(MODULES) >= 3, "packs/layers/alternatives/: at least two correct implementations in other styles"
    names = [n for spec in LAYERS.values() for n in (spec.forward, spec.backward) if n]
    for path in MODULES:
        found = load(path)
        assert all(callable(getattr(found, n, None)) for n in names), path.name


def test_the_cases_cover_what_the_docstrings_promise():
    """By construction: causal masks both ways, strides and paddings as pairs, overlapping windows,
    tied windows, a step past the first, weight decay, and attention scores past exp's range."""
    attention = cases("attention")
    assert {(c["causal"], c["q"].shape[-2] < c["k"].shape[-2]) for c in attention} >= {(True, True), (True, False)}
    assert any(c["causal"] and c["q"].shape[-2] > c["k"].shape[-2] for c in attention)
    assert any(np.abs(c["q"]).max() * np.abs(c["k"]).max() > 710 for c in attention)
    assert any(c["q"].ndim == 2 for c in attention) and any(c["q"].ndim == 4 for c in attention)
    conv = cases("conv2d")
    assert {type(c["stride"]) for c in conv} == {int, tuple} and {type(c["padding"]) for c in conv} == {int, tuple}
    pools = cases("maxpool2d")
    tied = [c for c in pools if len(np.unique(c["x"])) < c["x"].size // 2]
    assert tied and any("stride" not in c for c in pools)
    assert any("stride" in c and np.min(c["stride"]) < np.min(c["kernel_size"]) for c in pools)
    adam = cases("adam")
    assert {c["t"] for c in adam} >= {1, 2, 1000} and any(c.get("weight_decay") for c in adam)
    assert any(c["x"].ndim == 3 for c in cases("batchnorm")) and any(c["x"].ndim == 1 for c in cases("layernorm"))
    assert all(len(cases(layer)) == COUNT for layer in LAYERS)


def test_torch_breaks_ties_as_the_maxpool_docstring_says():
    """torch 2.13's max_pool2d sends a tied window's gradient to its first maximum in row-major order."""
    import torch
    import torch.nn.functional as F

    x = torch.tensor([[[[1.0, 2.0, 2.0], [2.0, 0.0, 2.0], [1.0, 1.0, 1.0]]]], dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(F.max_pool2d(x, 2, 1).sum(), x)
    assert grad[0, 0].tolist() == [[0.0, 2.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]


def test_torch_aligns_the_causal_mask_at_the_top_left():
    """torch 2.13's is_causal: query i sees keys j <= i, for Lq < Lk and Lq > Lk alike."""
    import torch
    import torch.nn.functional as F

    for lq, lk in [(2, 4), (4, 2)]:
        q, k = torch.zeros(lq, 3, dtype=torch.float64), torch.zeros(lk, 3, dtype=torch.float64)
        seen = F.scaled_dot_product_attention(q, k, torch.eye(lk, dtype=torch.float64), is_causal=True) > 0
        assert seen.tolist() == np.tril(np.ones((lq, lk), dtype=bool)).tolist()


# ---------------------------------------------------------------------------- the comparison can fail

SOURCE = REFERENCE.read_text(encoding="utf-8")
BUGS = {m.id: m for m in LAYERS_MUTANTS}
"""The pack's classic bugs (packs/layers/mutants.toml, graded through the grader by tests/test_mutants.py):
each must fail this direct comparison too, on the cases of its target."""


@pytest.mark.parametrize("bug", BUGS)
def test_a_classic_bug_fails_the_comparison(bug):
    layer = BUGS[bug].target
    module = load(REFERENCE, BUGS[bug].apply(SOURCE))
    failures = []
    for index, case in enumerate(cases(layer)):
        try:
            with np.errstate(all="ignore"):
                check(module, layer, case, index)
        except (AssertionError, FloatingPointError) as exc:
            failures.append(str(exc).splitlines()[0])
        except (IndexError, ValueError) as exc:  # a wrong index or shape: it fails that case too
            failures.append(f"{layer} case {index}: {type(exc).__name__}: {exc}")
    assert failures, f"{bug}: every case passed"
    assert all(f.startswith(f"{layer} case ") for f in failures), failures[0]
