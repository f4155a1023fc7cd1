"""Tensor.__init__, Tensor.backward and _topological_order, on graphs of glue ops.

Glue ops are the grader's own (graphs.Glue): these tests run none of the user's ops, so the
verdict is about the graph machinery alone.
"""

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader import notes
from autograd_drill.grader.batch import batched, seeds
from autograd_drill.grader.compare import graph_order
from autograd_drill.grader.contract import clause
from autograd_drill.grader.graphs import Glue, deep_chains
from autograd_drill.grader.programs import GLUE_OPS, draw_glue, random_program

pytestmark = pytest.mark.backward


# ------------------------------------------------------------------------------ Tensor.__init__


@clause(c.INIT_DATA, c.INIT_GRAD, c.LEAF_PREV, c.LEAF_BACKWARD)
@pytest.mark.parametrize(
    "data",
    [
        pytest.param([[1, 2, 3], [4, 5, 6]], id="int-list"),
        pytest.param(np.arange(6, dtype=np.float32).reshape(3, 2), id="float32-array"),
        pytest.param(2.5, id="python-float"),
        pytest.param(np.float64(3.0), id="0d"),
    ],
)
def test_init(grade, data):
    expected = np.asarray(data, dtype=np.float64)
    with grade.running("Tensor.__init__"):
        t = grade.Tensor(data, requires_grad=True)
    grade.check_node(t)  # every attribute set; .grad a float64 ndarray of .data's shape, whatever data's dtype
    data_ok = isinstance(t.data, np.ndarray) and t.data.dtype == np.float64
    if not data_ok:
        raise grade.fail(
            "Tensor.__init__",
            f".data is {type(t.data).__name__} {getattr(t.data, 'dtype', '')}",
            "store np.array(data, dtype=np.float64)",
        )
    grade.expect("Tensor.__init__", ".data", t.data, expected, source="expected")
    grade.expect(
        "Tensor.__init__",
        ".grad",
        t.grad,
        np.zeros_like(expected),
        "start .grad at np.zeros_like(data)",
        source="expected",
    )
    if len(t._prev) != 0 or not callable(t._backward):
        raise grade.fail("Tensor.__init__", "a leaf needs an empty _prev and a callable _backward")
    with grade.running("Tensor.__init__"):
        t._backward()  # a leaf's does nothing
    grade.expect(
        "Tensor.__init__", ".grad after a leaf's _backward()", t.grad, np.zeros_like(expected), source="expected"
    )


def _init_cases():
    """Data of rank 0 to 4 (size-1 axes included): int and float arrays of several dtypes, nested lists, a number."""
    for shape in [(), (1,), (3,), (2, 1), (1, 2, 3), (2, 1, 2, 2)]:
        for dtype in ("int64", "int32", "float32", "float64"):
            yield pytest.param(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) - 1, id=f"{shape}-{dtype}")
        yield pytest.param((np.arange(int(np.prod(shape))).reshape(shape) - 1).tolist(), id=f"{shape}-list")
    yield pytest.param(-3, id="python-int")


@clause(c.INIT_DATA, c.INIT_ALIAS, c.INIT_INTACT, c.INIT_GRAD, c.LEAF_PREV, c.LEAF_BACKWARD)
@batched("data", list(_init_cases()))
def test_init_generated(grade, data):
    test_init(grade, data)
    source = np.array(data, copy=True)
    with grade.running("Tensor.__init__"):
        t = grade.Tensor(data, requires_grad=True)
    grade.expect("Tensor.__init__", "the array passed in, after Tensor(...)", data, source, source="the original")
    if isinstance(data, np.ndarray) and isinstance(t.data, np.ndarray) and np.shares_memory(t.data, data):
        notes.give(notes.ALIAS)  # the contract allows it (a copy is not required): a note, not a failure


@clause(c.INIT_PREV, c.INIT_OP)
def test_init_children_and_op(grade):
    with grade.running("Tensor.__init__"):
        a, b = grade.Tensor([1.0], requires_grad=True), grade.Tensor([2.0], requires_grad=True)
        out = grade.Tensor([3.0], requires_grad=True, _children=(a, b), _op="+")
    for t in (a, b, out):
        grade.check_node(t)
    with grade.running("Tensor.__init__"):
        parents = list(out._prev)
    if {id(p) for p in parents} != {id(a), id(b)} or not all(p is a or p is b for p in parents):
        raise grade.fail(
            "Tensor.__init__",
            f"_prev holds {len(parents)} items, not the two children a and b",
            "keep the children: _prev = tuple(_children) or set(_children)",
        )
    if out._op != "+":
        raise grade.fail("Tensor.__init__", f"_op is {out._op!r}, expected '+'")


# ------------------------------------------------------------------------------ _topological_order


