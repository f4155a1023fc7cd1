"""``python -m autograd_drill.grader.campaign``: choose the mutants, grade them, write the report."""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from autograd_drill.grader.campaign.grading import Outcome, run, warm_runner
from autograd_drill.grader.campaign.mutate import generate, select
from autograd_drill.grader.campaign.report import GOAL, REPORT, ROOT, load_equivalents, report, split_stale, tally
from autograd_drill.grader.campaign.subject import NoSuchPack, Subject, find
from autograd_drill.grader.catalog import Catalog, UnknownTarget
from autograd_drill.grader.run import Limits, grade_file

# ------------------------------------------------------------------------------ command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograd_drill.grader.campaign", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--pack",
        default=None,
        metavar="NAME|FOLDER",
        help="the pack to mutate: a name (installed, or packs/NAME/ of this clone) or its folder (default autograd)",
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="ID",
        help="only this target (repeatable; full: the core ones)",
    )
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="the first N mutants of each target")
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="gradings at a time (default 2)")
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        help=f"where to write the report (default {REPORT.relative_to(ROOT)}; a pack's: campaign-report.md in its folder)",
    )
    parser.add_argument("--list", action="store_true", help="print the mutants, grade nothing")
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 if a target kills less than {GOAL * 100:.0f}%% of its non-equivalent mutants",
    )
    args = parser.parse_args(argv)
    try:
        subject = find(args.pack)
    except NoSuchPack as exc:
        parser.error(str(exc))
    catalog = subject.catalog()
    targets: list[str] = []
    for target in args.target:
        try:
            targets += catalog.ids if target == "full" else [catalog.get(target).id]
        except UnknownTarget as exc:
            parser.error(str(exc))
    reference_text = subject.reference.read_text(encoding="utf-8")  # read once: the one mutated and reported
    everything = generate(subject.reference, catalog, reference_text)
    mutants = select(everything, targets, args.limit)
    if args.list:
        for mutant in mutants:
            print(f"{mutant.id}\t{','.join(mutant.targets)}\t{mutant.description}")
        print(f"{len(mutants)} mutants", file=sys.stderr)
        return 0
    equivalents = load_equivalents(subject.equivalents)
    equivalents, stale = split_stale(equivalents, everything)
    graded = sorted({t for m in mutants for t in m.targets}, key=catalog.all_ids.index)
    baseline = _baseline(catalog, graded, reference_text, subject)
    if baseline:
        print(f"campaign: the reference itself fails {', '.join(baseline)}: no campaign", file=sys.stderr)
        return 2
    start = time.perf_counter()
    survivors = 0
    listed = {e.id for e in equivalents}

    def progress(done: int, total: int, outcome: Outcome) -> None:
        nonlocal survivors
        if not outcome.killed and outcome.mutant.id not in listed:
            survivors += 1
            print(f"  survived {outcome.mutant.id}: {outcome.mutant.description}", file=sys.stderr)
        if done % 25 == 0 or done == total:
            elapsed = time.perf_counter() - start
            eta = elapsed / done * (total - done)
            print(
                f"campaign: {done}/{total} graded, {survivors} survived, {elapsed:.0f} s, ~{eta:.0f} s left",
                file=sys.stderr,
            )

    print(f"campaign: {len(mutants)} mutants, {args.jobs} at a time", file=sys.stderr)
    outcomes = run(mutants, catalog, args.jobs, progress, subject.suite)
    seconds = time.perf_counter() - start
    command = " ".join(
        [
            "python -m autograd_drill.grader.campaign",
            *(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])),
        ]
    )
    text = report(outcomes, equivalents, catalog, command, seconds, stale, reference_text, subject)
    written = args.report or subject.report
    written.write_text(text, encoding="utf-8")
    print(f"campaign: {len(outcomes)} mutants in {seconds:.0f} s; report in {written}", file=sys.stderr)
    rows = tally(outcomes, equivalents, catalog)
    for row in rows:
        print(
            f"  {row.target:14} {row.killed:4} killed {len(row.survived):3} survived {len(row.equivalent):3} equivalent  {row.rate:6.1%}",
            file=sys.stderr,
        )
    return 1 if args.check and not all(row.meets_goal for row in rows) else 0


def _baseline(catalog: Catalog, targets: Sequence[str], text: str, subject: Subject) -> list[str]:
    """The targets the unmutated reference (``text``) fails: none, or every mutant would count as killed."""
    if not targets:
        return []
    runner, close = warm_runner(subject.suite)
    try:
        with tempfile.TemporaryDirectory(prefix="drill-campaign-") as tmp:
            path = Path(tmp) / subject.reference.name
            path.write_text(text, encoding="utf-8")
            chosen = [catalog.get(t) for t in targets]
            result = grade_file(path, chosen, runner=runner, limits=Limits(), suite=subject.suite)
    finally:
        close()
    return [t for t in targets if not result.get(t).passed]


if __name__ == "__main__":
    sys.exit(main())
