"""The ``drill`` commands during and after an attempt: pause, resume, abandon, give up, diff, hint,
stats; through typer's CliRunner with a MockClock (see tests/test_cli.py)."""

from __future__ import annotations

import re

import pytest

from autograd_drill.grader.catalog import format_time
from autograd_drill.views.render import SPARKS, hint_text
from tests.support import CATALOG, REFERENCE_SOURCE, T0, active, drill, latest, open_store, row, said, seed

# Wide enough that rich wraps nothing asserted on; a check grades in a fork of the warm worker.
pytestmark = pytest.mark.usefixtures("wide_terminal", "warm_grading")


# ---------------------------------------------------------------------------- pause, resume


def test_pause_freezes_the_clock_and_check_waits_for_resume(clock):
    drill("start", "unbroadcast", "--rung", "recall")
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


def test_editing_while_paused_earns_no_best_and_says_why(clock, workspace):
    """Issue 23: pause at 0:03, write the solution, resume, check: no best, the reason shown."""
    drill("start", "unbroadcast", "--rung", "recall")
    clock.advance(3)
    drill("pause")
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    clock.advance(600)
    assert "Assisted: edited while paused" in said(drill("resume"))
    assert "Assisted: edited while paused" in said(drill("status"))
    result = drill("check")
    text = said(result)
    assert "passed at 0:03" in text and "new personal best" not in text
    assert "assisted: edited while paused, no best" in text
    assert "Assisted: edited while paused: no best" in text  # under the scoreboard
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "0:03", "−4:57", "-", "-", "1", "yes"]
    assert latest().reason == "edited while paused"
    assert re.search(r"^unbroadcast\s+recall\s.*5:00\s+-\s+0:03\s+1\s", drill("list").output, re.M)
    assert row(drill("stats", "unbroadcast"), "unbroadcast")[:5] == ["unbroadcast", "5:00", "1", "-", "0:03"]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_reason_survives_export_and_import(fmt, clock, workspace, tmp_path, monkeypatch):
    drill("start", "unbroadcast", "--rung", "recall")
    clock.advance(3)
    drill("pause")
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    drill("resume")
    drill("check")
    out = tmp_path / f"history.{fmt}"
    drill("export", "--format", fmt, "--output", str(out))
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "elsewhere"))
    drill("import", str(out))
    attempt = latest()
    assert attempt.assisted and attempt.reason == "edited while paused" and attempt.time == 3


def test_pausing_without_editing_keeps_the_best(clock, workspace):
    drill("start", "unbroadcast", "--rung", "recall")
    clock.advance(20)
    drill("pause")
    clock.advance(600)
    assert "Assisted" not in said(drill("resume"))
    clock.advance(20)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    text = said(drill("check"))
    assert "passed at 0:40" in text and "new personal best" in text and "Assisted" not in text


def test_setting_the_wall_clock_back_or_forward_changes_no_attempt(clock, workspace):
    drill("start", "unbroadcast", "--rung", "recall")
    clock.advance(60)
    clock.set_wall(clock.wall - 2 * 3600)  # set back two hours
    assert "unbroadcast 1:00 target 5:00" in said(drill("status"))
    clock.advance(30)
    clock.suspend(8 * 3600)  # suspended overnight
    clock.set_wall(clock.wall + 3600)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    text = said(drill("check"))
    assert "passed at 1:30" in text and "new personal best" in text


def test_a_reboot_keeps_the_clock_of_the_last_event_and_a_file_changed_since_is_assisted(clock, workspace):
    drill("start", "unbroadcast", "--rung", "recall")
    clock.advance(100)
    drill("check", code=1)  # the stub fails: a clock event at 1:40
    clock.advance(50)
    clock.reboot(120)
    clock.advance(10)
    assert "unbroadcast 1:40 target 5:00" in said(drill("status"))
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    text = said(drill("check"))
    assert "passed at 1:40" in text and "new personal best" not in text
    assert "assisted: changed across a reboot, no best" in text


def test_pause_resume_status_without_an_attempt(clock):
    for command in ("pause", "resume", "abandon", "give-up", "watch"):
        assert "drill start" in said(drill(command, code=2)), command
    # status is a question: with no attempt, the answer is that, and what to start (exit 0)
    assert (
        said(drill("status")) == "No attempt in progress. Next: drill start unbroadcast never drilled (or: drill next)"
    )


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
    drill("start", "unbroadcast", "--rung", "recall")
    hints = CATALOG.get("unbroadcast").hints
    for n in range(1, len(hints) + 1):
        result = drill("hint")
        shown = re.findall(r"hint (\d+) \(unbroadcast\)", result.output)
        assert shown == [str(i) for i in range(1, n + 1)]
        assert " ".join(hint_text(hints[n - 1]).plain.split()) in said(result)  # its *emphasis* drawn, not typed
        if n < len(hints):
            assert f"{len(hints) - n} more: drill hint unbroadcast" in said(result)
            assert "assisted" in said(result)
        else:
            assert "last hint" in said(result) and "--peek" in said(result)
    assert active().assisted
    clock.advance(100)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "1:40", "−3:20", "-", "-", "1", "yes"]
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
    assert row(result, "full")[:3] == ["full", format_time(CATALOG.full_time), "0"]
    assert "median 5" in said(result) and "share of attempts" in said(result)

    one = drill("stats", "unbroadcast")
    assert row(one, "unbroadcast")[:5] == cells[:5]
    assert "arith" not in one.output
    assert "Did you mean" in said(drill("stats", "unbroadcst", code=2))
