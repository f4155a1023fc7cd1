"""The warm worker's gradings, measured side by side with another install (issue 26, point 6).

    python benchmarks/warm.py                                     # this checkout's figures
    python benchmarks/warm.py --before /path/to/other/venv/bin/python --runs 15

Each side is a Python interpreter with its own install of the tool, as in benchmarks/startup.py (the
package maps its folders by name: a PYTHONPATH cannot put another checkout in place of an editable
install). Each side starts one warm worker (``python -m autograd_drill.grader.worker``, drill watch's on
Linux), then the cases below are graded in turn, side after side (noise hits both alike), with no
standby (``ahead`` false, as the suite's worker: each grading a fork set up anew, or since 362a564 a
fork of its selection's zygote, set up once, grader/zygote.py). A grading's CPU seconds are those its
fork cost the worker (the user + system time over the request of the worker's children, the fork and
its copies, grader/shards.py, waited for before the reply, and of its live children with theirs: the
zygotes, which wait for their forks); its wall seconds, the request to the reply. p50 of ``--runs``:

- ``unbroadcast, the reference``: 18 tests, the set-up of a session outweighs them (a drill's first target);
- ``every target, first failure, an alternative``: tests/alternatives/book_habits.py, which keeps a bug on
  purpose, graded until its first failed test (``first_failure_only``: the catalogued mutants' grading);
- ``every target, the reference``: the whole suite (``drill grade`` of a full drill);
- ``unbroadcast, unbounded recursion``: the reference with an unbroadcast that calls itself at once, so
  each of its 18 tests fails with a RecursionError a thousand frames deep (a blame of each frame).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.report import live_cpu, p50, side_by_side  # noqa: E402 - after the path is set

CASES = """
import json, sys
from pathlib import Path
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.process import GRADER, IMPORTED_FROM, grading_env
from autograd_drill.grader.run import Limits, pytest_args
from autograd_drill.reference import ENGINE
every, report, limits = list(load_catalog().every), Path(sys.argv[1]), Limits(60, 600)
alternative = GRADER.parent / "tests" / "alternatives" / "book_habits.py"
first = "    grad = np.asarray(grad, dtype=np.float64)\\n"  # the first line of the reference's unbroadcast
recursion = report.with_name("recursion.py")
recursion.write_text(ENGINE.read_text().replace(first, first + "    return unbroadcast(grad, shape)\\n", 1))
cases = {
    "unbroadcast, the reference": pytest_args(ENGINE, [load_catalog().get("unbroadcast")], report, limits=limits),
    "every target, first failure, an alternative": pytest_args(alternative, every, report, limits=limits,
                                                               first_failure_only=True),
    "every target, the reference": pytest_args(ENGINE, every, report, limits=limits),
    "unbroadcast, unbounded recursion": pytest_args(recursion, [load_catalog().get("unbroadcast")], report,
                                                    limits=limits),
}
print(json.dumps({"cases": cases, "cwd": str(IMPORTED_FROM), "env": grading_env()}))
"""


class Side:
    """One install's warm worker, and what its gradings are told."""

    def __init__(self, name: str, python: str, tmp: Path) -> None:
        self.name = name
        report = tmp / name / "report.jsonl"
        report.parent.mkdir(parents=True)
        done = subprocess.run([python, "-c", CASES, str(report)], capture_output=True, text=True, check=True)
        told = json.loads(done.stdout)
        self.cases: dict[str, list[str]] = told["cases"]
        env = {**told["env"]}
        env.pop("DRILL_GRADING_PARENT", None)  # the worker's parent is this benchmark
        # with the bytecode cache, as a user's Python has it (this machine sets PYTHONDONTWRITEBYTECODE)
        if env.pop("PYTHONDONTWRITEBYTECODE", None):
            env.setdefault("PYTHONPYCACHEPREFIX", str(tmp / "bytecode"))
        self.proc = subprocess.Popen(
            [python, "-m", "autograd_drill.grader.worker"],
            cwd=told["cwd"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # ready
        self.worker = psutil.Process(self.proc.pid)

    def children_cpu(self) -> float:
        """The CPU seconds of the worker's children it waited for, and of those alive with theirs: a
        zygote (grader/zygote.py) waits for its forks, and lives on."""
        times = self.worker.cpu_times()
        return times.children_user + times.children_system + live_cpu(self.worker.children())

    def grade(self, case: str) -> tuple[float, float]:
        """The CPU seconds of one grading's fork (with its copies), and its wall seconds."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        before, start = self.children_cpu(), time.perf_counter()
        self.proc.stdin.write(json.dumps({"args": self.cases[case], "timeout": 600, "ahead": False}) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        wall = time.perf_counter() - start
        if reply["status"] not in (0, 1):
            raise RuntimeError(f"{self.name}, {case}: status {reply['status']}: {reply['output'][-500:]}")
        return self.children_cpu() - before, wall

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main() -> None:
    options, pythons = side_by_side(__doc__, 9)
    with tempfile.TemporaryDirectory(prefix="drill-warm-") as tmp:
        sides = [Side(name, python, Path(tmp)) for name, python in pythons.items()]
        found: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for run in range(options.runs + 1):
            for case in sides[-1].cases:
                for side in sides:
                    figure = side.grade(case)
                    if run:  # the first warms the bytecode cache and the page cache
                        found.setdefault((side.name, case), []).append(figure)
        for side in sides:
            side.close()
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    print(f"python benchmarks/warm.py --runs {options.runs}{load}: p50 CPU-s of a fork grading (wall s)")
    for case in sides[-1].cases:
        cells = []
        for side in sides:
            cpu, wall = (p50([run[i] for run in found[(side.name, case)]]) for i in (0, 1))
            cells.append((cpu, wall))
            print(f"  {side.name:6s} {case:45s} {cpu:.3f} ({wall:.3f} s)")
        if len(cells) == 2:
            (old_cpu, old_wall), (new_cpu, new_wall) = cells
            print(f"  {'':6s} {'':45s} new/old CPU {new_cpu / old_cpu:.2f}, wall {new_wall / old_wall:.2f}")


if __name__ == "__main__":
    main()
