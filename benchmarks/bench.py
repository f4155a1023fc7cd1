"""Every speed figure of the tool, each beside its goal, measured in one run (issue 25).

    python benchmarks/bench.py                            # every section, this checkout
    python benchmarks/bench.py --before ../before         # and another checkout's figures beside, interleaved
    python benchmarks/bench.py --quick --only targets,runners
    python benchmarks/bench.py --readme                   # and rewrite the README's tables of the sections run

Sections (benchmarks/figures.py): ``targets`` per target, the first failure of its classic bugs and a
pass in drill watch; ``drill`` the six core targets in one grading, a full drill's save that changes
unbroadcast; ``runners`` the fork worker, the interpreters started ahead of time and a fresh
interpreter, on the same saves; ``startup`` drill list, status, next, -h and --version against
``import typer, rich``; ``check`` a one-shot drill check against naive pytest; ``grader`` the whole
grader; ``memory`` the free-memory drill's peak.

With ``--before CHECKOUT`` each figure of that checkout (its grader in a server of its own,
benchmarks/server.py; its ``drill``) is measured in turn with this one's, on the same saves and
engines (this checkout's reference and classic bugs); what it lacks shows as "-". Machines here
are noisy: only figures measured side by side compare.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.figures import SECTIONS, Reps  # noqa: E402 - after the path is set
from benchmarks.report import readme_with  # noqa: E402
from benchmarks.server import Side  # noqa: E402

README = ROOT / "README.md"


def commit(checkout: Path) -> str:
    done = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h"], capture_output=True, text=True)
    return done.stdout.strip() or "?"


def header(reps: Reps, before: Path | None) -> str:
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    against = f"; before: {before.name} at {commit(before)}, this checkout at {commit(ROOT)}" if before else ""
    return (
        f"_`python benchmarks/bench.py`, {datetime.date.today()}: python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores{load}; {reps.rounds} rounds, {reps.saves} saves, {reps.runs} runs{against}_"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout, measured beside this one")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--only", default="", help=f"comma-separated sections: {', '.join(SECTIONS)}")
    parser.add_argument("--readme", action="store_true", help="rewrite the README's tables of the sections run")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",") if name.strip()] or list(SECTIONS)
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"no section {', '.join(sorted(unknown))}: choose among {', '.join(SECTIONS)}")
    reps = Reps(rounds=2, mutants=1, saves=5, runs=3) if args.quick else Reps()
    sides = ([Side("before", args.before)] if args.before else []) + [Side("this checkout", ROOT)]
    top = header(reps, args.before)
    print(top + "\n", flush=True)
    tables: dict[str, str] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="drill-bench-") as tmp:
            for name in chosen:
                folder = Path(tmp) / name
                folder.mkdir()
                tables[name] = SECTIONS[name](sides, reps, folder).markdown()
                print(tables[name], flush=True)
                if args.readme:  # each table as soon as it is measured: a later section's failure keeps it
                    README.write_text(readme_with(README.read_text(encoding="utf-8"), tables, top), encoding="utf-8")
    finally:
        for side in sides:
            side.close()
    if args.readme:
        print(f"rewrote {', '.join(tables)} in {README.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
