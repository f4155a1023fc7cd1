"""Random graphs as data: a program is leaves and steps, each step an op written for three engines
(the user's, torch and NumPy), drawn at random from a target's ops and the grader's glue ops
(``GLUE_OPS``, which grader/graphs.py's ``Glue`` builds on the user's ``Tensor``). grader/graphs.py
runs them against torch; grader/localize.py runs each step alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Op:
    """One kind of step, written for the three engines; ``param`` is fixed when the step is drawn."""

    arity: int
    ours: Callable[..., Any]
    """``(glue, *tensors, param)`` on the user's engine."""
    torch: Callable[..., Any]
    """``(*tensors, param)`` on torch."""
    numpy: Callable[..., np.ndarray]
    """``(*arrays, param)``: the forward value, to track shapes while drawing."""
    text: str
    """How a step reads in a failure message: ``"{0} + {1}"``, with ``{p}`` for the param."""


def _torch_const(c: np.ndarray) -> Any:
    import torch

    return torch.tensor(c)


GLUE_OPS: dict[str, Op] = {
    "g+": Op(2, lambda G, a, b, p: G.add(a, b), lambda a, b, p: a + b, lambda a, b, p: a + b, "glue_add({0}, {1})"),
    "g*": Op(2, lambda G, a, b, p: G.mul(a, b), lambda a, b, p: a * b, lambda a, b, p: a * b, "glue_mul({0}, {1})"),
    "gsin": Op(1, lambda G, a, p: G.sin(a), lambda a, p: a.sin(), lambda a, p: np.sin(a), "glue_sin({0})"),
    "gpos": Op(1, lambda G, a, p: G.pos(a), lambda a, p: a * a + 1.0, lambda a, p: a * a + 1.0, "glue({0}**2 + 1)"),
    "gscale": Op(
        1, lambda G, a, p: G.scale(a, p), lambda a, p: a * _torch_const(p), lambda a, p: a * p, "glue_scale({0})"
    ),
}


@dataclass(frozen=True)
class Step:
    op: str
    args: tuple[int, ...]
    param: Any = None


@dataclass(frozen=True)
class Program:
    """Leaves, then steps that each read earlier nodes; the root is the glue sum of the unread nodes."""

    leaves: tuple[np.ndarray, ...]
    steps: tuple[Step, ...]
    ops: dict[str, Op]

    def describe(self) -> str:
        leaves = ", ".join(f"x{i}{leaf.shape}" for i, leaf in enumerate(self.leaves))
        return f"leaves {leaves}; " + "; ".join(self.lines())

    def lines(self) -> list[str]:
        """Each step as a failure message reads it: ``t3 = t1 * x0``."""
        names = [f"x{i}" for i in range(len(self.leaves))] + [f"t{i}" for i in range(len(self.steps))]
        ops = self.ops
        return [
            f"t{i} = " + ops[s.op].text.format(*[names[a] for a in s.args], p=s.param) for i, s in enumerate(self.steps)
        ]

    def sinks(self) -> list[int]:
        used = {a for step in self.steps for a in step.args}
        first = len(self.leaves)
        return [i for i in range(first, first + len(self.steps)) if i not in used]

    def run_ours(self, glue: Any, leaves: Sequence[Any]) -> Any:
        """On the user's engine; ``glue`` is grader/graphs.py's ``Glue`` on it."""
        nodes = list(leaves)
        for step in self.steps:
            nodes.append(self.ops[step.op].ours(glue, *[nodes[a] for a in step.args], step.param))
        root = glue.total(nodes[self.sinks()[0]])
        for i in self.sinks()[1:]:
            root = glue.add(root, glue.total(nodes[i]))
        return root

    def run_torch(self, *leaves: Any) -> Any:
        nodes = list(leaves)
        for step in self.steps:
            nodes.append(self.ops[step.op].torch(*[nodes[a] for a in step.args], step.param))
        return sum(nodes[i].sum() for i in self.sinks())


Draw = Callable[[np.random.Generator, list[np.ndarray]], Step | None]


def random_program(
    rng: np.random.Generator, leaf_shapes: Sequence[tuple[int, ...]], ops: dict[str, Op], draw: Draw, n_steps: int
) -> Program:
    """Draw ``n_steps`` steps; ``draw`` sees the NumPy values so far and may decline (None) to redraw."""
    leaves = tuple(rng.standard_normal(s) for s in leaf_shapes)
    values = list(leaves)
    steps: list[Step] = []
    all_ops = {**GLUE_OPS, **ops}
    while len(steps) < n_steps:
        step = draw(rng, values)
        if step is None:
            continue
        op = all_ops[step.op]
        assert len(step.args) == op.arity, f"{step.op} takes {op.arity} operands, not {len(step.args)}"
        value = op.numpy(*[values[a] for a in step.args], step.param)
        if not np.isfinite(value).all() or np.abs(value).max(initial=0.0) > 1e6:
            continue  # keep values in a range where float64 comparisons are meaningful
        steps.append(step)
        values.append(value)
    return Program(leaves=leaves, steps=tuple(steps), ops=all_ops)


def pick(rng: np.random.Generator, n: int) -> int:
    """An earlier node, recent ones more likely (weights 1, 4, 9, ...), so that chains form and nodes
    get shared: ``rng.choice(n, p=weights / weights.sum())``, drawn as NumPy draws it (one uniform
    draw into the cumulative weights, ``_pick_cdf``), without building the weights at every pick."""
    return int(_pick_cdf(n).searchsorted(rng.random(), side="right"))


@cache
def _pick_cdf(n: int) -> np.ndarray:
    weights = np.arange(1, n + 1, dtype=float) ** 2
    cdf = (weights / weights.sum()).cumsum()
    cdf /= cdf[-1]
    return cdf


def draw_glue(rng: np.random.Generator, values: list[np.ndarray]) -> Step:
    """A random step of glue ops only (a ``Draw`` for ``random_program``): graphs that run none of the user's ops."""
    n = len(values)
    op = ("g+", "g*", "gsin", "gpos", "gscale")[int(rng.integers(5))]
    if op in ("g+", "g*"):
        return Step(op, (pick(rng, n), pick(rng, n)))
    if op == "gscale":
        a = pick(rng, n)
        return Step(op, (a,), rng.uniform(0.5, 1.5, values[a].shape))
    return Step(op, (pick(rng, n),))
