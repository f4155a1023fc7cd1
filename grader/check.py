"""The one oracle helper and its failure messages.

A check runs the user's code, asks the oracle the same question, and fails with a message that
names the symbol, the case, and what differs (shapes, or the largest error and where), plus a
hint for the classic mistakes. Exceptions raised in the user's code are reported at the user's
line, with the symbol they came from; when that symbol belongs to another target, we say so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from autograd_drill.grader.blame import DERIVED, INIT_PROBES, NODE_HINT, Blame, node_problem, resolved
from autograd_drill.grader.compare import TestTimeout, backprop, compare, diagnose
from autograd_drill.grader.oracle import Answer, OracleView
from autograd_drill.grader.probes import culprits
from autograd_drill.grader.verdict import headline
from autograd_drill.reference import load_engine


class GradeFailure(AssertionError):
    """A verdict on the user's code, written for the user, and kept in parts: the grader's report
    carries them as a structured record, so nothing downstream re-splits the text.

    The message reads ``{symbol} [{case}]: {text}``, then the user's lines (``location``), the
    ``hint`` and any ``notes``, one per line. A failure of the whole file (it cannot be imported)
    has no symbol and no case.
    """

    def __init__(
        self,
        text: str,
        symbol: str | None = None,
        case: str | None = None,
        hint: str | None = None,
        location: Sequence[str] = (),
        notes: Sequence[str] = (),
        timed_out: bool = False,
    ) -> None:
        self.text, self.symbol, self.case, self.hint = text, symbol, case, hint
        self.location, self.notes = tuple(location), tuple(notes)
        self.timed_out = timed_out
        """The user's code ran past the time limit: its target's other tests are not run."""
        super().__init__(self.message)

    @property
    def message(self) -> str:
        lines = [headline(self.symbol, self.case, self.text), *(f"  {where}" for where in self.location)]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def record(self) -> dict[str, Any]:
        """The parts, as the grader's report carries them (grader/run.py reads them into a Failure)."""
        parts = {name: getattr(self, name) for name in ("symbol", "case", "text", "hint", "location", "notes")}
        return {name: list(value) if isinstance(value, tuple) else value for name, value in parts.items()}


# ------------------------------------------------------------------------------ the per-test helper


