"""Make the README's picture from a real drill: start, a failing save, a passing save, the scoreboard.

    python .github/make_scoreboard_svg.py        # writes .github/scoreboard.svg
    python .github/make_scoreboard_svg.py OUT    # writes OUT (tests/test_cli.py runs it so)

The grading is real (the grader runs on the files); only the clock is scripted, so the picture
shows minutes rather than the seconds this script takes.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(target: Path = ROOT / ".github" / "scoreboard.svg") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DRILL_HOME"] = str(Path(tmp) / "home")
        os.environ["DRILL_WORKSPACE"] = str(Path(tmp) / "solutions")
        os.chdir(tmp)
        from autograd_drill import cli
        from autograd_drill.loop.clock import MockClock

        console = Console(record=True, width=100, force_terminal=True, color_system="truecolor")
        cli.out = console
        clock = MockClock()
        cli.CLOCK = clock
        runner = CliRunner()

        def run(*args: str) -> None:
            console.print(f"[bold]$ drill {' '.join(args)}[/]")
            runner.invoke(cli.app, list(args), catch_exceptions=False)
            console.print()

        run("start", "unbroadcast", "--rung", "recall")  # from memory, against the catalog's 5:00
        path = Path(tmp) / "solutions" / "unbroadcast.py"
        reference = (ROOT / "reference" / "engine.py").read_text()
        body = re.search(
            r"(    grad = np\.asarray\(grad, dtype=np\.float64\)\n    # Leading axes.*?return grad\.reshape\(shape\)\n)",
            reference,
            re.S,
        )
        assert body is not None
        stub = path.read_text()
        todo = re.search(
            r"    # TODO: \w+ unbroadcast.*?\n    raise NotImplementedError\(\"unbroadcast\"\)\n", stub, re.S
        )
        assert todo is not None
        buggy = body.group(1).replace("    while grad.ndim > len(shape):\n        grad = grad.sum(axis=0)\n", "")
        clock.advance(2 * 60 + 5)
        path.write_text(stub.replace(todo.group(0), buggy))
        run("check")
        clock.advance(96)
        path.write_text(stub.replace(todo.group(0), body.group(1)))
        run("check")
        console.save_svg(str(target), title="autograd-drill")


if __name__ == "__main__":
    main(*(Path(arg).resolve() for arg in sys.argv[1:2]))
