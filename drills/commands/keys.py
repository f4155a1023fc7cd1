"""Keystrokes from the terminal, one at a time and without Enter: the keys of ``drill watch``.

On POSIX the terminal is put in cbreak mode (no echo, no line editing; Ctrl-C still interrupts)
while the keys are read, and always restored after, with the keys typed but not read thrown away,
so that none reaches the shell. On Windows, msvcrt reads the console's keys as they come.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


class PosixKeys:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, timeout: float) -> str | None:
        import select

        if not select.select([self.fd], [], [], timeout)[0]:
            return None
        key = os.read(self.fd, 1)
        if key == b"\x1b":  # an escape sequence (an arrow key...): none of it is a key of ours
            while select.select([self.fd], [], [], 0.01)[0] and os.read(self.fd, 16):
                pass
            return None
        return key.decode("utf-8", "ignore") or None


class WindowsKeys:  # pragma: no cover - Windows
    def read(self, timeout: float) -> str | None:
        import msvcrt

        deadline = time.monotonic() + timeout
        while True:
            if msvcrt.kbhit():  # type: ignore[attr-defined]
                key = msvcrt.getwch()  # type: ignore[attr-defined]
                if key in ("\x00", "\xe0"):  # a function or arrow key: its second half follows
                    msvcrt.getwch()  # type: ignore[attr-defined]
                    return None
                return key
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)


@contextmanager
def keyboard() -> Iterator[PosixKeys | WindowsKeys | None]:
    """The keys typed in the terminal stdin is; None when it is not a terminal."""
    stream = sys.stdin
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):  # closed, or no stream at all
        interactive = False
    if not interactive:
        yield None
        return
    if os.name == "nt":  # pragma: no cover - Windows
        yield WindowsKeys()
        return
    import termios
    import tty

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield PosixKeys(fd)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        termios.tcflush(fd, termios.TCIFLUSH)  # keys typed and not read: not for the shell
