"""Any console (issue 24, point 7): output never fails on an encoding, and an editor that cannot be
started is refused before the clock starts.

Every command is run in a real child with ``PYTHONIOENCODING=cp1252`` (a Windows console's code
page) and its output redirected to a pipe, as in CI or ``drill stats > file``: before, ``check``,
``status``, ``stats``, ``review``, ``grade`` and ``start`` died of UnicodeEncodeError there. What cp1252
cannot hold is written as an ASCII look-alike (drills/ascii_fallback.py).

A user's whole session (35 commands) runs in one child interpreter that calls drill's entry point
(``autograd_drill.entry.main``, what ``python -m autograd_drill`` runs) once per command on the same cp1252 pipes,
as a shell would run them one after the other; its gradings start their own processes as ever. The
other tests here start one ``python -m autograd_drill`` per command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_drill.ascii_fallback import ONE, ascii_for
from autograd_drill.views.chart import ASSISTED, GAVE_UP, MARKERS
from tests.support import REFERENCE, ROOT, active, drill, said

CP1252 = {"PYTHONIOENCODING": "cp1252", "COLUMNS": "100"}


def run_cp1252(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "autograd_drill", *args],
        cwd=ROOT,
        env={**os.environ, **CP1252, **(env or {})},
        input=stdin.encode(),
        capture_output=True,
        timeout=600,
    )


def said_cp1252(proc: subprocess.CompletedProcess[bytes]) -> str:
    """What was printed, read as cp1252 (every byte of it must be)."""
    return (proc.stdout + proc.stderr).decode("cp1252")


# ---------------------------------------------------------------------------- every command


def _session(tmp_path: Path) -> list[tuple[tuple[str, ...], int]]:
    """A user's session, in order: each command and its exit status. A given-up attempt and an
    attempt in progress with a failing file give the tables, charts, diffs and reports something
    to draw (their marks, boxes, ✓ and ✗ are what cp1252 lacks)."""
    failing = tmp_path / "failing.py"
    failing.write_text(REFERENCE.read_text(encoding="utf-8").replace("keepdims=True", "keepdims=False"))
    exported = tmp_path / "history.json"
    return [
        (("--help",), 0),
        (("grade", "--help"), 0),
        (("list",), 0),
        (("status",), 0),
        (("ladder",), 0),
        (("next",), 0),
        (("review", "softmax"), 0),
        (("show", "unbroadcast"), 0),
        (("start", "unbroadcast"), 0),
        (("hint",), 0),
        (("status",), 0),
        (("give-up",), 0),
        (("diff",), 0),
        (("start", "unbroadcast"), 0),
        (("write", "failing"), 0),
        (("check",), 1),
        (("status",), 0),
        (("diff", "--peek"), 0),
        (("restore", "--list"), 0),
        (("stats",), 0),
        (("stats", "unbroadcast"), 0),
        (("chart",), 0),
        (("chart", "unbroadcast"), 0),
        (("stats", "--plot"), 0),
        (("export",), 0),
        (("export", "-f", "json", "-o", str(exported)), 0),
        (("import", str(exported)), 0),
        (("interview", "--plan"), 0),
        (("interview", "--list"), 0),
        (("grade", str(REFERENCE), "-t", "unbroadcast"), 0),
        (("grade", str(failing), "-t", "unbroadcast"), 1),
        (("grade", str(failing), "-t", "unbroadcast", "--json"), 1),
        (("abandon",), 0),
        (("pause",), 2),
        (("review", "no-such-target"), 2),
    ]


END = "\x1e end of a command: exit "
"""What the session's interpreter writes to both pipes after each command (ASCII: cp1252 holds it)."""
SESSION = f"""
import atexit, json, shutil, sys, traceback
from autograd_drill.entry import main

atexit.register(lambda: None)  # an exit handler: drill then never leaves at once (entry.leave_at_once), the session goes on

for args in json.loads(sys.argv[1]):
    if args[0] == "write":  # the user saves a wrong unbroadcast
        shutil.copyfile(args[1], args[2])
        continue
    sys.argv = ["drill", *args]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
    except BaseException:
        traceback.print_exc()
        code = "raised"
    sys.stdout.write({END!r} + str(code) + "\\n")
    sys.stdout.flush()
    sys.stderr.write({END!r} + "\\n")
    sys.stderr.flush()
"""
"""Runs each command of argv[1] (a JSON list) through drill's entry point, one after the other."""


