"""Correct engines written in other styles pass every target: the grader does not insist on our style.

The alternatives keep to the contract's minimum where it is narrow (``transpose`` takes separate
ints only; ``@`` takes two Tensors only) and use the freedom it leaves (``_prev`` a set,
``requires_grad`` honoured, ``__slots__``): the tests below check that they still do, so that
"an engine that does no more than the contract passes" stays a claim these engines back.
"""

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from grader.run import grade_file
from tests.support import CATALOG

ALTERNATIVES = sorted((Path(__file__).parent / "alternatives").glob("*.py"))
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
    "in_place",
    "base_refusal",
}
FOLLOW_UPS = {"in_place": ("max", "cotangent", "free-memory"), "base_refusal": ("max", "cotangent", "free-memory")}
"""Alternatives that also write follow-ups, and which: they are graded on those too."""


def load(path: Path) -> ModuleType:
    """The engine in ``path``, imported under a name of its own."""
    spec = importlib.util.spec_from_file_location(f"alternative_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def by_stem(stem: str) -> Path:
    return next(p for p in ALTERNATIVES if p.stem == stem)


def test_every_style_is_there():
    assert {p.stem for p in ALTERNATIVES} >= STYLES
    for path in ALTERNATIVES:
        assert path.read_text().startswith('"""Alternative engine, style: '), f"{path.name}: say the style it shows"


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_alternative_passes_every_target(path, warm_runner):
    result = grade_file(path, CATALOG.targets, runner=warm_runner)
    failing = {t.target: t.messages[:1] for t in result.targets if not t.passed}
    assert result.passed, failing


@pytest.mark.parametrize("stem", sorted(FOLLOW_UPS))
def test_alternative_passes_the_follow_ups_it_writes(stem, warm_runner):
    targets = [CATALOG.get(t) for t in FOLLOW_UPS[stem]]
    result = grade_file(by_stem(stem), targets, runner=warm_runner)
    failing = {t.target: t.messages[:1] for t in result.targets if not t.passed}
    assert result.passed, failing


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_alternative_is_numpy_only(path):
    text = path.read_text()
    assert "import torch" not in text and "from reference" not in text and "from grader" not in text


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
    with pytest.raises(TypeError):
        w.T @ engine.Tensor(a.T, requires_grad=True)  # noqa: B018


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.stem)
def test_alternative_still_takes_ndarrays_where_the_contract_does(path):
    """``+ - * /`` do take an ndarray on either side: the narrow ``@`` must not have narrowed them."""
    engine = load(path)
    c = np.array([[1.0, 2.0, 4.0]])
    t = engine.Tensor(np.full((2, 3), 2.0), requires_grad=True)
    for out, expected in [(t + c, 2 + c), (c - t, c - 2), (t * c, 2 * c), (c / t, c / 2)]:
        assert isinstance(out, engine.Tensor)
        assert np.array_equal(out.data, np.broadcast_to(expected, (2, 3)))


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
