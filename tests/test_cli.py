"""Every ``drill`` command of the drill loop, through typer's CliRunner, with a MockClock injected
as ``drills.cli.CLOCK`` (advanced between commands to simulate minutes passing).

User state lives under tmp_path (tests/conftest.py sets DRILL_HOME and DRILL_WORKSPACE). Grading
is real: each ``check`` runs the oracle suite in a child, a fork of drill watch's warm grading
worker (tests/conftest.py, ``warm_runner``). A few commands run as users run them, in a process of
their own (``start_child``).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import Result

from drills.loop import session
from drills.loop.stubs import stub_for
from drills.store.history import History
from drills.store.paths import history_path
from drills.views.render import SPARKS, delta
from grader.catalog import format_time
from tests.support import CATALOG, REFERENCE_SOURCE, T0, drill, record_attempt, said, spawn_drill, use_consoles


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide enough that rich wraps none of the tables and messages asserted on (tmp paths are long)."""
    monkeypatch.setenv("COLUMNS", "500")
    use_consoles(monkeypatch, width=500)


@pytest.fixture(autouse=True)
def warm_grading(monkeypatch: pytest.MonkeyPatch, warm_runner) -> None:
    """A check in process grades in a fork of the warm worker, not in a fresh interpreter."""
    monkeypatch.setattr(session, "run_in_subprocess", warm_runner)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "solutions"


def row(result: Result, first: str) -> list[str]:
    """The cells of the table row that starts with ``first``, as rich drew it."""
    for line in result.output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{result.output}")


def open_store() -> History:
    return History(history_path())


def active():
    store = open_store()
    try:
        return store.active()
    finally:
        store.close()


def latest():
    store = open_store()
    try:
        return store.attempts()[-1]
    finally:
        store.close()


def seed(target: str, seconds: float, *, at: float, outcome: str = "passed", assisted: bool = False) -> None:
    """A finished attempt in the history, as if drilled long ago."""
    store = open_store()
    try:
        record_attempt(store, target, seconds, at, outcome, assisted)
    finally:
        store.close()


# ---------------------------------------------------------------------------- drill, drill list


def test_drill_alone_shows_the_catalog_and_the_next_step(clock):
    result = drill()
    text = said(result)
    assert "autograd-drill" in text
    for target in CATALOG.targets:
        assert re.search(rf"^{re.escape(target.id)}\s", result.output, re.M), target.id
    assert "Tensor.__init__" in text and "_topological_order" in text and "cross_entropy" in text
    assert re.search(r"^full\s.*45:00", result.output, re.M)
    assert re.search(r"^unbroadcast\s.*5:00\s+-\s+-\s+0\s+now\s*$", result.output, re.M)  # due now
    assert "Next: drill start unbroadcast" in text


def test_drill_alone_during_an_attempt_points_to_it(clock):
    drill("start", "backward")
    clock.advance(75)
    text = said(drill())
    assert "in progress" in text and "backward" in text and "1:15" in text
    assert "Next: drill watch" in text


def test_list_shows_best_last_and_attempts(clock):
    seed("unbroadcast", 150, at=T0 - 90_000)
    seed("unbroadcast", 40, at=T0 - 80_000, assisted=True)  # not a record
    seed("unbroadcast", 200, at=T0 - 70_000)
    seed("unbroadcast", 10, at=T0 - 60_000, outcome="abandoned")  # a reset, not an attempt
    seed("backward", 300, at=T0 - 50_000, outcome="gave-up")
    seed("full", 2000, at=T0 - 40_000)
    result = drill("list")
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.strip()}
    assert re.search(r"5:00\s+2:30\s+3:20\s+3\s+in 1 day\s*$", lines["unbroadcast"])
    assert re.search(r"10:00\s+-\s+gave up\s+1\s+in 10 h\s*$", lines["backward"])  # a give-up: back in a day
    assert re.search(r"10:00\s+-\s+-\s+0\s+now\s*$", lines["arith"])
    assert re.search(r"45:00\s+33:20\s+33:20\s+1\s+in 2 days\s*$", lines["full"])
    assert "Next: drill start arith" in said(result)  # nothing overdue: the first never drilled


# ---------------------------------------------------------------------------- start, full


