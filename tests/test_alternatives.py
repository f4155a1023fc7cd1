"""Correct engines written in other styles pass every target: the grader does not insist on our style.

The alternatives keep to the contract's minimum where it is narrow (``transpose`` takes separate
ints only; ``@`` takes two Tensors only) and use the freedom it leaves (``_prev`` a set,
``requires_grad`` honoured, ``__slots__``; the book's habits: an aliasing ``__init__``, no
``__array_ufunc__``, no ``__rtruediv__``): the tests below check that they still do, so that
"an engine that does no more than the contract passes" stays a claim these engines back.

An engine that lacks a symbol of a core target (one added to the catalog after it was written) is
graded with the reference's code for it (tests/grafts.py), and test_alternative_writes_every_core_symbol
names what it lacks: a new op needs no engine edited.

An engine may declare ``KNOWN_BUG = (line, fixed line)``: one real bug it keeps on purpose (the
book's). It is graded as it is by a test of its own, which names what must fail, and fixed
(that one line replaced) by every test here that asks an engine to pass.

A pack's alternatives are held by the same proofs (``EVERY``): the layers pack's
(packs/layers/alternatives/) pass every target of its catalog through the grader with its suite, are
NumPy only, and each writes every symbol (a pack offers no grafts: none may lack one).
"""

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from autograd_drill.grader import notes, reflected
from autograd_drill.grader.run import grade_file
from tests import layers_pack
from tests.grafts import grafted, lacks, without
from tests.support import ALTERNATIVES, CATALOG, by_stem, load

STYLES = {
    "kahn",
    "einsum",
    "own_closures",
    "fused_ce",
    "functional",
    "recursive_sum_style",
    "micrograd_style",
    "torch_style",
    "slots",
    "book_habits",
    "in_place",
    "base_refusal",
}
BOOK = "book_habits"
FOLLOW_UPS = {"in_place": ("max", "cotangent", "free-memory"), "base_refusal": ("max", "cotangent", "free-memory")}
"""Alternatives that also write follow-ups, and which: they are graded on those too."""


def fixed(path: Path, tmp_path: Path) -> Path:
    """The engine with its ``KNOWN_BUG`` line fixed, written in ``tmp_path``; one without it, as it is."""
    bug = getattr(load(path), "KNOWN_BUG", None)
    if bug is None:
        return path
    line, fix = bug
    text = path.read_text(encoding="utf-8")
    assert text.count(line) == 2, f"{path.name}: its KNOWN_BUG line, once in the marker and once in the code"
    code = text.index(line, text.index(line) + 1)
    copy = tmp_path / path.name
    copy.write_text(text[:code] + fix + text[code + len(line) :], encoding="utf-8")
    return copy


EVERY = [
    *(pytest.param(path, None, id=path.stem) for path in ALTERNATIVES),
    *(pytest.param(path, layers_pack.SUITE, id=f"layers/{path.stem}") for path in layers_pack.ALTERNATIVES),
]
"""Every pack's alternatives, each with its pack's suite (None: the autograd pack, the grader's own tests)."""


def catalog_of(suite):
    return CATALOG if suite is None else layers_pack.CATALOG


def test_every_style_is_there():
    assert {p.stem for p in ALTERNATIVES} >= STYLES
    for path in ALTERNATIVES:
        assert path.read_text().startswith('"""Alternative engine, style: '), f"{path.name}: say the style it shows"


@pytest.mark.parametrize(("path", "suite"), EVERY)
def test_alternative_passes_every_target(path, suite, warm_runner, tmp_path):
    """Every core target, and the follow-ups it writes (FOLLOW_UPS), in one grading (a pack's, by its suite)."""
    catalog = catalog_of(suite)
    engine = path if suite else grafted(fixed(path, tmp_path), lacks(path, CATALOG), CATALOG, tmp_path)
    follow_ups = [catalog.get(t) for t in FOLLOW_UPS.get(path.stem, ())] if suite is None else []
    result = grade_file(engine, [*catalog.targets, *follow_ups], runner=warm_runner, suite=suite)
    assert [t.target for t in result.targets] == [t.id for t in catalog.every if t in (*catalog.targets, *follow_ups)]
    failing = {t.target: t.messages[:1] for t in result.targets if not t.passed}
    assert result.passed, failing


