"""The answer key of the ``layers`` pack: six layers, each a forward and its hand-written backward.

NumPy only, no autograd: every backward is the chain rule written out, in the style of CS231n's
``layers.py``. The contract every function shares:

- Arrays in and out are float64 NumPy arrays. Every array returned is a new array: an input is
  never modified in place, and no output is a view that writing to it would change an input.
- A forward returns ``(out, cache)``. ``cache`` is opaque to the grader: whatever the forward
  returns as its second value is passed back, unchanged, as the ``cache`` of the backward, and
  nothing else is done with it (a tuple of arrays, a dict, an object: your choice).
- A backward takes ``dout`` (the gradient of the loss with respect to ``out``, of ``out``'s shape)
  and returns the gradient of each differentiable input, each of that input's shape, in the order
  the input comes in the forward's signature (a tuple; ``maxpool2d_backward``, with one
  differentiable input, returns the one array ``dx``). The options (``eps``, ``causal``,
  ``stride``, ...) get no gradient.
- Each layer computes what the ``torch`` expression named in its docstring computes, in float64;
  the grader compares values and gradients with torch's (``torch.autograd.grad(out, inputs, dout)``)
  to a relative tolerance of about 1e-10.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Cache = Any
"""Whatever a forward keeps for its backward."""


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    """An int ``n`` as ``(n, n)``; a pair as it is."""
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


# ---------------------------------------------------------------------------- layer norm


def layernorm_forward(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5
) -> tuple[np.ndarray, Cache]:
    """Layer normalisation over the last axis, then a per-feature scale and shift.

    ``x`` has any leading shape ``(..., D)`` (at least one axis); ``weight`` and ``bias`` are ``(D,)``.
    Each row ``x[..., :]`` is normalised by its own mean and its *biased* variance (divided by D, not
    D - 1): ``xhat = (x - mean) / sqrt(var + eps)``, and ``out = xhat * weight + bias`` has ``x``'s
    shape. As ``torch.nn.functional.layer_norm(x, (D,), weight, bias, eps)``.
    """
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mean) * rstd
    out = xhat * weight + bias
    return out, (xhat, rstd, weight)


def layernorm_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of ``layernorm_forward``: ``(dx, dweight, dbias)``, of the shapes of ``x``, ``weight``
    and ``bias``. ``dweight`` and ``dbias`` sum over every leading axis of ``x``.

    With ``g = dout * weight``, per row of D features:
    ``dx = rstd * (g - mean(g) - xhat * mean(g * xhat))``.
    """
    xhat, rstd, weight = cache
    lead = tuple(range(dout.ndim - 1))
    dweight = (dout * xhat).sum(axis=lead)
    dbias = dout.sum(axis=lead)
    g = dout * weight
    dx = rstd * (g - g.mean(axis=-1, keepdims=True) - xhat * (g * xhat).mean(axis=-1, keepdims=True))
    return dx, dweight, dbias


# ---------------------------------------------------------------------------- batch norm


def batchnorm_forward(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5
) -> tuple[np.ndarray, Cache]:
    """Batch normalisation in training mode: batch statistics per channel, then a scale and shift.

    ``x`` is ``(N, C)`` or ``(N, C, H, W)`` (any ``(N, C, *spatial)``); channels are axis 1, and
    ``weight`` and ``bias`` are ``(C,)``. Each channel is normalised by the mean and the *biased*
    variance (divided by the count, not count - 1) over every axis but axis 1:
    ``out = (x - mean) / sqrt(var + eps) * weight + bias``, of ``x``'s shape. No running statistics
    are kept or returned. As ``torch.nn.functional.batch_norm(x, None, None, weight, bias,
    training=True, eps=eps)``.
    """
    axes = (0, *range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)  # a (C,) array broadcast along axis 1
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mean) * rstd
    out = xhat * weight.reshape(shape) + bias.reshape(shape)
    return out, (xhat, rstd, weight.reshape(shape), axes)


