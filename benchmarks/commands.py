"""What each ``drill`` command costs to run, in CPU-s of its process (user + sys, its children included),
this checkout beside another, measured in turn in one run (issue 26, point 6: the suite starts about
400 ``drill`` children, and a user feels each start).

    git archive main | tar -x -C /tmp/before          # any checkout: a clone, a worktree, an archive
    python benchmarks/commands.py --before /tmp/before [--runs 5]

Each side runs as its own package: a folder with ``autograd_drill/`` made of links to that checkout's
``drills/`` files and its ``grader/`` and ``reference/``, first on ``PYTHONPATH`` (before the editable
install's finder), so one interpreter and one set of dependencies run both. Python's bytecode is
cached (as a user's Python has it), warmed by a first run not counted; each command runs on an empty
data folder but for ``status``, ``stats``, ``diff`` and ``restore --list``, which run with an attempt in
progress. Machines here are noisy: only the figures of one run compare.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "engine.py"

BARE = {
    "--version": ["--version"],
    "drill (bare)": [],
    "list": ["list"],
    "where": ["where"],
    "packs": ["packs"],
    "ladder": ["ladder"],
    "review": ["review", "unbroadcast"],
    "show": ["show", "unbroadcast"],
    "chart": ["chart"],
    "list --json": ["list", "--json"],
    "grade --help": ["grade", "--help"],
    "check (none in progress)": ["check"],
    "watch (none in progress)": ["watch"],
    "hint (none in progress)": ["hint"],
    "grade -t unbroadcast --json": ["grade", str(REFERENCE), "-t", "unbroadcast", "--json", "--oracle", "replay"],
}
"""Commands run on an empty data folder (exit 0, 1 or 2: a refusal costs what a start does)."""
ATTEMPT = {
    "status": ["status"],
    "status --json": ["status", "--json"],
    "stats": ["stats"],
    "diff": ["diff"],
    "restore --list": ["restore", "--list"],
    "pause": ["pause"],
    "resume": ["resume"],
}
"""Commands run with an attempt at unbroadcast in progress (``start`` and ``abandon`` measured as they make it)."""


def farm(checkout: Path, into: Path) -> Path:
    """A folder whose ``autograd_drill`` package is ``checkout``'s (links to its files): the folder to put
    on PYTHONPATH."""
    package = into / "autograd_drill"
    package.mkdir(parents=True)
    for entry in (checkout / "drills").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry.resolve())
    for sub in ("grader", "reference"):
        (package / sub).symlink_to((checkout / sub).resolve())
    return into


class Side:
    def __init__(self, name: str, checkout: Path, tmp: Path) -> None:
        self.name = name
        path = farm(checkout, tmp / name / "path")
        self.env = {
            **os.environ,
            "PYTHONPATH": str(path),
            "PYTHONPYCACHEPREFIX": str(tmp / name / "bytecode"),
            "COLUMNS": "120",
        }
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.home = tmp / name / "home"
        self.cwd = tmp  # not a clone: the workspace is DRILL_WORKSPACE's
        where = self.python("-c", "import autograd_drill.cli as c; print(c.__file__)", check=True)
        assert where.stdout.strip().startswith(str(path)), (where.stdout, where.stderr)

    def python(self, *args: str, home: str = "empty", check: bool = False) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "DRILL_HOME": str(self.home / home), "DRILL_WORKSPACE": str(self.home / home / "ws")}
        done = subprocess.run(
            [sys.executable, *args], cwd=self.cwd, env=env, capture_output=True, text=True, timeout=600
        )
        if check and done.returncode:
            raise RuntimeError(f"{self.name}: {args}: {done.stderr[-2000:]}")
        return done

    def cpu(self, args: list[str], home: str = "empty") -> float:
        """CPU-s of ``drill ARGS`` (and of the children it waited for)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = self.python("-m", "autograd_drill", *args, home=home)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1, 2):
            raise RuntimeError(f"{self.name}: drill {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
        return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def one_round(sides: list[Side], found: dict[str, dict[str, list[float]]]) -> None:
    for name, args in BARE.items():
        for side in sides:
            found[name][side.name].append(side.cpu(args))
    for side in sides:
        found["start"][side.name].append(side.cpu(["start", "unbroadcast"], home="attempt"))
    for name, args in ATTEMPT.items():
        for side in sides:
            found[name][side.name].append(side.cpu(args, home="attempt"))
    for side in sides:
        found["abandon"][side.name].append(side.cpu(["abandon"], home="attempt"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout, measured beside this one")
    parser.add_argument("--runs", type=int, default=3, help="rounds; each figure is their median")
    parsed = parser.parse_args()
    names = [*BARE, "start", *ATTEMPT, "abandon"]
    with tempfile.TemporaryDirectory(prefix="drill-commands-") as folder:
        tmp = Path(folder)
        sides = [Side("before", parsed.before, tmp), Side("this", ROOT, tmp)]
        found: dict[str, dict[str, list[float]]] = {n: {s.name: [] for s in sides} for n in names}
        one_round(sides, {n: {s.name: [] for s in sides} for n in names})  # bytecode written, not counted
        for _ in range(parsed.runs):
            one_round(sides, found)
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    print(f"drill commands, CPU-s (user+sys) per run, median of {parsed.runs}{load}")
    print("| command | before | this | this/before |\n|---|---:|---:|---:|")
    totals = {s.name: 0.0 for s in sides}
    for name in names:
        median = {s.name: statistics.median(found[name][s.name]) for s in sides}
        for side, value in median.items():
            totals[side] += value
        print(
            f"| drill {name} | {median['before']:.3f} | {median['this']:.3f} | {median['this'] / median['before']:.2f} |"
        )
    print(f"| **sum** | {totals['before']:.2f} | {totals['this']:.2f} | {totals['this'] / totals['before']:.2f} |")


if __name__ == "__main__":
    main()
