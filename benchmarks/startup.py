"""The start of the processes that grade, measured side by side with another install (issue 26, point 6).

    python benchmarks/startup.py                                     # this checkout's figures
    python benchmarks/startup.py --before /path/to/other/venv/bin/python --runs 5

Each side is a Python interpreter with its own install of the tool (``pip install -e CHECKOUT`` in a
venv of its own: the package maps its folders by name, so a PYTHONPATH cannot put another checkout in
place of this one's editable install). For each, in turn (noise hits both alike), its CPU seconds
(user + system, the kernel's count for the process at its end, ``wait4``) and wall seconds, p50 of
``--runs``:

- ``warm worker to ready``: ``python -m autograd_drill.grader.worker`` (drill watch on Linux) until its
  ready line, then its end;
- ``spare to ready, no selection``: ``worker --once`` told no selection (the first spare of drill watch
  on macOS and Windows: a dry session), until "ready";
- ``spare to ready, standing by``: the same told to stand by for unbroadcast's grading;
- ``grading by a spare warm, no selection``: the wall seconds from the grading's request to its
  end, in a spare ready with no selection (drill watch's first save on macOS and Windows); its CPU
  is the whole process's;
- ``one-shot grading``: ``worker --once`` as drill check starts it, then unbroadcast's grading of the
  reference (the whole process: start, imports, grading);
- ``fresh grading``: ``python -m pytest ... --impl`` (drill grade's), unbroadcast on the reference;
- ``recording read whole``: ``preload()`` of the shipped recording in an interpreter that has
  imported the oracle (what the warm worker pays);
- ``drill check``: wall seconds of ``python -m autograd_drill check`` of unbroadcast, the reference
  saved, in a fresh attempt (the user's first verdict).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.report import p50, side_by_side  # noqa: E402 - after the path is set

ONCE = ["-m", "autograd_drill.grader.worker", "--once"]

SETUP = """
import json, sys
from pathlib import Path
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.forks import standby_key
from autograd_drill.grader.process import IMPORTED_FROM, grading_env
from autograd_drill.grader.run import pytest_args
from autograd_drill.reference import ENGINE
report = Path(sys.argv[1])
args = pytest_args(ENGINE, [load_catalog().get("unbroadcast")], report, oracle="replay")
print(json.dumps({"args": args, "key": list(standby_key(args)), "cwd": str(IMPORTED_FROM), "env": grading_env()}))
"""


class Side:
    """One install: its interpreter, and what a grading of unbroadcast is told there."""

    def __init__(self, name: str, python: str, tmp: Path) -> None:
        self.name, self.python, self.tmp = name, python, tmp / name
        self.tmp.mkdir(parents=True)
        self.report = self.tmp / "report.json"
        done = subprocess.run([python, "-c", SETUP, str(self.report)], capture_output=True, text=True, check=True)
        told = json.loads(done.stdout)
        self.args, self.key, self.cwd = told["args"], told["key"], told["cwd"]
        self.env = {**told["env"], "DRILL_HOME": str(self.tmp / "home"), "DRILL_WORKSPACE": str(self.tmp / "ws")}
        self.env.pop("DRILL_GRADING_PARENT", None)  # each process here is its own parent's
        # with the bytecode cache, as a user's Python has it (this machine sets PYTHONDONTWRITEBYTECODE):
        # written in the first round, which is not counted
        if self.env.pop("PYTHONDONTWRITEBYTECODE", None):
            self.env.setdefault("PYTHONPYCACHEPREFIX", str(tmp / "bytecode"))

    def started(self, argv: list[str]) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [self.python, *argv],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def spare(self, key: list[str] | None, ahead: bool, grade: bool) -> subprocess.Popen[str]:
        folder = Path(tempfile.mkdtemp(dir=self.tmp))
        (folder / "output.txt").touch()
        proc = self.started(ONCE)
        assert proc.stdin is not None
        setup = {"cwd": str(folder), "output": str(folder / "output.txt"), "standby": key, "ahead": ahead}
        proc.stdin.write(json.dumps(setup) + "\n")
        proc.stdin.flush()
        if grade:
            proc.stdin.write(json.dumps({"args": self.args}) + "\n")
            proc.stdin.flush()
        return proc


def ended(proc: subprocess.Popen[str], start: float) -> tuple[float, float]:
    """Its CPU seconds (the kernel's count, wait4) and the wall seconds since ``start``."""
    if proc.stdin is not None:
        proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def until_ready(proc: subprocess.Popen[str], start: float) -> tuple[float, float]:
    assert proc.stdout is not None
    proc.stdout.readline()  # "ready" (the warm worker's JSON line, or a spare's "ready 0")
    wall = time.perf_counter() - start
    return ended(proc, start)[0], wall


def measures(side: Side) -> dict[str, Callable[[], tuple[float, float]]]:
    def worker() -> tuple[float, float]:
        start = time.perf_counter()
        return until_ready(side.started(["-m", "autograd_drill.grader.worker"]), start)

    def spare(key: list[str] | None) -> Callable[[], tuple[float, float]]:
        def measure() -> tuple[float, float]:
            start = time.perf_counter()
            return until_ready(side.spare(key, True, False), start)

        return measure

    def after_warm_up() -> tuple[float, float]:
        proc = side.spare(None, True, False)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdout.readline()  # ready: warm, no selection known
        start = time.perf_counter()
        proc.stdin.write(json.dumps({"args": side.args}) + "\n")
        return ended(proc, start)

    def one_shot() -> tuple[float, float]:
        start = time.perf_counter()
        return ended(side.spare(None, False, True), start)

    def fresh() -> tuple[float, float]:
        start = time.perf_counter()
        proc = subprocess.Popen([side.python, "-m", "pytest", *side.args], cwd=side.tmp, env=side.env, **QUIET)
        return ended(proc, start)

    def recording() -> tuple[float, float]:
        code = (
            "import os, time; from autograd_drill.grader import oracle; t = os.times(); w = time.perf_counter(); "
            "oracle.preload(); u = os.times(); print(u.user + u.system - t.user - t.system, time.perf_counter() - w)"
        )
        done = subprocess.run([side.python, "-c", code], env=side.env, capture_output=True, text=True, check=True)
        cpu, wall = (float(x) for x in done.stdout.split())
        return cpu, wall

    def check() -> tuple[float, float]:
        drill = [side.python, "-m", "autograd_drill"]
        subprocess.run([*drill, "abandon"], env=side.env, **QUIET)
        subprocess.run([*drill, "start", "unbroadcast"], env=side.env, check=True, **QUIET)
        shutil.copy(ROOT / "reference" / "engine.py", Path(side.env["DRILL_WORKSPACE"]) / "unbroadcast.py")
        start = time.perf_counter()
        proc = subprocess.Popen([*drill, "check"], env=side.env, **QUIET)
        return ended(proc, start)

    return {
        "warm worker to ready": worker,
        "spare to ready, no selection": spare(None),
        "spare to ready, standing by": spare(side.key),
        "grading by a spare warm, no selection": after_warm_up,
        "one-shot grading (drill check's)": one_shot,
        "fresh grading (drill grade's)": fresh,
        "recording read whole": recording,
        "drill check, wall (the first verdict)": check,
    }


QUIET = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "stdin": subprocess.DEVNULL}