def test_start_writes_the_stub_into_the_workspace_and_starts_the_timer(clock, workspace):
    result = drill("start", "unbroadcast")
    path = workspace / "unbroadcast.py"
    assert path.exists()
    assert path.read_text(encoding="utf-8") == stub_for(["unbroadcast"], "target unbroadcast")
    text = said(result)
    assert str(path) in text
    assert "unbroadcast is blank" in text
    assert "5:00 to beat" in text and "Your best: none yet" in text
    assert "drill watch" in text
    attempt = active()
    assert attempt is not None and attempt.target == "unbroadcast" and attempt.started_at == T0
    assert attempt.file == path.resolve()


def test_start_names_every_function_it_blanks(clock, workspace):
    unary = CATALOG.get("unary")
    assert len(unary.symbols) > 6  # more than fit a short list, yet not the whole engine
    text = said(drill("start", "unary"))
    assert ", ".join(unary.symbols[:-1]) + f" and {unary.symbols[-1]} are blank" in text
    assert "functions of the engine" not in text


def test_start_with_workspace_option(clock, tmp_path, workspace):
    elsewhere = tmp_path / "my drills"
    result = drill("start", "backward", "--workspace", str(elsewhere))
    path = elsewhere / "backward.py"
    assert path.exists() and not (workspace / "backward.py").exists()
    text = said(result)
    assert str(path) in text
    assert "Tensor.__init__, Tensor.backward and _topological_order are blank" in text
    assert "10:00 to beat" in text
    assert active().file == path.resolve()


def test_start_accepts_the_marker_spelling(clock, workspace):
    drill("start", "cross_entropy")
    assert (workspace / "cross-entropy.py").exists()
    assert active().target == "cross-entropy"


def test_start_archives_a_previous_file_never_deletes_it(clock, workspace):
    workspace.mkdir(parents=True)
    (workspace / "unbroadcast.py").write_text("# yesterday's work\n", encoding="utf-8")
    result = drill("start", "unbroadcast")
    [archived] = (workspace / ".archive").iterdir()
    assert archived.read_text(encoding="utf-8") == "# yesterday's work\n"
    assert "archived" in said(result) and str(archived) in said(result)
    assert "NotImplementedError" in (workspace / "unbroadcast.py").read_text(encoding="utf-8")


def test_start_an_unknown_target_suggests_the_closest(clock, workspace):
    result = drill("start", "backwrd", code=2)
    text = said(result)
    assert "Did you mean 'backward'" in text and "unbroadcast" in text  # and lists the targets
    assert "Traceback" not in result.output
    assert not workspace.exists() or not any(workspace.iterdir())
    assert active() is None


def test_start_refuses_while_an_attempt_is_in_progress(clock, workspace):
    drill("start", "unbroadcast")
    path = workspace / "unbroadcast.py"
    path.write_text("# half done\n", encoding="utf-8")
    clock.advance(65)
    for args in (["start", "unbroadcast"], ["start", "arith"], ["full"]):
        text = said(drill(*args, code=2))
        assert "in progress" in text and "1:05" in text
        assert "drill abandon" in text and "drill watch" in text
    assert path.read_text(encoding="utf-8") == "# half done\n"
    assert not (workspace / "arith.py").exists() and not (workspace / "full.py").exists()
    assert not (workspace / ".archive").exists()
    assert active().target == "unbroadcast"


def test_start_edit_opens_the_file_in_the_editor(clock, workspace, monkeypatch):
    script = "import sys, pathlib; pathlib.Path(sys.argv[1] + '.opened').write_text('yes')"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f'{sys.executable} -c "{script}"')
    drill("start", "unbroadcast", "--edit")
    assert (workspace / "unbroadcast.py.opened").read_text() == "yes"


