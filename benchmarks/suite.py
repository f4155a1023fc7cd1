"""What the tool's own test suite costs (issue 26, point 6: ``python -m pytest -n auto`` within 120 s
wall and 200 CPU-s on an idle 2-core machine, and green at a load of 8), each run beside the pace of
the machine at that moment.

    python benchmarks/suite.py                          # 2 runs, idle
    python benchmarks/suite.py --load 8 --runs 1        # beside 8 CPU burners started 60 s before
    python benchmarks/suite.py --before /tmp/before/venv/bin/python --runs 3

A run is the README's test command (``python -m pytest -n auto``, with ``-q``) in the checkout of the
interpreter that runs it; its CPU seconds are the user + system time of the whole tree it waited for,
as ``/usr/bin/time`` counts them. Around each run, the machine's pace: the CPU seconds of a pure-Python
loop (``PACE``), which on the machines here reads 0.36 to 0.45 s when they run at their usual speed
and up to 0.66 s when their host is busy, whatever the suite: a run taken while the loop reads slow
is no evidence either way. ``--before PYTHON``: the interpreter of another install (its own checkout, its
own virtualenv), whose suite runs in turn with this one's, so that both meet the same noise. ``--load
N`` starts N burners (``sh -c 'while :; do :; done'``) ``--settle`` seconds before the first run and
ends them after the last.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.report import Table, side_by_side  # noqa: E402 - after the path is set

WALL_GOAL, CPU_GOAL = 120.0, 200.0
"""Issue 26's goals for one run on an idle 2-core machine."""
PACE = "import time\nt = time.process_time()\nsum(range(3 * 10**7))\nprint(time.process_time() - t)"
"""The calibration loop: CPU seconds of a pure-Python sum, printed."""
PASS_LINE = re.compile(r"^=*\s*(\d+ (passed|failed|errors?)\b.*?) in [\d.]+s", re.M)
"""pytest's last line (``-q``): its counts, without the time."""


@dataclass(frozen=True)
class Run:
    """One run of a side's suite: its CPU seconds, wall seconds, exit status, pass line, and the
    machine's pace (the loop's seconds) just before and just after it."""

    side: str
    cpu: float
    wall: float
    status: int
    outcome: str
    pace: tuple[float, float]


def pace(python: str = sys.executable) -> float:
    """The calibration loop's CPU seconds now, in a fresh interpreter."""
    done = subprocess.run([python, "-c", PACE], capture_output=True, text=True, check=True)
    return float(done.stdout)


def outcome(output: str) -> str:
    """pytest's summary, "2282 passed, 1 skipped", or the output's last line when it has none."""
    found = PASS_LINE.findall(output)
    return found[-1][0] if found else last_line(output)


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "no output"


def checkout_of(python: str) -> Path:
    """The checkout an interpreter's install of the tool runs from (an editable install's folders)."""
    where = "import autograd_drill, pathlib; print(pathlib.Path(autograd_drill.__file__).resolve().parents[1])"
    try:
        done = subprocess.run([python, "-c", where], capture_output=True, text=True)
    except OSError as exc:
        raise SystemExit(f"error: cannot run {python}: {exc.strerror}") from None
    if done.returncode != 0:
        raise SystemExit(f"error: {python} has no install of autograd-drill ({last_line(done.stderr)})")
    return Path(done.stdout.strip())


def run_suite(side: str, python: str, checkout: Path, extra: list[str]) -> Run:
    """The side's suite once, from its ``checkout``, in the environment given less what a test run
    sets for itself (its xdist workers' count)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_AUTO_NUM_WORKERS"}
    before_pace = pace(python)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(
        [python, "-m", "pytest", "-n", "auto", "-q", *extra],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)
    return Run(side, cpu, wall, done.returncode, outcome(done.stdout + done.stderr), (before_pace, pace(python)))


@contextmanager
def burners(count: int, settle: float) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` busy shells, started ``settle`` seconds before the block and ended after it."""
    procs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]
    try:
        if procs:
            time.sleep(settle)
        yield procs
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def table(runs: list[Run], load: int) -> Table:
    """Each run in the order taken, then each side's median; the goals apply idle, to this checkout."""
    sides = list(dict.fromkeys(r.side for r in runs))
    idle = load == 0
    title = "the suite, idle" if idle else f"the suite beside {load} CPU burner{'s' if load > 1 else ''}"
    out = Table("suite", title, ["CPU-s", "wall"], head=["run", "side", "pace (s)", "pytest"])

    def met(run_cpu: float, run_wall: float, green: bool, side: str) -> bool | None:
        if side != "this":
            return None
        return green and (not idle or (run_cpu <= CPU_GOAL and run_wall <= WALL_GOAL))

    goal = f"<= {CPU_GOAL:.0f} CPU-s, <= {WALL_GOAL:.0f} s" if idle else "green"
    for number, run in enumerate(runs, 1):
        paced = f"{run.pace[0]:.2f} / {run.pace[1]:.2f}"
        green = run.status == 0
        out.add(
            [str(number), run.side, paced, run.outcome if green else f"exit {run.status}: {run.outcome}"],
            [f"{run.cpu:.1f}", f"{run.wall:.1f} s"],
            goal,
            met(run.cpu, run.wall, green, run.side),
        )
    for side in sides:
        mine = [r for r in runs if r.side == side]
        cpu, wall = statistics.median(r.cpu for r in mine), statistics.median(r.wall for r in mine)
        out.add(
            ["median", side, "", f"{len(mine)} run(s)"],
            [f"{cpu:.1f}", f"{wall:.1f} s"],
            goal,
            met(cpu, wall, all(r.status == 0 for r in mine), side),
        )
    out.notes.append(
        "pace: the CPU seconds of a pure-Python loop before and after the run (0.36 to 0.45 s at this machine's "
        "usual speed; a run taken while it reads slow says little)."
    )
    return out


def options(parser: argparse.ArgumentParser) -> None:
    """suite.py's own options, beside ``--before`` and ``--runs`` (benchmarks/report.py)."""
    parser.add_argument("--load", type=int, default=0, help="CPU burners beside the runs (default none)")
    parser.add_argument("--settle", type=float, default=60.0, help="seconds the burners run before (default 60)")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest, after --")


def main() -> None:
    given, pythons = side_by_side(__doc__, 2, options)
    if given.runs < 1 or given.load < 0 or given.settle < 0:
        print("error: --runs must be 1 or more, --load and --settle 0 or more", file=sys.stderr)
        sys.exit(2)
    sides = {side: (python, checkout_of(python)) for side, python in pythons.items()}  # refused now, not after a run
    runs: list[Run] = []
    with burners(given.load, given.settle):
        for _ in range(given.runs):
            for side, (python, checkout) in sides.items():
                runs.append(run_suite(side, python, checkout, given.pytest_args))
                last = runs[-1]
                print(f"  {side}: {last.cpu:.1f} CPU-s, {last.wall:.1f} s, {last.outcome}", file=sys.stderr)
    load = f", load average {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else ""
    print(f"_`python benchmarks/suite.py`: python {sys.version.split()[0]}, {os.cpu_count()} cores{load}_\n")
    print(table(runs, given.load).markdown())
    sys.exit(0 if all(r.status == 0 for r in runs) else 1)


if __name__ == "__main__":
    main()
