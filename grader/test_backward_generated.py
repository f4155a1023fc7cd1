"""Tensor.backward on generated graphs of glue ops: a leaf as the root, several roots over shared
leaves backpropagated in turn, and one-element roots of every shape (grader/test_backward.py has the
rest of the target's tests; as there, the graphs run none of the user's ops)."""

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import Glue
from autograd_drill.grader.programs import GLUE_OPS, draw_glue, random_program

pytestmark = pytest.mark.backward


# ------------------------------------------------------------------------------ generated cases
# backward() on a leaf; several roots over shared leaves, each backpropagated in turn; one-element
# roots of every shape, whose seeded .grad keeps the root's shape and replaces a stale one.

ONE_ELEMENT_SHAPES = [(), (1,), (1, 1), (1, 1, 1), (1, 1, 1, 1)]


@clause(c.ONE_ELEMENT, c.SEED_ONES, c.SEED_SHAPE, c.TOPO_ONCE, c.ONCE_IN_ORDER)
@batched(
    ("shape", "consumers"),
    [pytest.param(s, n, id=f"leaf{s}-{n}-consumers".replace(" ", "")) for s in ONE_ELEMENT_SHAPES for n in (0, 1, 3)],
)
def test_backward_on_a_leaf_generated(grade, shape, consumers):
    """A leaf is a root too: its .grad becomes ones of its shape, and nothing else runs (its consumers are
    not what it depends on), nor changes."""
    glue = Glue(grade)
    x, y = grade.leaf(grade.rng.standard_normal(shape)), grade.leaf(grade.rng.standard_normal(shape))
    data = np.array(x.data, copy=True)
    made = []
    for i in range(consumers):
        made.append((glue.sin, glue.pos, lambda a: glue.mul(a, y))[i % 3](x if not made else made[-1]))
    with grade.running("Tensor.backward", "a leaf's graph is the leaf alone: seed it, run its (empty) _backward"):
        x.backward()
    grade.expect(
        "Tensor.backward",
        "x.grad after x.backward()",
        x.grad,
        np.ones(shape),
        "a leaf is a valid root: seed its .grad with ones, though it has no _prev",
        source="expected",
    )
    if np.shape(x.grad) != shape:
        raise grade.fail("Tensor.backward", f"x.grad has shape {np.shape(x.grad)}, not the leaf's {shape}")
    grade.expect("Tensor.backward", "x.data after x.backward()", x.data, data, source="the original")
    ran = sum(glue.calls.values())
    if ran:
        raise grade.fail("Tensor.backward", f"x.backward() on a leaf ran {ran} closures of its consumers")
    for name, t in [("y", y), *((f"consumer {i}", t) for i, t in enumerate(made))]:
        grade.expect("Tensor.backward", f"{name}.grad after x.backward()", t.grad, np.zeros(shape), source="expected")


@clause(c.BACKWARD_ADDS, c.SEED_ONES, c.ONCE_IN_ORDER)
@batched(
    ("seed", "interleaved"),
    [
        pytest.param(s, i, id=f"seed{s}-{'interleaved' if i else 'built-first'}")
        for s in range(12)
        for i in (False, True)
    ],
)
def test_backward_several_roots_over_shared_leaves_generated(grade, seed, interleaved):
    """Two to four roots, each its own glue graph over the same leaves, each backpropagated in turn: every
    call adds into the leaves, which end with the sum of the roots' gradients, as torch's do. A backward
    that zeroes the leaves (or every .grad it reaches) first keeps only the last root's share."""
    rng = np.random.default_rng(500 + seed)
    n_leaves, n_roots = int(rng.integers(1, 4)), int(rng.integers(2, 5))
    first = random_program(rng, [(3,)] * n_leaves, GLUE_OPS, draw_glue, int(rng.integers(2, 10)))
    programs = [first]
    for _ in range(n_roots - 1):
        other = random_program(rng, [(3,)] * n_leaves, GLUE_OPS, draw_glue, int(rng.integers(2, 10)))
        programs.append(type(other)(leaves=first.leaves, steps=other.steps, ops=other.ops))  # a graphs.Program
    answer = grade.oracle.vjp(lambda *xs: sum(p.run_torch(*xs) for p in programs), first.leaves)
    glue = Glue(grade)
    leaves = [grade.leaf(x) for x in first.leaves]
    hint = "; ".join(f"root {i}: {p.describe()}" for i, p in enumerate(programs))
    hint = f"each backward() adds into the shared leaves' .grad (never resets a leaf): {hint}"
    roots = [] if interleaved else [p.run_ours(glue, leaves) for p in programs]
    for i, program in enumerate(programs):
        root = program.run_ours(glue, leaves) if interleaved else roots[i]
        with grade.running("Tensor.backward"):
            root.backward()
    for i, (leaf, grad) in enumerate(zip(leaves, answer.grads, strict=True)):
        grade.expect("Tensor.backward", f"x{i}.grad after {n_roots} roots' backward()", leaf.grad, grad, hint)
    glue.expect_each_ran_once()


@clause(c.ONE_ELEMENT, c.SEED_ONES, c.SEED_SHAPE, c.SEED_REPLACES)
@batched(
    ("shape", "build", "stale"),
    [
        pytest.param(s, b, st, id=f"root{s}-{b}-{st}".replace(" ", ""))
        for s in ONE_ELEMENT_SHAPES
        for b in ("sin", "times-0d")
        for st in ("fresh", "stale")
    ],
)
def test_backward_one_element_root_seed_keeps_its_shape_generated(grade, shape, build, stale):
    """A one-element root of any shape is seeded with ones of its own shape, not a 0-d 1.0 (nor (1,)),
    whatever its .grad held before; the leaves get their gradients too."""

    def graph(glue, x, y):
        if glue is None:
            return x.sin() if build == "sin" else x.sin() * y
        return glue.sin(x) if build == "sin" else glue.mul(glue.sin(x), y)

    x, y = grade.rng.standard_normal(shape), np.asarray(grade.rng.standard_normal())
    answer = grade.oracle.vjp(lambda a, b: graph(None, a, b), [x, y])
    glue = Glue(grade)
    leaves = [grade.leaf(x), grade.leaf(y)]
    root = graph(glue, *leaves)
    if stale == "stale":
        root.grad = grade.rng.standard_normal(shape)
    hint = "seed root.grad = np.ones_like(root.data): ones of the root's own shape, replacing what it held"
    with grade.running("Tensor.backward"):
        root.backward()
    if np.shape(root.grad) != shape:
        raise grade.fail(
            "Tensor.backward",
            f"root.grad has shape {np.shape(root.grad)} after backward(), not the root's {shape}",
            hint,
        )
    grade.expect("Tensor.backward", "root.grad after backward()", root.grad, np.ones(shape), hint, source="expected")
    for name, leaf, grad in zip("xy", leaves, answer.grads, strict=True):
        grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, grad, hint)
