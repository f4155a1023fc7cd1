"""The keys of an interactive ``drill watch``, in one table (``WATCH_KEYS``): what each does (the watch
acts on its ``action``, drills/loop/watch.py), what the key bar under the screen calls it in each state
of the attempt (drills/views/report.py) and in an interview (drills/views/interview.py), and what
``drill watch --help`` says (drills/cli.py). Light on
purpose: the command line reads it to build its help."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Action(StrEnum):
    HINT = "hint"
    PAUSE = "pause"
    """Pause the clock, or resume it."""
    GRADE = "grade"
    DIFF = "diff"
    NEXT = "next"
    """Start the drill ``drill next`` chooses, once the attempt watched has ended (rustlings' n)."""
    QUIT = "quit"


class Bar(StrEnum):
    """The key bars: while the clock runs, while it is paused, once the attempt ended."""

    RUNNING = "running"
    PAUSED = "paused"
    ENDED = "ended"
    INTERVIEW = "interview"
    """A coding part of ``drill interview``: no pause, its clock runs."""


@dataclass(frozen=True)
class WatchKey:
    key: str
    action: Action
    help: str
    """What ``drill watch --help`` calls it."""
    running: str | None
    """Its name in the key bar while the clock runs (None: not offered then)."""
    paused: str | None = None
    """Its name while the clock is paused (None: not offered then)."""
    ended: str | None = None
    """Its name once the attempt ended (None: not offered then)."""
    interview: str | None = None
    """Its name in an interview's coding part (None: not offered there)."""

    def label(self, bar: Bar) -> str | None:
        return {
            Bar.RUNNING: self.running,
            Bar.PAUSED: self.paused,
            Bar.ENDED: self.ended,
            Bar.INTERVIEW: self.interview,
        }[bar]


WATCH_KEYS = (
    WatchKey("h", Action.HINT, "hint", "hint", paused="hint", ended="hints", interview="nudge"),
    WatchKey("p", Action.PAUSE, "pause/resume", "pause", paused="resume"),
    WatchKey("r", Action.GRADE, "grade", "grade", interview="grade"),
    WatchKey("d", Action.DIFF, "diff", "diff", ended="diff"),
    WatchKey("n", Action.NEXT, "next drill (once the attempt ended)", None, ended="next drill"),
    WatchKey("q", Action.QUIT, "quit", "quit", paused="quit", ended="quit", interview="gives the task up"),
)
"""Every key of the watch, in the order the key bar and the help name them."""

LEADS = {Bar.PAUSED: "p", Bar.ENDED: "d"}
"""The key a bar names first, the rest following in the table's order: paused, the way out of the
pause; once the attempt ended, its diff."""

KEYS: dict[str, Action] = {k.key: k.action for k in WATCH_KEYS}
"""What each key does."""


def key_bar(bar: Bar) -> str:
    """The keys offered in ``bar``, named: ``h hint · p pause · r grade · d diff · q quit``."""
    offered = [(k.key, label) for k in WATCH_KEYS if (label := k.label(bar)) is not None]
    offered.sort(key=lambda kv: kv[0] != LEADS.get(bar))  # stable: the lead first, the rest in order
    return " · ".join(f"{key} {label}" for key, label in offered)


def key_help() -> str:
    """The keys as ``drill watch --help`` lists them: ``h hint, p pause/resume, r grade, d diff, ..., q quit``."""
    return ", ".join(f"{k.key} {k.help}" for k in WATCH_KEYS)
