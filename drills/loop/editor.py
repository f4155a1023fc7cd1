"""``--edit``: the command that opens a solution file in the user's editor at its first TODO line."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

PLUS_LINE = {"vim", "nvim", "vi", "gvim", "emacs", "emacsclient", "nano", "micro", "kak", "hx", "helix"}
"""Editors that open a file at line N given ``+N`` before it."""
GOTO = {"code", "code-insiders", "codium", "cursor"}
"""Editors of the VS Code family: ``--goto FILE:N``."""
TODO = re.compile(r"^\s*# TODO\b")


def user_editor() -> str | None:
    """The user's editor command: ``$VISUAL``, else ``$EDITOR``; None when neither is set."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or None


def editor_problem() -> str | None:
    """Why ``$VISUAL``/``$EDITOR`` cannot be started, in a few words; None when it can (its command
    is found). Asked before a drill's clock starts, so that an editor that cannot run starts nothing."""
    name = "$VISUAL" if os.environ.get("VISUAL") else "$EDITOR"
    editor = user_editor()
    if not editor:
        return "--edit needs $EDITOR (or $VISUAL) set"
    try:
        argv = shlex.split(editor, posix=os.name != "nt")
    except ValueError as exc:  # an unbalanced quote
        return f"cannot read {name} ({editor!r}): {exc}"
    if not argv:
        return f"{name} is blank"
    if shutil.which(argv[0]) is None:
        return f"cannot start the editor {argv[0]!r} ({name}): no such command"
    return None


def first_todo(text: str) -> int | None:
    """The line number (from 1) of the first TODO a stub leaves, if any."""
    return next((n for n, line in enumerate(text.splitlines(), 1) if TODO.match(line)), None)


def editor_argv(editor: str, path: Path, line: int | None) -> list[str]:
    """``$EDITOR`` (it may hold arguments: ``code --wait``) opening ``path``, at ``line`` where the
    editor is known to take one; any other editor gets just the file."""
    # NOTE: Windows paths in $EDITOR keep their backslashes: POSIX quoting rules only on POSIX.
    argv = shlex.split(editor, posix=os.name != "nt")
    name = Path(argv[0]).name.lower().removesuffix(".exe") if argv else ""
    if line is not None and name in PLUS_LINE:
        return [*argv, f"+{line}", str(path)]
    if line is not None and name in GOTO:
        return [*argv, "--goto", f"{path}:{line}"]
    return [*argv, str(path)]