def main() -> None:
    options, pythons = side_by_side(__doc__, 5)
    with tempfile.TemporaryDirectory(prefix="drill-startup-") as tmp:
        sides = [Side(name, python, Path(tmp)) for name, python in pythons.items()]
        found: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for run in range(options.runs + 1):
            for side in sides:
                for name, measure in measures(side).items():
                    figure = measure()
                    if run:  # the first writes the bytecode cache
                        found.setdefault((side.name, name), []).append(figure)
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    print(f"python benchmarks/startup.py --runs {options.runs}{load}: p50 CPU-s (wall s)")
    for name in measures(sides[-1]):
        cells = []
        for side in sides:
            cpu, wall = (p50([run[i] for run in found[(side.name, name)]]) for i in (0, 1))
            cells.append((cpu, wall))
            shown = f"{wall:.3f} s" if name.startswith("drill check") else f"{cpu:.3f} ({wall:.3f} s)"
            print(f"  {side.name:6s} {name:40s} {shown}")
        if len(cells) == 2:
            (old_cpu, old_wall), (new_cpu, new_wall) = cells
            if name.startswith("drill check"):
                print(f"  {'':6s} {'':40s} new/old wall {new_wall / old_wall:.2f}")
            else:
                print(f"  {'':6s} {'':40s} new/old CPU {new_cpu / old_cpu:.2f}, wall {new_wall / old_wall:.2f}")


if __name__ == "__main__":
    main()