def _check_order(grade, root, expected_nodes):
    with grade.running("_topological_order"):
        order = list(grade.impl._topological_order(root))
    ids = [id(n) for n in order]
    if len(ids) != len(set(ids)):
        raise grade.fail(
            "_topological_order",
            f"a node appears more than once ({len(ids)} entries, {len(set(ids))} distinct)",
            "keep a visited set: a shared node is reached once per path",
        )
    returned = set(ids)
    missing = [n for n in expected_nodes if id(n) not in returned]
    if missing or len(ids) != len(expected_nodes):
        raise grade.fail(
            "_topological_order",
            f"{len(order)} nodes returned, expected the {len(expected_nodes)} reachable from the root, leaves included",
        )
    position = {id(n): i for i, n in enumerate(order)}
    for node in order:
        for parent in node._prev:
            if position[id(parent)] > position[id(node)]:
                raise grade.fail(
                    "_topological_order",
                    "a node comes before one of its inputs",
                    "append a node only after all of its inputs (post-order)",
                )
    if order[-1] is not root:
        raise grade.fail("_topological_order", "the root is not last")


@clause(c.TOPO_ONCE, c.TOPO_INPUTS, c.TOPO_ROOT_LAST)
def test_topological_order_long_and_short_paths(grade):
    """a feeds the root directly and through a chain: a breadth-first order from the root is invalid."""
    glue = Glue(grade)
    a = grade.leaf(np.ones(2))
    b = glue.sin(a)
    c_ = glue.pos(b)
    d = glue.sin(c_)
    root = glue.total(glue.add(a, d))
    _check_order(grade, root, graph_order(root))


@clause(c.TOPO_ONCE, c.TOPO_INPUTS, c.TOPO_ROOT_LAST)
def test_topological_order_diamond(grade):
    glue = Glue(grade)
    a = grade.leaf(np.ones(3))
    b, c = glue.sin(a), glue.pos(a)
    d = glue.mul(b, c)
    root = glue.total(d)
    _check_order(grade, root, [a, b, c, d, root])


@clause(c.TOPO_ONCE, c.TOPO_INPUTS, c.TOPO_ROOT_LAST)
def test_topological_order_shared_and_unreachable(grade):
    glue = Glue(grade)
    x, y = grade.leaf(np.ones(2)), grade.leaf(np.ones(2))
    s = glue.add(x, x)
    t = glue.mul(s, y)
    u = glue.add(t, s)
    glue.sin(u)  # a consumer of u that the root does not depend on
    root = glue.total(u)
    _check_order(grade, root, [x, y, s, t, u, root])


@pytest.mark.costly
@clause(c.TOPO_ONCE, c.TOPO_INPUTS, c.TOPO_ROOT_LAST, c.DEEP)
def test_topological_order_past_the_recursion_limit(grade):
    def check(n):
        glue = Glue(grade)
        nodes = [grade.leaf(np.ones(1))]
        for _ in range(n):
            nodes.append(glue.sin(nodes[-1]))
        _check_order(grade, nodes[-1], nodes)

    deep_chains(check)


# ------------------------------------------------------------------------------ Tensor.backward


def _backward_check(grade, build, arrays, hint=None):
    """Build a glue graph, call the user's root.backward(), compare every leaf's grad with torch's."""
    answer = grade.oracle.vjp(lambda *xs: build(None, *xs), arrays)
    glue = Glue(grade)
    leaves = [grade.leaf(x) for x in arrays]
    root = build(glue, *leaves)
    value = np.array(root.data, copy=True)
    _check_order(grade, root, graph_order(root))  # a wrong order is _topological_order's, whatever backward does
    with grade.running("Tensor.backward"):
        root.backward()
    grade.check_intact("Tensor.backward", "xyzw", leaves, arrays, "backward()")
    grade.expect("Tensor.backward", "the root's value after backward()", root.data, value, source="the value before")
    for name, leaf, grad in zip("xyzw", leaves, answer.grads, strict=False):
        grade.expect("Tensor.backward", f"{name}.grad", leaf.grad, grad, hint)
        grade.check_grad("Tensor.backward", name, leaf, leaves)
    glue.expect_each_ran_once()
    return glue


class Ops(NamedTuple):
    """The ops a graph builder uses, by name."""

    add: Callable[..., Any]
    mul: Callable[..., Any]
    sin: Callable[..., Any]
    total: Callable[..., Any]


def _ops(glue):
    """Glue ops for a graph builder: on the user's engine with a Glue, on torch with None."""
    if glue is None:
        return Ops((lambda a, b: a + b), (lambda a, b: a * b), (lambda a: a.sin()), (lambda a: a.sum()))
    return Ops(glue.add, glue.mul, glue.sin, glue.total)


