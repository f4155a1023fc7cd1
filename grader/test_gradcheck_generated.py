"""numerical_grad and gradcheck on generated cases of their own arguments and inputs (the step and the
tolerances, a nan on the numeric side, integer inputs, several failing inputs, an exact restore);
grader/test_gradcheck.py has the rest of the target's tests."""

import itertools

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched
from autograd_drill.grader.compare import compare
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import SCALAR_SHAPES, Glue, broken_sum, scalar_functions

pytestmark = pytest.mark.gradcheck


# ------------------------------------------------------------------------------ generated cases
# Dimensions of gradcheck's own arguments and inputs, each a seeded product: the step eps and the
# tolerances atol and rtol, each changing the numbers or the verdict; a nan on the numeric side
# only; integer inputs; several failing inputs whose worst is not the last; inputs whose values show
# the rounding of an approximate restore.


def _cube(glue, analytic):
    """sum(x^3), whose closure sends ``analytic(x)``: central differences of step eps give 3x^2 + eps^2."""
    return lambda t: glue.node(np.asarray((t.data**3).sum()), (t,), (lambda g: g * analytic(t.data),))


def _central(forward, x, eps):
    """Central differences of the NumPy ``forward`` at ``x``, element by element, as the contract writes them."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i], minus[i] = x[i] + eps, x[i] - eps
        grad[i] = (forward(plus) - forward(minus)) / (2 * eps)
    return grad


@clause(c.NUMERICAL_GRAD, c.CENTRAL)
@batched(
    ("kind", "eps", "shape"),
    [
        pytest.param(kind, eps, shape, id=f"{kind}-eps{eps:g}-{shape}".replace(" ", ""))
        for kind in ("cube", "sin")
        for eps in (1e-1, 3e-2, 1e-2, 3e-3, 1e-3)
        for shape in ((3,), (2, 2))
    ],
)
def test_numerical_grad_uses_its_eps_generated(grade, kind, eps, shape):
    """At a large step central differences are visibly not the derivative: 3x^2 + eps^2 for x^3,
    cos(x) sin(eps) / eps for sin. An eps not used (a hard-coded 1e-6) gives the derivative instead."""
    x = grade.rng.standard_normal(shape)
    glue = Glue(grade)
    if kind == "cube":
        f, forward = _cube(glue, lambda d: 3.0 * d * d), (lambda a: float((a**3).sum()))
    else:
        f, forward = (lambda t: glue.total(glue.sin(t))), (lambda a: float(np.sin(a).sum()))
    with grade.running("numerical_grad"):
        (ours,) = grade.impl.numerical_grad(f, [x.copy()], eps)
    expected = _central(forward, x, eps)
    if np.shape(ours) != expected.shape or not np.allclose(ours, expected, atol=1e-8, rtol=1e-8):
        err = np.max(np.abs(np.asarray(ours) - expected)) if np.shape(ours) == expected.shape else "shape"
        raise grade.fail(
            "numerical_grad",
            f"at eps={eps:g} the gradient differs from (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) by {err}",
            "step by the eps given, not a fixed one",
        )


def _tolerance_cases():
    """eps x atol x rtol, and an analytic gradient off from the numeric one by an error that is half or
    twice the absolute or the relative tolerance (or none): the verdict, or the worst element, depends
    on each of the three."""
    for eps, atol, rtol in itertools.product((1e-1, 1e-2, 1e-3), (1e-9, 1e-7, 1e-3), (0.0, 1e-6, 1e-1)):
        offsets = [("exact", 0.0, 0.0)]
        offsets += [(f"abs{k:g}", k * atol, 0.0) for k in (0.5, 2.0)]
        offsets += [(f"rel{k:g}", 0.0, k * rtol) for k in (0.5, 2.0) if rtol > 0]
        for name, alpha, rho in offsets:
            yield pytest.param(eps, atol, rtol, alpha, rho, id=f"eps{eps:g}-atol{atol:g}-rtol{rtol:g}-{name}")


@clause(c.GRADCHECK, c.GRADCHECK_EPS, c.GRADCHECK_WORST, c.WORST_ANY_INPUT)
@batched(("eps", "atol", "rtol", "alpha", "rho"), list(_tolerance_cases()))
def test_gradcheck_uses_its_eps_atol_rtol_generated(grade, eps, atol, rtol, alpha, rho):
    """f = sum(x^3) whose closure sends (3x^2 + eps^2)(1 + rho) + alpha: exactly the central difference of
    step eps, off by alpha absolute and rho relative. The verdict and the worst element follow from
    eps, atol and rtol as given: a default or a hard-coded one in their place changes one or the other."""
    glue = Glue(grade)
    x = grade.rng.standard_normal((2, 3))
    f = _cube(glue, lambda d: (3.0 * d * d + eps * eps) * (1.0 + rho) + alpha)
    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(f, [x.copy()], eps=eps, atol=atol, rtol=rtol)
    numeric = _central(lambda a: float((a**3).sum()), x, eps)
    analytic = (3.0 * x * x + eps * eps) * (1.0 + rho) + alpha
    excess = np.abs(analytic - numeric) - (atol + rtol * np.abs(numeric))
    passed = bool(excess.max() <= 0)
    called = f"gradcheck(f, inputs, eps={eps:g}, atol={atol:g}, rtol={rtol:g})"
    if bool(result.passed) != passed:
        raise grade.fail(
            "gradcheck",
            f"{called} {'passed' if result.passed else 'failed'}; the largest excess over atol + rtol * |numeric| "
            f"is {excess.max():.3g}, so it should have {'passed' if passed else 'failed'}",
            "use the eps, atol and rtol given (numerical_grad(f, inputs, eps)), none hard-coded",
        )
    if passed:
        return
    # Elements whose excess ties the largest, to rounding (a constant error alpha with rtol 0): any of them
    # is the worst.
    tied = {tuple(int(i) for i in j) for j in np.argwhere(excess >= excess.max() - 1e-9)}
    worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), excess.shape))
    index = tuple(int(i) for i in np.atleast_1d(result.index))
    if result.input != 0 or index not in tied:
        raise grade.fail(
            "gradcheck",
            f"{called} reported input {result.input}, index {result.index}; the element furthest past the "
            f"tolerance is input 0, index {worst}",
            "the worst element: the largest |analytic - numeric| - (atol + rtol * |numeric|)",
        )
    worst = index
    for what, ours, theirs in (
        ("analytic", result.analytic, analytic[worst]),
        ("numeric", result.numeric, numeric[worst]),
    ):
        if not np.isclose(ours, theirs, atol=1e-9, rtol=1e-9):
            raise grade.fail(
                "gradcheck",
                f"{called}: the worst element's {what} value is {ours}, expected {theirs:.12g}",
                "the numeric value is the central difference of step eps",
            )


def _nan_cases():
    for shapes in (((3,),), ((2, 2),), ((3,), (2, 2)), ((2, 2), (3,)), ((2,), (2, 1), (3,))):
        for k in range(len(shapes)):
            for eps in (1e-6, 1e-3):
                yield pytest.param(
                    shapes, k, eps, id=f"{'-'.join(map(str, shapes))}-nan-in-{k}-eps{eps:g}".replace(" ", "")
                )


@clause(c.GRADCHECK, c.GRADCHECK_NAN, c.GRADCHECK_NAN_EITHER, c.GRADCHECK_WORST)
@batched(("shapes", "k", "eps"), list(_nan_cases()))
def test_gradcheck_fails_a_nan_on_the_numeric_side_generated(grade, shapes, k, eps):
    """sum(c * x) over every input, whose forward is nan below a floor (a domain's edge, as log's at 0);
    one element of input k sits eps / 2 above it, so f(x - eps e_i) is nan there and its numeric value is
    nan. The analytic gradient is c everywhere, right: only that element is past the tolerance."""
    arrays = [grade.rng.uniform(1.0, 2.0, s) for s in shapes]
    cs = [grade.rng.uniform(0.5, 1.5, s) for s in shapes]
    where = tuple(int(grade.rng.integers(n)) for n in shapes[k])
    arrays[k][where] = eps / 2  # the floor is 0
    glue = Glue(grade)

    def f(*ts):
        value = sum(float((c_ * t.data).sum()) for c_, t in zip(cs, ts, strict=True))
        if any((t.data <= 0).any() for t in ts):
            value = np.nan
        return glue.node(np.asarray(value), ts, [lambda g, c_=c_: g * c_ for c_ in cs])

    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(f, [a.copy() for a in arrays], eps=eps)
    if result.passed:
        raise grade.fail(
            "gradcheck",
            f"passed a function whose numeric gradient is nan at input {k}, index {where} (f(x - eps e_i) is nan)",
            "nan > tolerance is False: count a nan, on either side, as past the tolerance",
        )
    if result.input != k or tuple(int(i) for i in np.atleast_1d(result.index)) != where:
        raise grade.fail(
            "gradcheck",
            f"reported input {result.input}, index {result.index}; the one element past the tolerance (a nan "
            f"numeric value) is input {k}, index {where}",
            "a nan is never within the tolerance: it is the worst element",
        )
    if not np.isnan(result.numeric):
        raise grade.fail("gradcheck", f"the worst element's numeric value is {result.numeric}, not the nan measured")


INT_DTYPES = ("int64", "int32", "int16")


@clause(c.NUMERICAL_GRAD, c.INT_INPUTS, c.INPUTS_KEPT)
@batched(
    ("name", "dtype", "eps"),
    [
        pytest.param(name, dtype, eps, id=f"{name}-{dtype}-eps{eps:g}")
        for name in SCALAR_SHAPES
        for dtype in INT_DTYPES
        for eps in (1e-6, 1e-4, 0.25)
    ],
)
def test_numerical_grad_of_integer_inputs_generated(grade, name, dtype, eps):
    """Inputs of small ints: the gradient is measured at their values as floats, and is float64. An int array
    perturbed in place truncates x[i] + eps back to x[i] (a zero gradient) or changes the caller's array."""
    arrays = [grade.rng.integers(-3, 4, s).astype(dtype) for s in SCALAR_SHAPES[name]]
    before = [a.copy() for a in arrays]
    answer = grade.oracle.vjp(scalar_functions(None)[name], [a.astype(np.float64) for a in arrays])
    f = scalar_functions(Glue(grade))[name]
    with grade.running("numerical_grad", "perturb a float64 copy: x[i] + eps in an int array is x[i] again"):
        grads = grade.impl.numerical_grad(f, arrays, eps)
    for i, (ours, expected, x, x0) in enumerate(zip(grads, answer.grads, arrays, before, strict=True)):
        if not (isinstance(ours, np.ndarray) and ours.dtype == np.float64 and ours.shape == expected.shape):
            kind = f"{type(ours).__name__} of {getattr(ours, 'dtype', '?')}, shape {np.shape(ours)}"
            raise grade.fail(
                "numerical_grad",
                f"the gradient of the {dtype} input {i} is {kind}, not float64 of shape {expected.shape}",
                "an int input's gradient is still a float64 array: np.zeros(x.shape) with the default dtype",
            )
        tol = 1e-5 + eps * eps  # central differences: an error of order eps^2 (sin, x^3 here)
        if not np.allclose(ours, expected, atol=tol, rtol=1e-5):
            raise grade.fail(
                "numerical_grad",
                f"the gradient of the {dtype} input {i} differs from torch's (at its values as floats) by "
                f"{np.max(np.abs(ours - expected)):.3g}",
                "perturb a float64 copy: x[i] + eps in an int array is x[i] again",
            )
        if x.dtype != x0.dtype or not np.array_equal(x, x0):
            raise grade.fail("numerical_grad", f"the {dtype} input {i} was changed by the call")


