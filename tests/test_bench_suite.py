"""benchmarks/suite.py, the suite's cost beside the machine's pace (issue 26, point 6), in process: its
reading of pytest's summary, its table's verdicts against the goals, its CPU burners, and its refusal of
an interpreter without the tool. Its runs of the suite themselves are the closing notes' figures."""

from __future__ import annotations

import sys

import psutil
import pytest

from benchmarks.suite import CPU_GOAL, WALL_GOAL, Run, burners, checkout_of, outcome, table
from tests.support import ROOT


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("....\n2282 passed, 1 skipped in 112.26s (0:01:52)\n", "2282 passed, 1 skipped"),
        ("F.\n=== 1 failed, 2281 passed, 1 skipped in 120.0s ===\n", "1 failed, 2281 passed, 1 skipped"),
        ("1 passed in 0.5s\nlater\n2 errors in 1.0s\n", "2 errors"),
        ("ERROR: file or directory not found: nowhere\n", "ERROR: file or directory not found: nowhere"),
        ("", "no output"),
    ],
)
def test_the_outcome_is_pytest_s_summary_without_its_time(output, said):
    assert outcome(output) == said


def run(side: str, cpu: float, wall: float, status: int = 0) -> Run:
    return Run(side, cpu, wall, status, "2282 passed", (0.36, 0.37))


def test_the_goals_apply_to_this_checkout_idle_and_a_load_asks_only_green():
    runs = [run("before", 250.0, 130.0), run("this", CPU_GOAL, WALL_GOAL), run("this", 201.0, 100.0)]
    idle = table([*runs, run("this", 150.0, 110.0)], 0)
    verdicts = [row[-1] for row in idle.rows]
    assert verdicts == ["", "met", "**MISSED**", "met", "", "met"]  # before's runs and median carry none
    assert idle.rows[-1][:2] == ["median", "this"] and idle.rows[-1][4:6] == ["200.0", "110.0 s"]
    loaded = table([run("this", 400.0, 300.0), run("this", 400.0, 300.0, status=1)], 8)
    assert [row[-1] for row in loaded.rows] == ["met", "**MISSED**", "**MISSED**"]
    assert "exit 1" in loaded.rows[1][3] and "8 CPU burners" in loaded.title


def test_the_burners_run_through_the_block_and_end_with_it():
    with burners(2, settle=0) as procs:
        assert len(procs) == 2 and all(psutil.Process(p.pid).is_running() for p in procs)
    assert all(p.poll() is not None for p in procs)


def test_the_checkout_is_the_interpreter_s_install_s_and_one_that_cannot_run_is_refused(tmp_path):
    assert checkout_of(sys.executable) == ROOT
    with pytest.raises(SystemExit, match=r"^error: cannot run .*nowhere"):
        checkout_of(str(tmp_path / "nowhere"))
