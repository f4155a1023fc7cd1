"""Renderers: functions from result objects to rich renderables. No logic, no I/O."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from drills.grading import GradeResult


def grade_report(result: GradeResult, show_failures: int = 1) -> RenderableType:
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column()
    rows: list[RenderableType] = [Text(f"{result.file}", style="bold"), table]
    for t in result.targets:
        if t.passed:
            table.add_row(Text("✓", style="green"), t.target, Text(f"{t.tests} tests passed", style="green"))
        else:
            summary = "no tests selected" if t.tests == 0 else f"{t.failed} of {t.tests} tests failed"
            table.add_row(Text("✗", style="red"), t.target, Text(summary, style="red"))
            for message in t.failures[:show_failures]:
                table.add_row("", "", Text(message))
    passed = sum(t.passed for t in result.targets)
    verdict = Text(
        f"{passed} of {len(result.targets)} targets passed ({result.seconds:.1f} s)",
        style="bold green" if result.passed else "bold red",
    )
    rows.append(Padding(verdict, (1, 0, 0, 0)))
    return Group(*rows)
