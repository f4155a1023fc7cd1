"""A backward that frees each closure, and the arrays it saved, once it has run.

Correctness on glue graphs (only the user's Tensor.__init__ and backward run), the graph released
(weak references to its inner nodes die), and peak memory measured with tracemalloc.
"""

import gc
import weakref

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import Glue, deep_chains
from autograd_drill.grader.memory import training_peak

pytestmark = pytest.mark.free_memory


def _graph(glue, x, y):
    if glue is None:
        s = x + y
        return (s * s.sin()).sum() + (s * y).sum()
    s = glue.add(x, y)
    return glue.add(glue.total(glue.mul(s, glue.sin(s))), glue.total(glue.mul(s, y)))


@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.RELEASE, c.DATA_INTACT)
def test_backward_still_correct(grade):
    x, y = grade.rng.standard_normal(4), grade.rng.standard_normal(4)
    answer = grade.oracle.vjp(lambda a, b: _graph(None, a, b), [x, y])
    leaves = [grade.leaf(x, "Tensor.backward"), grade.leaf(y, "Tensor.backward")]
    root = _graph(Glue(grade), *leaves)
    with grade.running("Tensor.backward"):
        root.backward()
    grade.expect("Tensor.backward", "the root's value after backward()", root.data, answer.out)
    grade.check_intact("Tensor.backward", "xy", leaves, [x, y], "backward()")
    for name, leaf, grad in zip("xy", leaves, answer.grads, strict=True):
        grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, grad, "free a node only after its closure has run")


@pytest.mark.costly
@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.RELEASE)
def test_chain_past_the_recursion_limit_still_correct(grade):
    def check(n):
        def build(glue, x, y):
            t = x
            for i in range(n):
                t = (
                    (t + y if i % 2 == 0 else t * 1.0001)
                    if glue is None
                    else (glue.add(t, y) if i % 2 == 0 else glue.node(t.data * 1.0001, (t,), (lambda g: 1.0001 * g,)))
                )
            return t.sum() if glue is None else glue.total(t)

        x, y = grade.rng.standard_normal(3), 1e-3 * grade.rng.standard_normal(3)
        answer = grade.oracle.vjp(lambda a, b: build(None, a, b), [x, y])
        leaves = [grade.leaf(x, "Tensor.backward"), grade.leaf(y, "Tensor.backward")]
        root = build(Glue(grade), *leaves)
        with grade.running("Tensor.backward"):
            root.backward()
        for name, leaf, grad in zip("xy", leaves, answer.grads, strict=True):
            grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, grad)

    deep_chains(check)


@clause(c.RELEASE)
def test_backward_releases_the_graph(grade):
    glue = Glue(grade)
    x = grade.leaf(grade.rng.standard_normal(5), "Tensor.backward")
    inner = [glue.sin(x)]
    for _ in range(5):
        inner.append(glue.mul(inner[-1], x))
    root = glue.total(inner[-1])
    refs = [weakref.ref(node) for node in inner]
    del inner
    with grade.running("Tensor.backward"):
        root.backward()
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    if alive:
        raise grade.fail(
            "Tensor.backward",
            f"{alive} of {len(refs)} inner nodes are still alive after backward(), "
            "though only the root and the leaf are held",
            "after a node's closure runs: node._backward = lambda: None; node._prev = (); and pop nodes "
            "off your list instead of keeping it",
        )
    if root._prev != () and len(root._prev) != 0:
        raise grade.fail("Tensor.backward", "the root still links to its inputs after backward()", "root._prev = ()")
    if not np.any(x.grad):
        raise grade.fail("Tensor.backward", "the leaf's gradient is zero: released before it was computed?")


