"""The drill loop's logic: start, check, pause, hints, give up; each target's state. Functions over
the history that return data; the CLI prints it with drills/views."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograd_drill.errors import DrillError
from autograd_drill.grader.catalog import FULL, Target, format_time
from autograd_drill.grader.verdict import Failure, GradeError, GradeResult, TargetResult
from autograd_drill.loop.active import describe_active
from autograd_drill.loop.clock import Clock
from autograd_drill.loop.ladder import current_rung, rung_time
from autograd_drill.loop.unwrite import recorded, unwrite
from autograd_drill.store import pending
from autograd_drill.store.attempt import AttemptInProgress, file_sha256
from autograd_drill.store.faults import HistoryError
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.paths import atomic_write, display
from autograd_drill.store.records import personal_best
from autograd_drill.store.states import Outcome, Rung
from autograd_drill.targets import catalog as merged

if TYPE_CHECKING:
    from autograd_drill.grader.process import Runner, run_in_subprocess
    from autograd_drill.grader.run import grade_file
    from autograd_drill.loop.incremental import reused_verdicts

GRADING = dict(
    grade_file="autograd_drill.grader.run",
    run_in_subprocess="autograd_drill.grader.process",
    reused_verdicts="autograd_drill.loop.incremental",
)
"""What ``check`` grades with, imported on its first use (drill status grades nothing); tests replace them here."""


def __getattr__(name: str) -> Any:
    if name not in GRADING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value = getattr(__import__(GRADING[name], fromlist=[name]), name)
    return value


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
    rung: Rung = Rung.RECALL
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


def start(history: History, target_id: str, workspace: Path, clock: Clock, rung: Rung | None = Rung.RECALL) -> Started:
    """Write the stub of ``rung`` (None: the target's current rung on the ladder) and start the clock."""
    from autograd_drill.loop.active import typed_drill
    from autograd_drill.loop.stubs import check_rung, stub_for
    from autograd_drill.targets import reference_of

    target_id = typed_drill(target_id)
    history.writable()
    try:
        rung = check_rung(rung or current_rung(history, target_id))
        timed = rung_time(target_id, rung)
    except ValueError as exc:
        raise DrillError(str(exc)) from None
    catalog = merged()
    targets = catalog.drilled(target_id)
    symbols = tuple(s for t in targets for s in t.symbols)
    label = f"target {target_id}"
    if catalog.is_full(target_id):
        pack = "" if target_id == FULL else f" of the {targets[0].pack} pack"
        label = f"the full drill{pack} (every target)"
    path = workspace / f"{target_id}.py"  # layers/layernorm: in the folder layers/ (made as it is written)
    drills = [t.own_id for t in targets]  # as its pack's reference tags them
    stub = stub_for(symbols, label, reference_of(target_id), drills, rung, targets[0].pack)
    done: dict[str, Path | str | None] = {}

    def write() -> str | None:
        """Archive the file in the way and write the stub, once the history is free (and held)."""
        done["archived"] = archive_file(path) if path.exists() else None
        atomic_write(path, stub)
        done["inode"] = str(path.stat().st_ino)
        done["sha256"] = sha256 = file_sha256(path)
        return sha256

    now = clock()
    try:
        attempt = history.start(target_id, path.resolve(), now, rung, write=write)
    except BaseException as exc:
        if not recorded(history, path, now):
            unwrite(path, done)  # no attempt: the workspace as it was
        if isinstance(exc, OSError):
            raise DrillError(f"cannot write to the workspace {display(workspace)}: {exc.strerror or exc}") from None
        if isinstance(exc, AttemptInProgress):  # one attempt at a time (a racing start waited, and finds it)
            raise DrillError(
                f"{describe_active(exc.attempt, clock())}. Continue it with  drill watch  (or drill check), "
                "or end it first with  drill abandon  (your file is archived) or  drill give-up."
            ) from None
        raise
    best = personal_best(history.attempts(target_id), rung)
    archived = done.get("archived")
    return Started(
        attempt,
        path,
        symbols,
        archived if isinstance(archived, Path) else None,
        best,
        timed.seconds,
        rung,
        timed.reasoning,
    )


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
    unrecorded: str | None = None
    """Why this verdict is not in the history (a storage fault), and where it is kept to be recorded
    by the next command that can write; None: it is recorded."""

    @property
    def finished(self) -> bool:
        return self.attempt.outcome is Outcome.PASSED


def check(
    history: History,
    clock: Clock,
    oracle: str = "auto",
    attempt: Attempt | None = None,
    runner: Runner | None = None,
    on_failure: Callable[[Failure], None] | None = None,
) -> Checked:
    """Grade the attempt's file once; record the source, the splits, and the end when all targets pass.
    ``on_failure``: told the grading's first failure while its other tests run (grader/run.py).

    In a drill of several targets, only the targets whose code changed since the last graded version
    are graded (drills/loop/incremental.py); the others keep their verdicts. An
    attempt ends only on a grading of every target: when reused verdicts make it pass, the whole
    file is graded again first.
    """
    from autograd_drill.grader.solution_file import UnreadableFile, read_solution
    from autograd_drill.loop.incremental import merge
    from autograd_drill.targets import suite_of

    for name in GRADING.keys() - globals().keys():
        __getattr__(name)
    attempt = attempt or require_active(history)
    history.writable()  # a history this version does not write: said before grading
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
    targets = merged().drilled(attempt.target)
    reused: dict[str, TargetResult] = {}
    if len(targets) > 1:
        last = history.last_submission(attempt)
        if last is not None:
            reused = reused_verdicts(last.source, parse_result(last.result), source, targets)

    full, shown = str(attempt.file), display(attempt.file)  # the history keeps the path whole, we show it from here
    told = None if on_failure is None else lambda failure: on_failure(failure.renamed(full, shown))

    def grade(these: Sequence[Target]) -> GradeResult:
        if not these:
            return GradeResult(full, (), 0.0)
        try:
            return grade_file(
                attempt.file,
                these,
                oracle=oracle,
                label=full,
                runner=runner or run_in_subprocess,
                on_failure=told,
                suite=suite_of(attempt.target),
            )
        except GradeError as exc:
            raise DrillError(str(exc)) from None

    result = merge(grade([t for t in targets if t.id not in reused]), reused, targets)
    if result.passed and reused:  # the end is never declared on reused verdicts
        result = grade(targets)
    verdict = json.dumps(result.to_json())
    result = result.renamed(full, shown)
    try:
        return record(history, attempt, when, elapsed, source, verdict, result)
    except (sqlite3.Error, HistoryError) as exc:
        reason = str(history.fault(exc))
        kept = {"attempt_id": attempt.id, "graded_at": float(when), "elapsed": elapsed, "source": source}
        try:
            place = pending.keep(history.path, kept | {"result": verdict})
            where = f"it is kept in {place} and recorded by the next drill command that can write"
        except OSError as err:
            where = f"and it could not be kept either ({err.strerror or err})"
        return Checked(attempt, result, elapsed, (), f"{reason}; {where}")


def record(
    history: History,
    attempt: Attempt,
    when: float,
    elapsed: float,
    source: str,
    verdict: str,
    result: GradeResult,
    tick: bool = True,
) -> Checked:
    """Record a grading of ``attempt`` at ``when``: its source, the clock event, the splits, the end
    when it passed; all of it or nothing. ``tick``: a clock event (not for a verdict recorded late)."""
    with history.transaction():
        history.add_submission(attempt, when, elapsed, source, verdict, result.passed)
        if tick:  # a reboot comes back to this clock
            sha256 = hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest()
            attempt = history.tick(attempt, when, sha256)
        else:
            attempt = history.get(attempt.id)
        if not attempt.in_progress:  # ended in another terminal while we graded: its ending stands
            return Checked(attempt, result, elapsed, ())
        newly = tuple(t.target for t in result.targets if t.passed and t.target not in attempt.splits)
        for target in newly:
            history.add_split(attempt, target, elapsed)
        if result.passed:
            attempt = history.finish(attempt, Outcome.PASSED, when, elapsed=elapsed)
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
    return history.finish(require_active(history), Outcome.GAVE_UP, clock())


def abandon(history: History, clock: Clock) -> Attempt:
    """End the attempt, its file archived; a file that cannot be archived (a read-only workspace) or an
    end that cannot be recorded leaves both as they were."""
    attempt = require_active(history)
    history.writable()
    try:
        archived = archive_file(attempt.file) if attempt.file.exists() else None
    except OSError as exc:
        raise DrillError(
            f"cannot archive {display(attempt.file)} into {display(attempt.file.parent / '.archive')}: "
            f"{exc.strerror or exc}; the attempt goes on"
        ) from None
    try:
        return history.finish(attempt, Outcome.ABANDONED, clock(), archive=str(archived) if archived else None)
    except BaseException:
        if archived is not None and not attempt.file.exists():
            archived.replace(attempt.file)  # not abandoned: the file back where it was
        raise


@dataclass(frozen=True)
class Hints:
    target: str
    shown: tuple[str, ...]
    remaining: int
    counted: bool
    """True when an attempt is in progress (and now marked assisted)."""


def hint(history: History, target_id: str | None) -> Hints:
    catalog = merged()
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
        TargetState(t.id, attempt.splits.get(t.id), graded.get(t.id)) for t in merged().drilled(attempt.target)
    )


def latest_result(history: History, attempt: Attempt) -> GradeResult | None:
    """The verdict on the attempt's latest graded version, as the history keeps it, its file named from here."""
    last = history.last_submission(attempt)
    result = None if last is None else parse_result(last.result)
    return None if result is None else result.renamed(str(attempt.file), display(attempt.file))


def parse_result(text: str) -> GradeResult | None:
    """A verdict as the history keeps it; None when it cannot be read."""
    try:
        return GradeResult.from_json(json.loads(text))
    except (ValueError, TypeError, AttributeError):
        return None
