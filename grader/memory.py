"""The free-memory drill's measure, shared by its grader test and benchmarks/memory.py."""

from __future__ import annotations

import gc
import tracemalloc
from types import ModuleType

import numpy as np


def training_peak(engine: ModuleType, free: bool, steps: int, layers: int, size: int) -> int:
    """Peak bytes (tracemalloc) over ``steps`` training steps of a chain of ``layers`` matmuls of
    ``size`` x ``size`` matrices, while a logging list keeps every loss.

    That list is the classic leak: a kept loss keeps its whole graph alive, unless backward freed
    it. ``free`` calls the default ``backward()``; otherwise ``backward(retain_graph=True)``.
    """
    rng = np.random.default_rng(0)
    x = engine.Tensor(rng.standard_normal((size, size)) / size**0.5)
    weights = [engine.Tensor(rng.standard_normal((size, size)) / size**0.5, requires_grad=True) for _ in range(layers)]
    kept = []
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(steps):
            h = x
            for w in weights:
                h = h @ w
            loss = h.sum()
            if free:
                loss.backward()
            else:
                loss.backward(retain_graph=True)
            kept.append(loss)
            del h
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        kept.clear()
        gc.collect()
