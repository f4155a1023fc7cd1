"""The ``layers`` pack's answer key (packs/layers/autograd_drill_layers/reference.py) and its correct
alternatives (packs/layers/alternatives/) agree with torch in float64 on generated cases, forward and
every gradient, and leave their inputs alone; classic bugs made from the reference fail the same
comparison, so it can fail. The cases and torch's answers are in tests/pack_layers_cases.py."""

from __future__ import annotations

import copy

import numpy as np
import pytest

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
BUGS = {
    "batchnorm with the unbiased variance": (
        "batchnorm",
        [("var = x.var(axis=axes, keepdims=True)", "var = x.var(axis=axes, keepdims=True, ddof=1)")],
    ),
    "layernorm over the first axis": (
        "layernorm",
        [
            ("mean = x.mean(axis=-1, keepdims=True)", "mean = x.mean(axis=0, keepdims=True)"),
            ("var = x.var(axis=-1, keepdims=True)", "var = x.var(axis=0, keepdims=True)"),
        ],
    ),
    "attention without the scale": ("attention", [("scale = 1.0 / np.sqrt(d)", "scale = 1.0")]),
    "attention without the max shift": (
        "attention",
        [("np.exp(scores - scores.max(axis=-1, keepdims=True))", "np.exp(scores)")],
    ),
    "a causal mask aligned at the bottom right": (
        "attention",
        [("np.tril(np.ones((lq, lk), dtype=bool))", "np.tril(np.ones((lq, lk), dtype=bool), k=lk - lq)")],
    ),
    "maxpool sending the gradient to every tied element": (
        "maxpool2d",
        [("chosen = np.arange(kh * kw) == first[..., None]", "chosen = windows == out[..., None]")],
    ),
    "adam without bias correction": (
        "adam",
        [("m_hat = m / (1 - beta1**t)", "m_hat = m"), ("v_hat = v / (1 - beta2**t)", "v_hat = v")],
    ),
    "adam updating param in place": (
        "adam",
        [("param = param - lr * m_hat / (np.sqrt(v_hat) + eps)", "param -= lr * m_hat / (np.sqrt(v_hat) + eps)")],
    ),
    "conv2d backward without padding handling": (
        "conv2d",
        [("dxp[:, :, ph : ph + shape[2], pw : pw + shape[3]]", "dxp[:, :, : shape[2], : shape[3]]")],
    ),
    "layernorm with eps added to the standard deviation": (
        "layernorm",
        [
            (
                "keepdims=True)\n    rstd = 1.0 / np.sqrt(var + eps)\n    xhat = (x - mean) * rstd\n    out = xhat * weight + bias",
                "keepdims=True)\n    rstd = 1.0 / (np.sqrt(var) + eps)\n    xhat = (x - mean) * rstd\n    out = xhat * weight + bias",
            )
        ],
    ),
    "batchnorm statistics over axis 0 only": ("batchnorm", [("axes = (0, *range(2, x.ndim))", "axes = (0,)")]),
    "attention's softmax over the queries' axis": (
        "attention",
        [
            (
                "shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    p = shifted / shifted.sum(axis=-1, keepdims=True)",
                "shifted = np.exp(scores - scores.max(axis=-2, keepdims=True))\n    p = shifted / shifted.sum(axis=-2, keepdims=True)",
            )
        ],
    ),
    "attention's dk without the scale": (
        "attention",
        [("dk = (np.swapaxes(ds, -1, -2) @ q) * scale", "dk = np.swapaxes(ds, -1, -2) @ q")],
    ),
    "conv2d overwriting overlapping taps": (
        "conv2d",
        [("dxp[:, :, rows, cols] += ", "dxp[:, :, rows, cols] = ")],
    ),
    "maxpool overwriting where windows overlap": (
        "maxpool2d",
        [("b : b + sw * (wo - 1) + 1 : sw] += dout", "b : b + sw * (wo - 1) + 1 : sw] = dout")],
    ),
    "adam with t counting from 0": (
        "adam",
        [("m_hat = m / (1 - beta1**t)", "m_hat = m / (1 - beta1 ** (t - 1) + 1e-300)")],
    ),
    "adam with AdamW's decoupled decay": (
        "adam",
        [
            ("g = grad + weight_decay * param\n", "g = grad\n"),
            ("param = param - lr * m_hat", "param = param * (1 - lr * weight_decay) - lr * m_hat"),
        ],
    ),
    "adam with eps inside the square root": (
        "adam",
        [("(np.sqrt(v_hat) + eps)", "np.sqrt(v_hat + eps)")],
    ),
    "a backward returning a view of dout": (
        "layernorm",
        [("dbias = dout.sum(axis=lead)", "dbias = dout.sum(axis=lead) if lead else dout")],
    ),
    "layernorm backward without the mean of g": (
        "layernorm",
        [("rstd * (g - g.mean(axis=-1, keepdims=True) - xhat", "rstd * (g - xhat")],
    ),
}


def mutated(edits: list[tuple[str, str]]) -> object:
    source = SOURCE
    for old, new in edits:
        assert source.count(old) == 1, f"the reference no longer has exactly one {old!r}"
        source = source.replace(old, new)
    return load(REFERENCE, source)


@pytest.mark.parametrize("bug", BUGS)
def test_a_classic_bug_fails_the_comparison(bug):
    layer, edits = BUGS[bug]
    module = mutated(edits)
    failures = []
    for index, case in enumerate(cases(layer)):
        try:
            with np.errstate(all="ignore"):
                check(module, layer, case, index)
        except (AssertionError, FloatingPointError) as exc:
            failures.append(str(exc).splitlines()[0])
    assert failures, f"{bug}: every case passed"
    assert all(f.startswith(f"{layer} case ") for f in failures), failures[0]
