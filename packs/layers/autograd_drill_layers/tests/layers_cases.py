"""The generated cases of the ``layers`` pack, by construction and seeded (NumPy only, no torch).

Each layer's cases come from a seeded generator: shapes with and without leading axes, strides and
paddings as ints and as pairs, windows that overlap, ties made on purpose, causal masks with
``Lq < Lk`` and ``Lq > Lk``, scores past exp's range, magnitudes from 1e-3 to 1e3, Adam steps from
the first to the thousandth. A case is a dict of the forward's keyword arguments: the differentiable
inputs (arrays) and the options. The pack's oracle tests (test_<marker>.py beside this file) grade
them; the tool's tests/pack_layers_cases.py compares the pack's implementations with torch on them.
"""

from __future__ import annotations

import numpy as np

SCALES = (1e-3, 1.0, 1e3)


def _layernorm(rng: np.random.Generator, i: int) -> dict[str, object]:
    shape = [(5,), (3, 7), (2, 3, 8), (4, 1, 1, 6), (6, 1), (2, 2, 16)][i % 6]
    d = shape[-1]
    x = rng.standard_normal(shape) * SCALES[i % 3] + rng.normal(0, 10) * (i % 2)  # an offset every other case
    case: dict[str, object] = {"x": x, "weight": rng.standard_normal(d), "bias": rng.standard_normal(d)}
    if i % 4 == 3:
        case["eps"] = 1e-2
    return case


def _batchnorm(rng: np.random.Generator, i: int) -> dict[str, object]:
    shape = [(8, 3), (4, 2, 3, 3), (2, 3, 1, 5), (5, 1), (3, 2, 5), (2, 4, 2, 3)][i % 6]
    c = shape[1]
    x = rng.standard_normal(shape) * SCALES[i % 3] + rng.normal(0, 10) * (i % 2)
    case: dict[str, object] = {"x": x, "weight": rng.standard_normal(c), "bias": rng.standard_normal(c)}
    if i % 4 == 3:
        case["eps"] = 1e-1
    return case


def _attention(rng: np.random.Generator, i: int) -> dict[str, object]:
    lead = [(), (2,), (2, 3), (1,), (3,), (2, 2)][i % 6]
    lq, lk = [(4, 4), (3, 6), (6, 3), (1, 5), (5, 1), (4, 7)][(i + i // 6) % 6]
    d, dv = [(4, 4), (3, 5), (8, 2), (1, 3)][i % 4]
    big = 30.0 if i % 5 == 4 else 1.0  # scores in the hundreds: exp without the shift overflows
    return {
        "q": rng.standard_normal((*lead, lq, d)) * big,
        "k": rng.standard_normal((*lead, lk, d)) * big,
        "v": rng.standard_normal((*lead, lk, dv)),
        "causal": bool(i % 2),
    }


def _conv2d(rng: np.random.Generator, i: int) -> dict[str, object]:
    n, c, f = [(2, 3, 4), (1, 1, 2), (3, 2, 1), (2, 2, 3)][i % 4]
    h, w = [(5, 5), (7, 6), (4, 9), (6, 6)][(i // 2) % 4]
    kh, kw = [(3, 3), (2, 3), (1, 1), (3, 2)][i % 4]
    stride: object = [1, 2, (2, 1), (1, 3), 3][i % 5]
    padding: object = [0, 1, (2, 0), (0, 1), 2][(i + 1) % 5]
    return {
        "x": rng.standard_normal((n, c, h, w)) * SCALES[i % 3],
        "weight": rng.standard_normal((f, c, kh, kw)),
        "bias": rng.standard_normal(f),
        "stride": stride,
        "padding": padding,
    }


def _maxpool2d(rng: np.random.Generator, i: int) -> dict[str, object]:
    shape = [(2, 3, 6, 6), (1, 2, 5, 7), (2, 1, 4, 4), (1, 1, 7, 5)][i % 4]
    kernel: object = [2, 3, (2, 3), (3, 2)][(i // 2) % 4]
    stride: object = [None, 1, (1, 2), 2, (2, 1)][i % 5]  # 1 and (1, 2): windows overlap
    if i % 3 == 0:  # ties on purpose: a few values only, or a constant plane
        x = rng.integers(0, 3, shape).astype(np.float64) if i % 2 == 0 else np.full(shape, -1.5)
    else:
        x = rng.standard_normal(shape) * SCALES[i % 3]
    case: dict[str, object] = {"x": x, "kernel_size": kernel}
    if stride is not None:
        case["stride"] = stride
    return case


def _adam(rng: np.random.Generator, i: int) -> dict[str, object]:
    shape = [(5,), (3, 4), (2, 2, 3), ()][i % 4]
    t = [1, 2, 3, 10, 1000][i % 5]
    first = t == 1
    scale = SCALES[i % 3]
    case: dict[str, object] = {
        "param": rng.standard_normal(shape),
        "grad": rng.standard_normal(shape) * scale,
        "m": np.zeros(shape) if first else rng.standard_normal(shape) * scale * 0.1,
        "v": np.zeros(shape) if first else (rng.standard_normal(shape) * scale) ** 2 * 0.1,
        "t": t,
    }
    if i % 2:
        case.update(lr=[1e-2, 0.1, 3e-4][i % 3], betas=[(0.8, 0.99), (0.9, 0.999), (0.5, 0.9)][i % 3])
    if i % 3 == 2:
        case.update(eps=1e-6, weight_decay=0.1)
    return case


MAKERS = {
    "layernorm": _layernorm,
    "batchnorm": _batchnorm,
    "attention": _attention,
    "conv2d": _conv2d,
    "maxpool2d": _maxpool2d,
    "adam": _adam,
}
COUNT = 12
"""Cases per layer in tests/test_pack_layers.py; the oracle tests draw twice as many (``GRADED``)."""
GRADED = 24


def case(layer: str, index: int) -> dict[str, object]:
    """Case ``index`` of the layer, drawn afresh (new arrays) and the same on every run."""
    return MAKERS[layer](np.random.default_rng([2028, index, list(MAKERS).index(layer)]), index)


def cases(layer: str, count: int = COUNT) -> list[dict[str, object]]:
    """The layer's first ``count`` generated cases."""
    return [case(layer, i) for i in range(count)]
