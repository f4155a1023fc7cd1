"""Regenerate the README's examples and docs/interview-example.md from real runs of ``drill``.

    python docs/make_examples.py            # rewrites them, and the README's picture (.github/scoreboard.svg)
    python docs/make_examples.py --check    # rewrites nothing: exit 1 naming each example out of date
    python docs/make_examples.py --check --readme R --transcript T    # of other copies (the tests')

An example in the README is a ```text block after a marker naming it, ``<!-- example: verdict -->``;
each has a function below that runs the commands it shows and returns what they printed. The
gradings are real (the grader runs on the files); the drill clock is scripted where the commands run
in this process, so the examples show minutes rather than the seconds this script takes. The
interview runs in a real pseudo-terminal (pexpect), on the real clock: ``--check`` compares its
transcript with its clock readings (times, dates, durations) blanked. tests/test_examples.py runs
``--check``.
"""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

README = ROOT / "README.md"
INTERVIEW = ROOT / "docs" / "interview-example.md"
EXAMPLE = re.compile(r"(<!-- example: (?P<name>[\w-]+) -->\n```text\n)(?P<body>.*?)(?=```)", re.S)
"""A README example: its marker, then the body of the ```text block that follows it."""
WIDTH = 100
"""The terminal width of every example (the README's code blocks are read at about this width)."""
BLANK = '    raise NotImplementedError("unbroadcast")'
"""The blank body of unbroadcast in its stub."""


@contextmanager
def isolated() -> Iterator[Path]:
    """A fresh data folder and workspace in a temporary folder (the current one while it lasts)."""
    saved, cwd = {k: os.environ.get(k) for k in ("DRILL_HOME", "DRILL_WORKSPACE", "COLUMNS")}, Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(DRILL_HOME=f"{tmp}/home", DRILL_WORKSPACE=f"{tmp}/solutions", COLUMNS=str(WIDTH))
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(cwd)
            for key, value in saved.items():
                os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


class Drill:
    """``drill`` run in this process (typer's CliRunner) on a scripted clock, its output as a
    terminal ``WIDTH`` columns wide with no colour would show it."""

    def __init__(self, width: int = WIDTH) -> None:
        from rich.console import Console

        from autograd_drill import cli
        from autograd_drill.loop.clock import MockClock

        self.cli, self.clock = cli, MockClock()
        cli.CLOCK = self.clock
        self.console = lambda: Console(file=io.StringIO(), width=width, highlight=False, color_system=None)

    def __call__(self, *args: str) -> str:
        from typer.testing import CliRunner

        self.cli.out, self.cli.err = self.console(), self.console()
        CliRunner().invoke(self.cli.app, list(args), catch_exceptions=False)
        printed = self.cli.out.file.getvalue() + self.cli.err.file.getvalue()  # type: ignore[attr-defined]
        return "\n".join(line.rstrip() for line in printed.splitlines())


def first_failure(printed: str, target: str) -> str:
    """The row of ``target`` in a verdict and the lines indented under it (its first failure)."""
    lines = printed.splitlines()
    at = next(i for i, line in enumerate(lines) if re.match(rf"\s*[✗✓] {re.escape(target)}\b", line))
    under = [line for line in lines[at + 1 :] if line.startswith("    ")]
    return "\n".join(lines[at : at + 1 + len(under)]) + "\n"


def verdict() -> str:
    """The first check of an unbroadcast stub whose blank became ``return grad.reshape(shape)`` (at 120
    columns: a failure's line is not wrapped)."""
    with isolated() as tmp:
        drill = Drill(width=120)
        drill("start", "unbroadcast")
        path = tmp / "solutions" / "unbroadcast.py"
        stub = path.read_text(encoding="utf-8")
        assert BLANK in stub, "the stub's blank body moved"
        drill.clock.advance(75)
        path.write_text(stub.replace(BLANK, "    return grad.reshape(shape)"), encoding="utf-8")
        return first_failure(drill("check"), "unbroadcast")


def plan() -> str:
    """``drill interview --plan`` on a fresh history."""
    with isolated():
        said = "$ drill interview --plan          # the session it would run, without starting it (--json for tools)"
        return f"{said}\n{Drill()('interview', '--plan')}\n"


TRANSCRIPT_NOTE = (
    "<!-- A real transcript, made by docs/make_examples.py: drill interview --minutes 20 --target unbroadcast,"
    " run in a terminal (the reference code saved for each coding task, one nudge asked for, two answers typed"
    " and self-checked). -->\n\n"
)
ANSWERS = (
    "Each bias element is used once per row, so its gradient sums the rows.\nIt is a sum, not a mean.",
    "Central differences, one element at a time, in float64.",
)


