"""``drill watch``: grade on every save, in the background, and say where each target stands.

``watch_saves`` is a generator of WatchStates: one when it starts, one after each grading, key and
save, and one about every second, so that a view (drills/views/report.py, ``watch_screen``) keeps
the clock moving while a grading runs. The last one says how the watch ended.

Two threads post events to one queue, which the generator reads in the caller's thread: a file
watcher (watchfiles) and a grader, which runs ``session.check`` on a History connection of its own
(SQLite connections are per thread) and so records each graded version. A newer save cancels the
grading in flight (its process is killed, grader/worker.py): its result is dropped, never shown.
With ``keys`` (a terminal), a third reads keystrokes (their table: drills/loop/watch_keys.py; the
diff once a target passed); and when the attempt ends (passed here, or ended in another terminal),
the watch stays and follows the next one started. Without keys (output piped),
the watch ends with its attempt. A Ctrl-C reaches the caller as KeyboardInterrupt; the warm grader
is closed either way.

The clock is the history's: re-read four times a second (a ``drill pause`` elsewhere shows here).
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from autograd_drill.errors import DrillError
from autograd_drill.grader.process import Cancelled, stopped_with_us
from autograd_drill.grader.verdict import Failure
from autograd_drill.grader.worker import warm_runner
from autograd_drill.loop import session
from autograd_drill.loop.clock import Clock
from autograd_drill.loop.diff import compare
from autograd_drill.loop.session import Checked, check, require_active, target_states
from autograd_drill.loop.watch_keys import KEYS, Action
from autograd_drill.loop.watch_state import Early, End, Event, Graded, Job, Keys, Pressed, Saved, WatchState
from autograd_drill.store.faults import HistoryError
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.paths import display
from autograd_drill.targets import catalog as merged

DEBOUNCE_MS = 5
"""How long watchfiles waits for more changes after one before it reports them."""

TICK = 1.0
"""Seconds between two states when nothing happens: the clock on screen moves on."""

LOOK = 0.25
"""Seconds between two looks at the history: a pause, a resume, an attempt ended or started
elsewhere shows within this."""


def watch_saves(
    store: History, clock: Clock, oracle: str = "auto", keys: Keys | None = None, pausable: bool = True
) -> Iterator[WatchState]:
    """Grade the attempt in progress now and on every save, until every target passes or the attempt
    ends elsewhere; with ``keys``, until q."""
    watch = _Watch(store, clock, oracle, keys, pausable)
    try:
        with stopped_with_us(watch.runner.close):  # a SIGTERM ends the grading in flight first
            yield from watch.states()
    finally:
        watch.close()


def _stamp(file: Path) -> tuple[int, int] | None:
    """The file's (mtime, size): a save the watcher missed changes it."""
    try:
        info = file.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


