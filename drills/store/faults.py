"""What can go wrong with the history's file, in words. Only SQLite saying the file is not a database
(SQLITE_NOTADB), or that its image is malformed (SQLITE_CORRUPT), or a failed integrity check, is
corruption: then the file is set aside (``open_history``). A full disk, a read-only file or folder,
a lock held by another program, a newer schema are faults of the moment: a one-line error naming the
cause and the path, the file left as it is."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

BUSY_ENV = "DRILL_BUSY_TIMEOUT"
BUSY_TIMEOUT = 10.0
"""Seconds a command waits for a lock another program holds on the history before it says so
(``$DRILL_BUSY_TIMEOUT`` overrides it: the tests wait less)."""

CORRUPT = {11, 26}
"""SQLITE_CORRUPT, SQLITE_NOTADB: the primary result codes that mean the file is damaged."""
FULL, READONLY, CANTOPEN, PERM, AUTH, BUSY, LOCKED, IOERR = 13, 8, 14, 3, 23, 5, 6, 10


class HistoryError(RuntimeError):
    """The history cannot be used now: said in one line; the file is left as it is."""


class HistoryCorrupt(HistoryError):
    """The file is not a database, or is damaged: the one case it is set aside."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"the history {path} is damaged: {detail}")
        self.detail = detail
        """What SQLite said (or that the integrity check failed)."""


def busy_timeout() -> float:
    """Seconds to wait for another program's lock (``BUSY_TIMEOUT``, or ``$DRILL_BUSY_TIMEOUT``)."""
    try:
        return max(0.0, float(os.environ[BUSY_ENV]))
    except (KeyError, ValueError):
        return BUSY_TIMEOUT


def primary(exc: sqlite3.Error) -> int | None:
    """The primary SQLite result code of ``exc`` (its extended code less the extension), if it has one."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def fault(exc: sqlite3.Error, path: Path, refusal: str | None = None) -> HistoryError:
    """``exc``, raised by SQLite on the history at ``path``, as a one-line HistoryError naming its cause
    (a HistoryCorrupt when the file is damaged); ``refusal``: why this version does not write this
    history (a newer schema), said instead of a bare "read-only"."""
    code = primary(exc)
    name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
    if code in CORRUPT:
        return HistoryCorrupt(path, f"{exc} ({name})")
    if refusal is not None and code == READONLY:
        return HistoryError(refusal)
    seen = _diagnose(path) if code in (FULL, READONLY, CANTOPEN, PERM, IOERR) else None
    if seen is not None:
        cause = f"cannot be written: {seen}"
    elif code == FULL:
        cause = "cannot be written: the disk is full; free some space and run it again"
    elif code == READONLY:
        cause = "cannot be written: the file or its folder is read-only"
    elif code in (CANTOPEN, PERM, AUTH):
        cause = "cannot be opened: check that its folder exists and that you may write there"
    elif code in (BUSY, LOCKED):
        cause = f"is locked by another program (waited {busy_timeout():g} s): close it, or wait, and run it again"
    elif code == IOERR:
        cause = f"cannot be read or written: a disk error ({exc})"
    else:
        cause = f"cannot be used: {exc}"
    return HistoryError(f"the history {path} {cause} ({name})")


def _diagnose(path: Path) -> str | None:
    """What the folder of ``path`` says of a failed write: a read-only file system, a full disk, no
    right to write (None: none of these)."""
    folder = path.parent
    try:
        st = os.statvfs(folder)
        if st.f_flag & os.ST_RDONLY:
            return "its folder is on a read-only file system"
        if st.f_bavail * st.f_frsize < 64 * 1024:
            return "the disk is full; free some space and run it again"
    except (OSError, AttributeError):  # no statvfs on Windows
        pass
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "the file or its folder is read-only"
    return None


def os_fault(exc: OSError, path: Path) -> HistoryError:
    """An OSError about the history's folder (it cannot be made, say), in one line."""
    return HistoryError(f"the history {path} cannot be opened: {exc.strerror or exc} ({exc.filename or path.parent})")
