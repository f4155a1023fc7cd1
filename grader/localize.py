"""Which op of a random graph is wrong.

A random graph of the user's ops (graphs.check_program) that fails says which gradient differs, not
which op made it differ. When it fails, each step of the graph is run alone, in order, on the values
it saw there: its value against its NumPy forward, and each input's gradient against central
differences of that forward, with the input's ``.grad`` already holding a gradient (a closure adds
into ``.grad``: the input has other consumers in the graph). The first step that disagrees names its
symbol, and the failure is reported as that symbol's, with the step in the hint.

Only a finding is reported: a step is blamed when it disagrees by far more than differences can err,
on elements away from a kink (where the one-sided differences agree), and a failure no step
explains alone (a bug of the glue between them, say) keeps the graph's own message. Torch is not
needed: this runs on a recorded oracle too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from autograd_drill.grader.compare import TestTimeout, backprop, graph_order, seed
from autograd_drill.grader.probes import culprits
from autograd_drill.grader.programs import GLUE_OPS, Op, Program, Step

if TYPE_CHECKING:
    from autograd_drill.grader.check import Grading

STEP = 1e-6
"""The relative step of the central differences."""
ATOL, RTOL = 1e-4, 1e-3
"""A disagreement that blames a step: far past what differences err by on these values (about 1e-8)."""


@dataclass(frozen=True)
class Finding:
    symbol: str
    """The op's symbol, as the failure names it."""
    text: str
    """What the step alone gives, for the hint."""


def culprit(grade: Grading, program: Program, glue: Any) -> Finding | None:
    """The first step of ``program`` (of one of the user's ops, not ``GLUE_OPS``) that is wrong alone, or
    None; ``glue`` is grader/graphs.py's ``Glue`` on the user's engine, which the steps' ops take."""
    values = list(program.leaves)
    for i, (step, line) in enumerate(zip(program.steps, program.lines(), strict=True)):
        op = program.ops[step.op]
        values.append(op.numpy(*[values[a] for a in step.args], step.param))
        if step.op in GLUE_OPS:
            continue
        try:
            found = _alone(grade, glue, op, step, values, i)
        except (KeyboardInterrupt, TestTimeout):
            raise
        except BaseException as exc:  # noqa: BLE001 - an exception of the user's, alone: its symbol
            symbol = _raiser(grade, exc)
            found = None if symbol is None else (symbol, f"raised {type(exc).__name__}")
        if found is not None:
            symbol, what = found
            return Finding(symbol, f"{symbol} alone, as {line} on the values it saw here, {what}")
    return None


def _alone(
    grade: Grading, glue: Any, op: Op, step: Step, values: list[np.ndarray], index: int
) -> tuple[str, str] | None:
    """(symbol, what differs) when the step run alone disagrees with its NumPy forward; else None."""
    rng = np.random.default_rng(index)
    distinct = list(dict.fromkeys(step.args))  # a node read twice (t * t) is one input
    arrays = {a: np.array(values[a], dtype=np.float64) for a in distinct}
    leaves = {a: grade.Tensor(arrays[a].copy(), requires_grad=True) for a in distinct}
    before = {a: rng.standard_normal(arrays[a].shape) for a in distinct}
    for a in distinct:
        seed(leaves[a], before[a])
    out = op.ours(glue, *[leaves[a] for a in step.args], step.param)
    symbol = _symbol(grade, out, list(leaves.values()))
    if symbol is None:
        return None
    expected = op.numpy(*[arrays[a] for a in step.args], step.param)
    if np.shape(out.data) != np.shape(expected) or not _close(np.asarray(out.data), expected, np.ones(1, bool)):
        return symbol, "gives a value that differs from its NumPy forward"
    cotangent = rng.standard_normal(np.shape(expected))
    backprop(out, cotangent)
    for name, a in zip("abcdefgh", distinct, strict=False):

        def forward(x: np.ndarray, a: int = a) -> float:
            inputs = [x if b == a else arrays[b] for b in step.args]
            return float((cotangent * op.numpy(*inputs, step.param)).sum())

        fd, smooth = _differences(forward, arrays[a])
        ours = np.asarray(leaves[a].grad, dtype=np.float64) - before[a]
        if np.shape(ours) != fd.shape:
            return symbol, f"gives {name}.grad of shape {np.shape(leaves[a].grad)}, not {fd.shape}"
        if not _close(ours, fd, smooth):
            worst = float(np.abs(ours - fd)[smooth].max())
            return symbol, f"adds to {name}.grad what differs from central differences by up to {worst:.3g}"
    return None


def _raiser(grade: Grading, exc: BaseException) -> str | None:
    """The op an exception of the user's came from: the innermost of the user's frames that belongs to
    this target (its op, when a helper of another target, say unbroadcast, raised), else the innermost."""
    symbols = [grade.blame.symbol_of(qualname) for qualname, _, _ in grade.blame.user_frames(exc.__traceback__)]
    own = grade.blame.target.symbols if grade.blame.target else ()
    return next((s for s in reversed(symbols) if s in own), symbols[-1] if symbols else None)


def _symbol(grade: Grading, out: Any, leaves: list[Any]) -> str | None:
    """The symbol whose closure made ``out``; when the step ran several of the user's symbols (a
    division made of a product and a power), the one the probes find wrong, if exactly one."""
    ran: list[str] = []
    inputs = {id(leaf) for leaf in leaves}
    for node in reversed(graph_order(out)):
        symbol = None if id(node) in inputs else grade.made_by(node)
        if symbol is not None and symbol not in ran:
            ran.append(symbol)
    if len(ran) > 1:
        wrong = [symbol for symbol, _ in culprits(grade.impl, ran)]
        if len(wrong) == 1:
            return wrong[0]
    return ran[0] if ran else None


def _differences(forward: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradient of ``forward`` at ``x`` by central differences, and where it is smooth: the
    one-sided differences agree (not at a kink such as relu's 0)."""
    grad, smooth = np.zeros(x.shape), np.ones(x.shape, dtype=bool)
    at = forward(x)
    for i in np.ndindex(x.shape):
        h = STEP * max(1.0, abs(float(x[i])))
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        f_up, f_down = forward(up), forward(down)
        grad[i] = (f_up - f_down) / (2 * h)
        ahead, behind = (f_up - at) / h, (at - f_down) / h
        smooth[i] = abs(ahead - behind) <= 1e-3 * (1.0 + abs(grad[i]))
    return grad, smooth


def _close(ours: np.ndarray, expected: np.ndarray, where: np.ndarray) -> bool:
    if not np.all(np.isfinite(ours)):
        return False
    gap = np.abs(ours - expected) <= ATOL + RTOL * np.abs(expected)
    return bool(np.all(gap | ~np.broadcast_to(where, gap.shape)))
