"""Regenerate the recorded oracle from live torch, or check it against live torch.

python -m autograd_drill.grader.record           # rewrite grader/recorded/oracle.npz (needs torch)
python -m autograd_drill.grader.record --check   # fail if the recording differs from what torch answers now

Another pack's recording: name its oracle tests, catalog and reference, and its recording, e.g.
python -m autograd_drill.grader.record --tests P/tests --catalog P/catalog.toml --reference P/reference.py --file P/recorded/oracle.npz
(P = packs/layers/autograd_drill_layers).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from autograd_drill.grader.npz import Npz
from autograd_drill.grader.oracle import RECORDING, RECORDING_ENV
from autograd_drill.grader.process import IMPORTED_FROM, PACKAGE

GRADER = Path(__file__).resolve().parent


def pack_options(catalog: Path | None, reference: Path | None) -> list[str]:
    """The options that make the shared plugin grade another pack (grader/conftest.py): none for the autograd pack."""
    if catalog is None and reference is None:
        return []
    told = [("--catalog", catalog), ("--reference", reference)]
    return [
        "-p",
        "autograd_drill.grader.conftest",
        *(f"{flag}={value.resolve()}" for flag, value in told if value is not None),
    ]


def record(path: Path, tests: Path = GRADER, catalog: Path | None = None, reference: Path | None = None) -> int:
    """Run the whole suite (``tests``: the grader's, or another pack's, with its ``catalog`` and
    ``reference``) on the reference with the recording oracle; pytest's exit status."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(tests.resolve()),
        *pack_options(catalog, reference),
        "-q",
        *("--noconftest", "-p", f"{PACKAGE}.conftest"),  # by its import name, as a grading does (grader/collect.py)
        "-p",
        "no:cacheprovider",
        "--oracle",
        "record",
        "--oracle-file",
        str(path.resolve()),
        "--test-timeout=0",  # the answer key, with torch's first calls: a busy machine's seconds fail no recording
    ]
    return subprocess.run(command, cwd=IMPORTED_FROM, env={**os.environ, RECORDING_ENV: "1"}).returncode


def differences(recorded: Path, fresh: Path) -> list[str]:
    """What differs between two recordings: keys one lacks, and answers that differ beyond rounding
    (relative 1e-12, absolute 1e-14; NaN equal to NaN). An answer stored as the same bytes in both
    is the same array, and is not read as one (most are): the stored bytes are compared as the zip
    holds them (grader/npz.py), not inflated first (through np.load's zipfile that took 0.3 CPU-s of
    the check, this 0.05)."""
    old, new = Npz(recorded), Npz(fresh)
    problems = [f"missing from the recording: {k}" for k in sorted(set(new) - set(old))]
    problems += [f"no longer asked: {k}" for k in sorted(set(old) - set(new))]
    for key in sorted(set(old) & set(new)):
        if old.stored(key) == new.stored(key):
            continue
        a, b = old[key], new[key]
        if a.dtype.kind == "U":
            same = a.shape == b.shape and bool((a == b).all())
        else:
            same = a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True)
        if not same:
            problems.append(f"differs from live torch: {key}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograd_drill.grader.record", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare the recording with live torch; write nothing")
    parser.add_argument("--file", type=Path, default=RECORDING, help="the recording (default: %(default)s)")
    parser.add_argument("--tests", type=Path, default=GRADER, help="a pack's oracle tests (default: the grader's)")
    parser.add_argument("--catalog", type=Path, default=None, help="that pack's catalog.toml")
    parser.add_argument("--reference", type=Path, default=None, help="that pack's reference module")
    args = parser.parse_args(argv)
    told = (args.tests, args.catalog, args.reference)
    pack = () if told == (GRADER, None, None) else told  # the autograd pack's: record(path), as before
    if not args.check:
        status = record(args.file, *pack)
        print(f"recorded {args.file}" if status == 0 else f"recording failed (pytest exit {status})")
        return status
    if not args.file.exists():
        print(f"no recording at {args.file}: run python -m autograd_drill.grader.record")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh.npz"
        status = record(fresh, *pack)
        if status != 0:
            print(f"the reference failed its own grader with live torch (pytest exit {status})")
            return status
        problems = differences(args.file, fresh)
    for line in problems[:20]:
        print(line)
    if problems:
        print(f"{len(problems)} difference(s): regenerate with python -m autograd_drill.grader.record")
        return 1
    print(f"the recording {args.file} matches live torch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