def _worst_cases():
    for draw in (1, 2):
        for n in (2, 3, 4):
            for p in range(n - 1):
                for scaled in (False, True):
                    big = "-big-last" if scaled else ""
                    yield pytest.param(n, p, scaled, id=f"{n}-inputs-worst-in-{p}{big}-draw{draw}")


@clause(c.GRADCHECK, c.GRADCHECK_WORST, c.WORST_ANY_INPUT)
@batched(("n", "p", "scaled"), list(_worst_cases()))
def test_gradcheck_names_the_worst_of_several_failing_inputs_generated(grade, n, p, scaled):
    """sum_k sum(c_k * x_k) whose closure sends c_k + d_k: every input has elements past the tolerance,
    and the worst (excess about 0.2) is in input p, never the last. ``scaled``: the last input's gradient
    is about 1000, and its raw error the largest (0.25) but within rtol * |numeric| = 0.5 and more: the
    worst is by excess over the tolerance, not by raw error."""
    shapes = [((3,), (2, 2), (2, 1, 2), (4,))[(k + p) % 4] for k in range(n)]
    arrays = [grade.rng.standard_normal(s) for s in shapes]
    cs = [grade.rng.uniform(0.5, 2.0, s) * grade.rng.choice([-1.0, 1.0], s) for s in shapes]
    ds = [grade.rng.uniform(0.01, 0.05, s) * grade.rng.choice([-1.0, 1.0], s) for s in shapes]
    where = tuple(int(grade.rng.integers(m)) for m in shapes[p])
    ds[p][where] = 0.2
    if scaled:
        cs[-1] = cs[-1] * 1000.0
        ds[-1] = np.full(shapes[-1], 0.25)
    glue = Glue(grade)

    def f(*ts):
        value = sum(float((c_ * t.data).sum()) for c_, t in zip(cs, ts, strict=True))
        return glue.node(
            np.asarray(value), ts, [lambda g, c_=c_, d_=d_: g * (c_ + d_) for c_, d_ in zip(cs, ds, strict=True)]
        )

    with grade.running("gradcheck"):
        result = grade.impl.gradcheck(f, [a.copy() for a in arrays])
    if result.passed:
        raise grade.fail("gradcheck", f"passed {n} inputs whose gradients are each off by 0.01 or more")
    index = tuple(int(i) for i in np.atleast_1d(result.index))
    if result.input != p or index != where:
        raise grade.fail(
            "gradcheck",
            f"of {n} failing inputs, reported input {result.input}, index {result.index}; the element furthest "
            f"past the tolerance is input {p}, index {where}",
            "keep the worst over every input, by |analytic - numeric| - (atol + rtol * |numeric|): "
            "a later input replaces it only if it is worse",
        )
    if not (
        np.isclose(result.analytic, cs[p][where] + 0.2, atol=1e-9)
        and np.isclose(result.numeric, cs[p][where], atol=1e-5)
    ):
        raise grade.fail(
            "gradcheck",
            f"the worst element's analytic and numeric values are {result.analytic}, {result.numeric}; expected "
            f"{cs[p][where] + 0.2:.6g} and {cs[p][where]:.6g}",
        )


