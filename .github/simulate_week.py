"""A simulated week of practice: prints the order in which `drill next` chose targets, and the chart.

    python .github/simulate_week.py                 # a stand-in grader: instant
    python .github/simulate_week.py --real-grading  # every `drill check` runs the oracle suite (~1 minute)

Everything goes through the CLI (`drill next --start`, `drill check`, `drill give-up`, `drill chart`)
with a MockClock injected as autograd_drill.cli.CLOCK, calendar days in UTC, and a temporary DRILL_HOME. The
simulated user has a fixed skill per target (the first attempt's time as a share of the target time;
above 1.5 they give up), gets 15% faster after each pass and 20% after each give-up (they read the
diff), with a little seeded noise: the same run every time.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SKILL = {
    "unbroadcast": 0.7,
    "backward": 1.6,  # gives up the first time
    "arith": 1.15,  # over the target time: Hard
    "unary": 0.8,
    "softmax": 1.7,  # gives up the first time
    "cross-entropy": 0.45,  # under half the target time: Easy
    "full": 0.95,
    "max": 0.9,
    "cotangent": 0.6,
    "gradcheck": 1.2,
    "free-memory": 0.9,
    "forward-mode": 1.8,
}
SESSIONS = ((8, 0), (12, 30), (20, 0))  # three drills a day
MONDAY = datetime(2027, 1, 11, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real-grading", action="store_true", help="grade each check with the oracle suite")
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()

    home = tempfile.TemporaryDirectory(prefix="drill-week-")
    os.environ["DRILL_HOME"] = str(Path(home.name) / "home")
    os.environ["DRILL_WORKSPACE"] = str(Path(home.name) / "solutions")

    from rich.console import Console
    from typer.testing import CliRunner

    from autograd_drill import cli
    from autograd_drill.grader.catalog import format_time, load_catalog
    from autograd_drill.grader.verdict import GradeResult, TargetResult
    from autograd_drill.loop import session
    from autograd_drill.loop.clock import MockClock
    from autograd_drill.loop.stubs import stub_for

    clock = MockClock(MONDAY.timestamp())
    cli.CLOCK, cli.TZ = clock, UTC
    cli.out = Console(highlight=False, width=100, height=28)
    cli.err = Console(stderr=True, highlight=False, width=100)
    if not args.real_grading:

        def stand_in(
            file: Path, targets: list, oracle: str = "auto", label: str | None = None, **_: object
        ) -> GradeResult:
            """A target passes when none of its symbols is still a stub: the real verdict on these files."""
            source = Path(file).read_text(encoding="utf-8")
            results = []
            for target in targets:
                blank = [s for s in target.symbols if f'raise NotImplementedError("{s}")' in source]
                results.append(TargetResult(target.id, 5, len(blank), ()))
            return GradeResult(label or str(file), tuple(results), 0.01)

        session.grade_file = stand_in
    runner = CliRunner()

    def drill(*argv: str) -> str:
        result = runner.invoke(cli.app, list(argv))
        if result.exit_code not in (0, 1):
            raise SystemExit(f"drill {' '.join(argv)} exited {result.exit_code}:\n{result.output}")
        return result.output

    reference = (ROOT / "reference" / "engine.py").read_text(encoding="utf-8")
    catalog = load_catalog()
    core_time = sum(t.target_time for t in catalog.targets)
    workspace = Path(os.environ["DRILL_WORKSPACE"])
    noise = random.Random(7)
    skill = dict(SKILL)
    print(f"A week of practice from {MONDAY:%a %d %b %Y}, {len(SESSIONS)} drills a day (times in UTC)\n")
    print(f" {'when':<10} {'drill next chose':<15} {'why':<52} outcome")
    order = []
    for day in range(args.days):
        for hour, minute in SESSIONS:
            start = clock.now = (MONDAY + timedelta(days=day, hours=hour, minutes=minute)).timestamp()
            said = " ".join(drill("next", "--start").split())
            chosen = re.search(r"drill next chose (\S+?): (.*?)\. Wrote", said)
            assert chosen, said
            target, why = chosen.group(1), chosen.group(2)
            timer = re.search(r"Timer started: (\d+):(\d\d) to beat", said)  # the rung's target time
            assert timer, said
            limit = 60 * int(timer.group(1)) + int(timer.group(2))
            share = skill.get(target, 1.0) * noise.uniform(0.9, 1.1)
            if share > 1.5:
                clock.advance(1.2 * limit)
                drill("give-up")
                outcome = f"gave up at {format_time(1.2 * limit)}"
                skill[target] = skill.get(target, 1.0) * 0.8
            else:
                if target == "full":  # one target after another, a check after each: one split each
                    seconds = 0
                    for k, done in enumerate(catalog.targets):
                        seconds += round(share * done.target_time * noise.uniform(0.8, 1.2) * limit / core_time)
                        clock.now = start + seconds
                        left = [s for t in catalog.targets[k + 1 :] for s in t.symbols]
                        source = stub_for(left, "the full drill") if left else reference
                        (workspace / "full.py").write_text(source, encoding="utf-8")
                        checked = " ".join(drill("check").split())
                else:
                    seconds = round(share * limit)
                    clock.advance(seconds)
                    (workspace / f"{target}.py").write_text(reference, encoding="utf-8")
                    checked = " ".join(drill("check").split())
                assert re.search(rf"✓ {re.escape(target)} (\(\w+ rung\) )?passed at", checked), checked
                rating = "Easy" if seconds < limit / 2 else "Good" if seconds <= limit else "Hard"
                outcome = f"passed in {format_time(seconds)} of {format_time(limit)} ({rating})"
                skill[target] = skill.get(target, 1.0) * 0.85
            order.append(target)
            when = datetime.fromtimestamp(start, UTC).strftime("%a %H:%M")
            print(f" {when:<10} {target:<15} {why:<52} {outcome}")

    print("\nThe order:", " → ".join(order))
    clock.now = (MONDAY + timedelta(days=args.days - 1, hours=22)).timestamp()
    print(f"\n$ drill next   ({datetime.fromtimestamp(clock.now, UTC):%a %H:%M})")
    print(drill("next").rstrip())
    print("\n$ drill chart")
    print(drill("chart").rstrip())
    print("\n$ drill chart full")
    print(drill("chart", "full").rstrip())
    home.cleanup()


if __name__ == "__main__":
    main()
