"""The drill loop from a test: a stand-in grader (``FakeGrader``: the grader's logic, exactly and
fast, on the MockClock), the user's file with some symbols still to write (``write``), and attempts
driven through drills/loop/session.py (``finish_attempt``, ``give_up_attempt``, ``run_full``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from autograd_drill.grader.verdict import Failure, GradeResult, TargetResult
from autograd_drill.loop import session
from autograd_drill.loop.clock import MockClock
from autograd_drill.loop.stubs import stub_for
from autograd_drill.store.history import History
from tests.support import CATALOG, REFERENCE_SOURCE

IDS = [t.id for t in CATALOG.targets]
ALL_SYMBOLS = [s for t in CATALOG.targets for s in t.symbols]


class FakeGrader:
    """Stands in for the grader: a target passes when none of its symbols (nor those of the targets
    it needs) is still a stub (a blank of a cloze stub included), and none of its own is ``wrong``. ``seconds`` is how long a grading
    takes on the MockClock."""

    def __init__(self, clock: MockClock) -> None:
        self.clock = clock
        self.calls: list[list[str]] = []
        self.seconds = 0.0
        self.during: Callable[[], object] | None = None
        """Run while grading, as another terminal would."""
        self.wrong: set[str] = set()
        """Symbols written but wrong: their own target's tests fail (those of the targets needing it pass)."""

    def __call__(self, file: Path, targets, oracle: str = "auto", label: str | None = None, **_: object) -> GradeResult:
        self.calls.append([t.id for t in targets])
        source = Path(file).read_text(encoding="utf-8")
        blank = {
            s for s in ALL_SYMBOLS if re.search(rf'raise NotImplementedError\("{re.escape(s)}(, blank \d+)?"\)', source)
        }
        results = []
        for target in targets:
            needed = [*target.symbols, *(s for n in target.needs for s in CATALOG.get(n).symbols)]
            missing = [s for s in needed if s in blank]
            failures = tuple(Failure(f"test_{s}", f"{s}: {s} is not written yet", symbol=s) for s in missing)
            failures += tuple(
                Failure(f"test_{s}", f"{s}: wrong", symbol=s, case="fake", text="wrong")
                for s in target.symbols
                if s in self.wrong
            )
            results.append(TargetResult(target.id, 10, len(failures), failures))
        self.clock.advance(self.seconds)
        if self.during is not None:
            self.during()
        return GradeResult(label or str(file), tuple(results), 0.01)


def write(path: Path, blanked: list[str]) -> None:
    """The user's file, with these symbols still to write (none: the reference)."""
    path.write_text(stub_for(blanked, "test") if blanked else REFERENCE_SOURCE, encoding="utf-8")


def finish_attempt(
    history: History, clock: MockClock, workspace: Path, target: str, seconds: float, *, hints: int = 0
) -> session.Checked:
    """Start TARGET, take SECONDS, pass it (stand-in grader)."""
    started = session.start(history, target, workspace, clock)
    for _ in range(hints):
        session.hint(history, None)
    clock.advance(seconds)
    write(started.path, [])
    checked = session.check(history, clock)
    assert checked.finished
    clock.advance(3600)
    return checked


def give_up_attempt(history: History, clock: MockClock, workspace: Path, target: str, seconds: float) -> None:
    session.start(history, target, workspace, clock)
    clock.advance(seconds)
    session.give_up(history, clock)
    clock.advance(3600)


def minutes(seconds: list[float]) -> list[float]:
    """Times for each core target: these, then 50 s for each target the catalog has beyond them."""
    return seconds[: len(IDS)] + [50.0] * (len(IDS) - len(seconds))


def run_full(history, clock, workspace, segments: list[tuple[str, float]]) -> session.Checked:
    """A full drill whose targets pass one by one, each after its seconds; the last grading finishes it."""
    started = session.start(history, "full", workspace, clock)
    todo = list(ALL_SYMBOLS)
    checked = None
    for target, seconds in segments:
        clock.advance(seconds)
        todo = [s for s in todo if s not in CATALOG.get(target).symbols]
        write(started.path, todo)
        checked = session.check(history, clock)
        assert checked.newly_passed == (target,)
    assert checked is not None and checked.finished
    return checked
