"""Undoing a ``drill start`` that was not recorded (drills/loop/session.py ``start``): its stub goes,
the file it archived comes back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from autograd_drill.store.attempt import file_sha256
from autograd_drill.store.faults import HistoryError
from autograd_drill.store.history import History


def recorded(history: History, path: Path, now: float) -> bool:
    """The start at ``now`` is in the history after all (interrupted once committed)."""
    try:
        active = history.active()
    except (sqlite3.Error, HistoryError):
        return False
    return active is not None and active.file == path.resolve() and active.started_at == float(now)


def unwrite(path: Path, done: dict[str, Path | str | None]) -> None:
    """Undo what a start that was not recorded wrote: its stub goes (only if it is still that very
    file: a racing start's stub stays), the file it archived comes back. A user's file is never deleted."""
    try:
        ours = "sha256" in done and str(path.stat().st_ino) == done["inode"] and file_sha256(path) == done["sha256"]
    except OSError:
        ours = False
    if ours:
        path.unlink()
    archived = done.get("archived")
    if isinstance(archived, Path) and archived.exists() and not path.exists():
        archived.replace(path)
        try:
            archived.parent.rmdir()  # the .archive/ folder, if this start made it
        except OSError:
            pass
