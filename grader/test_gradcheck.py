"""numerical_grad and gradcheck: central differences, checked against torch; and a broken op, caught.

The functions under check are built from the grader's glue ops (graphs.Glue), so the verdict
does not depend on the user's other ops.
"""

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import SCALAR_SHAPES, Glue, broken_sum, scalar_functions

pytestmark = pytest.mark.gradcheck

FD_ATOL = 1e-6  # central differences in float64 with eps=1e-6: errors near 1e-9, far below this


@clause(c.NUMERICAL_GRAD)
@pytest.mark.parametrize("name", list(SCALAR_SHAPES))
def test_numerical_grad(grade, name):
    arrays = [grade.rng.standard_normal(s) for s in SCALAR_SHAPES[name]]
    answer = grade.oracle.vjp(scalar_functions(None)[name], arrays)
    f = scalar_functions(Glue(grade))[name]
    with grade.running("numerical_grad", "(f(x + eps e_i) - f(x - eps e_i)) / (2 eps), restoring x[i] after"):
        grads = grade.impl.numerical_grad(f, [a.copy() for a in arrays], 1e-6)
    if len(grads) != len(arrays):
        raise grade.fail("numerical_grad", f"returned {len(grads)} gradients for {len(arrays)} inputs")
    for i, (ours, expected) in enumerate(zip(grads, answer.grads, strict=True)):
        if not np.allclose(ours, expected, atol=FD_ATOL, rtol=1e-5):
            err = np.max(np.abs(np.asarray(ours) - expected)) if np.shape(ours) == expected.shape else "shape"
            raise grade.fail(
                "numerical_grad",
                f"the gradient of input {i} differs from torch's by {err}",
                "central differences: both sides of x[i], over 2 eps; restore x[i] before the next",
            )


@clause(c.NUMERICAL_GRAD, c.INPUTS_KEPT)
def test_numerical_grad_coupled_function_larger_eps(grade):
    """f = (sum x)^3 couples every element: one left shifted by eps moves every later derivative by ~6 s eps."""
    x = grade.rng.standard_normal(5)
    answer = grade.oracle.vjp(lambda t: t.sum() ** 3, [x])
    glue = Glue(grade)

    def f(t):
        s = glue.total(t)
        return glue.mul(glue.mul(s, s), s)

    with grade.running("numerical_grad"):
        (ours,) = grade.impl.numerical_grad(f, [x.copy()], 1e-3)
    if not np.allclose(ours, answer.grads[0], atol=1e-4, rtol=1e-4):  # central differences: error ~ eps^2
        raise grade.fail(
            "numerical_grad",
            f"at eps=1e-3 the gradient differs from torch's by "
            f"{np.max(np.abs(np.asarray(ours) - answer.grads[0])):.3g}",
            "restore x[i] after measuring it: otherwise every later element is measured at a shifted point",
        )


@clause(c.INPUTS_KEPT)
def test_numerical_grad_leaves_inputs_unchanged(grade):
    arrays = [grade.rng.standard_normal((2, 3))]
    before = arrays[0].copy()
    f = scalar_functions(Glue(grade))["square"]
    with grade.running("numerical_grad"):
        grade.impl.numerical_grad(f, arrays, 1e-6)
    grade.expect(
        "numerical_grad",
        "the input after the call",
        arrays[0],
        before,
        "restore every element you perturb",
        source="the original",
    )


@clause(c.GRADCHECK)
@pytest.mark.parametrize("name", list(SCALAR_SHAPES))
def test_gradcheck_passes_a_correct_function(grade, name):
    arrays = [grade.rng.standard_normal(s) for s in SCALAR_SHAPES[name]]
    f = scalar_functions(Glue(grade))[name]
    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(f, arrays)
    if not result.passed:
        raise grade.fail(
            "gradcheck",
            f"failed a correct function: worst element {tuple(result)}",
            "compare f's backward (analytic) with numerical_grad within atol + rtol * |numeric|",
        )


def _broken_sin(glue, x):
    """sin whose closure sends 2 cos(x) instead of cos(x): a deliberately broken op."""
    return glue.node(np.sin(x.data), (x,), (lambda g: 2.0 * g * np.cos(x.data),))


