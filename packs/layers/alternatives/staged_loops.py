"""A correct ``layers`` pack in another style: explicit loops, and every backward taken step by step
back through the forward's computational graph (each intermediate's gradient in turn), where the
reference uses the formula derived as a whole. Slow, plain, and easy to check line by line."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


# ---------------------------------------------------------------------------- normalisation, staged


def _norm_forward(x: np.ndarray, axes: tuple[int, ...], eps: float) -> tuple[np.ndarray, dict[str, Any]]:
    """xhat over ``axes``, kept as the graph's nodes: mu, xmu, sq, var, std, inv."""
    n = math.prod(x.shape[a] for a in axes)
    mu = x.sum(axis=axes, keepdims=True) / n
    xmu = x - mu
    sq = xmu**2
    var = sq.sum(axis=axes, keepdims=True) / n
    std = np.sqrt(var + eps)
    inv = 1.0 / std
    return xmu * inv, {"n": n, "xmu": xmu, "std": std, "inv": inv, "axes": axes}


def _norm_backward(dxhat: np.ndarray, nodes: dict[str, Any]) -> np.ndarray:
    n, xmu, std, inv, axes = nodes["n"], nodes["xmu"], nodes["std"], nodes["inv"], nodes["axes"]
    dinv = (dxhat * xmu).sum(axis=axes, keepdims=True)  # xhat = xmu * inv
    dxmu = dxhat * inv
    dstd = -dinv / std**2  # inv = 1 / std
    dvar = dstd * 0.5 / std  # std = sqrt(var + eps)
    dsq = np.broadcast_to(dvar / n, xmu.shape)  # var = sum(sq) / n
    dxmu = dxmu + 2 * xmu * dsq  # sq = xmu ** 2
    dmu = -dxmu.sum(axis=axes, keepdims=True)  # xmu = x - mu
    return dxmu + np.broadcast_to(dmu / n, xmu.shape)  # mu = sum(x) / n


def layernorm_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> tuple[np.ndarray, Any]:
    xhat, nodes = _norm_forward(x, (x.ndim - 1,), eps)
    return xhat * weight + bias, (xhat, weight, nodes)


def layernorm_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xhat, weight, nodes = cache
    flat = dout.reshape(-1, dout.shape[-1])
    dweight = np.zeros(dout.shape[-1])
    dbias = np.zeros(dout.shape[-1])
    for row, xrow in zip(flat, xhat.reshape(flat.shape), strict=True):  # one row of D features at a time
        dweight += row * xrow
        dbias += row
    return _norm_backward(dout * weight, nodes), dweight, dbias


def batchnorm_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> tuple[np.ndarray, Any]:
    moved = np.moveaxis(x, 1, -1)  # channels last: (..., C)
    xhat, nodes = _norm_forward(moved, tuple(range(moved.ndim - 1)), eps)
    return np.moveaxis(xhat * weight + bias, -1, 1).copy(), (xhat, weight, nodes)


def batchnorm_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xhat, weight, nodes = cache
    moved = np.moveaxis(dout, 1, -1)
    dweight = np.array([(moved[..., c] * xhat[..., c]).sum() for c in range(weight.shape[0])])
    dbias = np.array([moved[..., c].sum() for c in range(weight.shape[0])])
    return np.moveaxis(_norm_backward(moved * weight, nodes), -1, 1).copy(), dweight, dbias


# ---------------------------------------------------------------------------- attention, one matrix at a time


def attention_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False) -> tuple[np.ndarray, Any]:
    lead = q.shape[:-2]
    lq, d = q.shape[-2:]
    lk = k.shape[-2]
    out = np.zeros((*lead, lq, v.shape[-1]))
    probs = np.zeros((*lead, lq, lk))
    for index in np.ndindex(*lead):
        for i in range(lq):
            seen = i + 1 if causal else lk  # top-left alignment: keys 0..i
            row = np.array([q[index][i] @ k[index][j] / math.sqrt(d) for j in range(min(seen, lk))])
            e = np.exp(row - row.max())
            probs[index][i, : len(row)] = e / e.sum()
            out[index][i] = probs[index][i] @ v[index]
    return out, (q, k, v, probs, d)


