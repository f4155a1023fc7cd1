"""The full drill through the CLI, and the commands run as users run them, in a process of their own
(``start_child``): the fast paths, bugs found by hand, and drill watch for real."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time

import pytest

from autograd_drill.grader.catalog import format_time
from autograd_drill.loop.stubs import stub_for
from autograd_drill.views.render import delta
from tests.support import CATALOG, REFERENCE_SOURCE, T0, drill, latest, open_store, row, said, spawn_drill

# Wide enough that rich wraps nothing asserted on; a check grades in a fork of the warm worker.
pytestmark = pytest.mark.usefixtures("wide_terminal", "warm_grading")


# ---------------------------------------------------------------------------- full


def test_full_drill_records_splits_and_the_scoreboard_totals_them(clock, workspace):
    """Every core target but the last passes at 10:00, the last 5:00 later: the splits, the scoreboard
    (in pass order, the total last) and the sum of best, for whatever the catalog's core targets are."""
    *first, last = CATALOG.targets
    result = drill("full")
    path = workspace / "full.py"
    text = said(result)
    blank = sum(len(t.symbols) for t in CATALOG.targets)
    assert str(path) in text and f"all {blank} functions of the engine are blank" in text
    assert f"{format_time(CATALOG.full_time)} to beat" in text and "split" in text

    clock.advance(600)
    path.write_text(stub_for(list(last.symbols), "test"), encoding="utf-8")
    result = drill("check", code=1)
    text = said(result)
    for target in first:
        assert f"✓ {target.id} passed at 10:00" in text
    assert f"✗ {last.id}" in text and last.symbols[0] in text

    clock.advance(300)
    path.write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    text = said(result)
    under = delta(900 - CATALOG.full_time).plain
    assert "✓ full passed at 15:00" in text and f"target {format_time(CATALOG.full_time)}" in text and under in text
    assert "new personal best" in text
    # the others passed on one save: one shared segment of 10:00 (their target times added up), no 0:00 best
    shared = row(result, first[0].id + (" +" if len(first) > 1 else ""))
    together = sum(t.target_time for t in first)
    assert shared[1:] == [format_time(together), "10:00", delta(600 - together).plain, "-", "10:00 ★", "1", "no"]
    split = [
        last.id,
        format_time(last.target_time),
        "5:00",
        delta(300 - last.target_time).plain,
        "-",
        "5:00 ★",
        "1",
        "no",
    ]
    assert row(result, last.id) == split  # a best split
    cells = [c.strip() for line in result.output.splitlines() for c in re.split(r"[│┃]", line)]
    assert not [c for c in cells if c.split(" ")[0] == "0:00"]  # no 0:00 segment, and no 0:00 best
    assert "regressions" not in text  # none: the segments add up to the total
    table_order = [line.split("│")[1].strip() for line in result.output.splitlines() if line.count("│") > 6]
    assert table_order[-2:] == [last.id, "total"]  # in pass order, the total last
    assert row(result, "total") == ["total", format_time(CATALOG.full_time), "15:00", under, "-", "15:00", "1", "no"]
    assert "Sum of best splits: 15:00" in text

    attempt = latest()
    assert attempt.outcome == "passed" and attempt.time == 900
    assert set(attempt.splits) == {t.id for t in CATALOG.targets}
    full_row = rf"^full\s.*{format_time(CATALOG.full_time)}\s+15:00\s+15:00\s+1\s+in \d+ days?\s*$"
    assert re.search(full_row, drill("list").output, re.M)


def test_the_fast_paths_answer_as_the_commands_do(workspace):
    """drill, drill list and drill status skip typer when run bare (drills/commands/quick.py): as a user runs
    them, here drill status with an attempt in progress. On a first run, each bare command's words through
    a real pipe: tests/test_quick_commands.py (test_a_first_run_loads_none_of_the_grading_half, the same
    children); the same output as the app's, in process: test_the_fast_path_says_what_the_app_says there."""
    drill("start", "backward", "--rung", "recall")
    proc = start_child("status")
    output, _ = proc.communicate(timeout=60)
    text = " ".join(output.split())
    assert proc.returncode == 0, output
    assert "backward" in text and "target 10:00" in text and "not graded" in text and "Next: drill watch" in text


# ---------------------------------------------------------------------------- bugs found


