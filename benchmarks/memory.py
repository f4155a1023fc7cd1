"""Peak memory of the free-memory drill's backward, against keeping every graph (issue 6).

    python benchmarks/memory.py [--layers 200] [--size 512] [--steps 4]

A chain of ``layers`` matmuls of ``size`` x ``size`` matrices, trained ``steps`` times while a
logging list keeps every loss (the classic leak: a kept loss keeps its graph). Measured with
tracemalloc, on the reference engine, once with backward(retain_graph=True) and once with the
default backward, which releases each closure and its saved arrays as soon as it has run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograd_drill.grader.memory import training_peak  # noqa: E402 - after the path is set
from autograd_drill.reference import load_engine  # noqa: E402 - after the path is set


def reference() -> ModuleType:
    return load_engine()


def peak(engine: ModuleType, free: bool, layers: int, size: int, steps: int) -> tuple[int, float]:
    start = time.perf_counter()
    return training_peak(engine, free, steps, layers, size), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=200)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    engine = reference()
    keep, keep_s = peak(engine, False, args.layers, args.size, args.steps)
    free, free_s = peak(engine, True, args.layers, args.size, args.steps)
    ratio = free / keep
    print(
        f"(e) free-memory peak / keep-everything peak   {ratio:>6.3f}   goal <= 0.25 {'met' if ratio <= 0.25 else 'MISSED'}"
        f" (about 1/steps: one graph alive instead of {args.steps})"
        f"   {free / 2**20:,.0f} MiB vs {keep / 2**20:,.0f} MiB ({args.layers} layers of {args.size}x{args.size}, "
        f"{args.steps} steps keeping their losses; {free_s:.1f} s vs {keep_s:.1f} s)"
    )


if __name__ == "__main__":
    main()
