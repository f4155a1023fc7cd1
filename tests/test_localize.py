"""A failing test that runs several ops names the wrong one, and only a wrong one. grader/localize.py
runs each step of a random graph alone: on random graphs of each target's ops, no correct engine (the
reference, every alternative) has a step blamed, and a classic bug of an op, when a step is blamed, is
blamed on its own symbol. The probes (grader/probes.py), which name the one wrong tangent rule of a
failing jvp, and the needed targets' culprits of any failure, pass on every correct engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from autograd_drill.grader import localize
from autograd_drill.grader.blame import Blame
from autograd_drill.grader.check import Grading
from autograd_drill.grader.graphs import Glue
from autograd_drill.grader.localize import culprit
from autograd_drill.grader.probes import PROBES
from autograd_drill.grader.programs import Program, random_program
from autograd_drill.grader.test_arith import ARITH_OPS, _draw_arith
from autograd_drill.grader.test_softmax import SOFTMAX_OPS, _draw_softmax
from autograd_drill.grader.test_unary import UNARY_OPS, _draw_unary
from tests.mutants import MUTANTS
from tests.support import ALTERNATIVES, CATALOG, REFERENCE, REFERENCE_SOURCE, load


def _arith(rng: np.random.Generator) -> Program:
    shapes = [(3, 4), (4, 4), (4,), (1, 4), (3, 1), ()][: int(rng.integers(2, 7))]
    return random_program(rng, shapes, ARITH_OPS, _draw_arith, int(rng.integers(3, 16)))


def _unary(rng: np.random.Generator) -> Program:
    shapes = [(3, 4)] * int(rng.integers(1, 3))
    return random_program(rng, shapes, UNARY_OPS, _draw_unary, int(rng.integers(3, 14)))


def _softmax(rng: np.random.Generator) -> Program:
    shapes = [(2, 3, 4)] * int(rng.integers(1, 3))
    return random_program(rng, shapes, SOFTMAX_OPS, _draw_softmax, int(rng.integers(2, 10)))


GRAPHS: dict[str, Callable[[np.random.Generator], Program]] = {"arith": _arith, "unary": _unary, "softmax": _softmax}
"""Random graphs drawn as each target's random-graph test draws them, from other seeds."""
SEEDS = range(9000, 9025)


@pytest.fixture(autouse=True, scope="module")
def _differences_once():
    """grader/localize.py's central differences of a step (``_differences``, most of a correct step's
    cost) depend on the step's op, param and inputs and on the cotangent, which a graph of SEEDS
    gives whatever the engine: worked out once per test process and shared by every engine and
    classic bug run on that graph, the same arrays culprit would compute again."""
    real, done = localize._differences, {}

    def once(forward: Callable[[np.ndarray], float], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = _key(forward, x)
        if key not in done:
            done[key] = real(forward, x)
        return done[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(localize, "_differences", once)
        yield


def _key(forward: Callable[[np.ndarray], float], x: np.ndarray) -> tuple[object, ...]:
    """All that ``forward`` (localize's sum of the cotangent times the step's NumPy forward, in one
    input ``a``) computes from: a change of what it reads fails here rather than reuse a stale answer."""
    cells = dict(zip(forward.__code__.co_freevars, [c.cell_contents for c in forward.__closure__ or ()], strict=True))
    assert set(cells) == {"arrays", "cotangent", "op", "step"} and len(forward.__defaults__ or ()) == 1, cells
    step, arrays = cells["step"], cells["arrays"]
    inputs = tuple(_frozen(arrays[b]) for b in sorted(set(step.args)))
    return (
        cells["op"].numpy,
        step.args,
        _frozen(step.param),
        forward.__defaults__,
        _frozen(x),
        _frozen(cells["cotangent"]),
        inputs,
    )


def _frozen(value: object) -> object:
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    return type(value).__name__, repr(value)


def _grading(path: Path, impl: ModuleType, target: str) -> Grading:
    blame = Blame(impl_path=path.resolve(), catalog=CATALOG, target=CATALOG.get(target))
    return Grading(impl=impl, oracle=None, blame=blame, case="case", rng=np.random.default_rng(0))  # type: ignore[arg-type]


def _findings(path: Path, target: str) -> list[tuple[int, str, str]]:
    grade = _grading(path, load(path), target)
    found = []
    for seed in SEEDS:
        finding = culprit(grade, GRAPHS[target](np.random.default_rng(seed)), Glue(grade))
        if finding is not None:
            found.append((seed, finding.symbol, finding.text))
    return found


@pytest.mark.parametrize("target", sorted(GRAPHS))
@pytest.mark.parametrize("engine", [REFERENCE, *ALTERNATIVES], ids=lambda p: p.stem)
def test_no_step_of_a_correct_engine_is_blamed(engine, target):
    assert _findings(engine, target) == []


GRAPH_MUTANTS = [m for m in MUTANTS if m.target in GRAPHS]


def test_every_graph_target_has_classic_bugs():
    assert {m.target for m in GRAPH_MUTANTS} == set(GRAPHS)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # a bug that divides by zero, say
@pytest.mark.parametrize("mutant", GRAPH_MUTANTS, ids=lambda m: m.id)
def test_a_classic_bug_is_blamed_on_its_symbol(mutant, tmp_path):
    path = tmp_path / "engine.py"
    path.write_text(mutant.apply(REFERENCE_SOURCE), encoding="utf-8")
    blamed = {symbol for _, symbol, _ in _findings(path, mutant.target)}
    assert blamed <= {mutant.symbol}, (mutant.symbol, blamed)


@pytest.mark.parametrize("engine", [REFERENCE, *ALTERNATIVES], ids=lambda p: p.stem)
def test_no_probe_fails_on_a_correct_engine(engine):
    impl = load(engine)
    written = [s for s in PROBES if s.split(".")[0] in vars(impl) and (s.count(".") == 0 or _has(impl, s))]
    assert len(written) >= 17, written  # the core's probes at least
    assert {symbol: PROBES[symbol](impl) for symbol in written} == dict.fromkeys(written)


def _has(impl: ModuleType, symbol: str) -> bool:
    owner, name = symbol.split(".")
    return name in vars(getattr(impl, owner))