def _restore_cases():
    """Values whose perturbation by eps does not round-trip: (x + eps) - 2 eps + eps is not x for most of
    them; the case keeps only arrays where it shows."""
    for eps in (1e-6, 1e-3, 1e-2):
        for scale in (1e-3, 1.0, 100.0):
            for shape in ((3,), (2, 3)):
                yield pytest.param(eps, scale, shape, id=f"eps{eps:g}-scale{scale:g}-{shape}".replace(" ", ""))


def _rounding_shows(x, eps):
    y = x.copy()
    y += eps
    y -= 2 * eps
    y += eps
    return bool((y != x).any())


@clause(c.INPUTS_KEPT, c.INPUTS_EXACT)
@pytest.mark.parametrize("which", ["numerical_grad", "gradcheck"])
@batched(("eps", "scale", "shape"), list(_restore_cases()))
def test_inputs_left_bit_for_bit_generated(grade, which, eps, scale, shape):
    """Every input is left exactly as it was: restoring x[i] by adding and subtracting eps leaves rounding
    error, which these values show."""
    x = scale * grade.rng.standard_normal(shape)
    while not _rounding_shows(x, eps):
        x = scale * grade.rng.standard_normal(shape)
    arrays = [x, scale * grade.rng.standard_normal(shape)]
    before = [a.copy() for a in arrays]
    f = scalar_functions(Glue(grade))["sin-product"]
    with grade.running(which):
        if which == "numerical_grad":
            grade.impl.numerical_grad(f, arrays, eps)
        else:
            grade.impl.gradcheck(f, arrays, eps=eps)
    for i, (a, b) in enumerate(zip(arrays, before, strict=True)):
        if a.dtype != b.dtype or not np.array_equal(a, b):
            changed = np.flatnonzero(a != b)
            first = tuple(int(j) for j in np.unravel_index(int(changed[0]), b.shape)) if changed.size else ()
            raise grade.fail(
                which,
                f"input {i} changed: {changed.size} of {b.size} elements differ from the original"
                + (f", first at {first} ({float(a[first])!r} instead of {float(b[first])!r})" if changed.size else ""),
                "x[i] += eps, then -= 2 eps, then += eps does not give x[i] back in floating point: "
                "save x[i] and put it back, or perturb a copy",
            )


