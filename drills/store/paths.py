"""Where things live: the user's data (history) and workspace (solution files)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
HOME_ENV = "DRILL_HOME"
WORKSPACE_ENV = "DRILL_WORKSPACE"


def data_dir() -> Path:
    """``$DRILL_HOME``, else the platform's user data directory (platformdirs)."""
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("autograd-drill", appauthor=False))


def history_path() -> Path:
    return data_dir() / "history.sqlite3"


def default_workspace() -> Path:
    """``$DRILL_WORKSPACE``, else ``solutions/`` of the clone (or of the current folder, once installed)."""
    if os.environ.get(WORKSPACE_ENV):
        return Path(os.environ[WORKSPACE_ENV]).expanduser()
    if (PROJECT / "pyproject.toml").exists() and (PROJECT / "solutions").is_dir():
        return PROJECT / "solutions"
    return Path.cwd() / "solutions"


def display(path: Path) -> str:
    """A path as short as it can be said: relative to the current folder when inside it."""
    try:
        full = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: its folder, resolved, and its own name
        full = path.parent.resolve() / path.name
    try:
        return str(full.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


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
