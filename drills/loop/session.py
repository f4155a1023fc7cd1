"""The drill loop's logic: start, check, pause, hints, give up; each target's state. Functions over
the history that return data; the CLI prints it with drills/views."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from drills.loop.clock import Clock
from drills.loop.incremental import merge, reused_verdicts
from drills.loop.ladder import current_rung, rung_time
from drills.loop.stubs import stub_for
from drills.store.attempt import file_sha256
from drills.store.history import Attempt, History
from drills.store.paths import atomic_write, display
from drills.store.records import personal_best
from grader.catalog import FULL, Target, format_time, load_catalog
from grader.process import Runner, run_in_subprocess
from grader.run import grade_file
from grader.solution_file import UnreadableFile, read_solution
from grader.verdict import Failure, GradeError, GradeResult, TargetResult


class DrillError(Exception):
    """A refusal the user can act on: printed as one line, exit status 2 (or ``code``)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def describe_active(attempt: Attempt, now: float) -> str:
    state = "paused at" if attempt.paused else "at"
    return f"an attempt at {attempt.target} is in progress ({state} {format_time(attempt.elapsed(now))}, {display(attempt.file)})"


def require_active(history: History) -> Attempt:
    attempt = history.active()
    if attempt is None:
        raise DrillError(
            "no attempt in progress: start one with  drill start TARGET  (drill grade FILE grades any file)"
        )
    return attempt


# ---------------------------------------------------------------------------- start


@dataclass(frozen=True)
class Started:
    attempt: Attempt
    path: Path
    symbols: tuple[str, ...]
    archived: Path | None
    best: float | None
    target_time: int
    rung: str = "recall"
    reasoning: str = ""
    """Where ``target_time`` comes from (drills/loop/ladder.py, ``rung_time``)."""


def archive_file(path: Path) -> Path:
    """Move ``path`` into ``.archive/`` beside it, under a name no other archive has."""
    folder = path.parent / ".archive"
    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (dest := folder / f"{path.stem}-{n:03d}{path.suffix}").exists():
        n += 1
    path.replace(dest)
    return dest


def start(history: History, target_id: str, workspace: Path, clock: Clock, rung: str | None = "recall") -> Started:
    """Write the stub of ``rung`` (None: the target's current rung on the ladder) and start the clock."""
    target_id = load_catalog().resolve(target_id)
    rung = rung or current_rung(history, target_id)
    try:
        timed = rung_time(target_id, rung)
    except ValueError as exc:
        raise DrillError(str(exc)) from None
    active = history.active()
    if active is not None:
        raise DrillError(
            f"{describe_active(active, clock())}. Continue it with  drill watch  (or drill check), "
            "or end it first with  drill abandon  (your file is archived) or  drill give-up."
        )
    targets = load_catalog().drilled(target_id)
    symbols = tuple(s for t in targets for s in t.symbols)
    label = "the full drill (every target)" if target_id == FULL else f"target {target_id}"
    path = workspace / f"{target_id}.py"
    try:
        archived = archive_file(path) if path.exists() else None
        atomic_write(path, stub_for(symbols, label, drills=[t.id for t in targets], rung=rung))
    except OSError as exc:
        raise DrillError(f"cannot write to the workspace {display(workspace)}: {exc.strerror or exc}") from None
    attempt = history.start(target_id, path.resolve(), clock(), rung, file_sha256(path))
    best = personal_best(history, target_id, rung=rung)
    return Started(attempt, path, symbols, archived, best, timed.seconds, rung, timed.reasoning)


# ---------------------------------------------------------------------------- check


@dataclass(frozen=True)
class Checked:
    attempt: Attempt
    """The attempt after this check (ended if it is complete)."""
    result: GradeResult
    elapsed: float
    """The clock when the file was read: the time the grading took is not the user's."""
    newly_passed: tuple[str, ...]
    """The targets this check passed for the first time (each now has its split)."""

    @property
    def finished(self) -> bool:
        return self.attempt.outcome == "passed"


def check(
    history: History,
    clock: Clock,
    oracle: str = "auto",
    attempt: Attempt | None = None,
    runner: Runner | None = None,
) -> Checked:
    """Grade the attempt's file once; record the source, the splits, and the end when all targets pass.

    In a drill of several targets, only the targets whose code changed since the last graded version
    are graded (drills/loop/incremental.py); the others keep their verdicts. An
    attempt ends only on a grading of every target: when reused verdicts make it pass, the whole
    file is graded again first.
    """
    attempt = attempt or require_active(history)
    if attempt.paused:
        raise DrillError(f"the clock of {attempt.target} is paused: run  drill resume  to grade again")
    try:
        raw = read_solution(attempt.file, display(attempt.file))
    except UnreadableFile as exc:
        if exc.missing:
            raise DrillError(
                f"{display(attempt.file)} is gone: bring back the version last graded with  drill restore, or end the attempt with  drill abandon"
            ) from None
        raise DrillError(str(exc)) from None
    source = raw.decode("utf-8", "surrogateescape")  # kept byte for byte
    when = clock()
    elapsed = attempt.elapsed(when)  # grading time is not the user's time
    targets = load_catalog().drilled(attempt.target)
    reused: dict[str, TargetResult] = {}
    if len(targets) > 1:
        last = history.last_submission(attempt)
        if last is not None:
            reused = reused_verdicts(last.source, parse_result(last.result), source, targets)

    def grade(these: Sequence[Target]) -> GradeResult:
        if not these:
            return GradeResult(display(attempt.file), (), 0.0)
        try:
            return grade_file(
                attempt.file, these, oracle=oracle, label=display(attempt.file), runner=runner or run_in_subprocess
            )
        except GradeError as exc:
            raise DrillError(str(exc)) from None

    result = merge(grade([t for t in targets if t.id not in reused]), reused, targets)
    if result.passed and reused:  # the end is never declared on reused verdicts
        result = grade(targets)
    history.add_submission(attempt, when, elapsed, source, json.dumps(result.to_json()), result.passed)
    raw = source.encode("utf-8", "surrogateescape")
    attempt = history.tick(attempt, when, hashlib.sha256(raw).hexdigest())  # a reboot comes back to this clock
    if not attempt.in_progress:  # ended in another terminal while we graded: its ending stands
        return Checked(attempt, result, elapsed, ())
    newly = tuple(t.target for t in result.targets if t.passed and t.target not in attempt.splits)
    for target in newly:
        history.add_split(attempt, target, elapsed)
    if result.passed:
        attempt = history.finish(attempt, "passed", when, elapsed=elapsed)
    return Checked(history.get(attempt.id), result, elapsed, newly)