@clause(c.GRADCHECK, c.INT_INPUTS, c.GRADCHECK_INT_INPUTS, c.INPUTS_KEPT)
@batched(
    ("name", "dtype", "broken"),
    [
        pytest.param(name, dtype, broken, id=f"{name}-{dtype}-{'broken' if broken else 'correct'}")
        for name in SCALAR_SHAPES
        for dtype in INT_DTYPES
        for broken in (False, True)
    ],
)
def test_gradcheck_of_integer_inputs_generated(grade, name, dtype, broken):
    """gradcheck on int inputs: a correct function passes and one with a doubled gradient fails, as on floats;
    the int arrays are left as they were."""
    arrays = [grade.rng.integers(-3, 4, s).astype(dtype) for s in SCALAR_SHAPES[name]]
    before = [a.copy() for a in arrays]
    glue = Glue(grade)
    f = scalar_functions(glue)[name]
    if broken:
        g = f
        f = lambda *ts: glue.add(g(*ts), broken_sum(glue, ts[0], lambda gr, d: 2.0 * gr * np.ones_like(d)))  # noqa: E731
    with grade.running("gradcheck", "measure at the inputs as float64 copies: x[i] + eps in an int array is x[i]"):
        result = grade.impl.gradcheck(f, arrays)
    if bool(result.passed) == broken:
        raise grade.fail(
            "gradcheck",
            f"{'passed' if result.passed else 'failed'} {'a broken' if broken else 'a correct'} function on {dtype} "
            f"inputs (worst element {tuple(result)})",
            "an int input is measured at its values as floats: perturb a float64 copy",
        )
    for i, (x, x0) in enumerate(zip(arrays, before, strict=True)):
        if x.dtype != x0.dtype or not np.array_equal(x, x0):
            raise grade.fail("gradcheck", f"the {dtype} input {i} was changed by the call")


