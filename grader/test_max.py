"""Tensor.max(axis=None, keepdims=False): ties send the gradient to the first maximal element."""

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import check_beside_sin

pytestmark = [pytest.mark.max, clause(c.INTACT)]  # every test checks the invariant (grade.vjp)

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


def _max_cases():
    """Every axis (each negative one too, and None) of 1-D to 3-D inputs with size-1 axes, keepdims both ways."""
    for shape in [(5,), (3, 4), (1, 4), (3, 1), (2, 3, 4), (2, 1, 3), (1, 1, 4)]:
        for axis in [None, *range(len(shape)), *range(-len(shape), 0)]:
            for keepdims in (False, True):
                yield pytest.param(shape, axis, keepdims, id=f"{shape}-axis{axis}-{'keep' if keepdims else 'drop'}")


@clause(c.MAX, c.MAX_KEEPDIMS, c.MAX_TIES)
@batched(("shape", "axis", "keepdims"), list(_max_cases()))
def test_op_max_generated(grade, shape, axis, keepdims):
    x = _ties(grade.rng, shape)
    grade.vjp(
        "Tensor.max",
        lambda t: t.max(axis=axis, keepdims=keepdims),
        [x],
        theirs=_torch_max(axis, keepdims, len(shape)),
        hint=FIRST,
        smooth=False,
    )


@clause(c.MAX, c.ADDS)
@pytest.mark.parametrize("axis", [None, 1], ids=["all", "axis1"])
def test_op_max_shared_input(grade, axis):
    """x feeds max and a glue sin: max's closure must add into x.grad, not overwrite it."""

    def top(t):
        return t.reshape(-1).max(dim=0).values if axis is None else t.max(dim=axis).values

    check_beside_sin(grade, "Tensor.max", lambda x: x.max(axis=axis), top, (2, 3), total=True)
