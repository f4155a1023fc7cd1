"""``drill watch``: grade on every save (watchfiles), with a live timer per target.

The clock is the history's: the view re-reads the attempt every second, so a ``drill pause`` in
another terminal shows here, and closing this one stops nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from drills.loop.clock import Clock
from drills.loop.session import Checked, DrillError, check, require_active, target_time, targets_of
from drills.loop.worker import warm_runner
from drills.store.history import Attempt, History
from drills.store.paths import display
from grader.catalog import format_time


def summary(message: str) -> str:
    """The first line of a failure message, the part that fits beside a timer."""
    return message.splitlines()[0] if message else ""


class WatchView:
    """What the live view shows, updated by each grading."""

    def __init__(self, attempt: Attempt) -> None:
        self.attempt = attempt
        self.failures: dict[str, str] = {}
        self.latest: str | None = None
        self.graded_in: float | None = None
        self.graded_at: float | None = None
        self.notes: tuple[str, ...] = ()

    def update(self, checked: Checked, seconds: float, now: float) -> None:
        self.attempt = checked.attempt
        self.graded_in = seconds
        self.graded_at = now
        self.failures = {t.target: t.failures[0] for t in checked.result.targets if not t.passed and t.failures}
        first = next((t for t in checked.result.targets if not t.passed and t.failures), None)
        self.latest = first.failures[0] if first else None
        self.notes = checked.result.notes

    def render(self, now: float) -> RenderableType:
        a = self.attempt
        elapsed = a.elapsed(now)
        state = "⏸ paused" if a.paused else "▶"
        head = Text(
            f" {a.target}  {format_time(elapsed)} {state}  target {format_time(target_time(a.target))}", style="bold"
        )
        lines: list[RenderableType] = [head]
        for target in targets_of(a.target):
            if target.id in a.splits:
                lines.append(Text(f"   ✓ {target.id:<14} passed at {format_time(a.splits[target.id])}", style="green"))
            elif target.id in self.failures:
                text = Text(f"   ✗ {target.id:<14} {format_time(elapsed)}  ", style="red")
                text.append(summary(self.failures[target.id]), style="default")
                lines.append(text)
            else:
                lines.append(Text(f"   · {target.id:<14} {format_time(elapsed)}  not graded yet", style="dim"))
        if self.latest:
            lines.append(Text(""))
            lines.append(Text(self.latest))
        for note in self.notes:
            lines.append(Text(f" note: {note}", style="yellow"))
        graded = f"graded {self.graded_in:.2f} s after each save · " if self.graded_in is not None else ""
        lines.append(Text(""))
        lines.append(Text(f" watching {display(a.file)} ({graded}Ctrl-C leaves the timer running)", style="dim"))
        return Group(*lines)


def run_watch(
    store: History,
    clock: Clock,
    console: Console,
    oracle: str = "auto",
    show_finish: Callable[[History, Checked], None] | None = None,
) -> int:
    """Watch until every target passes (0), the attempt ends elsewhere (1), or Ctrl-C (0)."""
    import watchfiles

    attempt = require_active(store)
    file = attempt.file
    runner = warm_runner()
    view = WatchView(attempt)
    interactive = console.is_terminal

    graded_at: tuple[int, int] | None = None  # the file's (mtime, size) when last graded: a save the watcher missed

    def stamp() -> tuple[int, int] | None:
        try:
            info = file.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def grade_now() -> Checked | None:
        if not file.exists():
            view.latest = f"{display(file)} is missing: save it again"
            return None
        nonlocal graded_at
        graded_at = stamp()
        started = time.perf_counter()
        try:
            checked = check(store, clock, oracle=oracle, attempt=store.get(view.attempt.id), runner=runner)
        except DrillError as exc:
            view.latest = str(exc)
            return None
        view.update(checked, time.perf_counter() - started, clock())
        if not interactive:
            console.print(view.render(clock()))
        return checked

    def only_our_file(change: Any, path: str) -> bool:
        return Path(path).name == file.name

    live = Live(view.render(clock()), console=console, auto_refresh=False, transient=False) if interactive else None
    try:
        if live:
            live.start()
        else:
            console.print(
                Text(
                    f" watching {display(file)}: grading on every save (Ctrl-C stops watching, not the clock)",
                    style="dim",
                )
            )
        checked = grade_now() if file.exists() and not view.attempt.paused else None
        if checked is None or not checked.finished:
            for changes in watchfiles.watch(
                file.parent,
                watch_filter=only_our_file,
                yield_on_timeout=True,
                rust_timeout=1000,
                debounce=5,
                step=5,
                raise_interrupt=True,
            ):
                view.attempt = store.get(view.attempt.id)
                if not view.attempt.in_progress:
                    checked = None
                    break
                missed = not changes and stamp() not in (None, graded_at)  # saved before the watcher started
                if (changes or missed) and not view.attempt.paused:
                    checked = grade_now()
                    if checked is not None and checked.finished:
                        break
                if live:
                    live.update(view.render(clock()), refresh=True)
    except KeyboardInterrupt:
        if live:
            live.stop()
            live = None
        now = clock()
        console.print(
            f" Stopped watching. The clock of {view.attempt.target} keeps running "
            f"({format_time(view.attempt.elapsed(now))}): drill pause stops it, drill watch comes back."
        )
        return 0
    finally:
        runner.close()
        if live:
            live.update(view.render(clock()), refresh=True)
            live.stop()
    if checked is not None and checked.finished:
        if show_finish:
            show_finish(store, checked)
        return 0
    final = store.get(view.attempt.id)
    if not final.in_progress:
        console.print(f" The attempt at {final.target} ended elsewhere ({final.outcome}).")
        return 1
    return 1
