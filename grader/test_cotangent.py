"""backward(gradient=v): a root with more than one element, seeded with a cotangent (torch's y.backward(v)).

Graphs are built from the grader's glue ops, so only the user's Tensor.__init__ and backward run.
"""

import numpy as np
import pytest

from grader import contract as c
from grader.batch import batched
from grader.contract import clause
from grader.graphs import Glue

pytestmark = pytest.mark.cotangent


def _build(glue, x, y):
    """A non-scalar root with a shared node: sin(x) * (x + y), elementwise."""
    if glue is None:
        return x.sin() * (x + y)
    return glue.mul(glue.sin(x), glue.add(x, y))


@clause(c.COTANGENT)
@pytest.mark.parametrize(
    "shape", [pytest.param((3,), id="vector"), pytest.param((2, 3), id="matrix"), pytest.param((1,), id="one-element")]
)
def test_backward_with_cotangent(grade, shape):
    x, y = grade.rng.standard_normal(shape), grade.rng.standard_normal(shape)
    answer = grade.oracle.vjp(lambda a, b: _build(None, a, b), [x, y], cotangent=grade.rng.standard_normal)
    glue = Glue(grade)
    leaves = [grade.leaf(x, "Tensor.backward"), grade.leaf(y, "Tensor.backward")]
    root = _build(glue, *leaves)
    with grade.running("Tensor.backward", "seed root.grad with the cotangent, then run the closures as before"):
        root.backward(gradient=answer.cotangent.copy())
    for name, leaf, grad in zip("xy", leaves, answer.grads, strict=True):
        grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, grad)


@clause(c.COTANGENT)
@batched(
    "shape",
    [
        pytest.param(s, id=str(s).replace(" ", ""))
        for s in [(), (1,), (3,), (1, 1), (2, 1, 3), (1, 2, 1, 2), (2, 3, 2, 2)]
    ],
)
def test_backward_with_cotangent_generated(grade, shape):
    """Roots of rank 0 to 4, size-1 axes included, each seeded with a cotangent of its shape."""
    test_backward_with_cotangent(grade, shape)


@clause(c.COTANGENT, c.COTANGENT_POSITIONAL)
def test_backward_cotangent_positional(grade):
    x = grade.rng.standard_normal(4)
    answer = grade.oracle.vjp(lambda a: a.sin(), [x], cotangent=grade.rng.standard_normal)
    leaf = grade.leaf(x, "Tensor.backward")
    root = Glue(grade).sin(leaf)
    with grade.running("Tensor.backward", "gradient is backward's first parameter: y.backward(v), as in torch"):
        root.backward(answer.cotangent.copy())
    grade.expect("Tensor.backward", "x.grad", leaf.grad, answer.grads[0])


@clause(c.COTANGENT)
def test_backward_scalar_root_with_gradient(grade):
    x = grade.rng.standard_normal(3)
    answer = grade.oracle.vjp(lambda a: a.sin().sum(), [x], cotangent=lambda shape: np.full(shape, 2.5))
    leaf = grade.leaf(x, "Tensor.backward")
    glue = Glue(grade)
    root = glue.total(glue.sin(leaf))
    with grade.running("Tensor.backward"):
        root.backward(gradient=np.array(2.5))
    grade.expect(
        "Tensor.backward",
        "x.grad",
        leaf.grad,
        answer.grads[0],
        "a scalar root seeded with 2.5 scales every gradient by 2.5",
    )


@clause(c.ONE_ELEMENT, c.SEED_ONES)
def test_backward_scalar_root_without_gradient_still_works(grade):
    x = grade.rng.standard_normal(3)
    answer = grade.oracle.vjp(lambda a: a.sin().sum(), [x])
    leaf = grade.leaf(x, "Tensor.backward")
    glue = Glue(grade)
    with grade.running("Tensor.backward", "with gradient=None, a one-element root is seeded with ones"):
        glue.total(glue.sin(leaf)).backward()
    grade.expect("Tensor.backward", "x.grad", leaf.grad, answer.grads[0])


WRONG_COTANGENTS = [
    # (root shape, cotangent shape, id): each refused, even where NumPy would broadcast or reshape it
    ((3,), (4,), "wrong-shape"),
    ((2, 3), (3,), "broadcastable"),
    ((2, 3), (3, 2), "same-size"),
    ((2, 3), (6,), "same-size-flat"),
]
REFUSALS = [
    pytest.param(
        (3,), None, "a non-scalar root without a cotangent", id="no-cotangent", marks=clause(c.OTHER_ROOT_RAISES)
    ),
    *(
        pytest.param(
            root,
            np.ones(shape),
            f"a cotangent of shape {shape} for a root of shape {root}",
            id=name,
            marks=clause(c.COTANGENT_SHAPE),
        )
        for root, shape, name in WRONG_COTANGENTS
    ),
]


@pytest.mark.parametrize(("root_shape", "gradient", "why"), REFUSALS)
def test_backward_refuses(grade, root_shape, gradient, why):
    leaf = grade.leaf(np.ones(root_shape), "Tensor.backward")
    root = Glue(grade).sin(leaf)
    grade.expect_refusal(
        "Tensor.backward",
        lambda: root.backward(gradient=gradient),
        f"backward() accepted {why} without an error",
        "raise a clear error: the gradient would be ambiguous or wrong",
    )