def batchnorm_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of ``batchnorm_forward``: ``(dx, dweight, dbias)``, of the shapes of ``x``, ``weight``
    and ``bias`` (``dweight`` and ``dbias`` sum over every axis but axis 1).

    The batch statistics depend on every element of the batch, so with ``g = dout * weight``, per
    channel: ``dx = rstd * (g - mean(g) - xhat * mean(g * xhat))``, the means over the batch axes.
    """
    xhat, rstd, weight, axes = cache
    dweight = (dout * xhat).sum(axis=axes)
    dbias = dout.sum(axis=axes)
    g = dout * weight
    dx = rstd * (g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    return dx, dweight, dbias


# ---------------------------------------------------------------------------- attention


def attention_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False) -> tuple[np.ndarray, Cache]:
    """Scaled dot-product attention: ``softmax(q @ k^T / sqrt(d)) @ v``, the softmax over the last axis.

    ``q`` is ``(..., Lq, d)``, ``k`` is ``(..., Lk, d)``, ``v`` is ``(..., Lk, dv)``, with the same
    leading shape (any number of leading axes, none included); ``out`` is ``(..., Lq, dv)``. The scale
    is ``1 / sqrt(d)``, d the last axis of ``q``. The softmax is numerically stable: scores as large
    as 1e4 give no overflow (subtract each row's maximum before ``exp``).

    ``causal=True`` masks the scores above the main diagonal, aligned at the top left: query ``i``
    attends to keys ``j <= i`` only, also when ``Lq != Lk`` (as torch's ``tril(ones(Lq, Lk))``:
    query 0 always sees key 0, and with ``Lq > Lk`` the queries ``i >= Lk`` see every key). As
    ``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)``.
    """
    d = q.shape[-1]
    scale = 1.0 / np.sqrt(d)
    scores = (q @ np.swapaxes(k, -1, -2)) * scale
    if causal:
        lq, lk = scores.shape[-2:]
        allowed = np.tril(np.ones((lq, lk), dtype=bool))
        scores = np.where(allowed, scores, -np.inf)
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = shifted / shifted.sum(axis=-1, keepdims=True)
    out = p @ v
    return out, (q, k, v, p, scale)


def attention_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of ``attention_forward``: ``(dq, dk, dv)``, of the shapes of ``q``, ``k`` and ``v``.

    With ``p`` the attention weights: ``dv = p^T @ dout``; ``dp = dout @ v^T``; the softmax's VJP
    ``ds = p * (dp - sum(dp * p, last axis))`` (zero where the mask put -inf, since p is 0 there);
    ``dq = ds @ k * scale`` and ``dk = ds^T @ q * scale``.
    """
    q, k, v, p, scale = cache
    dv = np.swapaxes(p, -1, -2) @ dout
    dp = dout @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    dq = (ds @ k) * scale
    dk = (np.swapaxes(ds, -1, -2) @ q) * scale
    return dq, dk, dv


# ---------------------------------------------------------------------------- conv2d


def conv2d_forward(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray,
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] = 0,
) -> tuple[np.ndarray, Cache]:
    """A 2-D convolution (a cross-correlation, as in every deep-learning library), NCHW.

    ``x`` is ``(N, C, H, W)``, ``weight`` is ``(F, C, KH, KW)``, ``bias`` is ``(F,)``. ``stride`` and
    ``padding`` are each an int (the same for height and width) or a pair ``(height, width)``; the
    padding is zeros on both sides. ``out`` is ``(N, F, Ho, Wo)`` with
    ``Ho = (H + 2 * pad_h - KH) // stride_h + 1`` (rounded down: rows a stride skips at the end get a
    zero gradient), and likewise ``Wo``. No dilation, no groups. As
    ``torch.nn.functional.conv2d(x, weight, bias, stride, padding)``.
    """
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    _, _, kh, kw = weight.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    ho = (xp.shape[2] - kh) // sh + 1
    wo = (xp.shape[3] - kw) // sw + 1
    out = np.zeros((x.shape[0], weight.shape[0], ho, wo))
    for i in range(kh):  # each kernel tap sees a strided slice of the padded input
        for j in range(kw):
            patch = xp[:, :, i : i + sh * (ho - 1) + 1 : sh, j : j + sw * (wo - 1) + 1 : sw]  # (N, C, Ho, Wo)
            out += np.einsum("nchw,fc->nfhw", patch, weight[:, :, i, j])
    out += bias.reshape(1, -1, 1, 1)
    return out, (xp, weight, (sh, sw), (ph, pw), x.shape)