def test_start_edit_without_an_editor_keeps_the_timer_running(clock, workspace, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    text = said(drill("start", "unbroadcast", "--edit", code=2))
    assert "$EDITOR" in text and "timer is running" in text
    assert (workspace / "unbroadcast.py").exists() and active() is not None


def test_a_corrupt_history_is_moved_aside_with_a_warning(clock):
    path = history_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all\n" * 100)
    result = drill("list")
    text = said(result)
    assert "warning" in text and "moved to" in text
    [backup] = [p for p in path.parent.iterdir() if ".corrupt-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert backup.read_bytes() == b"not a database at all\n" * 100
    assert "Next: drill start unbroadcast" in text
    drill("start", "unbroadcast")
    assert "warning" not in said(drill("status"))


# ---------------------------------------------------------------------------- check, status


def test_check_without_an_attempt(clock):
    text = said(drill("check", code=2))
    assert "no attempt in progress" in text and "drill start" in text


def test_check_failing_names_the_symbol_then_status_shows_it(clock, workspace):
    drill("start", "backward")
    clock.advance(120)
    result = drill("check", code=1)
    text = said(result)
    assert "✗ backward" in text
    assert "Tensor.__init__" in text and "not written yet" in text  # a symbol, not a pytest node id
    assert "Clock: 2:00" in text
    assert "Traceback" not in result.output and "def test_" not in result.output

    clock.advance(30)
    status = said(drill("status"))
    assert "backward 2:30" in status and "target 10:00" in status
    assert "✗ backward failing" in status and "Tensor.__init__" in status
    assert "Next: drill watch" in status

    store = open_store()
    try:
        [sub] = store.submissions(store.active())
        assert sub.source == (workspace / "backward.py").read_text(encoding="utf-8") and not sub.passed
    finally:
        store.close()


def test_check_passing_shows_the_scoreboard_and_a_first_personal_best(clock, workspace):
    drill("start", "unbroadcast")
    clock.advance(222)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    text = said(result)
    assert "✓ unbroadcast passed at 3:42" in text
    assert "target 5:00" in text and "−1:18" in text
    assert "new personal best" in text
    header = row(result, "target")
    assert header == ["target", "target", "time", "Δ", "best", "attempts", "assisted"]
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "3:42", "−1:18", "3:42", "1", "no"]
    assert "Next: drill diff unbroadcast" in text
    attempt = latest()
    assert attempt.outcome == "passed" and attempt.time == 222

    clock.advance(600)
    assert "No attempt in progress" in said(drill("status"))
    assert re.search(r"^unbroadcast\s.*5:00\s+3:42\s+3:42\s+1\s+in \d+ days?\s*$", drill("list").output, re.M)


def test_check_passing_slower_than_the_best_is_not_a_record(clock, workspace):
    seed("unbroadcast", 60, at=T0 - 86_400)
    result = drill("start", "unbroadcast")
    assert "Your best: 1:00" in said(result)
    clock.advance(400)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    text = said(result)
    assert "passed at 6:40" in text and "+1:40" in text
    assert "new personal best" not in text
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "6:40", "+1:40", "1:00", "2", "no"]


# ---------------------------------------------------------------------------- pause, resume


def test_pause_freezes_the_clock_and_check_waits_for_resume(clock):
    drill("start", "unbroadcast")
    clock.advance(60)
    text = said(drill("pause"))
    assert "Paused unbroadcast at 1:00" in text and "drill resume" in text
    clock.advance(600)
    status = said(drill("status"))
    assert "unbroadcast 1:00 (paused)" in status and "Next: drill resume" in status
    assert "paused at 1:00" in said(drill())
    assert "drill resume" in said(drill("check", code=2))  # not graded while paused
    assert "already paused at 1:00" in said(drill("pause", code=2))

    text = said(drill("resume"))
    assert "Resumed unbroadcast at 1:00" in text and "drill watch" in text
    clock.advance(30)
    assert "unbroadcast 1:30 target 5:00" in said(drill("status"))
    assert "running (1:30)" in said(drill("resume", code=2))
    store = open_store()
    try:
        assert store.submissions(store.active()) == []
    finally:
        store.close()


def test_pause_resume_status_without_an_attempt(clock):
    for command in ("pause", "resume", "abandon", "give-up", "watch"):
        assert "drill start" in said(drill(command, code=2)), command
    # status is a question: with no attempt, the answer is that, and what to start (exit 0)
    assert said(drill("status")) == "No attempt in progress. Next: drill start unbroadcast never drilled (or: drill next)"


def test_version(clock):
    import tomllib

    from tests.support import ROOT

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert said(drill("--version")) == f"autograd-drill {version}"


# ---------------------------------------------------------------------------- abandon, give up, diff


def test_abandon_archives_the_file_and_ends_the_attempt(clock, workspace):
    drill("start", "unbroadcast")
    path = workspace / "unbroadcast.py"
    path.write_text("# my work so far\n", encoding="utf-8")
    clock.advance(42)
    result = drill("abandon")
    text = said(result)
    [archived] = (workspace / ".archive").iterdir()
    assert archived.read_text(encoding="utf-8") == "# my work so far\n"
    assert not path.exists()
    assert "Abandoned unbroadcast at 0:42" in text and str(archived) in text
    assert "drill start unbroadcast" in text
    attempt = latest()
    assert attempt.outcome == "abandoned" and attempt.archive == str(archived)
    assert active() is None
    drill("start", "unbroadcast")  # a fresh start, no file to archive
    assert len(list((workspace / ".archive").iterdir())) == 1


