"""The README's speed tables are benchmarks/bench.py's output (``--readme``): each section's table
between its markers, in the format the bench writes. The timings themselves are not checked."""

from __future__ import annotations

import re

import pytest

from benchmarks.figures import SECTIONS
from benchmarks.report import Table, readme_with, tables_in
from tests.support import CATALOG, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
SPEED = README[README.index("\n## Speed\n") : README.index("\n## ", README.index("\n## Speed\n") + 1)]
HEADER = re.compile(r"^_`python benchmarks/bench.py`, \d{4}-\d\d-\d\d: python [\d.]+, \d+ cores.*_$")


def test_every_section_of_the_bench_has_its_table_in_the_readme_speed_section():
    assert list(tables_in(SPEED)) == list(SECTIONS)
    assert tables_in(README) == tables_in(SPEED)  # nowhere else


@pytest.mark.parametrize("name", list(SECTIONS))
def test_each_table_is_as_the_bench_writes_it(name):
    header, blank, title, _, columns, rule, *rest = tables_in(README)[name].splitlines()
    assert HEADER.match(header), header
    assert blank == "" and title.startswith("**") and title.endswith("**")
    assert columns.endswith("| goal |  |") and rule.startswith("|---|")
    rows = [line for line in rest if line.startswith("| ")]
    assert rows and all(row.count("|") == columns.count("|") for row in rows)
    assert all(row.endswith(("|  |", "| met |", "| **MISSED** |")) for row in rows)


def test_the_targets_table_has_a_row_per_target_of_the_catalog():
    rows = [
        line.split("|")[1].strip() for line in tables_in(README)["targets"].splitlines()[6:] if line.startswith("| ")
    ]
    missing = [t.id for t in CATALOG.every if t.id not in rows]
    assert not missing, (
        f"README, Speed: no row for {', '.join(missing)}: python benchmarks/bench.py --only targets --readme"
    )
    assert rows == [t.id for t in CATALOG.every]


def test_the_bench_rewrites_only_the_tables_it_ran():
    table = Table("runners", "Runners", ["before", "this checkout"])
    table.add(["fork"], ["100 ms", "90 ms"], "<= 1.2", True)
    rewritten = readme_with(README, {"runners": table.markdown()}, "_header_")
    assert tables_in(rewritten)["runners"] == "_header_\n\n" + table.markdown()
    assert {k: v for k, v in tables_in(rewritten).items() if k != "runners"} == {
        k: v for k, v in tables_in(README).items() if k != "runners"
    }
    assert rewritten.replace(tables_in(rewritten)["runners"], "") == README.replace(tables_in(README)["runners"], "")
    assert readme_with(README, {}, "_header_") == README
    with pytest.raises(KeyError, match="no-such-section"):
        readme_with(README, {"no-such-section": table.markdown()}, "_header_")
