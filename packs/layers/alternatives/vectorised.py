"""A correct ``layers`` pack in another style: whole-array NumPy with einsum, im2col for the
convolution (a patch matrix and one matmul, and col2im back with ``np.add.at``), sliding-window views
for the pooling, batchnorm through layernorm's algebra on a reshaped array, and Adam written the way
torch computes it (a step size and a denominator, bias corrections folded in)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


# ---------------------------------------------------------------------------- normalisation on rows


def _rows_forward(rows: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Normalise each row of a 2-D array: xhat and 1/std per row (a column)."""
    centred = rows - rows.mean(axis=1, keepdims=True)
    rstd = (np.einsum("ij,ij->i", centred, centred) / rows.shape[1] + eps) ** -0.5
    return centred * rstd[:, None], rstd[:, None]


def _rows_backward(g: np.ndarray, xhat: np.ndarray, rstd: np.ndarray) -> np.ndarray:
    """The VJP of _rows_forward for ``g`` = d(xhat): ``(D g - sum g - xhat sum(g xhat)) rstd / D``."""
    d = g.shape[1]
    total = g.sum(axis=1, keepdims=True)
    dot = np.einsum("ij,ij->i", g, xhat)[:, None]
    return (d * g - total - xhat * dot) * rstd / d


def layernorm_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> tuple[np.ndarray, Any]:
    xhat, rstd = _rows_forward(x.reshape(-1, x.shape[-1]), eps)
    return (xhat * weight + bias).reshape(x.shape), (xhat, rstd, weight, x.shape)


def layernorm_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xhat, rstd, weight, shape = cache
    g = dout.reshape(xhat.shape)
    dx = _rows_backward(g * weight, xhat, rstd).reshape(shape)
    return dx, np.einsum("ij,ij->j", g, xhat), g.sum(axis=0)


def _channel_rows(x: np.ndarray) -> np.ndarray:
    """(N, C, *S) -> (C, N * prod(S)): a channel's batch statistics are a row's."""
    return np.moveaxis(x, 1, 0).reshape(x.shape[1], -1)


def _from_channel_rows(rows: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    moved = rows.reshape((shape[1], shape[0], *shape[2:]))
    return np.ascontiguousarray(np.moveaxis(moved, 0, 1))


def batchnorm_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> tuple[np.ndarray, Any]:
    xhat, rstd = _rows_forward(_channel_rows(x), eps)
    out = xhat * weight[:, None] + bias[:, None]
    return _from_channel_rows(out, x.shape), (xhat, rstd, weight, x.shape)


def batchnorm_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xhat, rstd, weight, shape = cache
    g = _channel_rows(dout)
    dx = _from_channel_rows(_rows_backward(g * weight[:, None], xhat, rstd), shape)
    return dx, np.einsum("cj,cj->c", g, xhat), g.sum(axis=1)


# ---------------------------------------------------------------------------- attention with einsum


def attention_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False) -> tuple[np.ndarray, Any]:
    scale = q.shape[-1] ** -0.5
    s = np.einsum("...id,...jd->...ij", q, k) * scale
    if causal:
        i, j = np.indices(s.shape[-2:])
        s = np.where(j > i, -np.inf, s)
    logp = s - s.max(axis=-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=-1, keepdims=True))  # a log-softmax
    p = np.exp(logp)
    return np.einsum("...ij,...je->...ie", p, v), (q, k, v, p, scale)


def attention_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v, p, scale = cache
    dv = np.einsum("...ij,...ie->...je", p, dout)
    dp = np.einsum("...ie,...je->...ij", dout, v)
    ds = p * dp - p * np.einsum("...ij,...ij->...i", p, dp)[..., None]
    return np.einsum("...ij,...jd->...id", ds, k) * scale, np.einsum("...ij,...id->...jd", ds, q) * scale, dv


# ---------------------------------------------------------------------------- conv2d by im2col


def _im2col_index(h: int, w: int, kh: int, kw: int, sh: int, sw: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Row and column indices into the padded plane of every (output position, kernel tap)."""
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    rows = (np.arange(ho) * sh)[:, None, None, None] + np.arange(kh)[None, None, :, None]
    cols = (np.arange(wo) * sw)[None, :, None, None] + np.arange(kw)[None, None, None, :]
    return np.broadcast_to(rows, (ho, wo, kh, kw)), np.broadcast_to(cols, (ho, wo, kh, kw)), ho, wo


def conv2d_forward(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray,
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] = 0,
) -> tuple[np.ndarray, Any]:
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    f, c, kh, kw = weight.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    rows, cols, ho, wo = _im2col_index(xp.shape[2], xp.shape[3], kh, kw, sh, sw)
    patches = xp[:, :, rows, cols]  # (N, C, Ho, Wo, KH, KW)
    col = patches.transpose(0, 2, 3, 1, 4, 5).reshape(x.shape[0] * ho * wo, c * kh * kw)
    out = col @ weight.reshape(f, -1).T + bias  # (N * Ho * Wo, F)
    out = out.reshape(x.shape[0], ho, wo, f).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(out), (col, weight, xp.shape, rows, cols, (ph, pw), x.shape)


def conv2d_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    col, weight, padded, rows, cols, (ph, pw), shape = cache
    f, c, kh, kw = weight.shape
    n, _, ho, wo = dout.shape
    g = dout.transpose(0, 2, 3, 1).reshape(-1, f)  # (N * Ho * Wo, F)
    dweight = (g.T @ col).reshape(weight.shape)
    dcol = (g @ weight.reshape(f, -1)).reshape(n, ho, wo, c, kh, kw).transpose(0, 3, 1, 2, 4, 5)
    dxp = np.zeros(padded)
    np.add.at(dxp, (slice(None), slice(None), rows, cols), dcol)  # col2im: overlapping taps add up
    return dxp[:, :, ph : ph + shape[2], pw : pw + shape[3]].copy(), dweight, g.sum(axis=0)


# ---------------------------------------------------------------------------- maxpool on window views


def maxpool2d_forward(
    x: np.ndarray, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None
) -> tuple[np.ndarray, Any]:
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    windows = sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]  # (N, C, Ho, Wo, KH, KW)
    flat = windows.reshape(*windows.shape[:4], kh * kw)
    pick = flat.argmax(axis=-1)  # the first maximum in row-major order
    ho, wo = pick.shape[2:]
    r = (np.arange(ho) * sh)[:, None] + pick // kw
    c = (np.arange(wo) * sw)[None, :] + pick % kw
    return np.take_along_axis(flat, pick[..., None], axis=-1)[..., 0].copy(), (x.shape, r, c)


def maxpool2d_backward(dout: np.ndarray, cache: Any) -> np.ndarray:
    shape, r, c = cache
    n, ch = np.indices(dout.shape[:2])
    dx = np.zeros(shape)
    np.add.at(dx, (n[..., None, None], ch[..., None, None], r, c), dout)  # shared picks add up
    return dx


# ---------------------------------------------------------------------------- Adam as torch writes it


def adam_step(
    param: np.ndarray,
    grad: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    t: int,
    lr: float = 1e-3,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    beta1, beta2 = betas
    g = grad + weight_decay * param if weight_decay else grad.copy()
    m = m + (1 - beta1) * (g - m)  # lerp, as torch's exp_avg.lerp_
    v = v * beta2 + (1 - beta2) * g * g
    step_size = lr / (1 - beta1**t)
    denom = np.sqrt(v) / np.sqrt(1 - beta2**t) + eps
    return np.asarray(param - step_size * m / denom), np.asarray(m), np.asarray(v)
