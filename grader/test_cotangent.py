"""backward(gradient=v): a root with more than one element, seeded with a cotangent (torch's y.backward(v)).

Graphs are built from the grader's glue ops, so only the user's Tensor.__init__ and backward run.
"""

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import Glue

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


# ------------------------------------------------------------------------------ generated cases
# Cotangents of another shape that NumPy would broadcast or reshape (one-element roots, size-1 axes
# added, dropped or moved, the same size flattened or reversed); cotangents of ints and float32;
# roots whose .grad holds a stale gradient before the call (as a retained earlier pass leaves it).

ROOT_SHAPES = [(), (1,), (1, 1), (3,), (1, 3), (3, 1), (2, 3), (2, 1, 3)]


def _other_shapes(shape):
    """Shapes of the same size as ``shape`` that are not ``shape``: a 1 inserted at each place, each size-1
    axis dropped, all of them dropped, flat, reversed."""
    size = int(np.prod(shape))
    found = [(*shape[:i], 1, *shape[i:]) for i in range(len(shape) + 1)]
    found += [shape[:i] + shape[i + 1 :] for i, n in enumerate(shape) if n == 1]
    found += [tuple(n for n in shape if n != 1), (size,), shape[::-1]]
    if size == 1:
        found.append(())
    unique = []
    for s in found:
        if s != shape and s not in unique:
            unique.append(s)
    return unique


WRONG_SHAPE_CASES = [
    pytest.param(root, other, id=f"root{root}-cotangent{other}".replace(" ", ""))
    for root in ROOT_SHAPES
    for other in _other_shapes(root)
]


@clause(c.COTANGENT_SHAPE, c.COTANGENT_SAME_SIZE)
@batched(("root_shape", "cotangent_shape"), WRONG_SHAPE_CASES)
def test_backward_refuses_a_cotangent_of_the_same_size_generated(grade, root_shape, cotangent_shape):
    """Every such cotangent is refused: nothing is broadcast or reshaped, not even for a one-element root."""
    leaf = grade.leaf(grade.rng.standard_normal(root_shape), "Tensor.backward")
    root = Glue(grade).sin(leaf)
    v = grade.rng.standard_normal(cotangent_shape)
    grade.expect_refusal(
        "Tensor.backward",
        lambda: root.backward(gradient=v),
        f"backward() accepted a cotangent of shape {cotangent_shape} for a root of shape {root_shape} without an error",
        "compare the shapes exactly (v.shape != root.shape): not the sizes, and without broadcasting",
    )


def _cotangent_of(rng, shape, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@clause(c.COTANGENT, c.COTANGENT_DTYPE, c.COTANGENT_KEPT)
@batched(
    ("shape", "dtype"),
    [
        pytest.param(shape, dtype, id=f"{shape}-{dtype}".replace(" ", ""))
        for shape in [(), (1,), (3,), (2, 3), (2, 1, 2)]
        for dtype in ("int64", "int32", "int8", "float32", "float64")
    ],
)
def test_backward_with_a_cotangent_of_any_dtype_generated(grade, shape, dtype):
    """The root's .grad is the cotangent as float64, a copy (the caller's array unchanged, its memory not
    shared), and the leaves get the VJP with it: an int cotangent kept int is wrong at the root."""
    v = _cotangent_of(grade.rng, shape, dtype)
    seed = v.astype(np.float64)
    x, y = grade.rng.standard_normal(shape), grade.rng.standard_normal(shape)
    answer = grade.oracle.vjp(lambda a, b: _build(None, a, b), [x, y], cotangent=lambda s: seed)
    leaves = [grade.leaf(x, "Tensor.backward"), grade.leaf(y, "Tensor.backward")]
    root = _build(Glue(grade), *leaves)
    before = v.copy()
    with grade.running("Tensor.backward", "seed root.grad with np.array(gradient, dtype=np.float64)"):
        root.backward(gradient=v)
    grad = root.grad
    if not isinstance(grad, (np.ndarray, np.generic)) or grad.dtype != np.float64 or grad.shape != root.data.shape:
        kind = (
            f"{type(grad).__name__} of {getattr(grad, 'dtype', '?')}, shape {np.shape(grad)}"  # a 0-d: a scalar will do
        )
        raise grade.fail(
            "Tensor.backward",
            f"after backward(gradient=<{dtype} array>), root.grad is {kind}, not float64 of the root's shape {shape}",
            "seed a float64 copy: np.array(gradient, dtype=np.float64)",
        )
    grade.expect("Tensor.backward", "root.grad after backward(gradient=v)", grad, seed, source="v as float64")
    if np.shares_memory(grad, v):
        raise grade.fail("Tensor.backward", "root.grad shares its memory with the cotangent passed in", "seed a copy")
    if v.dtype != before.dtype or not np.array_equal(v, before):
        raise grade.fail("Tensor.backward", "the cotangent passed in was changed by backward", "seed a copy")
    for name, leaf, g in zip("xy", leaves, answer.grads, strict=True):
        grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, g)


@clause(c.SEED_ONES, c.SEED_REPLACES, c.COTANGENT)
@batched(
    ("shape", "with_cotangent", "stale"),
    [
        pytest.param(
            shape, with_cotangent, stale, id=f"{shape}-{'v' if with_cotangent else 'ones'}-{stale}".replace(" ", "")
        )
        for shape in [(), (1,), (1, 1), (3,), (2, 3)]
        for with_cotangent in (True, False)
        for stale in ("random", "ones")
        if with_cotangent or int(np.prod(shape)) == 1
    ],
)
def test_backward_seed_replaces_a_stale_root_grad_generated(grade, shape, with_cotangent, stale):
    """The root's .grad holds a gradient already (a retained earlier pass leaves one): the seed replaces it.
    A seed added into it (``self.grad += v``) doubles or shifts every gradient."""
    x, y = grade.rng.standard_normal(shape), grade.rng.standard_normal(shape)
    v = grade.rng.standard_normal(shape) if with_cotangent else np.ones(shape)
    answer = grade.oracle.vjp(lambda a, b: _build(None, a, b), [x, y], cotangent=lambda s: v)
    leaves = [grade.leaf(x, "Tensor.backward"), grade.leaf(y, "Tensor.backward")]
    root = _build(Glue(grade), *leaves)
    root.grad = grade.rng.standard_normal(shape) if stale == "random" else np.ones(shape)
    hint = "seed: root.grad = the cotangent (or ones), replacing whatever it held; do not add into it"
    with grade.running("Tensor.backward"):
        if with_cotangent:
            root.backward(gradient=v.copy())
        else:
            root.backward()
    grade.expect("Tensor.backward", "root.grad after backward", root.grad, v, hint, source="the seed")
    for name, leaf, g in zip("xy", leaves, answer.grads, strict=True):
        grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, g, hint)