@pytest.mark.parametrize(("path", "suite"), EVERY)
def test_alternative_writes_every_core_symbol(path, suite):
    """What an engine lacks is graded with the reference's code (above): said here, as an expected
    failure, until someone writes it in the engine's style. A pack's alternative lacks nothing."""
    missing = lacks(path, catalog_of(suite))
    assert not (suite and missing), f"{path.name} lacks {', '.join(missing)}: a pack's alternative writes every symbol"
    if missing:
        pytest.xfail(f"{path.stem} lacks {', '.join(missing)}: graded with the reference's (tests/grafts.py)")


GRAFTED = ("Tensor.__add__", "Tensor.sum", "Tensor.tanh", "cross_entropy")


@pytest.mark.parametrize("stem", ["functional", "torch_style"])
def test_an_engine_without_a_core_symbol_is_graded_with_the_references(stem, warm_runner, tmp_path):
    """As when an op joins the catalog: an engine cut of four symbols (an operator, a reduction through
    the reference's helper, an elementwise op, a module function) is found to lack them and, grafted,
    passes their targets (torch_style runs only the closures of outputs that need a gradient)."""
    cut = without(by_stem(stem), GRAFTED, tmp_path)
    missing = lacks(cut, CATALOG)
    assert set(missing) == set(GRAFTED) | set(lacks(by_stem(stem), CATALOG))  # what it lacked already too
    result = grade_file(
        grafted(cut, missing, CATALOG, tmp_path),
        [CATALOG.get(t) for t in ("arith", "unary", "cross-entropy")],
        runner=warm_runner,
    )
    assert result.passed, {t.target: t.messages[:1] for t in result.targets if not t.passed}
    alone = grade_file(cut, [CATALOG.get("unary")], runner=warm_runner)
    assert not alone.passed, "the cut engine fails without the grafts"


def test_the_alternatives_that_write_follow_ups_are_there():
    """FOLLOW_UPS names engines that exist and follow-ups of the catalog (each graded above)."""
    assert set(FOLLOW_UPS) <= {p.stem for p in ALTERNATIVES}
    assert {t for ids in FOLLOW_UPS.values() for t in ids} <= {t.id for t in CATALOG.extensions}


@pytest.mark.parametrize(("path", "suite"), EVERY)
def test_alternative_is_numpy_only(path, suite):
    text = path.read_text()
    assert "import torch" not in text and "from reference" not in text and "from grader" not in text
    assert "autograd_drill" not in text, f"{path.name} imports the tool"


# ------------------------------------------------------------------ the narrow parts of the contract