def attention_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v, probs, d = cache
    dq, dk, dv = np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
    for index in np.ndindex(*q.shape[:-2]):
        p, g = probs[index], dout[index]
        dv[index] = p.T @ g  # out = p @ v
        dp = g @ v[index].T
        for i in range(p.shape[0]):  # p[i] = softmax(s[i]): its Jacobian is diag(p) - p p^T
            jacobian = np.diag(p[i]) - np.outer(p[i], p[i])
            ds = jacobian @ dp[i] / math.sqrt(d)  # s = q k^T / sqrt(d)
            dq[index][i] = ds @ k[index]
            dk[index] += np.outer(ds, q[index][i])
    return dq, dk, dv


# ---------------------------------------------------------------------------- conv2d, one output at a time


def conv2d_forward(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray,
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] = 0,
) -> tuple[np.ndarray, Any]:
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    n, _, h, w = x.shape
    f, _, kh, kw = weight.shape
    xp = np.zeros((n, x.shape[1], h + 2 * ph, w + 2 * pw))
    xp[:, :, ph : ph + h, pw : pw + w] = x
    ho, wo = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    out = np.zeros((n, f, ho, wo))
    for b in range(n):
        for o in range(f):
            for i in range(ho):
                for j in range(wo):
                    window = xp[b, :, i * sh : i * sh + kh, j * sw : j * sw + kw]
                    out[b, o, i, j] = (window * weight[o]).sum() + bias[o]
    return out, (xp, weight, (sh, sw), (ph, pw), (h, w))


def conv2d_backward(dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xp, weight, (sh, sw), (ph, pw), (h, w) = cache
    _, _, kh, kw = weight.shape
    dxp, dweight = np.zeros(xp.shape), np.zeros(weight.shape)
    n, f, ho, wo = dout.shape
    for b in range(n):
        for o in range(f):
            for i in range(ho):
                for j in range(wo):
                    rows, cols = slice(i * sh, i * sh + kh), slice(j * sw, j * sw + kw)
                    dweight[o] += dout[b, o, i, j] * xp[b, :, rows, cols]
                    dxp[b, :, rows, cols] += dout[b, o, i, j] * weight[o]
    dbias = np.array([dout[:, o].sum() for o in range(f)])
    return dxp[:, :, ph : ph + h, pw : pw + w].copy(), dweight, dbias


# ---------------------------------------------------------------------------- maxpool, one window at a time


def maxpool2d_forward(
    x: np.ndarray, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None
) -> tuple[np.ndarray, Any]:
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    n, c, h, w = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    out = np.zeros((n, c, ho, wo))
    where = np.zeros((n, c, ho, wo, 2), dtype=int)  # the (row, col) in x each window picked
    for b, ch, i, j in np.ndindex(n, c, ho, wo):
        best = (i * sh, j * sw)
        for a in range(kh):
            for e in range(kw):
                if x[b, ch, i * sh + a, j * sw + e] > x[b, ch, best[0], best[1]]:  # strictly: the first stays
                    best = (i * sh + a, j * sw + e)
        out[b, ch, i, j] = x[b, ch, best[0], best[1]]
        where[b, ch, i, j] = best
    return out, (x.shape, where)


def maxpool2d_backward(dout: np.ndarray, cache: Any) -> np.ndarray:
    shape, where = cache
    dx = np.zeros(shape)
    for b, ch, i, j in np.ndindex(*dout.shape):
        r, c = where[b, ch, i, j]
        dx[b, ch, r, c] += dout[b, ch, i, j]
    return dx


# ---------------------------------------------------------------------------- Adam, element by element


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
    new_param, new_m, new_v = np.array(param, dtype=np.float64), np.array(m, dtype=np.float64), np.array(v)
    for index in np.ndindex(*np.shape(param)):
        g = grad[index] + weight_decay * param[index]
        new_m[index] = beta1 * m[index] + (1 - beta1) * g
        new_v[index] = beta2 * v[index] + (1 - beta2) * g * g
        m_hat = new_m[index] / (1 - beta1**t)
        v_hat = new_v[index] / (1 - beta2**t)
        new_param[index] = param[index] - lr * m_hat / (math.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