@clause(c.NUMERICAL_GRAD, c.INPUTS_KEPT, c.PERTURB_A_COPY, c.GRADCHECK)
@pytest.mark.parametrize("which", ["numerical_grad", "gradcheck"])
@batched(
    ("shape", "scale"),
    [
        pytest.param(shape, scale, id=f"{shape}-scale{scale:g}".replace(" ", ""))
        for shape in ((), (1,), (3,), (2, 3))
        for scale in (0.5, 1.0, 10.0)
    ],
)
def test_a_function_that_reads_the_callers_array_sees_it_unchanged_generated(grade, which, shape, scale):
    """f(t) = sum(t * x), x the caller's own array (the input itself): its gradient is x. A numerical_grad
    that perturbs the caller's array in place, however exactly it restores it, makes f see x + eps e_i
    in the constant too, and measures 2x."""
    x = scale * grade.rng.standard_normal(shape)
    expected = x.copy()
    glue = Glue(grade)

    def f(t):
        return glue.total(glue.scale(t, x))

    with grade.running(which):
        result = grade.impl.numerical_grad(f, [x]) if which == "numerical_grad" else grade.impl.gradcheck(f, [x])
    hint = "perturb a float64 copy of each input (np.array(x, dtype=np.float64)), never the caller's array"
    if which == "gradcheck":
        if not result.passed:
            raise grade.fail("gradcheck", "failed a correct function of an input f also reads as a constant", hint)
        return
    # central differences of a linear f: exact but for rounding, far below the 2x of an in-place perturbation
    problem = compare("the gradient of input 0", result[0], expected, "x itself", atol=1e-6, rtol=1e-6)
    if problem is not None:
        raise grade.fail("numerical_grad", problem, hint)
