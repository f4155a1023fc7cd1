"""The bench's tables: each figure beside its goal, in Markdown (what the terminal and the README show).

A table is a section of benchmarks/bench.py (``--only NAME``); in the README each is kept between
``<!-- bench: NAME -->`` and ``<!-- /bench -->``, which ``python benchmarks/bench.py --readme``
rewrites (tests/test_bench.py checks the markers and the format, not the timings).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

BLOCK = re.compile(r"<!-- bench: (?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- /bench -->", re.S)
"""A table in the README: its marker, its body, its end."""


def p50(xs: Sequence[float]) -> float | None:
    return statistics.median(xs) if xs else None


def live_cpu(children: Iterable[Any]) -> float:
    """The CPU seconds of ``children`` (psutil processes) that are alive, with those of theirs they
    waited for: a warm worker's zygote and its forks (grader/zygote.py), a test's grading worker."""
    import psutil

    total = 0.0
    for child in children:
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def side_by_side(
    doc: str, runs: int, more: Callable[[argparse.ArgumentParser], None] | None = None
) -> tuple[argparse.Namespace, dict[str, str]]:
    """The options of a script that measures this install beside another (``--before PYTHON``, ``--runs N``,
    and the script's own that ``more`` adds), and the interpreters to measure by name: "before" (when
    given) first, then "this"."""
    parser = argparse.ArgumentParser(description=" ".join(doc.split("\n\n")[0].split()))  # the first paragraph
    parser.add_argument("--before", help="the interpreter of another install, measured beside this one")
    parser.add_argument(
        "--runs", type=int, default=runs, help=f"how many times to measure each install (default {runs})"
    )
    if more is not None:
        more(parser)
    options = parser.parse_args()
    return options, {**({"before": options.before} if options.before else {}), "this": sys.executable}


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:,.0f} ms"


def s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s"


def ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def verdict(ok: bool | None) -> str:
    """Whether this checkout's figure meets its goal: met, MISSED, or blank (no goal, no figure)."""
    return "" if ok is None else "met" if ok else "**MISSED**"


@dataclass
class Table:
    """One section's figures: a row per figure, a column per checkout (``sides``: this one last)."""

    name: str
    title: str
    sides: list[str]
    head: list[str] = field(default_factory=lambda: ["figure"])
    """The leading columns, before the checkouts'."""
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, lead: Sequence[str], values: Sequence[str], goal: str = "", ok: bool | None = None) -> None:
        """A row: its leading cells, one value per side, the goal and whether this checkout meets it."""
        assert len(lead) == len(self.head) and len(values) == len(self.sides), (lead, values)
        self.rows.append([*lead, *values, goal, verdict(ok)])

    def markdown(self) -> str:
        columns = [*self.head, *self.sides, "goal", ""]
        lines = [f"**{self.title}**", "", "| " + " | ".join(columns) + " |"]
        lines.append(
            "|" + "|".join("---" if i < len(self.head) else "---:" for i in range(len(columns) - 2)) + "|---|---|"
        )
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        if self.notes:
            lines += ["", *self.notes]
        return "\n".join(lines) + "\n"


def readme_with(readme: str, tables: dict[str, str], header: str) -> str:
    """``readme`` with the body of each bench table named in ``tables`` replaced (``header`` first);
    a name without its markers in the README is an error (add the markers where it belongs)."""
    missing = set(tables) - {m["name"] for m in BLOCK.finditer(readme)}
    if missing:
        raise KeyError(f"the README has no <!-- bench: NAME --> ... <!-- /bench --> for {sorted(missing)}")

    def body(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in tables:
            return match[0]
        return f"<!-- bench: {name} -->\n{header}\n\n{tables[name]}<!-- /bench -->"

    return BLOCK.sub(body, readme)


def tables_in(readme: str) -> dict[str, str]:
    """The body of each bench table of the README, by name."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(readme)}