@clause(c.RELEASE, c.MEMORY_FALLS)
def test_memory_falls_as_backward_proceeds(grade):
    """When a node's closure runs, its consumer (which ran before it) must already be gone."""
    glue = Glue(grade)
    x = grade.leaf(grade.rng.standard_normal(4), "Tensor.backward")
    still_alive: list[int] = []
    nodes = [x]
    for _ in range(6):
        parent = nodes[-1]
        node = glue.node(np.sin(parent.data), (parent,), (lambda g, p=parent: g * np.cos(p.data),))
        nodes.append(node)
    consumers = {id(nodes[i]): weakref.ref(nodes[i + 1]) for i in range(1, len(nodes) - 1)}
    for i in range(1, len(nodes) - 1):
        inner = nodes[i]._backward
        key = id(nodes[i])

        def check(inner=inner, key=key) -> None:
            if consumers[key]() is not None:
                still_alive.append(key)
            inner()

        nodes[i]._backward = check
    root = glue.total(nodes[-1])
    del nodes, node, parent, inner, check  # the test holds nothing but the root (and the leaf)
    with grade.running("Tensor.backward"):
        root.backward()
    if still_alive:
        raise grade.fail(
            "Tensor.backward",
            f"{len(still_alive)} nodes were still alive when the node they feed ran: "
            "memory is only freed at the end, not as backward proceeds",
            "pop each node off the topological order as you go, rather than looping over the list",
        )


@clause(c.RETAIN_GRAPH)
def test_retain_graph_keeps_it(grade):
    glue = Glue(grade)
    x = grade.leaf(grade.rng.standard_normal(3), "Tensor.backward")
    mid = glue.sin(x)
    root = glue.total(mid)
    ref = weakref.ref(mid)
    del mid
    with grade.running("Tensor.backward", "backward(retain_graph=True) keeps every closure, as torch's"):
        root.backward(retain_graph=True)
    gc.collect()
    if ref() is None or not root._prev:
        raise grade.fail(
            "Tensor.backward",
            "backward(retain_graph=True) released the graph",
            "release only when retain_graph is False (the default)",
        )


def _twice(torch, x, y):
    """torch's leaves after two backward passes over one graph, the first keeping it."""
    x, y = x.requires_grad_(), y.requires_grad_()
    root = _graph(None, x, y)
    root.backward(retain_graph=True)
    root.backward()
    return [x.grad, y.grad]


@clause(c.RETAIN_GRAPH, c.REPEATED_BACKWARD)
def test_repeated_backward_with_retain_graph(grade):
    """Two passes over a kept graph: the leaves get twice one pass's gradient, as torch's; not more,
    which is what interior nodes that keep their .grad from the first pass would give."""
    x, y = grade.rng.standard_normal(4), grade.rng.standard_normal(4)
    expected = grade.oracle.values(_twice, [x, y])
    leaves = [grade.leaf(x, "Tensor.backward"), grade.leaf(y, "Tensor.backward")]
    root = _graph(Glue(grade), *leaves)
    hint = "each pass starts the interior nodes from zero; the leaves keep adding, as torch's do"
    with grade.running("Tensor.backward"):
        root.backward(retain_graph=True)
        root.backward(retain_graph=True)
    for name, leaf, grad in zip("xy", leaves, expected, strict=True):
        grade.expect("Tensor.backward", f"{name}.grad after two backward passes", leaf.grad, grad, hint)


@pytest.mark.costly
@clause(c.RELEASE, c.MEMORY_FALLS)
def test_peak_memory_stays_flat_as_training_goes_on(grade):
    """Graded by growth, not by one ratio: with each loss kept, freeing keeps the peak flat when the
    training runs twice as long, and well below keeping every graph. A heavier design that still
    frees (say, one graph held back) passes; one whose peak grows with every step does not."""
    with grade.running("Tensor.backward"):
        free4 = training_peak(grade.impl, free=True, steps=4, layers=30, size=48)
        free8 = training_peak(grade.impl, free=True, steps=8, layers=30, size=48)
        keep8 = training_peak(grade.impl, free=False, steps=8, layers=30, size=48)
    growth, share = free8 / free4, free8 / keep8
    if growth > 1.3:
        raise grade.fail(
            "Tensor.backward",
            f"the peak memory grows with training: {growth:.2f} times higher over 8 steps than over 4, "
            "each step keeping its loss (at most 1.3 expected: what backward ran should be freed)",
            "release each closure and _prev once run (the root's too), so a kept loss holds no graph",
        )
    if share > 0.5:
        raise grade.fail(
            "Tensor.backward",
            f"the peak memory over 8 steps that keep their losses is {share:.2f} of keeping every graph "
            "(at most 0.5 expected)",
            "pop each node off the order as its closure runs: holding the whole list keeps every node until the end",
        )
