"""unbroadcast(grad, shape): called directly, checked against the VJP of torch's expand."""

import itertools

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched
from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.unbroadcast

CASES = [
    pytest.param((2, 3), (2, 3), id="same-shape"),
    pytest.param((1, 3), (1, 3), id="same-shape-with-ones"),
    pytest.param((2, 3), (3,), id="prepended-one-axis"),
    pytest.param((4, 2, 3), (3,), id="prepended-two-axes"),
    pytest.param((4, 2, 3), (2, 3), id="prepended-batch-axis"),
    pytest.param((2, 3), (1, 3), id="stretched-first-axis"),
    pytest.param((2, 3), (2, 1), id="stretched-last-axis"),
    pytest.param((2, 3, 4), (2, 1, 4), id="stretched-middle-axis"),
    pytest.param((2, 3), (1, 1), id="stretched-both-axes"),
    pytest.param((4, 2, 3), (2, 1), id="prepended-and-stretched"),
    pytest.param((3, 1, 4), (1, 1), id="prepended-stretched-and-kept"),
    pytest.param((2, 3, 4), (1, 1, 1), id="all-stretched-3d"),
    pytest.param((5,), (1,), id="stretched-1d"),
    pytest.param((2, 3), (), id="to-0d"),
    pytest.param((), (), id="0d-to-0d"),
]


@clause(c.UNBROADCAST, c.PREPENDED, c.STRETCHED, c.EXACT_SHAPE)
@pytest.mark.parametrize(("grad_shape", "shape"), CASES)
def test_unbroadcast(grade, grad_shape, shape):
    _check(grade, grad_shape, shape)


def _check(grade, grad_shape, shape):
    grad = grade.rng.standard_normal(grad_shape)
    # d/dx sum(expand(x) * grad) = unbroadcast(grad, x.shape), by torch's autograd.
    answer = grade.oracle.vjp(lambda x, g: (x.expand(grad_shape) * g).sum(), [np.zeros(shape), grad])
    hint = _what_broadcasting_did(grad_shape, shape)
    with grade.running("unbroadcast", hint):
        ours = grade.impl.unbroadcast(grad.copy(), shape)
    grade.expect("unbroadcast", f"unbroadcast(grad of shape {grad_shape}, {shape})", ours, answer.grads[0], hint)


def _what_broadcasting_did(grad_shape, shape):
    """The hint for a case: which axes broadcasting prepended and which it stretched."""
    prepended = len(grad_shape) - len(shape)
    offset = prepended
    stretched = [i for i, n in enumerate(shape) if n == 1 and grad_shape[i + offset] != 1]
    steps = []
    if prepended:
        steps.append(
            f"prepended {prepended} leading ax{'is' if prepended == 1 else 'es'} (sum {'it' if prepended == 1 else 'them'} away)"
        )
    if stretched:
        steps.append(f"stretched axes {stretched} of size 1 (sum them with keepdims=True)")
    done = " and ".join(steps) if steps else "changed nothing (return grad as it is, with exactly this shape)"
    return f"broadcasting {shape} to {grad_shape} {done}"


def _generated():
    """Every way broadcasting can reach a grad of rank 0 to 4: any number of prepended axes, then any
    subset of the rest stretched from size 1 (the grad's own size 1 axes included)."""
    for rank in range(5):
        grad_shape = (4, 1, 3, 2)[4 - rank :]
        for prepended in range(rank + 1):
            kept = grad_shape[prepended:]
            for mask in itertools.product((False, True), repeat=len(kept)):
                shape = tuple(1 if stretch else n for n, stretch in zip(kept, mask, strict=True))
                if mask and any(stretch and n == 1 for n, stretch in zip(kept, mask, strict=True)):
                    continue  # stretching a size-1 axis is the same case as keeping it
                yield pytest.param(grad_shape, shape, id=f"{grad_shape}-to-{shape}".replace(" ", ""))


@clause(c.UNBROADCAST, c.PREPENDED, c.STRETCHED, c.EXACT_SHAPE)
@batched(("grad_shape", "shape"), list(_generated()))
def test_unbroadcast_generated(grade, grad_shape, shape):
    _check(grade, grad_shape, shape)


@clause(c.GRAD_UNCHANGED)
def test_unbroadcast_leaves_grad_unchanged(grade):
    grad = grade.rng.standard_normal((4, 2, 3))
    before = grad.copy()
    with grade.running("unbroadcast"):
        grade.impl.unbroadcast(grad, (2, 1))
    grade.expect(
        "unbroadcast",
        "the grad passed in, after the call",
        grad,
        before,
        hint="sum into a new array, not in place",
        source="the original",
    )
