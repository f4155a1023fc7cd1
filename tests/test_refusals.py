"""What the per-test helper takes for a refusal, and what it lets through (grader/check.py)."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from autograd_drill.grader.blame import Blame
from autograd_drill.grader.check import GradeFailure, Grading, TestTimeout
from tests.support import CATALOG


class Refusal(BaseException):  # noqa: N818 - a user's own refusal class, outside Exception
    pass


class Node:
    """A tensor as the contract's __init__ leaves it."""

    def __init__(self, data, requires_grad=False, _children=(), _op=""):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros(self.data.shape)
        self._prev, self._op, self._backward = tuple(_children), _op, lambda: None


def _grading():
    blame = Blame(impl_path=Path(__file__).resolve(), catalog=CATALOG, target=CATALOG.get("backward"))
    impl = SimpleNamespace(Tensor=Node)
    return Grading(impl=impl, oracle=None, blame=blame, case="case", rng=np.random.default_rng(0))  # type: ignore[arg-type]


def _raise(exc):
    def call():
        raise exc

    return call


@pytest.mark.parametrize("exc", [ValueError("no"), AssertionError(), Refusal("no"), GeneratorExit()])
def test_any_exception_is_a_refusal(exc):
    _grading().expect_refusal("Tensor.backward", _raise(exc), "accepted")


def test_no_exception_is_no_refusal():
    with pytest.raises(GradeFailure, match="accepted it"):
        _grading().expect_refusal("Tensor.backward", lambda: None, "accepted it")


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (NotImplementedError(), "not written yet"),
        (SystemExit(3), "SystemExit"),
        (type("TestTimeout", (TestTimeout,), {"limit": 5.0})(), "took longer than 5 s"),
    ],
)
def test_stops_are_verdicts_not_refusals(exc, said):
    with pytest.raises(GradeFailure, match=said) as failure:
        _grading().expect_refusal("Tensor.backward", _raise(exc), "accepted")
    assert failure.value.timed_out == isinstance(exc, TestTimeout)


def test_keyboard_interrupt_still_stops():
    with pytest.raises(KeyboardInterrupt):
        _grading().expect_refusal("Tensor.backward", _raise(KeyboardInterrupt()), "accepted")
    with pytest.raises(KeyboardInterrupt), _grading().running("Tensor.backward"):
        raise KeyboardInterrupt


def test_running_turns_a_base_exception_of_the_users_into_a_verdict():
    with pytest.raises(GradeFailure, match=r"raised Refusal: nope") as failure, _grading().running("Tensor.backward"):
        raise Refusal("nope")
    assert failure.value.symbol == "Tensor.backward"