def conv2d_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of ``conv2d_forward``: ``(dx, dweight, dbias)``, of the shapes of ``x``, ``weight``
    and ``bias``.

    Each kernel tap ``(i, j)`` multiplied a strided slice of the padded input: ``dweight[:, :, i, j]``
    sums ``dout`` times that slice, the slice's gradient adds ``dout`` times ``weight[:, :, i, j]``
    (taps overlap: they accumulate), and ``dx`` is the padded gradient with the padding cut off.
    ``dbias`` sums ``dout`` over N, Ho and Wo.
    """
    xp, weight, (sh, sw), (ph, pw), shape = cache
    _, _, kh, kw = weight.shape
    _, _, ho, wo = dout.shape
    dxp = np.zeros_like(xp)
    dweight = np.zeros_like(weight)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i, i + sh * (ho - 1) + 1, sh)
            cols = slice(j, j + sw * (wo - 1) + 1, sw)
            dweight[:, :, i, j] = np.einsum("nfhw,nchw->fc", dout, xp[:, :, rows, cols])
            dxp[:, :, rows, cols] += np.einsum("nfhw,fc->nchw", dout, weight[:, :, i, j])
    dx = dxp[:, :, ph : ph + shape[2], pw : pw + shape[3]].copy()
    dbias = dout.sum(axis=(0, 2, 3))
    return dx, dweight, dbias


# ---------------------------------------------------------------------------- max pooling


def maxpool2d_forward(
    x: np.ndarray, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None
) -> tuple[np.ndarray, Cache]:
    """2-D max pooling over the last two axes of ``x`` ``(N, C, H, W)``.

    ``kernel_size`` and ``stride`` are each an int or a pair ``(height, width)``; ``stride`` defaults
    to ``kernel_size`` (windows side by side). No padding, no dilation, rounding down:
    ``Ho = (H - KH) // stride_h + 1``, likewise ``Wo``; ``out`` is ``(N, C, Ho, Wo)``. ``x`` is finite
    (no NaN). As ``torch.nn.functional.max_pool2d(x, kernel_size, stride)``.
    """
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ho = (x.shape[2] - kh) // sh + 1
    wo = (x.shape[3] - kw) // sw + 1
    windows = np.stack(  # (N, C, Ho, Wo, KH * KW): each window's elements in row-major order
        [x[:, :, a : a + sh * (ho - 1) + 1 : sh, b : b + sw * (wo - 1) + 1 : sw] for a in range(kh) for b in range(kw)],
        axis=-1,
    )
    out = windows.max(axis=-1)
    first = windows.argmax(axis=-1)  # on a tie, the first maximum in the window's row-major order
    chosen = np.arange(kh * kw) == first[..., None]
    return out, (x.shape, chosen, (kh, kw), (sh, sw))


def maxpool2d_backward(dout: np.ndarray, cache: Cache) -> np.ndarray:
    """The gradient of ``maxpool2d_forward`` with respect to ``x``, of ``x``'s shape.

    Each window's ``dout`` goes to one element: its maximum, and on a tie the first maximal element
    in row-major order within the window (the lowest row, then the lowest column), as torch picks.
    Every other element of the window gets nothing. Overlapping windows (``stride`` smaller than
    ``kernel_size``) that pick the same element add their gradients.
    """
    shape, chosen, (kh, kw), (sh, sw) = cache
    _, _, ho, wo = dout.shape
    dx = np.zeros(shape)
    for a in range(kh):
        for b in range(kw):
            dx[:, :, a : a + sh * (ho - 1) + 1 : sh, b : b + sw * (wo - 1) + 1 : sw] += dout * chosen[..., a * kw + b]
    return dx


# ---------------------------------------------------------------------------- Adam


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
    """One Adam step: the new ``(param, m, v)``, three new arrays of ``param``'s shape (for a 0-d
    ``param``, NumPy's float64 scalars, which 0-d arithmetic gives, will do).

    ``grad``, ``m`` (the first-moment average) and ``v`` (the second-moment average) have ``param``'s
    shape; ``t`` is the number of this step, counting from 1 (the first step has ``t = 1`` and ``m``
    and ``v`` all zeros). Weight decay is torch.optim.Adam's L2 penalty, added to the gradient
    before the moments (``g = grad + weight_decay * param``), not AdamW's decoupled decay. Then
    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``, the bias corrections
    ``m_hat = m / (1 - b1^t)`` and ``v_hat = v / (1 - b2^t)``, and
    ``param - lr * m_hat / (sqrt(v_hat) + eps)``. The inputs are left alone. As one
    ``torch.optim.Adam([param], lr, betas, eps, weight_decay).step()`` from the state ``(t - 1, m, v)``.
    """
    beta1, beta2 = betas
    g = grad + weight_decay * param
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1**t)
    v_hat = v / (1 - beta2**t)
    param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return param, m, v
