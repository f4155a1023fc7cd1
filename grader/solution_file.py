"""Reading a solution file in bounded time and memory: a regular file of at most ``MAX_BYTES``.

Every place that reads the user's file (``drill grade``, ``check``, ``watch``, ``restore``, the
grading child itself) reads it here, so that a FIFO (whose reader waits for a writer for good), a
device (``/dev/zero`` never ends), a directory, a symlink loop or a huge file is a one-line error
that names it, and never a hang, a traceback, or gigabytes of memory. A solution is a few hundred
lines, some 20 KB: the limit is 50 times that.

The file is looked at (``os.stat``, following symlinks), then opened without blocking
(``O_NONBLOCK``: opening a FIFO waits for a writer otherwise) and looked at again through the open
descriptor, since it may have been replaced in between; then at most ``MAX_BYTES + 1`` bytes are read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_BYTES = 1024 * 1024
LIMIT_TEXT = "1 MiB"
"""``MAX_BYTES`` in words, as the README and the errors say it."""

KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnreadableFile(Exception):
    """Why a solution file cannot be read, in one line that names it."""

    def __init__(self, message: str, missing: bool = False, odd: bool = False) -> None:
        super().__init__(message)
        self.missing = missing
        """There is no such file."""
        self.odd = odd
        """There is something at the path, but not a regular file (a directory, a FIFO, a device...)."""


def _refuse_odd(info: os.stat_result, name: str, limit: int) -> None:
    """Raise UnreadableFile unless ``info`` is of a regular file of at most ``limit`` bytes."""
    if not stat.S_ISREG(info.st_mode):
        kind = next((what for test, what in KINDS if test(info.st_mode)), "not a regular file")
        raise UnreadableFile(f"{name} is {kind}, not a regular file: a solution is one Python file", odd=True)
    if info.st_size > limit:
        raise UnreadableFile(
            f"{name} is {_size(info.st_size)}: a solution file may be at most {LIMIT_TEXT} (a solution is a few hundred lines)"
        )


def _size(n: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _cannot(exc: OSError, name: str) -> UnreadableFile:
    if exc.errno == errno.ENOENT:
        return UnreadableFile(f"no such file: {name}", missing=True)
    if exc.errno == errno.ELOOP:
        return UnreadableFile(f"{name} is a symbolic link that loops (too many levels of symbolic links)")
    if exc.errno == errno.ENOTDIR:
        return UnreadableFile(f"no such file: {name} (a part of its path is not a folder)", missing=True)
    return UnreadableFile(f"cannot read {name}: {(exc.strerror or str(exc)).lower()}")


def check_solution(path: Path, name: str | None = None, limit: int = MAX_BYTES) -> os.stat_result:
    """The file's ``os.stat``, or UnreadableFile when it is missing, odd, or over ``limit`` bytes.
    ``name``: the file as the message names it (default: ``path``)."""
    name = name or str(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _cannot(exc, name) from None
    except ValueError as exc:  # a NUL in the path
        raise UnreadableFile(f"cannot read {name}: {exc}") from None
    _refuse_odd(info, name, limit)
    return info


def read_solution(path: Path, name: str | None = None, limit: int = MAX_BYTES) -> bytes:
    """The file's bytes, read in bounded time and memory; UnreadableFile (one line) when it cannot be."""
    name = name or str(path)
    check_solution(path, name, limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _cannot(exc, name) from None
    try:
        _refuse_odd(os.fstat(fd), name, limit)  # replaced since the stat above?
        chunks, total = [], 0
        while total <= limit:
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - total))
            except BlockingIOError:  # not a regular file after all
                raise UnreadableFile(f"{name} is not a regular file: a solution is one Python file", odd=True) from None
            except OSError as exc:
                raise _cannot(exc, name) from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew since: still over the limit
            raise UnreadableFile(
                f"{name} is over {LIMIT_TEXT}: a solution file may be at most {LIMIT_TEXT} (a solution is a few hundred lines)"
            )
        return b"".join(chunks)
    finally:
        os.close(fd)
