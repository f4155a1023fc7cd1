"""The ``drill`` commands that start and grade an attempt (drill, list, start, check, status), through
typer's CliRunner, with a MockClock injected as ``autograd_drill.cli.CLOCK`` (advanced between commands to
simulate minutes passing). tests/test_cli_attempt.py has the rest of an attempt's commands,
tests/test_cli_full.py the full drill and the commands run in processes of their own.

User state lives under tmp_path (tests/conftest.py sets DRILL_HOME and DRILL_WORKSPACE). Grading
is real: each ``check`` runs the oracle suite in a child, a fork of drill watch's warm grading
worker (tests/conftest.py, ``warm_runner``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from autograd_drill import cli
from autograd_drill.grader.catalog import format_time
from autograd_drill.loop.stubs import stub_for
from autograd_drill.store.paths import history_path
from tests.support import CATALOG, REFERENCE_SOURCE, T0, active, drill, latest, open_store, row, said, seed

# Wide enough that rich wraps nothing asserted on; a check grades in a fork of the warm worker.
pytestmark = pytest.mark.usefixtures("wide_terminal", "warm_grading")


# ---------------------------------------------------------------------------- drill, drill list


def test_drill_alone_shows_the_catalog_and_the_next_step(clock):
    result = drill()
    text = said(result)
    assert "autograd-drill" in text
    for target in CATALOG.targets:
        assert re.search(rf"^{re.escape(target.id)}\s", result.output, re.M), target.id
    assert "Tensor.__init__" in text and "_topological_order" in text and "cross_entropy" in text
    assert re.search(rf"^full\s.*{format_time(CATALOG.full_time)}", result.output, re.M)
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
    assert re.search(r"^unbroadcast\s+recall\s.*5:00\s+2:30\s+3:20\s+3\s+in 1 day\s*$", lines["unbroadcast"])
    # given up before its first pass from memory: down to cloze, still learning, due now
    assert re.search(r"^backward\s+cloze\s.*10:00\s+-\s+gave up\s+1\s+now\s*$", lines["backward"])
    assert re.search(r"^arith\s+copy\s.*10:00\s+-\s+-\s+0\s+now\s*$", lines["arith"])  # never drilled: copy
    assert re.search(
        rf"^full\s+recall\s.*{format_time(CATALOG.full_time)}\s+33:20\s+33:20\s+1\s+in 2 days\s*$", lines["full"]
    )
    assert "Next: drill start backward" in said(result)  # nothing overdue: the ladder goes on first


# ---------------------------------------------------------------------------- start, full


def test_start_writes_the_stub_into_the_workspace_and_starts_the_timer(clock, workspace):
    result = drill("start", "unbroadcast", "--rung", "recall")
    path = workspace / "unbroadcast.py"
    assert path.exists()
    assert path.read_text(encoding="utf-8") == stub_for(["unbroadcast"], "target unbroadcast", drills=["unbroadcast"])
    text = said(result)
    assert str(path) in text
    assert "unbroadcast is blank" in text and "Rung: recall" in text
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
    result = drill("start", "backward", "--rung", "recall", "--workspace", str(elsewhere))
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


def test_start_edit_without_an_editor_starts_nothing(clock, workspace, monkeypatch):
    """Refused before the clock starts (issue 24): tests/test_consoles.py has an editor that cannot be found."""
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    text = said(drill("start", "unbroadcast", "--edit", code=2))
    assert "$EDITOR" in text and "nothing was started" in text
    assert not (workspace / "unbroadcast.py").exists() and active() is None


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
    drill("start", "backward", "--rung", "recall")
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
    drill("start", "unbroadcast", "--rung", "recall")
    clock.advance(222)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    text = said(result)
    assert "✓ unbroadcast passed at 3:42" in text
    assert "target 5:00" in text and "−1:18" in text
    assert "new personal best" in text
    header = row(result, "target")
    assert header == ["target", "target", "time", "Δ", "Δ best", "best", "attempts", "assisted"]
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "3:42", "−1:18", "-", "3:42", "1", "no"]
    assert "Next: drill diff unbroadcast" in text
    attempt = latest()
    assert attempt.outcome == "passed" and attempt.time == 222

    clock.advance(600)
    assert "No attempt in progress" in said(drill("status"))
    assert re.search(r"^unbroadcast\s.*5:00\s+3:42\s+3:42\s+1\s+in \d+ days?\s*$", drill("list").output, re.M)


def test_check_passing_slower_than_the_best_is_not_a_record(clock, workspace):
    seed("unbroadcast", 60, at=T0 - 86_400)
    result = drill("start", "unbroadcast", "--rung", "recall")
    assert "Your best: 1:00" in said(result)
    clock.advance(400)
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE, encoding="utf-8")
    result = drill("check")
    text = said(result)
    assert "passed at 6:40" in text and "+1:40" in text and "your best 1:00, +5:40" in text
    assert "new personal best" not in text
    assert row(result, "unbroadcast") == ["unbroadcast", "5:00", "6:40", "+1:40", "+5:40", "1:00", "2", "no"]


@pytest.mark.parametrize(
    ("editor", "at_line"),
    [
        *[(name, ["+{line}", "{path}"]) for name in ("vim", "nvim", "vi", "emacs", "nano", "micro", "kak", "hx")],
        ("code", ["--goto", "{path}:{line}"]),
        ("gedit", ["{path}"]),  # unknown: just the file
    ],
)
def test_start_edit_opens_the_editor_at_the_first_todo(clock, workspace, monkeypatch, tmp_path, editor, at_line):
    """$EDITOR is a script of the editor's name that records the arguments it was given."""
    if os.name == "nt":
        pytest.skip("a script named like an editor, run by its shebang: POSIX")
    recorder = tmp_path / "bin" / editor
    recorder.parent.mkdir()
    recorder.write_text(
        f"#!{sys.executable}\nimport json, sys\nopen(sys.argv[0] + '.argv', 'w').write(json.dumps(sys.argv[1:]))\n"
    )
    recorder.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{recorder} --wait" if editor == "code" else str(recorder))
    drill("start", "unbroadcast", "--edit")
    path = workspace / "unbroadcast.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.strip().startswith("# TODO"))
    assert "raise NotImplementedError" in path.read_text().splitlines()[line]  # the TODO is the blank body
    expected = [arg.format(path=path, line=line) for arg in at_line]
    argv = json.loads(Path(f"{recorder}.argv").read_text())
    assert argv == (["--wait", *expected] if editor == "code" else expected)


def test_the_readme_names_every_command():
    import typer.main

    from tests.support import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in typer.main.get_command(cli.app).commands:  # type: ignore[attr-defined]
        assert re.search(rf"`drill {re.escape(name)}\b|/ `{re.escape(name)}`", readme), f"README: no drill {name}"


def test_the_script_that_draws_the_readme_picture_runs(tmp_path):
    """.github/make_scoreboard_svg.py drills unbroadcast for real (a failing check, then a pass) and
    draws the README's picture: it runs on today's tool and the picture shows the pass."""
    import html
    import subprocess

    from tests.support import ROOT

    out = tmp_path / "scoreboard.svg"
    done = subprocess.run(
        [sys.executable, str(ROOT / ".github" / "make_scoreboard_svg.py"), str(out)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    drawn = html.unescape(out.read_text(encoding="utf-8")).replace("\xa0", " ")
    for shown in ("9 of 18 tests failed", "18 tests passed", "passed at 3:41", "new personal best"):
        assert shown in drawn, shown
