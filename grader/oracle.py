"""Where expected values come from: torch.autograd, live or recorded.

Every test asks one question of the oracle: "for this torch function at these inputs, what is
the output, and what are the gradients of the inputs for this cotangent?" (a vector-Jacobian
product). A ``LiveOracle`` asks torch; a ``RecordingOracle`` asks torch and keeps the answers;
a ``ReplayOracle`` reads kept answers back and never imports torch. Answers are keyed by test
and checked against a digest of the inputs, so a recording that no longer fits its test is
reported instead of silently used.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from autograd_drill.grader.npz import Npz
from autograd_drill.grader.recording import RECORDING

RECORDING_ENV = "DRILL_ORACLE_RECORDING"
"""Set to 1 by ``python -m autograd_drill.grader.record`` alone: only then may a grading run ``--oracle record``, which
rewrites the recording (drill refuses it; a hand-run ``pytest grader --oracle record`` is told so)."""
REGENERATE = "python -m autograd_drill.grader.record"

TorchFn = Callable[..., Any]
Cotangent = Callable[[tuple[int, ...]], np.ndarray] | None
Compute = Callable[..., Sequence[Any]]


class OracleError(RuntimeError):
    """The oracle cannot answer (no torch, or a stale recording): a problem of the setup, not of the solution."""


@dataclass(frozen=True)
class Answer:
    out: np.ndarray
    """torch's forward value."""
    cotangent: np.ndarray
    """The gradient seeded at the output (ones for a scalar output)."""
    grads: tuple[np.ndarray, ...]
    """The gradient of each float input (an empty array for integer inputs)."""


def digest(inputs: Sequence[np.ndarray]) -> str:
    h = hashlib.sha256()
    for x in inputs:
        x = np.ascontiguousarray(x)
        h.update(f"{x.dtype.str}{x.shape}".encode())
        h.update(x.tobytes())
    return h.hexdigest()[:32]


