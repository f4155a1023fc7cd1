"""Per target, a warm grading's time to its verdict and to its first failure, optionally beside another
checkout's grader (issue 25: before and after, side by side in one run, interleaved).

    python benchmarks/targets.py                        # this checkout
    python benchmarks/targets.py --before /tmp/main     # and another checkout's grader, interleaved
    python benchmarks/targets.py --rounds 3 --mutants 2 # fewer repetitions

Each side is a server process started in its checkout (``--serve``) that grades with that checkout's
fork worker (grader/worker.py, WarmRunner), as ``drill watch`` does on Linux. Per target: the reference
engine (the pass: request to verdict), and the target's first classic bugs of tests/mutants.toml
(request to the first failure: grade_file's ``on_failure``, what a watch can show at once; main's
grader before issue 25 tells it only with the verdict). A pause before each grading, as between a user's saves.
The engines are this checkout's reference and mutants, for both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORE = ["unbroadcast", "backward", "arith", "unary", "softmax", "cross-entropy"]
GOAL_FIRST, GOAL_VERDICT, GOAL_CORE = 0.150, 0.200, 1.0


def serve() -> None:
    """One grading per request line (``{"engine": path, "targets": [ids]}``): a reply line with the
    seconds to the first failure (None: none) and to the verdict."""
    from grader.catalog import load_catalog
    from grader.run import grade_file
    from grader.worker import WarmRunner

    catalog, runner = load_catalog(), WarmRunner()
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        targets = [catalog.get(t) for t in request["targets"]]
        first: list[float] = []
        start = time.perf_counter()
        try:  # a grader with grade_file's on_failure (issue 25); an older one: the verdict only
            result = grade_file(
                Path(request["engine"]),
                targets,
                runner=runner,
                on_failure=lambda _, first=first, start=start: first.append(time.perf_counter() - start),
            )
        except TypeError:
            result = grade_file(Path(request["engine"]), targets, runner=runner)
            if not result.passed:
                first.append(time.perf_counter() - start)
        verdict = time.perf_counter() - start
        print(
            json.dumps({"first": first[0] if first else None, "verdict": verdict, "failed": not result.passed}),
            flush=True,
        )
    runner.close()


class Side:
    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        env = {**os.environ, "PYTHONPATH": str(root)}
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve"],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready"

    def grade(self, engine: Path, targets: list[str]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"engine": str(engine), "targets": targets}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def mutant_engines(tmp: Path, per_target: int) -> dict[str, list[Path]]:
    sys.path.insert(0, str(ROOT))
    from tests.mutants import MUTANTS

    source = (ROOT / "reference" / "engine.py").read_text(encoding="utf-8")
    engines: dict[str, list[Path]] = {}
    for mutant in MUTANTS:
        chosen = engines.setdefault(mutant.target, [])
        if len(chosen) < per_target:
            path = tmp / f"{mutant.id}.py"
            path.write_text(source.replace(mutant.find, mutant.replace, 1), encoding="utf-8")
            chosen.append(path)
    return engines


def ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1000:6.0f} ms" if xs else "       -"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--before", type=Path, help="another checkout whose grader to measure beside this one")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mutants", type=int, default=3, help="classic bugs per target for the first failure")
    parser.add_argument("--pause", type=float, default=0.3)
    parser.add_argument("--targets", default="", help="comma-separated target ids (default: all, then the core six)")
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    sys.path.insert(0, str(ROOT))
    from grader.catalog import load_catalog

    ids = args.targets.split(",") if args.targets else [t.id for t in load_catalog().every]
    sides = ([Side("before", args.before.resolve())] if args.before else []) + [Side("after", ROOT)]
    reference = ROOT / "reference" / "engine.py"
    times: dict[tuple[str, str, str], list[float]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            engines = mutant_engines(Path(tmp_name), args.mutants)
            jobs = [(t, [t]) for t in ids] + ([("core six", CORE)] if not args.targets else [])
            for side in sides:  # warm each worker
                side.grade(reference, ["unbroadcast"])
            for _ in range(args.rounds):
                for label, targets in jobs:
                    for side in sides:
                        time.sleep(args.pause)
                        times.setdefault((label, side.name, "verdict"), []).append(
                            side.grade(reference, targets)["verdict"]
                        )
                        for engine in engines.get(label, []):
                            time.sleep(args.pause)
                            reply = side.grade(engine, targets)
                            if reply["first"] is not None:
                                times.setdefault((label, side.name, "first"), []).append(reply["first"])
    finally:
        for side in sides:
            side.close()
    names = [s.name for s in sides]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; p50 of {args.rounds} rounds, interleaved")
    print(f"{'target':<14}" + "".join(f"{'pass ' + n:>14}{'1st fail ' + n:>16}" for n in names) + "   goals")
    for label, _ in jobs:
        one = f"pass <= {GOAL_VERDICT * 1000:.0f} ms, 1st fail <= {GOAL_FIRST * 1000:.0f} ms"
        goal = f"pass <= {GOAL_CORE:.1f} s" if label == "core six" else one
        cells = "".join(
            f"{ms(times.get((label, n, 'verdict'), [])):>14}{ms(times.get((label, n, 'first'), [])):>16}" for n in names
        )
        print(f"{label:<14}{cells}   {goal}")


if __name__ == "__main__":
    main()
