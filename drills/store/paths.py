"""Where things live: the user's data (history, interviews) and workspace (solution files), and how a
path is printed.

The workspace is, first to last: ``--workspace``, ``$DRILL_WORKSPACE``, the clone's ``solutions/``
when this code runs from a source checkout, ``$DRILL_HOME/workspace`` when ``$DRILL_HOME`` is set, and
otherwise one per-user folder, ``autograd-drill`` in the user's documents folder (platformdirs): the
files there are the user's own, opened in an editor, so they sit where a user finds them, not in
the hidden application data beside the history. A relative override is resolved against the current
folder once (an attempt stores its file's absolute path: ``drill check`` from anywhere finds it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

APP = "autograd-drill"
HOME_ENV = "DRILL_HOME"
WORKSPACE_ENV = "DRILL_WORKSPACE"
INSTALLED_UNDER = {"site-packages", "dist-packages"}
"""A folder with one of these names between the code and a pyproject.toml: an installed copy, not a clone."""


@dataclass(frozen=True)
class Place:
    """A folder or file the tool uses, and why it is that one (``drill where``)."""

    path: Path
    source: str
    """``--workspace``, ``$DRILL_WORKSPACE``, ``$DRILL_HOME``, ``clone`` or ``per-user default``."""


def absolute(path: Path) -> Path:
    """``path`` with ``~`` expanded, against the current folder when relative (symlinks kept as named)."""
    return Path(os.path.abspath(path.expanduser()))


def clone_root() -> Path | None:
    """The source checkout this code runs from (a clone, or an editable install of one): the nearest
    folder above this file holding autograd-drill's pyproject.toml and a ``solutions/`` folder, not
    reached through a site-packages folder; None when installed."""
    return _clone_of(Path(__file__).resolve())


@cache
def _clone_of(here: Path) -> Path | None:
    import tomllib

    for folder in here.parents:
        if INSTALLED_UNDER & set(here.relative_to(folder).parts):
            return None
        project = folder / "pyproject.toml"
        if project.is_file() and (folder / "solutions").is_dir():
            try:
                name = tomllib.loads(project.read_text(encoding="utf-8")).get("project", {}).get("name")
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            if name == APP:
                return folder
    return None


def data_place() -> Place:
    """``$DRILL_HOME``, else the platform's user data directory (platformdirs)."""
    if os.environ.get(HOME_ENV):
        return Place(absolute(Path(os.environ[HOME_ENV])), f"${HOME_ENV}")
    from platformdirs import user_data_dir

    return Place(Path(user_data_dir(APP, appauthor=False)), "per-user default")


def data_dir() -> Path:
    return data_place().path


def history_path() -> Path:
    return data_dir() / "history.sqlite3"


def interviews_folder() -> Path:
    """Where transcripts (and, under ``answers/``, the answer files) are written: never deleted."""
    return data_dir() / "interviews"


def workspace_place(override: Path | None = None) -> Place:
    """The folder solution files are written in, and why (the module's docstring gives the order)."""
    if override is not None:
        return Place(absolute(override), "--workspace")
    if os.environ.get(WORKSPACE_ENV):
        return Place(absolute(Path(os.environ[WORKSPACE_ENV])), f"${WORKSPACE_ENV}")
    root = clone_root()
    if root is not None:
        return Place(root / "solutions", "clone")
    if os.environ.get(HOME_ENV):
        return Place(data_dir() / "workspace", f"${HOME_ENV}")
    from platformdirs import user_documents_dir

    return Place(Path(user_documents_dir()) / APP, "per-user default")


def default_workspace() -> Path:
    """The workspace when no ``--workspace`` is given: ``workspace_place``'s."""
    return workspace_place().path


def display(path: Path) -> str:
    """A path as the user can use it from here: relative to the current folder when inside it, else
    absolute (from ``/`` as the current folder, absolute too: ``/tmp/x``, not ``tmp/x``)."""
    try:
        full = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: its folder, resolved, and its own name
        full = path.parent.resolve() / path.name
    try:
        here = Path.cwd().resolve()
    except OSError:  # the current folder was deleted
        return str(full)
    if here.parent != here:  # not the root of a drive
        try:
            return str(full.relative_to(here))
        except ValueError:
            pass
    return str(absolute(path))  # as the user named it (a symlinked folder keeps its name)


def atomic_write(path: Path, text: str | bytes) -> None:
    """Write ``text`` (UTF-8; bytes as they are) to ``path`` so that a crash leaves the old file or the
    new one, never half of one."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
