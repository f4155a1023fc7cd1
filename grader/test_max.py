"""Tensor.max(axis=None, keepdims=False): ties send the gradient to the first maximal element."""

import numpy as np
import pytest

from grader import contract as c
from grader.contract import clause

pytestmark = pytest.mark.max

FIRST = "on ties, only the first maximal element gets the gradient (np.argmax finds it), as torch.max(x, dim)"


def _ties(rng, shape):
    """Values on a coarse grid: plenty of ties for the maximum."""
    return np.round(rng.standard_normal(shape) * 2) / 2


def _torch_max(axis, keepdims, ndim):
    def theirs(t):
        if axis is None:
            value = t.reshape(-1).max(dim=0).values
            return value.reshape((1,) * ndim) if keepdims else value
        return t.max(dim=axis, keepdim=keepdims).values

    return theirs


@clause(c.MAX, c.MAX_TIES)
@pytest.mark.parametrize(
    "keepdims", [pytest.param(False, id="dropdims"), pytest.param(True, id="keepdims", marks=clause(c.MAX_KEEPDIMS))]
)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_op_max(grade, axis, keepdims, ties):
    x = _ties(grade.rng, (3, 4)) if ties else grade.rng.standard_normal((3, 4))
    grade.vjp(
        "Tensor.max",
        lambda t: t.max(axis=axis, keepdims=keepdims),
        [x],
        theirs=_torch_max(axis, keepdims, 2),
        hint=FIRST if ties else None,
        smooth=not ties,
    )


@clause(c.MAX, c.MAX_TIES)
def test_op_max_all_equal(grade):
    grade.vjp(
        "Tensor.max",
        lambda t: t.max(axis=1),
        [np.ones((2, 5))],
        theirs=_torch_max(1, False, 2),
        hint=FIRST,
        smooth=False,
    )


@clause(c.MAX, c.MAX_TIES)
def test_op_max_3d_middle_axis(grade):
    grade.vjp(
        "Tensor.max",
        lambda t: t.max(axis=1),
        [_ties(grade.rng, (2, 3, 4))],
        theirs=_torch_max(1, False, 3),
        hint=FIRST,
        smooth=False,
    )


@clause(c.MAX, c.MAX_TIES)
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_op_max_pooling(grade, ties):
    """2x2 max-pooling of (N, C, H, W) maps: windows moved to the last axis, then max over it."""
    x = _ties(grade.rng, (2, 3, 4, 4)) if ties else grade.rng.standard_normal((2, 3, 4, 4))

    def ours(t):
        windows = t.reshape(2, 3, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 2, 4)
        return windows.max(axis=-1)

    def theirs(t):
        return t.reshape(2, 3, 2, 2, 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 2, 4).max(dim=-1).values

    grade.vjp("Tensor.max", ours, [x], theirs=theirs, hint=FIRST if ties else None, smooth=not ties)