@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.DATA_INTACT, c.TOPO_INPUTS)
@pytest.mark.parametrize(
    ("op", "written"), [pytest.param("mul", "x*x", id="twice_mul"), pytest.param("add", "x+x", id="twice_add")]
)
def test_twice(grade, op, written):
    """One op reads x twice: x.grad must collect both contributions."""

    def build(glue, x):
        ops = _ops(glue)
        return ops.total(getattr(ops, op)(x, x))

    _backward_check(grade, build, [grade.rng.standard_normal(3)], f"{written}: x.grad must collect both contributions")


@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.DATA_INTACT, c.TOPO_INPUTS)
def test_diamond(grade):
    def build(glue, x):
        add, mul, sin, total = _ops(glue)
        a = sin(x)
        b, c = mul(a, x), add(a, a)
        return total(mul(b, c))

    _backward_check(
        grade,
        build,
        [grade.rng.standard_normal((2, 3))],
        "a diamond: a node's closure may run only after all its consumers added into its .grad",
    )


@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.DATA_INTACT, c.TOPO_INPUTS)
def test_diamond_two_leaves(grade):
    def build(glue, x, y):
        add, mul, sin, total = _ops(glue)
        s = add(x, y)
        return add(total(mul(s, sin(s))), total(mul(s, y)))

    _backward_check(grade, build, [grade.rng.standard_normal(4), grade.rng.standard_normal(4)])


@pytest.mark.costly
@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.DEEP, c.DATA_INTACT, c.TOPO_INPUTS)
def test_chain_past_the_recursion_limit(grade):
    def check(n):
        def build(glue, x, y, z):
            add, mul, _, total = _ops(glue)
            t = x
            for i in range(n):
                t = add(t, y) if i % 2 == 0 else mul(t, z)
            return total(t)

        z = 1.0 + 1e-4 * grade.rng.standard_normal(3)
        _backward_check(
            grade,
            build,
            [grade.rng.standard_normal(3), 1e-3 * grade.rng.standard_normal(3), z],
            f"{n:,} ops deep, past Python's recursion limit: no recursion, an explicit stack",
        )

    deep_chains(check)


@clause(c.SEED_ONES, c.ONCE_IN_ORDER)
def test_backward_seeds_ones(grade):
    glue = Glue(grade)
    x = grade.leaf(grade.rng.standard_normal((2, 2)))
    root = glue.total(x)
    with grade.running("Tensor.backward"):
        root.backward()
    grade.expect(
        "Tensor.backward",
        "root.grad",
        root.grad,
        np.array(1.0),
        "seed the root's grad with ones: d root / d root = 1",
        source="expected",
    )
    grade.expect("Tensor.backward", "x.grad", x.grad, np.ones((2, 2)), source="expected")


@clause(c.ONE_ELEMENT, c.SEED_ONES)
@pytest.mark.parametrize(
    "shape",
    [
        pytest.param((1,), id="shape-1"),
        pytest.param((1, 1), id="shape-1x1"),
        pytest.param((), id="shape-0d"),
        pytest.param((1, 1, 1, 1), id="shape-1x1x1x1"),
    ],
)
def test_backward_one_element_root(grade, shape):
    x = grade.leaf(grade.rng.standard_normal(shape))
    root = Glue(grade).sin(x)
    with grade.running("Tensor.backward", "a root with one element of any shape is a valid root"):
        root.backward()
    grade.expect("Tensor.backward", "x.grad", x.grad, np.cos(x.data), source="expected")


@clause(c.OTHER_ROOT_RAISES)
def test_backward_rejects_non_scalar_root(grade):
    x = grade.leaf(np.ones(3))
    root = Glue(grade).sin(x)
    grade.expect_refusal(
        "Tensor.backward",
        root.backward,
        "backward() on a root of shape (3,) returned without an error",
        "raise an error unless the root has exactly one element (its gradient would be ambiguous)",
    )


@clause(c.SEED_ONES, c.ONCE_IN_ORDER, c.TOPO_ONCE, c.TOPO_INPUTS, c.TOPO_ROOT_LAST)
@batched("seed", seeds(60), size=10)
def test_backward_random_graph(grade, seed):
    rng = np.random.default_rng(seed)
    program = random_program(rng, [(3,)] * int(rng.integers(1, 4)), GLUE_OPS, draw_glue, int(rng.integers(3, 25)))
    answer = grade.oracle.vjp(program.run_torch, program.leaves)
    glue = Glue(grade)
    leaves = [grade.leaf(x) for x in program.leaves]
    root = program.run_ours(glue, leaves)
    hint = f"graph: {program.describe()}"
    _check_order(grade, root, graph_order(root))
    with grade.running("Tensor.backward", hint):
        root.backward()
    for i, (leaf, grad) in enumerate(zip(leaves, answer.grads, strict=True)):
        grade.expect("Tensor.backward", f"x{i}.grad", leaf.grad, grad, hint)