class Oracle(ABC):
    name: str
    atol: float = 1e-9
    rtol: float = 1e-7
    """How close an answer must come to this oracle's (docs/contract.md: torch in float64)."""

    @abstractmethod
    def vjp(self, key: str, fn: TorchFn, inputs: Sequence[np.ndarray], cotangent: Cotangent = None) -> Answer:
        """torch's ``fn(*inputs)`` and the VJP of the float inputs.

        ``cotangent(shape)`` makes the output's seed; ``None`` means the output is a scalar, seeded with 1.
        """

    @abstractmethod
    def values(self, key: str, compute: Compute, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        """Any other question: ``compute(torch, *tensors)`` returns the arrays torch answers
        (``torch.func.jvp``, ``torch.autograd.functional.hvp``, ...)."""

    def close(self) -> None:  # noqa: B027 - most oracles have nothing to release
        """Called once at the end of the session."""


class LiveOracle(Oracle):
    name = "live"

    def __init__(self) -> None:
        try:
            import torch
        except ImportError as exc:
            raise OracleError(
                "torch is not installed, and the live oracle needs it: "
                "pip install torch (2.1 or later; a CPU build: --index-url https://download.pytorch.org/whl/cpu),"
                " or use the recorded oracle"
            ) from exc
        self.torch = torch

    def vjp(self, key: str, fn: TorchFn, inputs: Sequence[np.ndarray], cotangent: Cotangent = None) -> Answer:
        torch = self.torch
        args = []
        for x in inputs:
            if np.issubdtype(x.dtype, np.floating):
                args.append(torch.tensor(np.array(x, dtype=np.float64), requires_grad=True))
            else:
                args.append(torch.tensor(np.array(x, dtype=np.int64)))
        out = fn(*args)
        seed = np.ones(tuple(out.shape)) if cotangent is None else np.asarray(cotangent(tuple(out.shape)), np.float64)
        float_args = [a for a in args if a.requires_grad]
        grads = torch.autograd.grad(out, float_args, grad_outputs=torch.tensor(seed), allow_unused=True)
        it = iter(grads)
        results = []
        for a in args:
            if not a.requires_grad:
                results.append(np.empty(0))
                continue
            g = next(it)
            results.append(np.zeros(tuple(a.shape)) if g is None else g.detach().numpy().copy())
        return Answer(out=out.detach().numpy().copy(), cotangent=seed, grads=tuple(results))

    def values(self, key: str, compute: Compute, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        tensors = [self.torch.tensor(np.array(x, dtype=np.float64)) for x in inputs]
        return tuple(np.array(self.torch.as_tensor(v).detach().numpy()) for v in compute(self.torch, *tensors))


class RecordingOracle(Oracle):
    """Asks torch, and writes every answer to ``path`` when the session ends."""

    name = "record"

    def __init__(self, path: Path) -> None:
        self.live = LiveOracle()
        self.path = path
        self.arrays: dict[str, np.ndarray] = {}

    def vjp(self, key: str, fn: TorchFn, inputs: Sequence[np.ndarray], cotangent: Cotangent = None) -> Answer:
        answer = self.live.vjp(key, fn, inputs, cotangent)
        self.arrays[f"{key}|digest"] = np.array(digest(inputs))
        self.arrays[f"{key}|out"] = answer.out
        self.arrays[f"{key}|cotangent"] = answer.cotangent
        for i, g in enumerate(answer.grads):
            self.arrays[f"{key}|grad{i}"] = g
        return answer

    def values(self, key: str, compute: Compute, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        answer = self.live.values(key, compute, inputs)
        self.arrays[f"{key}|digest"] = np.array(digest(inputs))
        for i, value in enumerate(answer):
            self.arrays[f"{key}|value{i}"] = value
        return answer

    def close(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".npz.tmp")
        os.close(fd)
        try:
            with open(tmp, "wb") as f:
                np.savez_compressed(f, **dict(sorted(self.arrays.items())))
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


class ReplayOracle(Oracle):
    """Answers from a recording; falls back to live torch (when installed) for a question never recorded."""

    name = "replay"

    def __init__(self, path: Path, fallback_to_live: bool = True, eager: bool = False) -> None:
        """``eager`` reads every answer now (for a long-lived process); otherwise each is read when asked."""
        try:
            store = Npz(path)
            self.store: Mapping[str, np.ndarray] = {k: store[k] for k in store} if eager else store
        except (OSError, ValueError, struct.error) as exc:
            message = f"cannot read the recorded oracle {path}: {exc}; regenerate it with {REGENERATE}"
            raise OracleError(message) from exc
        self.path = path
        self.keys = set(self.store.keys())
        self.fallback_to_live = fallback_to_live
        self._live: LiveOracle | None = None

    def vjp(self, key: str, fn: TorchFn, inputs: Sequence[np.ndarray], cotangent: Cotangent = None) -> Answer:
        problem = self._problem(key, inputs)
        if problem:
            return self._live_or_fail(key, problem).vjp(key, fn, inputs, cotangent)
        out, seed = self.store[f"{key}|out"], self.store[f"{key}|cotangent"]
        if cotangent is not None:
            # NOTE: draw the cotangent as the recording did, so that a test's later random draws (its
            # next case in a batch) are the ones recorded too; the recorded seed is the answer.
            cotangent(tuple(out.shape))
        return Answer(out=out, cotangent=seed, grads=self._numbered(key, "grad"))

    def values(self, key: str, compute: Compute, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        problem = self._problem(key, inputs)
        if problem:
            return self._live_or_fail(key, problem).values(key, compute, inputs)
        return self._numbered(key, "value")

    def _numbered(self, key: str, name: str) -> tuple[np.ndarray, ...]:
        """``key|name0``, ``key|name1``, ...: the arrays recorded for one answer, in order."""
        found = []
        while f"{key}|{name}{len(found)}" in self.keys:
            found.append(self.store[f"{key}|{name}{len(found)}"])
        return tuple(found)

    def _problem(self, key: str, inputs: Sequence[np.ndarray]) -> str | None:
        if f"{key}|digest" not in self.keys:
            return "was never recorded"
        if str(self.store[f"{key}|digest"]) != digest(inputs):
            return "was recorded for other inputs"
        return None

    def _live_or_fail(self, key: str, why: str) -> LiveOracle:
        if not self.fallback_to_live:
            raise OracleError(f"the recorded oracle {why}: {key}; regenerate it with {REGENERATE}")
        if self._live is None:
            try:
                self._live = LiveOracle()
            except OracleError as exc:
                raise OracleError(f"the recorded oracle {why}: {key}, and {exc}") from exc
        return self._live


Forward = Callable[..., np.ndarray]
"""A NumPy forward function, for the finite-difference oracle."""


class FdOracle(Oracle):
    """Answers by central differences of a NumPy forward: no torch at all (``--oracle fd``).

    Questions that come with a ``forward`` (the op checks: the reference engine's forward) are
    answered by finite differences, to looser tolerances; the others by ``fallback`` (the
    recording), when there is one.
    """

    name = "fd"
    atol = 1e-6
    rtol = 1e-5
    eps = 1e-6

    def __init__(self, fallback: Oracle | None) -> None:
        self.fallback = fallback

    def _fallback(self, key: str) -> Oracle:
        if self.fallback is None:
            raise OracleError(f"the finite-difference oracle cannot answer {key}, and there is no recording")
        return self.fallback

    def vjp(self, key: str, fn: TorchFn, inputs: Sequence[np.ndarray], cotangent: Cotangent = None) -> Answer:
        return self._fallback(key).vjp(key, fn, inputs, cotangent)

    def values(self, key: str, compute: Compute, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return self._fallback(key).values(key, compute, inputs)

    def fd_vjp(self, forward: Forward, inputs: Sequence[np.ndarray], cotangent: Cotangent = None) -> Answer:
        """The VJP of ``forward`` at ``inputs``: the gradient of sum(seed * forward(x)), by central differences."""
        arrays = [np.array(x, dtype=np.float64) for x in inputs]
        out = np.asarray(forward(*arrays), dtype=np.float64)
        seed = np.ones(out.shape) if cotangent is None else np.asarray(cotangent(out.shape), dtype=np.float64)
        grads = []
        for x in arrays:
            if not np.issubdtype(np.asarray(x).dtype, np.floating):
                grads.append(np.empty(0))
                continue
            grad = np.zeros_like(x)
            for i in np.ndindex(x.shape):
                original = x[i]
                x[i] = original + self.eps
                plus = float(np.sum(seed * forward(*arrays)))
                x[i] = original - self.eps
                minus = float(np.sum(seed * forward(*arrays)))
                x[i] = original
                grad[i] = (plus - minus) / (2 * self.eps)
            grads.append(grad)
        return Answer(out=out, cotangent=seed, grads=tuple(grads))


_PRELOADED: dict[Path, ReplayOracle] = {}


def preload(path: Path = RECORDING) -> None:
    """Read the whole recording into memory now: the warm grading worker does, and every check it
    forks then finds the answers in memory instead of reading a zip directory of thousands of entries."""
    if path.exists():
        keep(ReplayOracle(path, eager=True), path)


def keep(replay: ReplayOracle, path: Path = RECORDING) -> None:
    """Have every ``make_oracle`` of ``path`` in this process answer from ``replay`` (``preload``'s,
    read whole; an interpreter started ahead of time fills its own as it waits: grader/spare.py)."""
    _PRELOADED[path.resolve()] = replay


def make_oracle(mode: str, path: Path = RECORDING) -> Oracle:
    """``auto``: the recording if there is one, else live torch; or ``live``, ``replay``, ``record``."""
    preloaded = _PRELOADED.get(path.resolve())
    if preloaded is not None and mode in ("auto", "replay"):
        # NOTE: the one preloaded oracle is shared by every grading the warm worker forks, and this
        # changes it in place: set it on every call, never rely on what an earlier grading left.
        preloaded.fallback_to_live = mode == "auto"
        return preloaded
    if mode == "live":
        return LiveOracle()
    if mode == "fd":
        return FdOracle(ReplayOracle(path, fallback_to_live=False) if path.exists() else None)
    if mode == "record":
        return RecordingOracle(path)
    if mode == "replay":
        return ReplayOracle(path, fallback_to_live=False)
    if mode == "auto":
        return ReplayOracle(path) if path.exists() else LiveOracle()
    raise OracleError(f"unknown oracle {mode!r}: choose auto, live, replay, record or fd")


class OracleView:
    """The oracle as one test sees it: keys are the test's id plus a call counter."""

    def __init__(self, oracle: Oracle, test_key: str) -> None:
        self.oracle = oracle
        self.test_key = test_key
        self.calls = 0

    def vjp(
        self, fn: TorchFn, inputs: Sequence[np.ndarray], cotangent: Cotangent = None, forward: Forward | None = None
    ) -> Answer:
        """torch's answer; or, under ``--oracle fd`` and given a NumPy ``forward``, finite differences of it."""
        key = self._next_key()
        if isinstance(self.oracle, FdOracle) and forward is not None:
            return self.oracle.fd_vjp(forward, [np.asarray(x) for x in inputs], cotangent)
        return self.oracle.vjp(key, fn, [np.asarray(x) for x in inputs], cotangent)

    def values(self, compute: Compute, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return self.oracle.values(self._next_key(), compute, [np.asarray(x) for x in inputs])

    def _next_key(self) -> str:
        key = f"{self.test_key}#{self.calls}"
        self.calls += 1
        return key