def _transpose_accepts_a_tuple(engine: ModuleType, x: np.ndarray) -> bool:
    """Whether ``t.transpose((1, 2, 0))`` does what ``transpose(1, 2, 0)`` does (beyond the contract)."""
    try:
        out = engine.Tensor(x, requires_grad=True).transpose((1, 2, 0))
    except Exception:
        return False
    return isinstance(out, engine.Tensor) and np.array_equal(out.data, x.transpose(1, 2, 0))


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_alternative_transpose_takes_separate_ints_only(path):
    engine = load(path)
    x = np.arange(24.0).reshape(2, 3, 4)
    t = engine.Tensor(x, requires_grad=True)
    # What the contract asks: separate ints, negatives counting from the end, none reversing all.
    assert np.array_equal(t.transpose(1, -1, 0).data, x.transpose(1, 2, 0))
    assert np.array_equal(t.transpose(-1, -3, -2).data, x.transpose(2, 0, 1))
    assert np.array_equal(t.transpose().data, x.transpose())
    assert np.array_equal(engine.Tensor(x[0]).T.data, x[0].T)
    # What it does not: a single tuple argument.
    assert not _transpose_accepts_a_tuple(engine, x), f"{path.stem}: transpose((1, 2, 0)) works, beyond the contract"


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_alternative_matmul_takes_tensors_only(path):
    engine = load(path)
    a, w = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    t = engine.Tensor(a, requires_grad=True)
    assert np.array_equal((t @ engine.Tensor(w, requires_grad=True)).data, a @ w)
    with pytest.raises(TypeError):
        t @ w  # noqa: B018 - the expression is the test
    if reflected.ndarray_on_the_left(engine.Tensor):  # else `w.T @ t` is NumPy's, as `arr + t` is
        with pytest.raises(TypeError):
            w.T @ engine.Tensor(a.T, requires_grad=True)  # noqa: B018
    else:
        assert path.stem == BOOK, f"{path.stem}: an ndarray on the left is graded only where the class opts in"


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_alternative_still_takes_ndarrays_where_the_contract_does(path):
    """``+ - * /`` take an ndarray on the right, and on the left where the class opts in (all but the
    book's habits do): the narrow ``@`` must not have narrowed them."""
    engine = load(path)
    c = np.array([[1.0, 2.0, 4.0]])
    t = engine.Tensor(np.full((2, 3), 2.0), requires_grad=True)
    cases = [
        ("tensor", "+", lambda: t + c, 2 + c),
        ("tensor", "/", lambda: t / c, 2 / c),
        ("number", "-", lambda: 3.0 - t, np.full((2, 3), 1.0)),
        ("number", "/", lambda: 3.0 / t, np.full((2, 3), 1.5)),
        ("ndarray", "-", lambda: c - t, c - 2),
        ("ndarray", "*", lambda: c * t, 2 * c),
        ("ndarray", "/", lambda: c / t, c / 2),
    ]
    for left, op, out, expected in cases:
        if reflected.ungraded(engine.Tensor, left, op) is not None:
            assert path.stem == BOOK, f"{path.stem}: {left} {op} t is not supported"
            continue
        result = out()
        assert isinstance(result, engine.Tensor), (left, op)
        assert np.array_equal(result.data, np.broadcast_to(expected, (2, 3)))


# ------------------------------------------------------------------ the book's habits


def test_book_habits_keeps_them():
    """What makes the engine the book's: each habit, checked, so that the grading below is of them."""
    engine = load(by_stem(BOOK))
    a = np.arange(3.0)
    t = engine.Tensor(a, requires_grad=True)
    assert t.data is a or np.shares_memory(t.data, a), "__init__ keeps a float64 array (np.asarray)"
    assert isinstance(engine.Tensor([1.0], _children=[t])._prev, tuple)
    with pytest.raises(AssertionError):
        (t * 2.0).backward()  # a root of 3 elements: the book's assert
    assert not hasattr(engine.Tensor, "__array_ufunc__") and not hasattr(engine.Tensor, "__rtruediv__")
    assert type(a + t) is np.ndarray  # NumPy's own, element by element
    with pytest.raises(TypeError):
        2.0 / t  # noqa: B018
    assert reflected.ungraded(engine.Tensor, "ndarray", "+") == reflected.NO_NDARRAY_LEFT
    assert reflected.ungraded(engine.Tensor, "number", "/") == reflected.NO_RTRUEDIV
    assert reflected.ungraded(engine.Tensor, "number", "-") is None  # __rsub__: always graded


def _negative(case: str) -> bool:
    """Whether a transpose case has a negative axis: ``negative-swap``, ``3d--2,2,0``."""
    if case.startswith("negative"):
        return True
    _, _, args = case.partition("d-")
    return any(int(a) < 0 for a in args.split(",") if a)


