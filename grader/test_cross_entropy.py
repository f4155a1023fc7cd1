"""cross_entropy(logits, y): the mean softmax cross-entropy, alone and at the end of a 2-layer MLP."""

import itertools

import numpy as np
import pytest

from autograd_drill.grader import contract as c
from autograd_drill.grader.batch import batched, seeds
from autograd_drill.grader.compare import backprop, compare
from autograd_drill.grader.contract import clause

pytestmark = [pytest.mark.cross_entropy, clause(c.INTACT)]  # every test checks the invariant (grade.vjp)


def _ce(logits, y):
    import torch.nn.functional as F  # noqa: N812

    return F.cross_entropy(logits, y)


@clause(c.CROSS_ENTROPY, c.SCALAR_TENSOR)
@pytest.mark.parametrize(
    ("n", "k", "scale"),
    [
        pytest.param(4, 3, 1.0, id="4x3"),
        pytest.param(3, 5, 1.0, id="3x5"),
        pytest.param(1, 4, 1.0, id="batch-of-1"),
        pytest.param(6, 2, 1.0, id="two-classes"),
        pytest.param(4, 4, 1.0, id="square"),
        pytest.param(5, 3, 1000.0, id="logits-1000", marks=clause(c.CE_STABLE)),
        pytest.param(3, 6, 50.0, id="logits-50", marks=clause(c.CE_STABLE)),
    ],
)
def test_cross_entropy_helper(grade, n, k, scale):
    logits = scale * grade.rng.standard_normal((n, k))
    y = grade.rng.integers(0, k, size=n)
    grade.vjp("cross_entropy", lambda t: grade.impl.cross_entropy(t, y), [logits], theirs=lambda t: _ce(t, _labels(y)))


@clause(c.CROSS_ENTROPY, c.LABELS)
def test_cross_entropy_helper_repeated_labels_as_list(grade):
    logits = grade.rng.standard_normal((5, 3))
    y = [2, 2, 0, 2, 1]
    grade.vjp("cross_entropy", lambda t: grade.impl.cross_entropy(t, y), [logits], theirs=lambda t: _ce(t, _labels(y)))


def _labels(y):
    import torch

    return torch.tensor(np.asarray(y, dtype=np.int64))


@clause(c.CROSS_ENTROPY, c.SCALAR_TENSOR, c.CE_STABLE)
@batched("seed", seeds(10), size=10)
def test_cross_entropy_random(grade, seed):
    rng = np.random.default_rng(4000 + seed)
    n, k = int(rng.integers(1, 9)), int(rng.integers(2, 9))
    logits = float(rng.choice([1.0, 10.0, 300.0])) * rng.standard_normal((n, k))
    y = rng.integers(0, k, size=n)
    grade.vjp("cross_entropy", lambda t: grade.impl.cross_entropy(t, y), [logits], theirs=lambda t: _ce(t, _labels(y)))


@clause(c.CROSS_ENTROPY, c.SCALAR_TENSOR)
def test_mlp_cross_entropy(grade):
    """A 2-layer MLP trained one step: the whole engine, the user's backward() included.

    The one check of ``Tensor.backward`` through the engine's own ops (``@``, ``+``, ``relu`` and
    those of cross_entropy), which may ignore or honour requires_grad: the backward target's own
    tests build their graphs from glue ops. When the gradients are wrong, the grader runs the same
    graph's closures itself, to say whether backward() or the ops are at fault."""
    rng = grade.rng
    x = rng.standard_normal((8, 5))
    params = [
        rng.standard_normal((5, 6)) / 2,
        rng.standard_normal(6) / 2,
        rng.standard_normal((6, 3)) / 2,
        rng.standard_normal(3) / 2,
    ]
    y = rng.integers(0, 3, size=8)
    names = ["x", "w1", "b1", "w2", "b2"]

    def forward(ce, x, w1, b1, w2, b2):
        return ce((x @ w1 + b1).relu() @ w2 + b2, y)

    def build():
        leaves = [grade.leaf(a) for a in [x, *params]]
        with grade.running("cross_entropy"):
            return leaves, forward(grade.impl.cross_entropy, *leaves)

    answer = grade.oracle.vjp(lambda *ts: forward(lambda logits, y: _ce(logits, _labels(y)), *ts), [x, *params])
    leaves, loss = build()
    grade.check_tensor("cross_entropy", loss)
    grade.expect("cross_entropy", "the loss", loss.data, answer.out)
    with grade.running("Tensor.backward"):
        loss.backward()
    tolerance = (grade.oracle.oracle.atol, grade.oracle.oracle.rtol)

    def wrong(leaves):
        return [
            compare(f"{n}.grad (after loss.backward())", leaf.grad, g, "torch", *tolerance)
            for n, leaf, g in zip(names, leaves, answer.grads, strict=True)
        ]

    problems = wrong(leaves)
    if any(problems):
        mine, again = build()  # the same graph, run by the grader's own backward pass: are the ops right?
        with grade.running("cross_entropy"):
            backprop(again, np.ones(np.shape(again.data)))
        if not any(wrong(mine)):
            raise grade.fail(
                "Tensor.backward",
                f"{next(p for p in problems if p)}; running the same closures once each, in reverse "
                "topological order, gives torch's",
                "run every node's _backward: op outputs are nodes too, whatever their requires_grad says",
            )
    for name, leaf, grad in zip(names, leaves, answer.grads, strict=True):
        grade.expect("cross_entropy", f"{name}.grad (after loss.backward())", leaf.grad, grad)


# ------------------------------------------------------------------------------ generated cases
# The input space of the contract, walked systematically (itertools over the dimensions below):
# N = 1 and more, K = 1, 2 and more; logits of scale 1, labels drawn (repeating once N > K) or all
# the same; logits of magnitude 1000 with each label on its row's max or on its min; the labels as
# a Python list and as ndarrays of int64 and int32. Deterministic: values from the case's own rng.

SIZES = [(1, 1), (1, 2), (1, 4), (3, 1), (4, 2), (5, 3)]
LOGITS = ["normal", "same-label", "1000-label-on-max", "1000-label-on-min"]
LABEL_TYPES = {"list": list, "int64": np.int64, "int32": np.int32}


def _ce_cases():
    cases = []
    for (n, k), logits, labels in itertools.product(SIZES, LOGITS, LABEL_TYPES):
        if (logits == "same-label" and n == 1) or (logits == "1000-label-on-min" and k == 1):
            continue  # the same case as another one
        marks = [c.CROSS_ENTROPY, c.SCALAR_TENSOR, c.LABELS, *([c.CE_STABLE] if logits.startswith("1000") else [])]
        cases.append(pytest.param(n, k, logits, labels, id=f"{n}x{k}-{logits}-{labels}", marks=clause(*marks)))
    return cases


def _ce_inputs(rng, n, k, logits):
    x = rng.standard_normal((n, k))
    if logits == "normal":
        return x, rng.integers(0, k, size=n)
    if logits == "same-label":
        return x, np.full(n, k - 1)
    x = 1000.0 * x
    return x, (np.argmax(x, axis=1) if logits == "1000-label-on-max" else np.argmin(x, axis=1))


@batched(("n", "k", "logits", "labels"), _ce_cases())
def test_cross_entropy_generated(grade, n, k, logits, labels):
    x, y = _ce_inputs(grade.rng, n, k, logits)
    given = y.tolist() if labels == "list" else y.astype(LABEL_TYPES[labels])
    grade.vjp("cross_entropy", lambda t: grade.impl.cross_entropy(t, given), [x], theirs=lambda t: _ce(t, _labels(y)))