def test_every_command_writes_cp1252_to_a_pipe(tmp_path):
    session = _session(tmp_path)
    steps = [
        ["write", str(tmp_path / "failing.py"), str(tmp_path / "solutions" / "unbroadcast.py")]
        if args == ("write", "failing")
        else list(args)
        for args, _ in session
    ]
    proc = subprocess.run(
        [sys.executable, "-c", SESSION, json.dumps(steps)],
        cwd=ROOT,
        env={**os.environ, **CP1252},
        input=b"",
        capture_output=True,
        timeout=600,
    )
    assert proc.returncode == 0, said_cp1252(proc)
    outs = proc.stdout.decode("cp1252").split(END)
    errs = proc.stderr.decode("cp1252").split(END)
    ran = [(args, code) for args, code in session if args != ("write", "failing")]
    assert len(outs) == len(errs) == len(ran) + 1, said_cp1252(proc)[-3000:]
    for i, (args, code) in enumerate(ran):  # outs[i + 1] starts with command i's status, then command i + 1's output
        status = outs[i + 1].partition("\n")[0]
        shown = (outs[i] if i == 0 else outs[i].partition("\n")[2]) + errs[i].removeprefix("\n")
        assert "Traceback" not in shown and "UnicodeEncodeError" not in shown, f"drill {' '.join(args)}:\n{shown}"
        assert status == str(code), f"drill {' '.join(args)} exited {status}:\n{shown}"


def test_what_cp1252_lacks_reads_as_ascii(tmp_path):
    """The report's ✓/✗, the chart's markers and frame, the card's x̄: each an ASCII stand-in, not ``?``."""
    drill("start", "unbroadcast")
    drill("give-up")
    chart = said_cp1252(run_cp1252("chart", "unbroadcast"))
    assert "x gave up" in chart and "+---" in chart and "?" not in chart
    card = said_cp1252(run_cp1252("review", "unbroadcast"))
    in_utf8 = run_cp1252("review", "unbroadcast", env={"PYTHONIOENCODING": "utf-8"}).stdout.decode("utf-8")
    assert "x_bar" in card and "x̄" in in_utf8 and card.count("?") == in_utf8.count("?")  # its questions only
    graded = said_cp1252(run_cp1252("grade", str(REFERENCE), "-t", "unbroadcast"))
    assert " v unbroadcast" in graded
    as_json = run_cp1252("grade", str(REFERENCE), "-t", "unbroadcast", "--json")
    assert json.loads(as_json.stdout)["passed"] is True


def test_the_ascii_stand_ins_keep_a_chart_a_chart():
    """One cell for one cell, and every target's marker still its own."""
    marks = [*MARKERS, GAVE_UP, ASSISTED]
    stand_ins = [ascii_for(m) for m in marks]
    assert all(len(s) == 1 and s.isascii() and s != "?" for s in stand_ins)
    assert len(set(stand_ins[: len(MARKERS)])) == len(MARKERS) and ascii_for(GAVE_UP) not in stand_ins[: len(MARKERS)]
    assert all(len(v) == 1 for v in ONE.values())
    assert [ascii_for(c) for c in "─│┌┼╭"] == ["-", "|", "+", "+", "+"]
    assert ascii_for("\u2800") == " " and ascii_for("\u28ff") == "*" and ascii_for("\u2801") == "."
    assert ascii_for("ᵀ") == "^T" and ascii_for("ȳ") == "y_bar" and ascii_for("漢") == "?"


def test_an_ascii_locale_too():
    proc = run_cp1252("review", "softmax", env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert "sum" in proc.stdout.decode("ascii")


# ---------------------------------------------------------------------------- an editor that cannot be started


@pytest.mark.parametrize(
    ("variable", "editor", "says"),
    [
        ("EDITOR", "no-such-editor-for-drill", "cannot start the editor 'no-such-editor-for-drill' ($EDITOR)"),
        ("VISUAL", "/nowhere/vim --wait", "cannot start the editor '/nowhere/vim' ($VISUAL)"),
        ("EDITOR", 'vim "unbalanced', "cannot read $EDITOR"),
        ("EDITOR", "   ", "$EDITOR is blank"),
    ],
)
def test_an_editor_that_cannot_start_starts_nothing(variable, editor, says, workspace, monkeypatch, wide_terminal):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv(variable, editor)
    result = drill("start", "unbroadcast", "--edit", code=2)
    text = said(result)
    assert says in text and "nothing was started" in text and result.exception is not None
    assert isinstance(result.exception, SystemExit) and len(result.output.strip().splitlines()) == 1
    assert active() is None and not (workspace / "unbroadcast.py").exists()
    drill("start", "unbroadcast")  # then, without --edit, it starts
    assert active() is not None


def test_an_editor_that_cannot_start_in_a_child_is_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "autograd_drill", "full", "--edit"],
        cwd=ROOT,
        env={**os.environ, "EDITOR": "no-such-editor-for-drill", "VISUAL": "", "COLUMNS": "300"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert active() is None


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [["list"], ["next"], ["status"], ["stats"], ["status", "--help"], ["grade", "--help"]])
def test_an_output_that_cannot_be_written_is_one_line_not_a_traceback(args: list[str]) -> None:
    """``drill list > /dev/full``: the disk behind stdout is full; the fast paths and the app alike."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "autograd_drill", *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == "error: the output could not be written: No space left on device\n"