def test_book_habits_fails_softmax_only_on_negative_axes(warm_runner, tmp_path):
    """Graded as it is, the book's habits pass every core target but softmax, which fails only on
    transpose's negative-axis cases, with the hint that names the bug; the habits themselves are
    notes. (Fixed, it passes every target: test_alternative_passes_every_target.)"""
    path = by_stem(BOOK)
    line, fix = load(path).KNOWN_BUG
    assert path.read_text(encoding="utf-8").count(line) == 2 and "\n" not in line + fix  # one line, fixed by one
    engine = grafted(path, lacks(path, CATALOG), CATALOG, tmp_path)  # as it is, but for symbols it lacks
    result = grade_file(engine, CATALOG.targets, runner=warm_runner)
    assert [t.target for t in result.targets if not t.passed] == ["softmax"]
    softmax = result.get("softmax")
    assert softmax.failed == len(softmax.failures) >= 2 and softmax.not_run == 0
    for failure in softmax.failures:
        assert failure.test.startswith("test_softmax.py::test_op_transpose"), failure.test
        assert failure.symbol == "Tensor.transpose" and _negative(failure.case or ""), failure.message
        assert failure.hint is not None and failure.hint.startswith("turn negative axes positive first"), failure.hint
    assert {
        "test_softmax.py::test_op_transpose[negative-axes]",
        "test_softmax.py::test_op_transpose[negative-swap]",
    } <= {f.test for f in softmax.failures}
    assert set(result.notes) == {notes.ALIAS, reflected.NO_NDARRAY_LEFT, reflected.NO_RTRUEDIV}


# ------------------------------------------------------------------ the freedoms the contract leaves


def test_micrograd_style_keeps_prev_as_a_set():
    engine = load(by_stem("micrograd_style"))
    x = engine.Tensor(np.ones(3), requires_grad=True)
    y = x * x
    assert isinstance(y._prev, set) and y._prev == {x}
    assert isinstance(engine.Tensor(1.0)._prev, set)
    y.sum().backward()
    assert np.array_equal(x.grad, 2 * np.ones(3))


def test_slots_tensor_has_no_dict():
    engine = load(by_stem("slots"))
    t = engine.Tensor(np.ones(2), requires_grad=True)
    assert "__slots__" in vars(engine.Tensor) and not hasattr(t, "__dict__")
    with pytest.raises(AttributeError):
        t.name = "x"
    t._backward = lambda: None  # the contract's attributes stay assignable


def test_torch_style_honours_requires_grad():
    engine = load(by_stem("torch_style"))
    x = engine.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    c = engine.Tensor(np.array([3.0, 4.0]))  # requires_grad=False
    assert not (c * 2.0).requires_grad and (x * c).requires_grad
    constant = (c * 2.0).exp()
    constant.grad = np.ones(2)
    constant._backward()  # computed from constants only: no closure, the leaf's no-op
    assert np.array_equal(c.grad, np.zeros(2))
    constant.zero_grad()
    (x * c + constant).sum().backward()
    assert np.allclose(x.grad, [3.0, 4.0])
    assert np.array_equal(c.grad, np.zeros(2)), "only the inputs that require grad receive one"
    assert np.array_equal(constant.grad, np.zeros(2))


def test_in_place_never_rebinds_a_grad():
    """The in-place engine keeps each tensor's .grad array for life, 0-d ones included: so the grader's
    glue must write into it in place too (tests/test_glue_grads.py)."""
    engine = load(by_stem("in_place"))
    x, s = engine.Tensor(np.ones(3), requires_grad=True), engine.Tensor(2.0, requires_grad=True)
    arrays = (x.grad, s.grad)
    y = (x * s).sum() * s
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad is arrays[0] and s.grad is arrays[1] and type(s.grad) is np.ndarray and s.grad.shape == ()
    assert np.allclose(x.grad, 2 * 4.0) and np.isclose(s.grad, 2 * 2 * 3 * 2.0)
    x.zero_grad()
    assert x.grad is arrays[0] and not x.grad.any()


def test_base_refusal_refuses_outside_exception():
    engine = load(by_stem("base_refusal"))
    assert issubclass(engine.Refusal, BaseException) and not issubclass(engine.Refusal, Exception)
    assert not issubclass(engine.Refusal, (KeyboardInterrupt, SystemExit, GeneratorExit))
    root = engine.Tensor(np.ones(3), requires_grad=True) * 2.0
    with pytest.raises(engine.Refusal):
        root.backward()
    with pytest.raises(engine.Refusal):
        root.backward(np.ones(4))