class _Watch:
    def __init__(self, store: History, clock: Clock, oracle: str, keys: Keys | None, pausable: bool = True) -> None:
        self.store, self.clock, self.oracle, self.keys = store, clock, oracle, keys
        self.pausable = pausable
        """False in an interview: p is refused, its clock runs as a real interview's does."""
        attempt = require_active(store)
        self.state = WatchState(attempt, target_states(attempt, session.latest_result(store, attempt)), keys=bool(keys))
        self.events: queue.Queue[Event] = queue.Queue()
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.runner = warm_runner()
        self.asked = 0
        """The latest grading asked for: a result of an earlier one is stale."""
        self.busy = False
        """The latest grading asked for has no result yet."""
        self.asked_at = 0.0
        self.asked_on_save = False
        """The latest grading asked for was asked by a save the watcher saw."""
        self.missing: float | None = None
        """When a grading found the file gone (time.monotonic): a look LOOK later says so, if the
        attempt is still in progress and the file still gone."""
        self.graded_at: tuple[int, int] | None = None
        self.paused = attempt.paused
        """The clock was paused at the last look: once resumed, the file is graded."""
        self.stop = threading.Event()
        self.watcher: tuple[Path, threading.Event] | None = None
        self.threads = [threading.Thread(target=self._grade_jobs, name="drill-grader", daemon=True)]
        if keys is not None:
            self.threads.append(threading.Thread(target=self._read_keys, args=(keys,), name="drill-keys", daemon=True))
        for thread in self.threads:
            thread.start()

    # ------------------------------------------------------------------ the threads

    def _grade_jobs(self) -> None:
        """The grader thread: one grading at a time, the latest asked for; its own History, opened on
        its first job (a history it cannot open is said on screen for each save, the watch goes on)."""
        history: History | None = None
        try:
            while (job := self.jobs.get()) is not None:
                token, attempt_id = job.token, job.attempt_id
                if token != self.asked:
                    continue  # a newer save came meanwhile
                outcome: Checked | str | None
                try:
                    history = history or History(self.store.path)
                    attempt = history.get(attempt_id)
                    outcome = check(
                        history, self.clock, self.oracle, attempt, self.runner, lambda f, k=token: self._early(k, f)
                    )
                except Cancelled:
                    outcome = None
                except DrillError as exc:
                    outcome = str(exc)
                except (sqlite3.Error, HistoryError) as exc:  # a fault of the history: its cause, in words
                    outcome = str(self.store.fault(exc))  # the same file, as the watch opened it
                except Exception as exc:  # noqa: BLE001 - said on screen; the watch goes on
                    outcome = f"the grading failed: {exc}"
                self.events.put(Graded(token, outcome))
        finally:
            if history is not None:
                history.close()

    def _early(self, token: int, failure: Failure) -> None:
        """The grading ``token``'s first failure, told while its other tests run: on screen at once."""
        self.events.put(Early(token, failure))

    def _read_keys(self, keys: Keys) -> None:
        while not self.stop.is_set():
            key = keys.read(0.1)
            if key:
                self.events.put(Pressed(key))
            if key and KEYS.get(key) is Action.QUIT:
                return  # what is typed next is not ours: the terminal drops it (drills/commands/keys.py)

    def _watch_file(self) -> None:
        """Watch the attempt's file (again, if the attempt followed has another)."""
        file = self.state.attempt.file
        if self.watcher is not None and self.watcher[0] == file:
            return
        self._stop_watcher()
        stop = threading.Event()
        self.watcher = (file, stop)
        threading.Thread(target=self._watch_saves, args=(file, stop), name="drill-watcher", daemon=True).start()

    def _watch_saves(self, file: Path, stop: threading.Event) -> None:
        import watchfiles

        def only_our_file(change: Any, path: str) -> bool:
            return Path(path).name == file.name

        try:
            for _ in watchfiles.watch(
                file.parent,
                watch_filter=only_our_file,
                # NOTE: 5 ms, not watchfiles' 1.6 s: an editor's save is one write (or a rename), and the
                # verdict should arrive before the user looks up. A burst of writes is graded again anyway.
                debounce=DEBOUNCE_MS,
                step=5,
                stop_event=stop,
                raise_interrupt=False,
            ):
                self.events.put(Saved(file))
        except OSError:  # the folder is gone: the tick still sees a save (the file's stamp)
            pass

    def _stop_watcher(self) -> None:
        if self.watcher is not None:
            self.watcher[1].set()
            self.watcher = None

    def close(self) -> None:
        self.stop.set()
        self._stop_watcher()
        self.jobs.put(None)
        self.runner.close()
        for thread in self.threads:
            thread.join(timeout=5)

    # ------------------------------------------------------------------ the loop

    def states(self) -> Iterator[WatchState]:
        self._watch_file()
        attempt = self.state.attempt
        if attempt.file.exists() and not attempt.paused:
            self._grade()
        yield self.state
        tick = look = time.monotonic()
        while True:
            event: Event | None
            try:
                event = self.events.get(timeout=max(0.0, min(tick + TICK, look + LOOK) - time.monotonic()))
            except queue.Empty:
                event = None  # a look: nothing happened
            before = self.state = replace(self.state, graded=False, shown=None)
            if isinstance(event, Pressed):
                self._press(event.key)
            elif isinstance(event, Saved) and event.file == self.state.attempt.file and self._running():
                self._grade(saved=True)
            elif isinstance(event, Graded) and not self._take(event.token, event.outcome):
                continue  # stale: nothing to show
            elif isinstance(event, Early):
                if event.token != self.asked or not self.busy:
                    continue  # of a grading cancelled, or ended meanwhile
                self.state = replace(self.state, early=event.failure)
            now = time.monotonic()
            if now >= look + LOOK:
                self._refresh()
                look = now
            if event is None and self.state == before and now < tick + TICK:
                continue  # nothing new, and the clock on screen can wait
            tick = now
            yield self.state
            if self.state.ended:
                return

    def _running(self) -> bool:
        attempt = self.state.attempt
        return self.state.finished is None and attempt.in_progress and not attempt.paused

    def _grade(self, saved: bool = False) -> None:
        """Grade the file as it is now; a grading in flight is cancelled, its result dropped.
        ``saved``: a save the watcher saw asks for it."""
        file = self.state.attempt.file
        if not file.exists():
            # said a LOOK later, unless the attempt has ended by then: drill abandon archives the file
            # before it ends the attempt, and the watcher sees the file go first
            if self.missing is None:
                self.missing = time.monotonic()
            return
        self._cancel()
        self.missing = None
        self.asked += 1
        self.busy, self.asked_at, self.graded_at = True, time.perf_counter(), _stamp(file)
        self.asked_on_save = saved
        self.jobs.put(Job(self.asked, self.state.attempt.id))
        self.state = replace(self.state, grading=True, message=None, early=None)

    def _cancel(self) -> None:
        if self.busy:
            self.asked += 1  # its result, should it come anyway, is stale
            self.busy = False
            self.runner.cancel()
            self.state = replace(self.state, grading=False, early=None)

    def _take(self, token: int, outcome: Checked | str | None) -> bool:
        """A grading's result; False when it is stale (a newer one was asked for)."""
        if token != self.asked or outcome is None:
            return False
        self.busy = False
        if isinstance(outcome, str):
            self.state = replace(self.state, graded=True, grading=False, message=outcome, early=None)
            return True
        passed = End.PASSED if outcome.finished else None
        self.state = WatchState(
            outcome.attempt,
            target_states(outcome.attempt, outcome.result),
            outcome,
            graded=True,
            graded_in=time.perf_counter() - self.asked_at,
            after_save=self.asked_on_save,
            finished=passed,
            ended=passed if self.keys is None else None,
            keys=self.state.keys,
        )
        return True

    def _refresh(self) -> None:
        """Every LOOK: the attempt as the history has it now (paused, resumed, ended elsewhere), a
        save the watcher missed, and, once the attempt ended, the next one started."""
        state = self.state
        if state.finished is not None:
            self._follow()
            return
        attempt = self.store.get(state.attempt.id)
        resumed, self.paused = self.paused and not attempt.paused, attempt.paused
        if attempt.paused:
            self._cancel()  # paused elsewhere: the grading waits for the clock
        if self.busy:
            return  # the grading under way says how the attempt stands
        # each target's verdict stays the one shown (of the latest grading, or the history's at the start);
        # only the splits are the history's now
        targets = tuple(replace(s, split=attempt.splits.get(s.target)) for s in state.targets)
        self.state = state = replace(state, attempt=attempt, targets=targets)
        if not attempt.in_progress:  # its file archived, perhaps: nothing is missing, nor to grade
            self.missing = None
            how = End.ELSEWHERE  # the attempt's outcome says how (WatchState.said)
            self.state = replace(state, finished=how, ended=how if self.keys is None else None, message=None)
        elif self.missing is not None and not attempt.file.exists():
            if time.monotonic() - self.missing < LOOK:
                return  # perhaps an abandon, half done: the next look tells
            self.missing = None
            self.state = replace(state, message=missing(attempt.file))
        elif not attempt.paused and (resumed or _stamp(attempt.file) not in (None, self.graded_at)):
            self._grade()  # resumed (in another terminal), or saved before the watcher started

    def _follow(self) -> None:
        """The next attempt, once started (drill next --start in another terminal): watch it."""
        attempt = self.store.active()
        if attempt is None or attempt.id == self.state.attempt.id:
            return
        self.graded_at, self.paused = None, attempt.paused
        self.state = WatchState(attempt, target_states(attempt, session.latest_result(self.store, attempt)), keys=True)
        self._watch_file()
        if attempt.file.exists() and not attempt.paused:
            self._grade()

    # ------------------------------------------------------------------ keys

    def _press(self, key: str) -> None:
        action = KEYS.get(key)
        state = self.state
        try:
            if action is Action.QUIT:
                self._cancel()
                self.state = replace(self.state, ended=End.QUIT)
            elif action is Action.HINT:
                self.state = replace(state, shown=session.hint(self.store, _hinted(state)))
            elif action is Action.PAUSE:
                if not self.pausable:
                    raise DrillError(NO_PAUSE)
                self._pause_or_resume()
            elif action is Action.GRADE:
                if not self._running():
                    raise DrillError(PAUSED if state.attempt.paused else "the attempt has ended: nothing to grade")
                self._grade()
            elif action is Action.DIFF:
                if not state.attempt.splits:
                    raise DrillError("d shows the diff with the reference once a target has passed")
                self.state = replace(state, shown=compare(self.store, _last_passed(state.attempt), peek=False))
            elif action is Action.NEXT:
                self._next()
        except (DrillError, LookupError, HistoryError) as exc:  # LookupError: an unknown target
            self.state = replace(self.state, message=str(exc))

    def _next(self) -> None:
        """n: start what ``drill next --start`` would (the target spaced repetition puts first, on its
        rung), in the folder of the attempt watched, and follow it; only once that attempt has ended,
        so that no work in progress is ever abandoned by a key (nor an interview's task left)."""
        if not self.pausable:
            raise DrillError("no next drill in an interview: its tasks come in its order")
        if self.state.finished is None:
            raise DrillError(NOT_ENDED)
        from autograd_drill.loop.standing import queue, standings

        chosen = queue(standings(self.store, self.clock()))[0].target
        session.start(self.store, chosen, self.state.attempt.file.parent, self.clock, None)
        self._follow()

    def _pause_or_resume(self) -> None:
        if self.state.finished is not None:
            raise DrillError("the attempt has ended: no clock to pause")
        if self.state.attempt.paused:
            attempt = session.resume(self.store, self.clock)
            self.state, self.paused = replace(self.state, attempt=attempt, message=None), False
            self._grade()  # resuming grades the file as it is now
        else:
            self._cancel()
            attempt = session.pause(self.store, self.clock)
            self.state, self.paused = replace(self.state, attempt=attempt, message=None), True


def missing(file: Path) -> str:
    """What the watch says when the attempt's file is gone while the attempt runs."""
    return f"{display(file)} is missing: save it again, or bring back the version last graded with  drill restore"


PAUSED = "the clock is paused: p resumes it, and grades"  # why r grades nothing
NOT_ENDED = "n starts the next drill once this attempt has ended: pass it, or drill give-up or abandon it"
NO_PAUSE = "no pause in an interview: its clock runs, as a real interview's does"  # why p pauses nothing there


def _last_passed(attempt: Attempt) -> str:
    return max(attempt.splits, key=attempt.splits.__getitem__)


def _hinted(state: WatchState) -> str | None:
    """Whose hints h shows: the next target's while the attempt runs (None: session.hint chooses);
    once it ended, those of the target passed last (or its first)."""
    if state.finished is None:
        return None
    attempt = state.attempt
    return _last_passed(attempt) if attempt.splits else merged().drilled(attempt.target)[0].id