def interview() -> str:
    """A 20-minute interview on unbroadcast in a pseudo-terminal: the reference saved for each coding
    part after one nudge, two answers typed and self-checked; its transcript."""
    from autograd_drill.interview.store import ensure_tables, interviews
    from autograd_drill.store.history import History
    from autograd_drill.store.paths import history_path
    from tests.terminal import Pty

    reference = (ROOT / "reference" / "engine.py").read_text(encoding="utf-8")
    command = [sys.executable, "-m", "autograd_drill", "interview", "--minutes", "20", "--target", "unbroadcast"]
    with isolated() as tmp:
        term = Pty(command, cols=WIDTH)
        try:
            done = lambda target: lambda s: f"Interview: {target}" in s and "tests failed" in s and "⟳" not in s  # noqa: E731
            term.wait(done("unbroadcast"), "the task's stub graded")
            term.child.send("h")
            term.shows("Interviewer:")
            (tmp / "solutions" / "unbroadcast.py").write_text(reference, encoding="utf-8")
            term.shows("A follow-up, then:")
            follow_up = re.search(r"A follow-up, then: ([\w-]+)", term.said)
            assert follow_up is not None
            term.wait(done(follow_up.group(1)), "the follow-up's stub graded")
            (tmp / "solutions" / f"{follow_up.group(1)}.py").write_text(reference, encoding="utf-8")
            for k, answer in enumerate(ANSWERS, 1):
                term.shows(f"Question {k} of 2")
                term.child.send(f"{answer}\n.\n")
                term.wait(lambda s, k=k: "Covered:" in s.split(f"Question {k} of 2")[-1], "the self-check")
                term.child.send("1 2\n" if k == 1 else "all\n")
            term.shows("Transcript:")
            assert term.end() == 0, term.said
        finally:
            term.kill()
        store = History(history_path())
        try:
            ensure_tables(store.db)
            (record,) = interviews(store.db)
        finally:
            store.close()
        assert record.report is not None
        return TRANSCRIPT_NOTE + Path(record.report).read_text(encoding="utf-8")


README_EXAMPLES: dict[str, Callable[[], str]] = {"verdict": verdict, "plan": plan}


def readings_blanked(text: str) -> str:
    """``text`` with what a real clock decides blanked: dates, clock times, durations."""
    text = re.sub(r"\d{4}-\d\d-\d\d( \d\d:\d\d)?", "DATE", text)
    text = re.sub(r"\b\d+:\d\d(:\d\d)?\b", "M:SS", text)
    return re.sub(r"\b\d+(\.\d+)? s\b", "N s", text)


def differs(name: str, shown: str, made: str) -> list[str]:
    """``[name]`` and the first lines of a diff when ``shown`` is not ``made`` (their clock readings aside)."""
    import difflib

    was, now = readings_blanked(shown).splitlines(), readings_blanked(made).splitlines()
    if was == now:
        return []
    diff = list(difflib.unified_diff(was, now, "shown", "made now", n=1, lineterm=""))
    print("\n".join(diff[:24]), file=sys.stderr)
    return [name]


def regenerate(check: bool, readme_path: Path = README, transcript_path: Path = INTERVIEW) -> list[str]:
    """Each example made anew; written back unless ``check``. What is out of date, by name."""
    readme = readme_path.read_text(encoding="utf-8")
    stale: list[str] = []
    names = [m["name"] for m in EXAMPLE.finditer(readme)]
    unknown = sorted(set(names) - set(README_EXAMPLES))
    missing = sorted(set(README_EXAMPLES) - set(names))
    if unknown or missing:
        raise SystemExit(f"README markers: no function for {unknown}, no marker for {missing}")
    made = {name: README_EXAMPLES[name]() for name in names}
    for name in names:
        shown = next(m["body"] for m in EXAMPLE.finditer(readme) if m["name"] == name)
        stale += differs(f"{readme_path.name}: {name}", shown, made[name])
    transcript = interview()
    stale += differs(f"{transcript_path.name}: the interview", transcript_path.read_text("utf-8"), transcript)
    if not check:
        readme_path.write_text(EXAMPLE.sub(lambda m: m.group(1) + made[m["name"]], readme), encoding="utf-8")
        transcript_path.write_text(transcript, encoding="utf-8")
        sys.path.insert(0, str(ROOT / ".github"))
        from make_scoreboard_svg import main as picture  # type: ignore[import-not-found]

        with redirect_stdout(io.StringIO()):  # it echoes the commands it runs
            picture()
    return stale


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Regenerate the README's examples from real runs.")
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 if an example is out of date")
    parser.add_argument("--readme", type=Path, default=README, help="the README to read (default: the clone's)")
    parser.add_argument("--transcript", type=Path, default=INTERVIEW, help="the interview example to read")
    args = parser.parse_args(argv)
    check = args.check
    stale = regenerate(check, args.readme.resolve(), args.transcript.resolve())
    for what in stale:
        print(f"{'out of date' if check else 'rewritten'}: {what}")
    if check and stale:
        print("run  python docs/make_examples.py  to regenerate them")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
