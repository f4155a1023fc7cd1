"""Opening the user's editor (``drill start --edit``, an interview's answer): the command found on PATH,
``$EDITOR`` split by the platform's rules (POSIX shell words; Windows: a quoted path loses its quotes,
backslashes stay, ``code`` run as the ``code.cmd`` PATH has), VS Code's integrated terminal detected,
and one line when there is no editor to start (issue 27, point 5). Windows is simulated: the command
is built with ``windows=True`` and a PATH lookup of Windows paths."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from autograd_drill.loop.editor import EditorProblem, editor_command, split_windows
from tests.support import active, drill, one_line_error

FILE = Path("/work/solutions/unbroadcast.py")
CODE_CMD = r"C:\Users\me\AppData\Local\Programs\Microsoft VS Code\bin\code.CMD"


def built(editor: str | None, windows: bool, found: dict[str, str], wait: bool = False, **env: str) -> list[str]:
    """The command for ``$EDITOR=editor``, where PATH holds ``found`` (a name typed: the file found)."""
    environ = {**env, **({"EDITOR": editor} if editor is not None else {})}
    return editor_command(FILE, 12, wait, environ, windows, found.get)


@pytest.mark.parametrize(
    ("editor", "found", "argv"),
    [
        ("vim", {"vim": "/usr/bin/vim"}, ["/usr/bin/vim", "+12", str(FILE)]),
        ("code --wait", {"code": "/usr/bin/code"}, ["/usr/bin/code", "--wait", "--goto", f"{FILE}:12"]),
        ("'/opt/My Editor/ed' -n", {"/opt/My Editor/ed": "/opt/My Editor/ed"}, ["/opt/My Editor/ed", "-n", str(FILE)]),
        ('"/opt/e x/nvim"', {"/opt/e x/nvim": "/opt/e x/nvim"}, ["/opt/e x/nvim", "+12", str(FILE)]),
    ],
)
def test_posix_splits_shell_words_and_finds_the_program_on_path(editor, found, argv):
    assert built(editor, False, found) == argv


@pytest.mark.parametrize(
    ("editor", "found", "argv"),
    [
        ("code --wait", {"code": CODE_CMD}, [CODE_CMD, "--wait", "--goto", f"{FILE}:12"]),  # its .cmd, from PATH
        (f'"{CODE_CMD}" --wait', {CODE_CMD: CODE_CMD}, [CODE_CMD, "--wait", "--goto", f"{FILE}:12"]),  # no quotes kept
        (r"C:\tools\vim\vim.exe", {r"C:\tools\vim\vim.exe": r"C:\tools\vim\vim.exe"}, [r"C:\tools\vim\vim.exe", "+12", str(FILE)]),
        ("notepad", {"notepad": r"C:\Windows\notepad.exe"}, [r"C:\Windows\notepad.exe", str(FILE)]),
        ("code", {"code": CODE_CMD[:-4], "code.cmd": CODE_CMD}, [CODE_CMD, "--goto", f"{FILE}:12"]),  # not its sh script
    ],
)  # fmt: skip
def test_windows_splits_by_its_rules_and_runs_code_as_its_cmd(editor, found, argv):
    assert built(editor, True, found) == argv


@pytest.mark.parametrize(
    ("line", "words"),
    [  # the examples of Microsoft's "Parsing C command-line arguments"
        ('"a b c" d e', ["a b c", "d", "e"]),
        (r'"ab\"c" "\\" d', ['ab"c', "\\", "d"]),
        (r'a\\\b d"e f"g h', [r"a\\\b", "de fg", "h"]),
        (r"a\\\"b c d", [r"a\"b", "c", "d"]),
        (r'a\\\\"b c" d e', [r"a\\b c", "d", "e"]),
        ("  spaced   out  ", ["spaced", "out"]),
        ('""', [""]),
    ],
)
def test_the_windows_rules_split_as_windows_does(line, words):
    assert split_windows(line) == words


def test_vs_codes_terminal_opens_vs_code_at_the_line_and_waits_only_when_asked():
    code = {"code": "/usr/bin/code"}
    assert built(None, False, code, TERM_PROGRAM="vscode") == ["/usr/bin/code", "-g", f"{FILE}:12"]
    assert built(None, False, code, True, TERM_PROGRAM="vscode") == ["/usr/bin/code", "--wait", "-g", f"{FILE}:12"]
    assert built(None, True, {"code": CODE_CMD}, TERM_PROGRAM="vscode")[0] == CODE_CMD
    assert (
        built("vim", False, {"vim": "/usr/bin/vim", **code}, TERM_PROGRAM="vscode")[0] == "/usr/bin/vim"
    )  # $EDITOR first


@pytest.mark.parametrize(
    ("editor", "windows", "env", "said"),
    [
        (None, False, {}, "no editor: set $EDITOR (or $VISUAL)"),
        (None, False, {"TERM_PROGRAM": "vscode"}, "its code command is not on PATH"),
        ("nope --wait", False, {}, "cannot start the editor 'nope' ($EDITOR): no such command"),
        ("code --wait", True, {}, "cannot start the editor 'code' ($EDITOR): no such command"),
        ("'vim", False, {}, "cannot read $EDITOR"),
        ('"C:\\vim', True, {}, "cannot read $EDITOR"),
        ("  ", False, {}, "$EDITOR is blank"),
    ],
)
def test_no_editor_to_start_is_one_line(editor, windows, env, said):
    with pytest.raises(EditorProblem, match=said.replace("$", r"\$").replace("(", r"\(").replace(")", r"\)")) as caught:
        built(editor, windows, {}, **env)
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------------------- a real launch

pytestmark_posix = pytest.mark.skipif(os.name == "nt", reason="a fake editor run by its shebang: POSIX")


def fake(bin_dir: Path, name: str) -> Path:
    """A program ``name`` in ``bin_dir`` that records the arguments it was given in ``name.argv``."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(
        f"#!{sys.executable}\nimport json, sys\nopen(sys.argv[0] + '.argv', 'w').write(json.dumps(sys.argv[1:]))\n"
    )
    script.chmod(0o755)
    return script


@pytestmark_posix
def test_drill_start_edit_launches_an_editor_named_by_its_name_on_path(clock, workspace, monkeypatch, tmp_path):
    recorder = fake(tmp_path / "bin", "my-editor")
    monkeypatch.setenv("PATH", f"{recorder.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "my-editor --new-window")
    drill("start", "unbroadcast", "--edit")
    assert json.loads(Path(f"{recorder}.argv").read_text()) == ["--new-window", str(active().file)]


@pytestmark_posix
def test_drill_start_edit_in_vs_codes_terminal_opens_code_at_the_first_todo(clock, workspace, monkeypatch, tmp_path):
    recorder = fake(tmp_path / "bin", "code")
    monkeypatch.setenv("PATH", f"{recorder.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    drill("start", "unbroadcast", "--edit")
    path = active().file
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.strip().startswith("# TODO"))
    assert json.loads(Path(f"{recorder}.argv").read_text()) == ["-g", f"{path}:{line}"]


def test_drill_start_edit_with_no_code_on_path_is_one_line_and_starts_nothing(clock, workspace, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    result = drill("start", "unbroadcast", "--edit", code=2)
    one_line_error(result.output, "code command is not on PATH", "nothing was started")
    assert active() is None