def test_give_up_then_diff_shows_yours_and_the_reference(clock, workspace):
    drill("start", "unbroadcast")
    mine = REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)")
    (workspace / "unbroadcast.py").write_text(mine, encoding="utf-8")
    clock.advance(100)
    text = said(drill("give-up"))
    assert "Gave up unbroadcast at 1:40" in text and "drill diff unbroadcast" in text
    for args in (["diff"], ["diff", "unbroadcast"]):
        result = drill(*args)
        text = said(result)
        assert "yours (" in text and "reference" in text
        assert "sum(axis=-1)" in text and "sum(axis=0)" in text
        assert "Peeking" not in text
    assert latest().outcome == "gave-up" and not latest().assisted


def test_diff_before_the_pass_is_refused(clock):
    drill("start", "unbroadcast")
    text = said(drill("diff", code=2))
    assert "has not passed yet" in text and "--peek" in text and "drill give-up" in text
    drill("diff", "unbroadcast", code=2)
    assert not active().assisted


def test_diff_peek_shows_both_columns_and_marks_the_attempt_assisted(clock):
    drill("start", "unbroadcast")
    result = drill("diff", "--peek")
    text = said(result)
    assert "Peeking" in text and "assisted" in text
    assert "yours (" in text and "reference" in text
    assert 'raise NotImplementedError("unbroadcast")' in text  # your side: still the stub
    assert "grad.sum(axis=0)" in text  # the reference side
    assert active().assisted


def test_diff_after_abandon_needs_peek_and_shows_the_archived_file(clock, workspace):
    drill("start", "unbroadcast")
    mine = REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)")
    (workspace / "unbroadcast.py").write_text(mine, encoding="utf-8")
    drill("abandon")
    assert "abandoned before it passed" in said(drill("diff", "unbroadcast", code=2))
    text = said(drill("diff", "unbroadcast", "--peek"))
    assert "sum(axis=-1)" in text and ".archive" in text


def test_diff_peek_says_assisted_only_when_it_marks_the_attempt(clock, workspace):
    drill("start", "unbroadcast")
    drill("abandon")
    text = said(drill("diff", "unbroadcast", "--peek"))
    assert ("marked assisted" in text) == latest().assisted


def test_diff_of_a_target_never_attempted(clock):
    assert "never attempted arith" in said(drill("diff", "arith", code=2))
    assert "Did you mean" in said(drill("diff", "arth", code=2))


# ---------------------------------------------------------------------------- hints


def test_hint_reveals_one_more_per_call_and_the_scoreboard_says_assisted(clock, workspace):
    drill("start", "unbroadcast")
    hints = CATALOG.get("unbroadcast").hints
    for n in range(1, len(hints) + 1):
        result = drill("hint")
        shown = re.findall(r"hint (\d+) \(unbroadcast\)", result.output)
        assert shown == [str(i) for i in range(1, n + 1)]
        assert " ".join(hints[n - 1].split()) in said(result)
        if n < len(hints):
            assert f"{len(hints) - n} more: drill hint unbroadcast" in said(result)
            assert "assisted" in said(result)
        else:
            assert "last hint" in said(result) and "--peek" in said(result)
    assert active().assisted
    clock.advance(100)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "1:40", "−3:20", "-", "1", "yes"]
    assert "new personal best" not in said(result)


def test_hint_outside_an_attempt(clock):
    assert "drill hint TARGET" in said(drill("hint", code=2))
    result = drill("hint", "arith")
    assert re.findall(r"hint (\d+) \(arith\)", result.output) == [
        str(i) for i in range(1, len(CATALOG.get("arith").hints) + 1)
    ]
    assert "Did you mean 'arith'" in said(drill("hint", "arihh", code=2))


def test_hint_for_another_target_than_the_attempt(clock):
    drill("start", "unbroadcast")
    assert "not arith" in said(drill("hint", "arith", code=2))
    assert not active().assisted


# ---------------------------------------------------------------------------- stats


