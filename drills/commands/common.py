"""What every command body needs: the terminal it prints to, with its clock, and the history."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import tzinfo

from rich.console import Console

from drills.loop.clock import Clock
from drills.loop.session import DrillError
from drills.store.history import History


@dataclass(frozen=True)
class Terminal:
    out: Console
    err: Console
    clock: Clock
    """The clock every command reads; tests give a MockClock."""
    tz: tzinfo | None = None
    """The time zone of calendar days (streaks, chart axes): None is the local one."""


@contextmanager
def history(term: Terminal) -> Iterator[History]:
    """The user's history, opened for one command; a corrupt file is set aside with a warning."""
    from drills.store.history import HistoryError, open_history
    from drills.store.paths import history_path

    path = history_path()
    try:
        store, warning = open_history(path)
    except (OSError, HistoryError) as exc:
        raise DrillError(f"cannot open the history at {path}: {exc}") from None
    from drills.interview.store import ensure_tables

    try:
        ensure_tables(store.db)  # the interview tables (drills.store cannot import drills.interview)
    except sqlite3.Error as exc:
        store.close()
        raise DrillError(f"cannot open the history at {path}: {exc}") from None
    if warning:
        from drills.views.lines import warning_line

        term.err.print(warning_line(warning))
    try:
        yield store
    finally:
        store.close()
