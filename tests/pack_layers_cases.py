"""The generated cases of the ``layers`` pack (packs/layers/) and torch's answers to them, in float64.

Each layer's cases are drawn from a seeded generator (the pack's own,
packs/layers/autograd_drill_layers/tests/layers_cases.py), by construction: shapes with and without
leading axes, strides and paddings as ints and as pairs, windows that overlap, ties made on purpose,
causal masks with ``Lq < Lk`` and ``Lq > Lk``, magnitudes from 1e-3 to 1e3. ``torch_answer`` gives
what torch computes for a case: the output, and the gradients of the differentiable inputs for a
cotangent ``dout`` (``torch.autograd.grad(out, inputs, dout)``), or Adam's new state.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

from tests.layers_pack import ALTERNATIVES, PACK, PACKAGE, REFERENCE  # noqa: F401  (PACK: re-exported)

MODULES = [REFERENCE, *ALTERNATIVES]
RTOL = 1e-10


def load(path: Path, source: str | None = None) -> ModuleType:
    """The module a file holds (or ``source`` in its place: a mutated copy), loaded by path."""
    module = ModuleType(f"layers_{path.stem}")
    module.__file__ = str(path)
    text = path.read_text(encoding="utf-8") if source is None else source
    exec(compile(text, str(path), "exec"), module.__dict__)
    return module


@dataclass(frozen=True)
class Layer:
    forward: str
    backward: str | None
    inputs: tuple[str, ...]
    """The differentiable inputs, in the order the backward returns their gradients."""
    torch_fn: Callable[..., torch.Tensor]


def _torch() -> ModuleType:
    """torch, imported when a test first asks torch for an answer, not when a test module importing
    this one is collected (2.5 CPU-s that each of pytest-xdist's workers paid at its collection:
    tests/test_suite_cost.py)."""
    import torch

    return torch


def _functional() -> ModuleType:
    import torch.nn.functional

    return torch.nn.functional


def _conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, stride: object = 1, padding: object = 0):
    return _functional().conv2d(x, weight, bias, stride, padding)


def _pool(x: torch.Tensor, kernel_size: object, stride: object = None):
    return _functional().max_pool2d(x, kernel_size, stride)


LAYERS = {
    "layernorm": Layer(
        "layernorm_forward",
        "layernorm_backward",
        ("x", "weight", "bias"),
        lambda x, weight, bias, eps=1e-5: _functional().layer_norm(x, (x.shape[-1],), weight, bias, eps),
    ),
    "batchnorm": Layer(
        "batchnorm_forward",
        "batchnorm_backward",
        ("x", "weight", "bias"),
        lambda x, weight, bias, eps=1e-5: _functional().batch_norm(x, None, None, weight, bias, training=True, eps=eps),
    ),
    "attention": Layer(
        "attention_forward",
        "attention_backward",
        ("q", "k", "v"),
        lambda q, k, v, causal=False: _functional().scaled_dot_product_attention(q, k, v, is_causal=causal),
    ),
    "conv2d": Layer("conv2d_forward", "conv2d_backward", ("x", "weight", "bias"), _conv),
    "maxpool2d": Layer("maxpool2d_forward", "maxpool2d_backward", ("x",), _pool),
    "adam": Layer("adam_step", None, ("param", "grad", "m", "v"), lambda **_: _torch().zeros(())),
}
GENERATORS = load(PACKAGE / "tests" / "layers_cases.py")
"""The cases' generators, the pack's own (its oracle tests grade the same cases, and more)."""
SCALES, MAKERS, COUNT, cases = GENERATORS.SCALES, GENERATORS.MAKERS, GENERATORS.COUNT, GENERATORS.cases


def _tensor(value: object) -> object:
    torch = _torch()
    return torch.tensor(value, dtype=torch.float64) if isinstance(value, np.ndarray) else value


def torch_adam(case: dict[str, object]) -> tuple[np.ndarray, ...]:
    """One torch.optim.Adam step from the state ``(t - 1, m, v)``: the new param, m and v."""
    torch = _torch()
    param = torch.tensor(case["param"], dtype=torch.float64, requires_grad=True)
    param.grad = torch.tensor(case["grad"], dtype=torch.float64)
    options = {k: case[k] for k in ("lr", "betas", "eps", "weight_decay") if k in case}
    optimizer = torch.optim.Adam([param], **options)
    optimizer.state[param] = {
        "step": torch.tensor(float(case["t"]) - 1.0),
        "exp_avg": torch.tensor(case["m"], dtype=torch.float64),
        "exp_avg_sq": torch.tensor(case["v"], dtype=torch.float64),
    }
    optimizer.step()
    state = optimizer.state[param]
    return tuple(a.detach().numpy().copy() for a in (param, state["exp_avg"], state["exp_avg_sq"]))


def cotangent(index: int, shape: tuple[int, ...]) -> np.ndarray:
    """The ``dout`` of case ``index``: the same on every run."""
    return np.random.default_rng([index, 7]).standard_normal(shape)


@functools.cache
def answers(layer: str) -> tuple[tuple[np.ndarray, ...], ...]:
    """torch's answers to the layer's cases, worked out once: for a layer, its output, the cotangent
    ``dout`` and the gradients of its inputs for it; for adam, the new param, m and v."""
    if LAYERS[layer].backward is None:
        return tuple(torch_adam(case) for case in cases(layer))
    found = []
    for index, case in enumerate(cases(layer)):
        out, _ = torch_answer(layer, case, None)
        dout = cotangent(index, out.shape)
        found.append((out, dout, *torch_answer(layer, case, dout)[1]))
    return tuple(found)


def torch_answer(layer: str, case: dict[str, object], dout: np.ndarray | None) -> tuple[np.ndarray, list[np.ndarray]]:
    """torch's output for the case, and (given ``dout``) the gradients of the layer's inputs."""
    spec = LAYERS[layer]
    args = {name: _tensor(value) for name, value in case.items()}
    inputs = [args[name] for name in spec.inputs]
    for tensor in inputs:
        tensor.requires_grad_(True)  # type: ignore[attr-defined]
    out = spec.torch_fn(**args)
    if dout is None:
        return out.detach().numpy(), []
    torch = _torch()
    grads = torch.autograd.grad(out, inputs, torch.tensor(dout, dtype=torch.float64))
    return out.detach().numpy(), [g.numpy() for g in grads]


def assert_close(ours: object, theirs: np.ndarray, what: str, scale: float = 0.0) -> None:
    """Float64 values of torch's shape, equal to about 1e-10 of the largest value (relative-ish): of
    ``theirs``, or ``scale`` when larger (the largest of a case's gradients, for one that cancels to
    zero, where torch's rounding is all there is)."""
    assert isinstance(ours, np.ndarray | np.float64), f"{what}: a NumPy array, not {type(ours).__name__}"
    ours = np.asarray(ours)  # a 0-d result may be NumPy's float64 scalar, which 0-d arithmetic gives
    assert ours.dtype == np.float64, f"{what}: dtype {ours.dtype}, not float64"
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape}, torch {theirs.shape}"
    size = max(float(np.abs(theirs).max()) if theirs.size else 0.0, scale)
    err = np.abs(ours - theirs)
    worst = float(err.max()) if err.size else 0.0
    assert np.all(err <= RTOL * (np.abs(theirs) + size) + 1e-300), f"{what}: off by {worst:.3g} (largest {size:.3g})"
