"""The grader's own ops keep the contract they grade: no glue op, probe or seeding changes the type of
a tensor's ``.grad``, nor binds a new object to it, 0-d gradients included (issue 22)."""

from types import SimpleNamespace

import numpy as np
import pytest

from autograd_drill.grader.compare import add_into, backprop, seed
from autograd_drill.grader.graphs import Glue
from autograd_drill.grader.probes import PROBES
from tests.support import by_stem, load


def _tracked(stem):
    """An alternative engine whose every tensor remembers the .grad array it was born with."""
    engine = load(by_stem(stem))
    born = []

    class Tracked(engine.Tensor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            born.append((self, self.grad, type(self.grad), self.grad.dtype))

    return SimpleNamespace(**{**vars(engine), "Tensor": Tracked}), born


def _kept(born):
    for tensor, grad, kind, dtype in born:
        assert tensor.grad is grad, f"a .grad of shape {grad.shape} was rebound to {type(tensor.grad).__name__}"
        assert type(tensor.grad) is kind and tensor.grad.dtype == dtype


@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 3)])
def test_glue_and_backprop_write_into_the_grads(shape):
    engine, born = _tracked("in_place")
    glue = Glue(SimpleNamespace(Tensor=engine.Tensor))
    x = engine.Tensor(np.full(shape, 0.5), requires_grad=True)
    s = engine.Tensor(np.array(2.0), requires_grad=True)  # 0-d, broadcast against x
    y = glue.mul(glue.add(x, x), s)
    root = glue.add(glue.total(glue.sin(y)), glue.total(glue.pos(s)))
    backprop(root, np.ones(()))
    _kept(born)
    expected = 2 * 2 * np.cos(2 * 2 * 0.5) * np.ones(shape)
    assert np.allclose(x.grad, expected)
    root.backward(retain_graph=True)  # the engine's own pass, zeroing interior grads in place, then again
    root.backward()
    _kept(born)
    assert np.allclose(x.grad, 3 * expected)


def test_the_backward_probe_writes_into_the_grads():
    engine, born = _tracked("in_place")
    assert PROBES["Tensor.backward"](engine) is None
    assert len(born) >= 3
    _kept(born)


def test_seed_and_add_into_keep_a_0d_array_an_array():
    t = SimpleNamespace(grad=np.zeros(()))
    grad = t.grad
    seed(t, 3.0)
    add_into(t, np.float64(1.5))
    add_into(t, np.ones(()))
    assert t.grad is grad and type(t.grad) is np.ndarray and float(t.grad) == 5.5
    n = SimpleNamespace(grad=np.zeros((2, 3)))
    grad = n.grad
    seed(n, np.ones((2, 3)))
    add_into(n, np.full((2, 3), 2.0))
    assert n.grad is grad and np.array_equal(n.grad, np.full((2, 3), 3.0))


def test_a_grad_that_cannot_take_it_in_place_gets_an_array_never_a_scalar():
    """A read-only .grad, a Python float or an integer .grad (a broken __init__'s) is replaced, by an
    ndarray: what it is can still be told by the tests that check it."""
    frozen = np.zeros(())
    frozen.flags.writeable = False
    for start in (frozen, 0.0, np.float64(0.0), np.zeros((), dtype=np.int64)):
        t = SimpleNamespace(grad=start)
        add_into(t, np.ones(()))
        assert type(t.grad) is np.ndarray and float(t.grad) == 1.0, type(start)
        seed(t, np.ones(()))
        assert type(t.grad) is np.ndarray