@dataclass
class Grading:
    """What one test needs: the engine under test, the oracle, and the case's name for messages."""

    impl: ModuleType
    oracle: OracleView
    blame: Blame
    case: str
    rng: np.random.Generator

    @property
    def engine(self) -> bool:
        """The pack drills a Tensor engine (the autograd pack): its ``Tensor.__init__`` is probed when
        a check fails, and the hints of grader/compare.py (closures, unbroadcast) apply. Another pack's
        functions (the layers pack's) get neither."""
        return self.blame.catalog.owner("Tensor.__init__") is not None

    @property
    def Tensor(self) -> Any:  # noqa: N802 - the engine's class, under its own name
        return self.impl.Tensor

    def fail(
        self, symbol: str, text: str, hint: str | None = None, location: Sequence[str] = (), notes: Sequence[str] = ()
    ) -> GradeFailure:
        """The verdict of ``symbol`` on this case (to raise). When ``Tensor.__init__`` leaves tensors
        broken (an attribute missing, a ``.grad`` that is not float64 zeros of the data's shape), the
        failure names it, with what it left, and what ``symbol`` then did."""
        if symbol != "Tensor.__init__" and self.engine:
            found = self.init_problem()
            if found is not None:
                owner = self.blame.catalog.owner("Tensor.__init__")
                where = (
                    f" (target {owner.id})" if owner and self.blame.target and owner.id != self.blame.target.id else ""
                )
                text = f"{found}{where}, and {symbol} then failed: {text}"
                return GradeFailure(text, "Tensor.__init__", self.case, NODE_HINT, location, notes)
        return GradeFailure(text, symbol, self.case, hint, location, notes)

    def init_problem(self) -> str | None:
        """What ``Tensor.__init__`` gets wrong on the probe data (INIT_PROBES), or None."""
        for shown, data in INIT_PROBES:
            try:
                t = self.Tensor(data)
            except (KeyboardInterrupt, TestTimeout):
                raise
            except BaseException:  # noqa: BLE001 - refusing some data is another test's verdict
                continue
            problem = node_problem(t)
            if problem is not None:
                return f"{problem} (for Tensor({shown}))"
        return None

    def check_node(self, t: Any) -> None:
        """Fail, naming ``Tensor.__init__``, unless ``t`` has every contract attribute and a float64
        ``.grad`` of its data's shape."""
        __tracebackhide__ = True
        problem = node_problem(t)
        if problem is not None:
            raise GradeFailure(problem, "Tensor.__init__", self.case, NODE_HINT)

    def dependency_notes(self) -> list[str]:
        """Probe the targets this test's target needs; name the ones that are wrong too."""
        target = self.blame.target
        if target is None or not target.needs:
            return []
        symbols = [s for t in target.needs for s in self.blame.catalog.get(t).symbols]
        notes = []
        for symbol, problem in culprits(self.impl, symbols):
            owner = self.blame.catalog.owner(symbol)
            where = f" (target {owner.id})" if owner else ""
            notes.append(f"{symbol}{where} is wrong too ({problem}): this failure may come from it; fix it first")
        return notes

    def named_alone(self, failure: GradeFailure, symbols: Sequence[str]) -> GradeFailure:
        """``failure``, of a test that runs several of ``symbols`` at once, as the failure of the one whose
        probe (grader/probes.py) finds it wrong alone, when exactly one does; else ``failure`` itself."""
        wrong = [] if failure.timed_out else culprits(self.impl, list(symbols))
        if len(wrong) != 1:
            return failure
        symbol, problem = wrong[0]
        hint = f"{symbol} alone is wrong ({problem})" + (f"; {failure.hint}" if failure.hint else "")
        return GradeFailure(failure.text, symbol, failure.case, hint, failure.location, failure.notes)

    @contextmanager
    def running(self, symbol: str, hint: str | None = None, closure_hint: bool = False) -> Iterator[None]:
        """Run the user's code; an exception becomes a verdict naming the symbol and the user's line.

        ``hint`` goes with the verdict; with ``closure_hint`` only when ``symbol``'s own closure raised."""
        __tracebackhide__ = True
        try:
            yield
        except (GradeFailure, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 - any exception of the user's, TestTimeout included
            raise self.verdict(symbol, exc, hint, closure_hint) from None

    def verdict(
        self, symbol: str, exc: BaseException, hint: str | None = None, closure_hint: bool = False
    ) -> GradeFailure:
        """What an exception raised in the user's code says, as the verdict of ``symbol``."""
        # A case's hint is about the math: not for a hang, a memory blow-up, an exit or a blank.
        quiet = isinstance(exc, (TestTimeout, MemoryError, SystemExit, NotImplementedError, ImportError))
        frames = self.blame.user_frames(exc.__traceback__)
        if closure_hint and not (
            frames and ".<locals>." in frames[-1][0] and self.blame.symbol_of(frames[-1][0]) == symbol
        ):
            hint = None  # a case's gradient hint explains its op's closure, not an error raised anywhere else
        if frames and self.blame.symbol_of(frames[-1][0]) in DERIVED.get(symbol, ()):
            symbol = self.blame.symbol_of(frames[-1][0])  # the file's own - or /, not the primitive, ran
        text, location = self.blame.describe(exc, symbol)
        failure = self.fail(symbol, text, None if quiet else hint, location)
        failure.timed_out = isinstance(exc, TestTimeout)
        return failure

    def expect_refusal(self, symbol: str, call: Callable[[], Any], accepted: str, hint: str | None = None) -> None:
        """Fail unless ``call()`` raises an error: ``accepted`` says what it let through without one.

        Any exception is a refusal (a ``BaseException`` of the user's own too) but NotImplementedError,
        which says the code is not written yet, and the stops that are not refusals: ``SystemExit``
        and the grader's ``TestTimeout`` (the verdict then), ``KeyboardInterrupt`` (the grading stops)."""
        __tracebackhide__ = True
        try:
            call()
        except (GradeFailure, KeyboardInterrupt):
            raise
        except (NotImplementedError, SystemExit, TestTimeout) as exc:
            raise self.verdict(symbol, exc) from None
        except BaseException:  # noqa: BLE001 - a refusal, whatever its class
            return
        raise self.fail(symbol, accepted, hint)

    def expect(
        self,
        symbol: str,
        name: str,
        ours: Any,
        expected: np.ndarray,
        hint: str | None = None,
        out_shape: tuple[int, ...] | None = None,
        source: str = "torch",
    ) -> None:
        """Fail unless ``ours`` matches ``expected`` (torch's, unless ``source`` says otherwise)."""
        __tracebackhide__ = True
        oracle = self.oracle.oracle
        problem = compare(name, ours, expected, source, oracle.atol, oracle.rtol)
        if problem is not None:
            hint = hint or (diagnose(name, ours, expected, out_shape, symbol) if self.engine else None)
            raise self.fail(symbol, problem, hint, notes=self.dependency_notes())

    def leaf(self, x: np.ndarray, symbol: str = "Tensor.__init__") -> Any:
        """A leaf tensor of the user's class; ``symbol`` is the check it is made for."""
        with self.running(symbol):
            t = self.Tensor(np.array(x), requires_grad=True)
        self.check_node(t)
        return t

    def vjp(
        self,
        symbol: str,
        ours: Callable[..., Any],
        inputs: Sequence[np.ndarray] | Sequence[tuple[int, ...]],
        theirs: Callable[..., Any] | None = None,
        hint: str | None = None,
        names: str = "abcdefgh",
        smooth: bool = True,
    ) -> Answer:
        """Check ``ours(*leaves)``'s value and every leaf's gradient against torch's ``theirs``.

        ``inputs`` are arrays, or shapes to fill with standard normal values. The output is
        seeded with a random cotangent and the graph is run by the grader's own backward pass,
        so the verdict depends on the op's closures, not on the user's ``backward``. ``smooth=False``
        marks a case at a kink (relu at 0, ties of max), where finite differences cannot stand in for
        torch's convention: ``--oracle fd`` then takes the recorded answer.
        """
        __tracebackhide__ = True
        arrays = [self.rng.standard_normal(x) if isinstance(x, tuple) else np.asarray(x) for x in inputs]
        answer = self.oracle.vjp(
            theirs or ours,
            arrays,
            cotangent=self.rng.standard_normal,
            forward=self.reference_forward(ours) if smooth else None,
        )
        leaves = [self.leaf(x, symbol) for x in arrays]
        inputs_before = [np.array(leaf.data, copy=True) for leaf in leaves]
        # NOTE: ``hint`` is about the gradient: it explains a mismatch of values, or an error raised in
        # the op's own closure; never one raised computing the value, nor in another function.
        with self.running(symbol):
            out = ours(*leaves)
        self.check_tensor(symbol, out)
        symbol = self.ran(symbol, out)
        self.expect(symbol, "the value", out.data, answer.out, hint)
        self.check_intact(symbol, names, leaves, inputs_before, "the op")
        value = np.array(out.data, copy=True)
        self.run_backward(symbol, out, answer.cotangent, hint, closure_hint=True)
        self.check_intact(symbol, names, leaves, inputs_before, "backward")
        self.expect(symbol, "the value after backward", out.data, value, source="the value before")
        for name, leaf, grad in zip(names, leaves, answer.grads, strict=False):
            self.expect(symbol, f"{name}.grad", leaf.grad, grad, hint, out_shape=answer.out.shape)
            self.check_grad(symbol, name, leaf, leaves)
        return answer

    def ran(self, symbol: str, out: Any) -> str:
        """``symbol``, or the file's own derived op (DERIVED) when its closure made ``out``."""
        made_by = self.made_by(out)
        return made_by if made_by in DERIVED.get(symbol, ()) else symbol

    def made_by(self, node: Any) -> str | None:
        """The user's symbol whose closure is ``node``'s ``_backward`` (None: not the user's file's)."""
        code = getattr(getattr(node, "_backward", None), "__code__", None)
        if code is None or resolved(code.co_filename) != self.blame.impl_path:
            return None
        return self.blame.symbol_of(code.co_qualname)

    def check_intact(
        self, symbol: str, names: Sequence[str], leaves: Sequence[Any], before: Sequence[np.ndarray], when: str
    ) -> None:
        """An op, and its closure, change nothing but the inputs' ``.grad``."""
        __tracebackhide__ = True
        for name, leaf, data in zip(names, leaves, before, strict=False):
            problem = compare(f"{name}.data after {when}", leaf.data, data, source="the original")
            if problem is not None:
                raise self.fail(symbol, problem, "an op leaves its inputs' .data as they were: no in-place edits")

    def check_grad(self, symbol: str, name: str, leaf: Any, leaves: Sequence[Any]) -> None:
        """A gradient is a float64 array of its own: not another tensor's array, nor its ``.data``."""
        __tracebackhide__ = True
        grad = leaf.grad
        if not isinstance(grad, (np.ndarray, np.generic)) or grad.dtype != np.float64:  # a 0-d sum may be a scalar
            kind = type(grad).__name__ + (f" of {grad.dtype}" if isinstance(grad, np.ndarray) else "")
            raise self.fail(symbol, f"{name}.grad is {kind}, not a float64 ndarray")
        for other in leaves:
            for what, arr in (("data", other.data), ("grad", other.grad)):
                if arr is not grad and isinstance(arr, np.ndarray) and np.shares_memory(grad, arr):
                    whose = "its own" if other is leaf else "another input's"
                    raise self.fail(
                        symbol,
                        f"{name}.grad shares its memory with {whose} .{what}",
                        "add into .grad (+=) or store a new array: never keep a reference to another array",
                    )

    def reference_forward(self, ours: Callable[..., Any]) -> Callable[..., np.ndarray]:
        """``ours`` evaluated on the reference engine, as a NumPy function: what ``--oracle fd``
        differentiates. While it runs, ``grade.impl`` is the reference, so a check written as
        ``lambda t: grade.impl.cross_entropy(t, y)`` never runs the user's code here."""

        def forward(*arrays: np.ndarray) -> np.ndarray:
            reference, mine = reference_engine(), self.impl
            self.impl = reference
            try:
                return np.asarray(ours(*[reference.Tensor(a) for a in arrays]).data)
            finally:
                self.impl = mine

        return forward

    def check_tensor(self, symbol: str, out: Any) -> None:
        __tracebackhide__ = True
        if not isinstance(out, self.Tensor):
            raise self.fail(symbol, f"returned {type(out).__name__}, not a Tensor")

    def run_backward(
        self, symbol: str, out: Any, cotangent: np.ndarray, hint: str | None = None, closure_hint: bool = False
    ) -> None:
        """The grader's own backward pass over ``_prev``: seed ``out.grad``, run each ``_backward`` once."""
        __tracebackhide__ = True
        with self.running(symbol, hint, closure_hint):
            backprop(out, cotangent)


@cache
def reference_engine() -> ModuleType:
    """The reference engine, for the finite-difference oracle's forward passes."""
    return load_engine("drill_reference_engine")


def torch_const(c: Any) -> Any:
    """A constant on the torch side (imported only when torch is asked, never on replay)."""
    import torch

    return torch.tensor(np.asarray(c, dtype=np.float64))