def test_stats_shows_attempts_best_median_trend_and_share(clock):
    at = T0 - 10 * 86_400
    for seconds in (400, 200, 350):
        seed("unbroadcast", seconds, at=at)
        at += 86_400
    seed("unbroadcast", 500, at=at, outcome="gave-up")
    at += 86_400
    for seconds in (250, 300, 100):
        seed("unbroadcast", seconds, at=at)
        at += 86_400
    seed("unbroadcast", 5, at=at, outcome="abandoned")
    result = drill("stats")
    assert row(result, "target")[:7] == ["target", "target", "attempts", "best", "median 5", "trend", "≤ target"]
    cells = row(result, "unbroadcast")
    assert cells[:5] == ["unbroadcast", "5:00", "7", "1:40", "4:10"]  # median of 3:20 5:50 4:10 5:00 1:40
    trend, share = cells[5], cells[6]
    assert len(trend) == 6 and set(trend) <= set(SPARKS)
    assert trend[0] == SPARKS[-1] and trend[-1] == SPARKS[0]  # 6:40 the tallest, 1:40 the lowest
    assert share == "57%"  # 4 of 7 attempts at or under 5:00
    assert row(result, "arith") == ["arith", "10:00", "0", "-", "-", "-"]
    assert row(result, "full")[:3] == ["full", "45:00", "0"]
    assert "median 5" in said(result) and "share of attempts" in said(result)

    one = drill("stats", "unbroadcast")
    assert row(one, "unbroadcast")[:5] == cells[:5]
    assert "arith" not in one.output
    assert "Did you mean" in said(drill("stats", "unbroadcst", code=2))


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
    rows = {target.id: row(result, target.id) for target in CATALOG.targets}
    split = [last.id, format_time(last.target_time), "5:00", delta(300 - last.target_time).plain, "5:00 ★", "1", "no"]
    assert rows[last.id] == split  # a best split
    first_batch = [rows[t.id][2] for t in first]
    assert sorted(first_batch) == ["0:00"] * (len(first) - 1) + ["10:00"]  # one split of 10:00 and ties
    table_order = [line.split("│")[1].strip() for line in result.output.splitlines() if line.count("│") > 6]
    assert table_order[-2:] == [last.id, "total"]  # in pass order, the total last
    assert row(result, "total") == ["total", format_time(CATALOG.full_time), "15:00", under, "15:00", "1", "no"]
    assert "Sum of best splits: 15:00" in text

    attempt = latest()
    assert attempt.outcome == "passed" and attempt.time == 900
    assert set(attempt.splits) == {t.id for t in CATALOG.targets}
    full_row = rf"^full\s.*{format_time(CATALOG.full_time)}\s+15:00\s+15:00\s+1\s+in \d+ days?\s*$"
    assert re.search(full_row, drill("list").output, re.M)


def test_the_fast_paths_answer_as_the_commands_do(workspace):
    """drill, drill list and drill status skip typer when run bare (drills.cli.main): as a user runs them."""
    for args in ([], ["list"]):
        proc = start_child(*args)
        output, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, output
        assert "Next: drill start unbroadcast" in " ".join(output.split())
    proc = start_child("status")
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "No attempt in progress" in output and "Traceback" not in output
    drill("start", "backward")
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


def start_child(*args: str) -> subprocess.Popen[str]:
    """``python -m drills ARGS`` in its own process group (so that a hang can be ended with its children),
    stderr in stdout. DRILL_HOME and DRILL_WORKSPACE: set by the autouse fixture."""
    return spawn_drill(*args, env={"COLUMNS": "500"}, stderr=subprocess.STDOUT)


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
    proc = start_child("check")
    try:
        output, _ = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        output = None
    finally:
        end_child(proc)
    assert output is not None, "drill check still grading after 20 s"
    assert proc.returncode == 1 and "unbroadcast" in output
    assert "was stopped" in output and "an infinite loop?" in output


# ---------------------------------------------------------------------------- drill watch, for real


def test_watch_regrades_on_save_and_ends_with_the_scoreboard(workspace):
    drill("start", "unbroadcast")  # the real clock: the watch child reads it too
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
    assert re.search(r"│ unbroadcast │ 5:00 │ \d+:\d\d │ −\d+:\d\d │ \d+:\d\d │ 1 │ no │", text), text
    assert "new personal best" in text
    attempt = latest()
    assert attempt.outcome == "passed" and set(attempt.splits) == {"unbroadcast"}
