"""``--edit`` (and an interview's answer written in an editor): the command that opens a file in the
user's editor, at a line where the editor takes one.

The editor is ``$VISUAL``, else ``$EDITOR`` (it may hold arguments: ``code --wait``), split as the
platform splits a command line: POSIX shell words on POSIX, the Windows rules on Windows (a quoted
path loses its quotes, backslashes stay). Its program is looked up on PATH (``shutil.which``: on
Windows that finds ``code`` as its ``code.cmd``, which a bare ``code`` would not start). With neither
set, in VS Code's integrated terminal (``TERM_PROGRAM=vscode``), VS Code itself: ``code -g FILE:LINE``
(``--wait`` too where the file is read back after). Anything that cannot be started is one line
(``EditorProblem``), never a traceback.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path, PureWindowsPath

PLUS_LINE = {"vim", "nvim", "vi", "gvim", "emacs", "emacsclient", "nano", "micro", "kak", "hx", "helix"}
"""Editors that open a file at line N given ``+N`` before it."""
GOTO = {"code", "code-insiders", "codium", "cursor"}
"""Editors of the VS Code family: ``--goto FILE:N``."""
RUNNABLE = (".exe", ".cmd", ".bat", ".com")
"""What Windows runs a program from (its name in $EDITOR may leave it out)."""
TODO = re.compile(r"^\s*# TODO\b")


class EditorProblem(Exception):
    """Why the editor cannot be started, in one line."""


def user_editor(env: Mapping[str, str] | None = None) -> str | None:
    """The user's editor command: ``$VISUAL``, else ``$EDITOR``; None when neither is set."""
    env = os.environ if env is None else env
    return env.get("VISUAL") or env.get("EDITOR") or None


def split_windows(command: str) -> list[str]:
    """``command`` split as a Windows program splits its command line (CommandLineToArgvW): blanks
    separate words outside double quotes; quotes group and are dropped; a backslash is itself, except
    before a quote (2n backslashes and a quote: n backslashes, the quote groups; 2n+1: n and a quote)."""
    words: list[str] = []
    word: list[str] = []
    quoted, backslashes, started = False, 0, False
    for char in command:
        if char == "\\":
            backslashes, started = backslashes + 1, True
            continue
        if char == '"':
            word.append("\\" * (backslashes // 2))
            if backslashes % 2:
                word.append('"')
            else:
                quoted = not quoted
            backslashes, started = 0, True
            continue
        word.append("\\" * backslashes)
        backslashes = 0
        if char in " \t" and not quoted:
            if started:
                words.append("".join(word))
            word, started = [], False
            continue
        word.append(char)
        started = True
    word.append("\\" * backslashes)
    if quoted:
        raise ValueError("no closing quotation")
    if started:
        words.append("".join(word))
    return words


def find_program(name: str, windows: bool, which: Callable[[str], str | None] = shutil.which) -> str | None:
    """The program ``name`` on PATH. On Windows, one Windows can run: VS Code's bin folder holds both
    ``code`` (a shell script, for WSL and Git Bash) and ``code.cmd``, and CreateProcess runs only the
    latter (``shutil.which`` may return either, depending on the Python)."""
    found = which(name)
    if not windows or (found is not None and PureWindowsPath(found).suffix.lower() in RUNNABLE):
        return found
    runnable = (which(f"{name}{suffix}") for suffix in RUNNABLE)
    return next((path for path in runnable if path is not None), found)


def program_name(program: str, windows: bool) -> str:
    """The editor's name, to know how it takes a line: ``code`` for ``C:\\...\\bin\\code.cmd``."""
    name = (PureWindowsPath(program) if windows else Path(program)).name.lower()
    for suffix in RUNNABLE if windows else ():
        name = name.removesuffix(suffix)
    return name


def editor_argv(argv: list[str], path: Path, line: int | None, windows: bool = False) -> list[str]:
    """The editor command ``argv`` opening ``path``, at ``line`` where the editor is known to take one;
    any other editor gets just the file."""
    name = program_name(argv[0], windows) if argv else ""
    if line is not None and name in PLUS_LINE:
        return [*argv, f"+{line}", str(path)]
    if line is not None and name in GOTO:
        return [*argv, "--goto", f"{path}:{line}"]
    return [*argv, str(path)]


def editor_command(
    path: Path,
    line: int | None,
    wait: bool = False,
    env: Mapping[str, str] | None = None,
    windows: bool | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str]:
    """The command that opens ``path`` at ``line`` in the user's editor, its program found on PATH;
    ``wait``: the caller reads the file back once the editor is closed (VS Code, found by its
    terminal, is then told ``--wait``). An EditorProblem says in one line why there is none."""
    env = os.environ if env is None else env
    windows = os.name == "nt" if windows is None else windows
    named = "$VISUAL" if env.get("VISUAL") else "$EDITOR"
    editor = user_editor(env)
    if not editor:
        if env.get("TERM_PROGRAM") != "vscode":
            raise EditorProblem("no editor: set $EDITOR (or $VISUAL)")
        code = find_program("code", windows, which)
        if code is None:
            raise EditorProblem("VS Code's terminal, but its code command is not on PATH: set $EDITOR, or install it")
        where = str(path) if line is None else f"{path}:{line}"
        return [code, *(["--wait"] if wait else []), "-g", where]
    try:
        argv = split_windows(editor) if windows else shlex.split(editor)
    except ValueError as exc:  # an unbalanced quote
        raise EditorProblem(f"cannot read {named} ({editor!r}): {exc}") from None
    if not argv:
        raise EditorProblem(f"{named} is blank")
    found = find_program(argv[0], windows, which)
    if found is None:
        raise EditorProblem(f"cannot start the editor {argv[0]!r} ({named}): no such command")
    return editor_argv([found, *argv[1:]], path, line, windows)


def editor_problem(wait: bool = False) -> str | None:
    """Why the user's editor cannot be started, in a few words; None when it can (its command is
    found). Asked before a drill's clock starts, so that an editor that cannot run starts nothing."""
    try:
        editor_command(Path("file.py"), None, wait)
    except EditorProblem as exc:
        return str(exc)
    return None


def first_todo(text: str) -> int | None:
    """The line number (from 1) of the first TODO a stub leaves, if any."""
    return next((n for n, line in enumerate(text.splitlines(), 1) if TODO.match(line)), None)
