"""What every command body needs: the terminal it prints to, with its clock, and the history."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from autograd_drill.errors import DrillError

if TYPE_CHECKING:
    from datetime import tzinfo

    from rich.console import RenderableType

    from autograd_drill.loop.clock import Clock
    from autograd_drill.store.history import Attempt, History
    from autograd_drill.views.whole import Whole


@dataclass(frozen=True)
class Terminal:
    out: Console
    err: Console
    clock: Clock
    """The clock every command reads; tests give a MockClock."""
    tz: tzinfo | None = None
    """The time zone of calendar days (streaks, chart axes): None is the local one."""


def consoles() -> tuple[Console, Console]:
    """Standard output and standard error, as every command prints to them: ``console``."""
    return console(stderr=False), console(stderr=True)


def console(stderr: bool) -> Console:
    """A console on stdout (or stderr). In a terminal, rich's as it is. Written elsewhere (a pipe, a
    file): a line is never broken to the width (``soft_wrap``: the reader's pager or editor wraps it),
    nor padded with spaces at its end (``Unpadded``); tables and charts keep rich's width (80 columns,
    or $COLUMNS), so that their columns stay aligned. In a terminal, no line is cropped: a path rich
    is told not to cut (drills/views/whole.py) is written whole, for the terminal to soft-wrap."""
    made = Uncropped(stderr=stderr, highlight=False)
    if made.is_terminal:
        return made
    return Console(stderr=stderr, highlight=False, soft_wrap=True, file=Unpadded(stderr))


class Uncropped(Console):
    """A console whose ``print`` does not crop a line longer than its width (``crop=False``, unless
    asked): only a text told not to fold its words (drills/views/whole.py, a path) has one; tables
    and panels keep to their width themselves."""

    def print(self, *objects: Any, crop: bool = False, **kwargs: Any) -> None:
        super().print(*objects, crop=crop, **kwargs)


def unpadded(made: Console, stderr: bool = False) -> Console:
    """``made``, writing ``Unpadded`` when it does not write to a terminal (typer's help console:
    drills/commands/plain_help.py, and the fast ``drill -h``). Its width stays what rich chose."""
    if not made.is_terminal:
        made.file = Unpadded(stderr)
    return made


class Unpadded:
    """The standard stream of the moment (a test may swap it), written without the spaces rich pads
    a line with before its end (a table's last cell, a padded row): they are held until what follows
    them shows whether the line goes on."""

    def __init__(self, stderr: bool) -> None:
        self.stderr = stderr
        self.held = ""

    @property
    def stream(self) -> IO[str]:
        import sys

        return sys.stderr if self.stderr else sys.stdout

    def write(self, text: str) -> int:
        import re

        text = re.sub(r"[ \t]+\n", "\n", self.held + text)
        kept = text.rstrip(" \t")
        self.held = text[len(kept) :]
        self.stream.write(kept)
        return len(text)

    def flush(self) -> None:
        if self.held:  # a prompt's space (the line ends as the user types): written now
            self.stream.write(self.held)
            self.held = ""
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, errors: the stream's
        return getattr(self.stream, name)


ORACLES = ("auto", "live", "replay", "fd")
"""The oracles a grading from ``drill`` may use (``--oracle``, hidden). Not the grader's ``record``, which
rewrites the shipped recording: that is ``python -m autograd_drill.grader.record``'s alone
(grader/conftest.py refuses it elsewhere)."""


def oracle_mode(typed: str) -> str:
    """``--oracle``, checked: one of ORACLES, or a one-line refusal (a DrillError). Here, not beside the
    option (drills/commands/options.py imports typer): ``drill check`` typed bare runs without typer."""
    if typed in ORACLES:
        return typed
    extra = " (the recording is rewritten by python -m autograd_drill.grader.record alone)" if typed == "record" else ""
    raise DrillError(f"--oracle {typed}: choose {', '.join(ORACLES)}{extra}")


def error_line(message: str) -> Whole:
    """A refusal, as one line on standard error; a path in it is never cut (drills/views/whole.py)."""
    from autograd_drill.views.whole import whole

    return whole(Text("error: ", style="bold red") + Text(message))


@contextmanager
def history(term: Terminal) -> Iterator[History]:
    """The user's history, opened for one command; a damaged file is set aside with a warning naming
    where it went. Any other fault of the history (a full disk, a read-only folder, a lock, a newer
    schema), on opening or during the command, is a one-line error naming its cause and the path
    (exit 2), the file left as it is. Verdicts kept while it could not be written are recorded first."""
    import sqlite3  # here, as the history's modules: drills/cli.py imports this module for -h too

    from autograd_drill.store.faults import HistoryError
    from autograd_drill.store.history import open_history
    from autograd_drill.store.paths import history_path

    path = history_path()
    try:
        store, warning = open_history(path)
    except HistoryError as exc:
        raise DrillError(str(exc)) from None
    except OSError as exc:
        raise DrillError(f"cannot open the history at {path}: {exc.strerror or exc}") from None
    try:
        if warning:
            from autograd_drill.views.lines import warning_line

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
    from autograd_drill.store import pending

    if store.refusal is not None or not pending.waiting(store.path):
        return
    import sqlite3

    from autograd_drill.loop.late import record_waiting
    from autograd_drill.store.faults import HistoryError
    from autograd_drill.views.lines import warning_line

    try:
        n = record_waiting(store)
    except (sqlite3.Error, HistoryError) as exc:
        term.err.print(warning_line(f"verdicts graded earlier still wait to be recorded: {store.fault(exc)}"))
        return
    noun = "verdict" if n == 1 else "verdicts"
    term.err.print(warning_line(f"recorded {n} {noun} graded while the history could not be written"))


def unrecorded_line(reason: str) -> RenderableType:
    """A verdict shown but not in the history: why, and where it is kept."""
    from autograd_drill.views.lines import warning_line

    return warning_line(f"this verdict is not in your history yet: {reason}")


def rung_target(attempt: Attempt) -> int:
    """The target time of the attempt's rung, for a view to draw: read here, since the ladder keeps the
    rung times it computes in the data folder (drills/loop/ladder.py ``target_seconds``), a write a
    view never makes."""
    from autograd_drill.loop.ladder import target_seconds

    return target_seconds(attempt.target, attempt.rung)
