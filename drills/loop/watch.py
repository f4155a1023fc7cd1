"""``drill watch``: grade on every save (watchfiles), and say where each target stands.

``watch_saves`` is a generator of WatchStates: one when it starts, one after each grading, and one about
every second, so that a view (drills/views/report.py, ``watch_screen``) can keep the clock moving.
The last one says how the watch ended. A Ctrl-C reaches the caller as KeyboardInterrupt; the warm
grader is closed either way.

The clock is the history's: the state re-reads the attempt every second, so a ``drill pause`` in
another terminal shows here, and closing this one stops nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from drills.loop.clock import Clock
from drills.loop.session import Checked, DrillError, TargetState, check, latest_result, require_active, target_states
from drills.store.history import Attempt, History
from drills.store.paths import display
from grader.verdict import Failure
from grader.worker import warm_runner

DEBOUNCE_MS = 5
"""How long watchfiles waits for more changes after one before it reports them."""


@dataclass(frozen=True)
class WatchState:
    """What the watch knows now."""

    attempt: Attempt
    targets: tuple[TargetState, ...]
    checked: Checked | None = None
    """The latest grading."""
    graded: bool = False
    """This state comes right after a grading."""
    graded_in: float | None = None
    """Seconds from the save to the verdict, of the latest grading."""
    message: str | None = None
    """Why the latest save could not be graded (the file is gone, the clock is paused...)."""
    ended: str | None = None
    """How the watch ended: passed (every target passed), or ended elsewhere (the attempt ended in
    another terminal); None while it runs."""

    @property
    def first_failure(self) -> Failure | None:
        return next((s.failure for s in self.targets if s.failure is not None and not s.passed), None)

    @property
    def notes(self) -> tuple[str, ...]:
        return self.checked.result.notes if self.checked is not None else ()


def watch_saves(store: History, clock: Clock, oracle: str = "auto") -> Iterator[WatchState]:
    """Grade the attempt in progress now and on every save, until every target passes or the attempt
    ends elsewhere."""
    import watchfiles

    attempt = require_active(store)
    file = attempt.file
    state = WatchState(attempt, target_states(attempt, latest_result(store, attempt)))
    graded_at: tuple[int, int] | None = None  # the file's (mtime, size) when last graded: a save the watcher missed

    def stamp() -> tuple[int, int] | None:
        try:
            info = file.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def grade_now(runner: Any) -> WatchState:
        nonlocal graded_at
        if not file.exists():
            return replace(state, graded=True, message=f"{display(file)} is missing: save it again")
        graded_at = stamp()
        started = time.perf_counter()
        try:
            checked = check(store, clock, oracle=oracle, attempt=store.get(state.attempt.id), runner=runner)
        except DrillError as exc:
            return replace(state, graded=True, message=str(exc))
        return WatchState(
            checked.attempt,
            target_states(checked.attempt, checked.result),
            checked,
            graded=True,
            graded_in=time.perf_counter() - started,
            ended="passed" if checked.finished else None,
        )

    def only_our_file(change: Any, path: str) -> bool:
        return Path(path).name == file.name

    runner = warm_runner()
    try:
        if file.exists() and not attempt.paused:
            state = grade_now(runner)
        yield state
        if state.ended:
            return
        for changes in watchfiles.watch(
            file.parent,
            watch_filter=only_our_file,
            yield_on_timeout=True,
            rust_timeout=1000,
            # NOTE: 5 ms, not watchfiles' 1.6 s: an editor's save is one write (or a rename), and the
            # verdict should arrive before the user looks up. A burst of writes is graded again anyway.
            debounce=DEBOUNCE_MS,
            step=5,
            raise_interrupt=True,
        ):
            attempt = store.get(state.attempt.id)
            state = replace(state, attempt=attempt, graded=False, targets=target_states(attempt, _latest(state)))
            if not attempt.in_progress:
                yield replace(state, ended=f"ended elsewhere ({attempt.outcome})")
                return
            missed = not changes and stamp() not in (None, graded_at)  # saved before the watcher started
            if (changes or missed) and not attempt.paused:
                state = grade_now(runner)
            yield state
            if state.ended:
                return
    finally:
        runner.close()


def _latest(state: WatchState) -> Any:
    return state.checked.result if state.checked is not None else None
