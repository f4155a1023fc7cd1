"""Any console (issue 24, point 7): output never fails on an encoding, and an editor that cannot be
started is refused before the clock starts.

Every command is run in a real child with ``PYTHONIOENCODING=cp1252`` (a Windows console's code
page) and its output redirected to a pipe, as in CI or ``drill stats > file``: before, ``check``,
``status``, ``stats``, ``review``, ``grade`` and ``start`` died of UnicodeEncodeError there. What cp1252
cannot hold is written as an ASCII look-alike (drills/ascii_fallback.py).

A user's whole session (35 commands) runs in one child interpreter that calls drill's entry point
(``autograd_drill.entry.main``, what ``python -m autograd_drill`` runs) once per command on the same cp1252 pipes,
as a shell would run them one after the other; its gradings start their own processes as ever. It
runs once per run of the suite, and two tests read it: that no command fails, and that what cp1252
lacks (the chart's, the card's and the verdict's marks) is printed as ASCII. The other tests here
start one ``python -m autograd_drill`` per command.
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
from tests.support import REFERENCE, ROOT, active, drill, once_per_run, said

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


def _session(folder: Path) -> list[tuple[tuple[str, ...], int]]:
    """A user's session, in order: each command and its exit status. A given-up attempt and an
    attempt in progress with a failing file give the tables, charts, diffs and reports something
    to draw (their marks, boxes, ✓ and ✗ are what cp1252 lacks)."""
    failing = folder / "failing.py"
    failing.write_text(REFERENCE.read_text(encoding="utf-8").replace("keepdims=True", "keepdims=False"))
    exported = folder / "history.json"
    return [
        (("--help",), 0),
        (("grade", "--help"), 0),
        (("list",), 0),
        (("status",), 0),
        (("ladder",), 0),
        (("next",), 0),
        (("review", "softmax"), 0),
        (("review", "unbroadcast"), 0),
        (("show", "unbroadcast"), 0),
        (("start", "unbroadcast"), 0),
        (("hint",), 0),
        (("status",), 0),
        (("give-up",), 0),
        (("chart", "unbroadcast"), 0),
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
        (("grade", str(REFERENCE), "-t", "unbroadcast", "--json"), 0),
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


@pytest.fixture
def cp1252_session(run_folder: Path) -> dict[str, object]:
    """The session (``_session``) run once per run of the suite, in a data folder of its own: the
    commands, the interpreter's exit status, and its stdout and stderr (bytes kept as latin-1 text,
    read back as cp1252 by the tests). Both tests below read it: the second looks at what four of
    its commands printed, which it ran in children of its own before."""

    def make() -> dict[str, object]:
        folder = run_folder / "cp1252-session"
        folder.mkdir(parents=True, exist_ok=True)
        session = _session(folder)
        steps = [
            ["write", str(folder / "failing.py"), str(folder / "solutions" / "unbroadcast.py")]
            if args == ("write", "failing")
            else list(args)
            for args, _ in session
        ]
        home = {"DRILL_HOME": str(folder / "drill-home"), "DRILL_WORKSPACE": str(folder / "solutions")}
        proc = subprocess.run(
            [sys.executable, "-c", SESSION, json.dumps(steps)],
            cwd=ROOT,
            env={**os.environ, **CP1252, **home},
            input=b"",
            capture_output=True,
            timeout=600,
        )
        ran = [[list(args), code] for args, code in session if args != ("write", "failing")]
        out, err = proc.stdout.decode("latin-1"), proc.stderr.decode("latin-1")
        return {"returncode": proc.returncode, "ran": ran, "stdout": out, "stderr": err}

    return once_per_run(run_folder, "cp1252-session", make)


def _outputs(session: dict[str, object]) -> tuple[str, list[tuple[tuple[str, ...], int, str, str]]]:
    """Everything the session printed (read as cp1252: every byte of it must be), and for each
    command its arguments, its expected status, the status it gave and what it printed."""
    out = str(session["stdout"]).encode("latin-1").decode("cp1252")
    err = str(session["stderr"]).encode("latin-1").decode("cp1252")
    outs, errs = out.split(END), err.split(END)
    ran = [(tuple(args), code) for args, code in session["ran"]]  # type: ignore[attr-defined]
    assert len(outs) == len(errs) == len(ran) + 1, (out + err)[-3000:]
    commands = []
    for i, (args, code) in enumerate(ran):  # outs[i + 1] starts with command i's status, then command i + 1's output
        status = outs[i + 1].partition("\n")[0]
        shown = (outs[i] if i == 0 else outs[i].partition("\n")[2]) + errs[i].removeprefix("\n")
        commands.append((args, code, status, shown))
    return out + err, commands


def test_every_command_writes_cp1252_to_a_pipe(cp1252_session):
    everything, commands = _outputs(cp1252_session)
    assert cp1252_session["returncode"] == 0, everything
    for args, code, status, shown in commands:
        assert "Traceback" not in shown and "UnicodeEncodeError" not in shown, f"drill {' '.join(args)}:\n{shown}"
        assert status == str(code), f"drill {' '.join(args)} exited {status}:\n{shown}"


def test_what_cp1252_lacks_reads_as_ascii(cp1252_session):
    """The report's ✓/✗, the chart's markers and frame, the card's x̄: each an ASCII stand-in, not ``?``
    (what the session's commands printed on cp1252: the chart of a given-up attempt, the card, the
    reference's verdict and its JSON; the card once more in UTF-8, to count its own question marks)."""
    _, commands = _outputs(cp1252_session)
    shown: dict[tuple[str, ...], str] = {}
    for args, _, _, text in commands:
        shown.setdefault(args, text)  # a command's first run: the chart before the second attempt
    chart = shown["chart", "unbroadcast"]
    assert "x gave up" in chart and "+---" in chart and "?" not in chart
    card = shown["review", "unbroadcast"]
    in_utf8 = run_cp1252("review", "unbroadcast", env={"PYTHONIOENCODING": "utf-8"}).stdout.decode("utf-8")
    assert "x_bar" in card and "x̄" in in_utf8 and card.count("?") == in_utf8.count("?")  # its questions only
    graded = shown["grade", str(REFERENCE), "-t", "unbroadcast"]
    assert " v unbroadcast" in graded
    as_json = shown["grade", str(REFERENCE), "-t", "unbroadcast", "--json"]
    assert json.loads(as_json)["passed"] is True


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