def test_status_shows_the_failure_as_graded(clock):
    drill("start", "unbroadcast")
    store = open_store()
    try:
        message = "unbroadcast [same-shape]: unbroadcast is not written yet (it raises NotImplementedError)"
        result = json.dumps({"passed": False, "failures": {"unbroadcast": [message]}})
        store.add_submission(store.active(), T0 + 10, 10.0, "src", result, passed=False)
    finally:
        store.close()
    assert "unbroadcast [same-shape]: unbroadcast is not written yet" in said(drill("status"))


def test_a_workspace_with_brackets_is_printed_as_is(clock, tmp_path):
    workspace = tmp_path / "[draft]"
    result = drill("start", "unbroadcast", "--workspace", str(workspace))
    assert (workspace / "unbroadcast.py").exists()
    assert str(workspace / "unbroadcast.py") in said(result)


def test_check_a_file_with_a_latin1_byte_gives_a_verdict(clock, workspace):
    drill("start", "unbroadcast")
    path = workspace / "unbroadcast.py"
    path.write_bytes(path.read_bytes() + b"# caf\xe9\n")
    result = drill("check", code=None)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)[:300]
    assert result.exit_code == 1


def start_child(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``python -m autograd_drill ARGS`` in its own process group (so that a hang can be ended with its children),
    stderr in stdout. DRILL_HOME and DRILL_WORKSPACE: set by the autouse fixture."""
    return spawn_drill(*args, env={"COLUMNS": "500", **(env or {})}, stderr=subprocess.STDOUT)


def end_child(proc: subprocess.Popen[str]) -> None:
    """End the child and everything it started (grading worker, pytest grandchild)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=10)


def test_check_of_an_endless_loop_ends_with_a_verdict(workspace):
    drill("start", "unbroadcast")  # the real clock: the child reads it too
    looping = REFERENCE_SOURCE.replace("        grad = grad.sum(axis=0)\n", "        grad.sum(axis=0)\n")
    assert looping != REFERENCE_SOURCE
    (workspace / "unbroadcast.py").write_text(looping, encoding="utf-8")
    proc = start_child("check", env={"DRILL_TEST_TIMEOUT": "1"})  # the limit is what this test is about
    try:
        output, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        output = None
    finally:
        end_child(proc)
    assert output is not None, "drill check still grading after 60 s, with a limit of 1 s a test"
    assert proc.returncode == 1 and "unbroadcast" in output
    assert "was stopped" in output and "an infinite loop?" in output


# ---------------------------------------------------------------------------- drill watch, for real


def test_watch_regrades_on_save_and_ends_with_the_scoreboard(workspace):
    drill("start", "unbroadcast", "--rung", "recall")  # the real clock: the watch child reads it too
    path = workspace / "unbroadcast.py"
    proc = start_child("watch")
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    output: list[str] = []
    deadline = time.monotonic() + 60
    try:
        # 1. the file as written (the stub) is graded at once: a failing verdict
        while not any("✗" in line for line in output):
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no failing verdict within 60 s:\n" + "".join(output)
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, "drill watch ended before a verdict:\n" + "".join(output)
            output.append(line)
        # 2. save the reference; saved again every few seconds in case a save came before the watch began
        next_save = time.monotonic()
        while proc.poll() is None or not lines.empty():
            assert time.monotonic() < deadline, "drill watch did not finish within 60 s:\n" + "".join(output)
            if proc.poll() is None and time.monotonic() >= next_save:
                path.write_text(REFERENCE_SOURCE, encoding="utf-8")
                next_save = time.monotonic() + 4
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if line is None:
                break
            output.append(line)
        proc.wait(timeout=10)
    finally:
        end_child(proc)
        reader.join(timeout=10)
    while not lines.empty():
        line = lines.get()
        if line is not None:
            output.append(line)
    text = " ".join("".join(output).split())
    assert proc.returncode == 0, text
    assert "watching" in text
    assert "✗ unbroadcast" in text and "not written yet" in text
    assert "✓ unbroadcast passed at" in text
    assert re.search(r"│ unbroadcast │ 5:00 │ \d+:\d\d │ −\d+:\d\d │ - │ \d+:\d\d │ 1 │ no │", text), text
    assert "new personal best" in text
    attempt = latest()
    assert attempt.outcome == "passed" and set(attempt.splits) == {"unbroadcast"}