@clause(c.GRADCHECK, c.GRADCHECK_WORST)
def test_gradcheck_catches_a_broken_op(grade):
    x, y = grade.rng.standard_normal(3), grade.rng.standard_normal(3)
    glue = Glue(grade)

    def f(a, b):
        return glue.total(glue.add(glue.mul(a, a), _broken_sin(glue, b)))

    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(f, [x, y])
    if result.passed:
        raise grade.fail(
            "gradcheck",
            "passed a function whose sin has a doubled gradient",
            "analytic vs numeric, elementwise, within atol + rtol * |numeric|: any element past it fails",
        )
    if result.input != 1:
        raise grade.fail(
            "gradcheck",
            f"blamed input {result.input}; the broken op is on input 1",
            "report the element furthest past the tolerance, with the index of its input",
        )
    expected_analytic = 2.0 * np.cos(y[result.index])
    grade.expect(
        "gradcheck",
        "the worst element's analytic value",
        np.array(result.analytic),
        np.array(expected_analytic),
        source="expected",
    )
    if abs(result.numeric - np.cos(y[result.index])) > 1e-5:
        raise grade.fail(
            "gradcheck",
            f"the worst element's numeric value is {result.numeric}, not cos(y) = {np.cos(y[result.index]):.6g}",
        )


@clause(c.GRADCHECK, c.GRADCHECK_WORST)
@pytest.mark.parametrize("shape", [(2, 3), (2, 2, 2)], ids=["rank2", "rank3"])
def test_gradcheck_reports_the_worst_element_by_full_index(grade, shape):
    """The broken sin's error is |cos y| past the tolerance: the worst element is where |cos y| peaks,
    named by its full index in that input."""
    x, y = grade.rng.standard_normal(shape), grade.rng.standard_normal(shape)
    glue = Glue(grade)

    def f(a, b):
        return glue.total(glue.add(glue.mul(a, a), _broken_sin(glue, b)))

    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(f, [x, y])
    excess = np.abs(np.cos(y)) - (1e-5 + 1e-3 * np.abs(np.cos(y)))
    worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), shape))
    if result.passed or result.input != 1:
        raise grade.fail("gradcheck", f"on inputs of shape {shape}: passed={result.passed}, input={result.input}")
    if tuple(int(i) for i in np.atleast_1d(result.index)) != worst:
        raise grade.fail(
            "gradcheck",
            f"reported index {result.index}, but the element furthest past the tolerance is {worst}",
            "the worst element: the largest |analytic - numeric| - (atol + rtol * |numeric|), as a full index",
        )


@clause(c.GRADCHECK)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=["0d", "one-element", "1x1"])
def test_gradcheck_catches_a_broken_op_on_one_element(grade, shape):
    glue = Glue(grade)
    x = grade.rng.standard_normal(shape)
    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(lambda t: broken_sum(glue, t, lambda g, d: 2.0 * g * np.ones_like(d)), [x])
    if result.passed:
        raise grade.fail("gradcheck", f"passed a doubled gradient on an input of shape {shape}")


@clause(c.GRADCHECK)
def test_gradcheck_tolerance_grows_with_the_gradient(grade):
    """rtol * |numeric|: 5e-4 relative off at a gradient of 1000 is within atol + rtol * 1000."""
    glue = Glue(grade)
    x = grade.rng.standard_normal((2, 2))
    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(
            lambda t: glue.node(np.asarray(1000.0 * t.data.sum()), (t,), (lambda g: np.full((2, 2), 1000.5) * g,)),
            [x],
        )
    if not result.passed:
        raise grade.fail(
            "gradcheck",
            "failed an analytic gradient of 1000.5 against a numeric 1000: within atol + rtol * |numeric| = 1.00001",
            "the tolerance is atol + rtol * |numeric|, elementwise",
        )


@clause(c.GRADCHECK, c.GRADCHECK_BOUNDARY)
def test_gradcheck_passes_at_the_boundary(grade):
    """A constant function (numeric gradient exactly 0) whose closure sends exactly atol: on the boundary."""
    glue = Glue(grade)
    x = grade.rng.standard_normal(3)
    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(
            lambda t: glue.node(np.asarray(0.0), (t,), (lambda g: np.full(3, 1e-5) * g,)), [x]
        )
    if not result.passed:
        raise grade.fail("gradcheck", "failed an element exactly at atol + rtol * |numeric|: the boundary is within")


@clause(c.GRADCHECK, c.GRADCHECK_NAN)
def test_gradcheck_fails_a_nan_gradient(grade):
    glue = Glue(grade)
    x = grade.rng.standard_normal(3)

    def nan_first(g, d):
        out = np.ones_like(d) * g
        out[0] = np.nan
        return out

    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(lambda t: broken_sum(glue, t, nan_first), [x])
    if result.passed:
        raise grade.fail(
            "gradcheck", "passed a gradient with a nan in it", "nan > x is False: count a nan as past the tolerance"
        )
