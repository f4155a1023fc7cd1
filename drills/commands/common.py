"""What every command body needs: the terminal it prints to, with its clock, and the history."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from drills.errors import DrillError

if TYPE_CHECKING:
    from datetime import tzinfo

    from drills.loop.clock import Clock
    from drills.store.history import Attempt, History


@dataclass(frozen=True)
class Terminal:
    out: Console
    err: Console
    clock: Clock
    """The clock every command reads; tests give a MockClock."""
    tz: tzinfo | None = None
    """The time zone of calendar days (streaks, chart axes): None is the local one."""


def consoles() -> tuple[Console, Console]:
    """Standard output and standard error, as every command prints to them."""
    return Console(highlight=False), Console(stderr=True, highlight=False)


def error_line(message: str) -> Text:
    """A refusal, as one line on standard error."""
    return Text("error: ", style="bold red") + Text(message)


@contextmanager
def history(term: Terminal) -> Iterator[History]:
    """The user's history, opened for one command; a damaged file is set aside with a warning naming
    where it went. Any other fault of the history (a full disk, a read-only folder, a lock, a newer
    schema), on opening or during the command, is a one-line error naming its cause and the path
    (exit 2), the file left as it is. Verdicts kept while it could not be written are recorded first."""
    import sqlite3  # here, as the history's modules: drills/cli.py imports this module for -h too

    from drills.store.faults import HistoryError
    from drills.store.history import open_history
    from drills.store.paths import history_path

    path = history_path()
    try:
        store, warning = open_history(path)
    except HistoryError as exc:
        raise DrillError(str(exc)) from None
    except OSError as exc:
        raise DrillError(f"cannot open the history at {path}: {exc.strerror or exc}") from None
    try:
        if warning:
            from drills.views.lines import warning_line

            term.err.print(warning_line(warning))
        _record_waiting(term, store)
        yield store
    except sqlite3.Error as exc:
        raise DrillError(str(store.fault(exc))) from None
    except HistoryError as exc:
        raise DrillError(str(exc)) from None
    finally:
        store.close()


def _record_waiting(term: Terminal, store: History) -> None:
    """Record the verdicts kept while the history could not be written; said either way."""
    from drills.store import pending

    if store.refusal is not None or not pending.waiting(store.path):
        return
    import sqlite3

    from drills.loop.late import record_waiting
    from drills.store.faults import HistoryError
    from drills.views.lines import warning_line

    try:
        n = record_waiting(store)
    except (sqlite3.Error, HistoryError) as exc:
        term.err.print(warning_line(f"verdicts graded earlier still wait to be recorded: {store.fault(exc)}"))
        return
    noun = "verdict" if n == 1 else "verdicts"
    term.err.print(warning_line(f"recorded {n} {noun} graded while the history could not be written"))


def unrecorded_line(reason: str) -> Text:
    """A verdict shown but not in the history: why, and where it is kept."""
    from drills.views.lines import warning_line

    return warning_line(f"this verdict is not in your history yet: {reason}")


def rung_target(attempt: Attempt) -> int:
    """The target time of the attempt's rung, for a view to draw: read here, since the ladder keeps the
    rung times it computes in the data folder (drills/loop/ladder.py ``target_seconds``), a write a
    view never makes."""
    from drills.loop.ladder import target_seconds

    return target_seconds(attempt.target, attempt.rung)