# ---------------------------------------------------------------------------- pause, give up, abandon, hints


def pause(history: History, clock: Clock) -> Attempt:
    attempt = require_active(history)
    if attempt.paused:
        raise DrillError(f"the clock of {attempt.target} is already paused at {format_time(attempt.elapsed(clock()))}")
    return history.pause(attempt, clock(), file_sha256(attempt.file))


def resume(history: History, clock: Clock) -> Attempt:
    attempt = require_active(history)
    if not attempt.paused:
        raise DrillError(f"the clock of {attempt.target} is running ({format_time(attempt.elapsed(clock()))})")
    return history.resume(attempt, clock(), file_sha256(attempt.file))


def give_up(history: History, clock: Clock) -> Attempt:
    return history.finish(require_active(history), "gave-up", clock())


def abandon(history: History, clock: Clock) -> Attempt:
    attempt = require_active(history)
    archived = archive_file(attempt.file) if attempt.file.exists() else None
    return history.finish(attempt, "abandoned", clock(), archive=str(archived) if archived else None)


@dataclass(frozen=True)
class Hints:
    target: str
    shown: tuple[str, ...]
    remaining: int
    counted: bool
    """True when an attempt is in progress (and now marked assisted)."""


def hint(history: History, target_id: str | None) -> Hints:
    catalog = load_catalog()
    attempt = history.active()
    if attempt is None:
        if target_id is None:
            raise DrillError("no attempt in progress: name a target,  drill hint TARGET")
        target = catalog.get(target_id)
        return Hints(target.id, target.hints, 0, counted=False)
    drilled = catalog.drilled(attempt.target)
    if target_id is None:  # the first target not passing now (one that passed may fail again)
        failing = [s.target for s in target_states(attempt, latest_result(history, attempt)) if not s.passed]
        target = next((t for t in drilled if t.id in failing), drilled[-1])
    else:
        target = catalog.get(target_id)
        if target not in drilled:
            raise DrillError(f"the attempt in progress drills {attempt.target}, not {target.id}")
    shown = min(history.show_hint(attempt, target.id), len(target.hints))
    return Hints(target.id, target.hints[:shown], len(target.hints) - shown, counted=True)


# ---------------------------------------------------------------------------- each target's state


@dataclass(frozen=True)
class TargetState:
    """Where one target of an attempt stands, by its split and the latest graded version."""

    target: str
    split: float | None
    """The clock when it first passed."""
    result: TargetResult | None
    """Its verdict on the latest graded version; None before the first grading."""

    @property
    def passed(self) -> bool:
        """It passes now: by its latest verdict (a split says only that it passed once), or, when no
        verdict is kept, by its split."""
        return self.result.passed if self.result is not None else self.split is not None

    @property
    def regressed(self) -> bool:
        """It passed once in this attempt (it has its split) and its latest verdict fails."""
        return self.split is not None and not self.passed

    @property
    def state(self) -> str:
        """passed, failing (regressed when it passed before), or not graded."""
        if self.passed:
            return "passed"
        if self.result is None:
            return "not graded"
        return "regressed" if self.regressed else "failing"

    @property
    def failure(self) -> Failure | None:
        """The failure to fix first."""
        return self.result.failures[0] if self.result is not None and self.result.failures else None


def target_states(attempt: Attempt, latest: GradeResult | None) -> tuple[TargetState, ...]:
    """Each target of the attempt, in catalog order, by its split and the verdict ``latest``."""
    graded = {t.target: t for t in latest.targets} if latest is not None else {}
    return tuple(
        TargetState(t.id, attempt.splits.get(t.id), graded.get(t.id)) for t in load_catalog().drilled(attempt.target)
    )


def latest_result(history: History, attempt: Attempt) -> GradeResult | None:
    """The verdict on the attempt's latest graded version, as the history keeps it."""
    last = history.last_submission(attempt)
    return None if last is None else parse_result(last.result)


def parse_result(text: str) -> GradeResult | None:
    """A verdict as the history keeps it; None when it cannot be read."""
    try:
        return GradeResult.from_json(json.loads(text))
    except (ValueError, TypeError, AttributeError):
        return None
