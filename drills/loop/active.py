"""The attempt in progress, as most commands name it: a module of its own, so that the commands that
never grade (``drill list``, ``status``, ``next``) need not import the drill loop
(drills/loop/session.py, which re-exports it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograd_drill.grader.catalog import format_time
from autograd_drill.store.paths import display

if TYPE_CHECKING:
    from autograd_drill.store.history import Attempt


def describe_active(attempt: Attempt, now: float) -> str:
    """``an attempt at TARGET is in progress (at 3:12, solutions/TARGET.py)``."""
    state = "paused at" if attempt.paused else "at"
    return f"an attempt at {attempt.target} is in progress ({state} {format_time(attempt.elapsed(now))}, {display(attempt.file)})"


def typed_drill(typed: str) -> str:
    """The canonical drill id a user typed (drills/targets.py ``resolve``), the history read for an id of a
    pack no longer installed: an UnknownTarget (one line) otherwise."""
    from autograd_drill.store.paths import history_path
    from autograd_drill.targets import resolve

    return resolve(typed, history_path())
