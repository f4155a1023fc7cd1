"""The drill loop's logic: start, check, pause, hints, give up, compare. Functions over the history
that return data; the CLI prints it (drills/views/render.py)."""

from __future__ import annotations

import ast
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from drills.loop.clock import Clock
from drills.loop.stubs import REFERENCE, find_functions, stub_for
from drills.store.history import Attempt, History
from drills.store.paths import atomic_write, display
from grader.catalog import Target, format_time, load_catalog
from grader.run import GradeError, GradeResult, Runner, grade, run_in_subprocess

FULL = "full"


class DrillError(Exception):
    """A refusal the user can act on: printed as one line, exit status 2 (or ``code``)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def targets_of(attempt_target: str) -> list[Target]:
    """The targets an attempt drills: one, or every core target for ``full``."""
    catalog = load_catalog()
    return list(catalog.targets) if attempt_target == FULL else [catalog.get(attempt_target)]


def target_time(attempt_target: str) -> int:
    catalog = load_catalog()
    return catalog.full_time if attempt_target == FULL else catalog.get(attempt_target).target_time


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


def archive_file(path: Path) -> Path:
    """Move ``path`` into ``.archive/`` beside it, under a name no other archive has."""
    folder = path.parent / ".archive"
    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (dest := folder / f"{path.stem}-{n:03d}{path.suffix}").exists():
        n += 1
    path.replace(dest)
    return dest


def start(history: History, target_id: str, workspace: Path, clock: Clock) -> Started:
    if target_id != FULL:
        target_id = load_catalog().get(target_id).id
    active = history.active()
    if active is not None:
        raise DrillError(
            f"{describe_active(active, clock())}. Continue it with  drill watch  (or drill check), "
            "or end it first with  drill abandon  (your file is archived) or  drill give-up."
        )
    targets = targets_of(target_id)
    symbols = tuple(s for t in targets for s in t.symbols)
    label = "the full drill (every target)" if target_id == FULL else f"target {target_id}"
    path = workspace / f"{target_id}.py"
    try:
        archived = archive_file(path) if path.exists() else None
        atomic_write(path, stub_for(symbols, label, drills=[t.id for t in targets]))
    except OSError as exc:
        raise DrillError(f"cannot write to the workspace {display(workspace)}: {exc.strerror or exc}") from None
    attempt = history.start(target_id, path.resolve(), clock())
    return Started(attempt, path, symbols, archived, personal_best(history, target_id), target_time(target_id))


# ---------------------------------------------------------------------------- check


@dataclass(frozen=True)
class Checked:
    attempt: Attempt
    """The attempt after this check (ended if it is complete)."""
    result: GradeResult
    elapsed: float
    newly_passed: tuple[str, ...]

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
    """Grade the attempt's file once; record the source, the splits, and the end when all targets pass."""
    attempt = attempt or require_active(history)
    if attempt.paused:
        raise DrillError(f"the clock of {attempt.target} is paused: run  drill resume  to grade again")
    if not attempt.file.exists():
        raise DrillError(f"{display(attempt.file)} is gone: recreate it, or end the attempt with  drill abandon")
    source = attempt.file.read_bytes().decode("utf-8", "surrogateescape")  # kept byte for byte
    when = clock()
    elapsed = attempt.elapsed(when)  # grading time is not the user's time
    try:
        result = grade(
            attempt.file,
            targets_of(attempt.target),
            oracle=oracle,
            label=display(attempt.file),
            runner=runner or run_in_subprocess,
        )
    except GradeError as exc:
        raise DrillError(str(exc)) from None
    record = {**result.to_json(), "failures": {t.target: list(t.failures[:3]) for t in result.targets}}
    history.add_submission(attempt, when, elapsed, source, json.dumps(record), result.passed)
    attempt = history.get(attempt.id)
    if not attempt.in_progress:  # ended in another terminal while we graded: its ending stands
        return Checked(attempt, result, elapsed, ())
    newly = tuple(t.target for t in result.targets if t.passed and t.target not in attempt.splits)
    for target in newly:
        history.add_split(attempt, target, elapsed)
    if result.passed:
        attempt = history.finish(attempt, "passed", attempt.started_at + attempt.paused_total + elapsed)
    return Checked(history.get(attempt.id), result, elapsed, newly)


# ---------------------------------------------------------------------------- records


def finished_attempts(history: History, target_id: str) -> list[Attempt]:
    """Attempts that count: passed or given up (an abandoned attempt is a reset, not a try)."""
    return [a for a in history.attempts(target_id) if a.outcome in ("passed", "gave-up")]


def personal_best(history: History, target_id: str, before: Attempt | None = None) -> float | None:
    """The best unassisted time (an assisted attempt is not a record), optionally of the attempts before one."""
    times = [
        a.time
        for a in history.attempts(target_id)
        if a.time is not None and not a.assisted and (before is None or a.id < before.id)
    ]
    return min(times, default=None)


def segments(attempt: Attempt) -> list[tuple[str, float]]:
    """A full attempt's splits as (target, time spent on it since the previous split), in the order passed."""
    out, previous = [], 0.0
    for target, at in sorted(attempt.splits.items(), key=lambda kv: kv[1]):
        out.append((target, at - previous))
        previous = at
    return out


@dataclass(frozen=True)
class ScoreRow:
    target: str
    target_time: int
    time: float | None
    best: float | None
    attempts: int
    assisted: bool
    new_best: bool

    @property
    def delta(self) -> float | None:
        return None if self.time is None else self.time - self.target_time


@dataclass(frozen=True)
class Scoreboard:
    attempt: Attempt
    rows: tuple[ScoreRow, ...]
    total: ScoreRow | None
    """For the full drill: the whole run against 45:00."""
    sum_of_best: float | None

    @property
    def new_best(self) -> bool:
        """A new record for the attempt as a whole (for the full drill, its total; best splits are marked per row)."""
        return self.total.new_best if self.total is not None else any(r.new_best for r in self.rows)


def scoreboard(history: History, attempt: Attempt) -> Scoreboard:
    catalog = load_catalog()
    count = len(finished_attempts(history, attempt.target))
    if attempt.target != FULL:
        previous = personal_best(history, attempt.target, before=attempt)
        time = attempt.time
        new_best = time is not None and not attempt.assisted and (previous is None or time < previous)
        row = ScoreRow(
            attempt.target,
            catalog.get(attempt.target).target_time,
            time,
            personal_best(history, attempt.target),
            count,
            attempt.assisted,
            new_best,
        )
        return Scoreboard(attempt, (row,), None, None)
    fulls = [a for a in history.attempts(FULL) if a.splits and not a.assisted]
    best_segment: dict[str, float] = {}
    previous_segment: dict[str, float] = {}
    for other in fulls:
        for target, seconds in segments(other):
            best_segment[target] = min(seconds, best_segment.get(target, seconds))
            if other.id < attempt.id:
                previous_segment[target] = min(seconds, previous_segment.get(target, seconds))
    rows = tuple(
        ScoreRow(
            target,
            catalog.get(target).target_time,
            seconds,
            best_segment.get(target),
            count,
            attempt.assisted,
            not attempt.assisted and (target not in previous_segment or seconds < previous_segment[target]),
        )
        for target, seconds in segments(attempt)
    )
    previous_total = personal_best(history, FULL, before=attempt)
    total_time = attempt.time
    total = ScoreRow(
        FULL,
        catalog.full_time,
        total_time,
        personal_best(history, FULL),
        count,
        attempt.assisted,
        total_time is not None and not attempt.assisted and (previous_total is None or total_time < previous_total),
    )
    sob = sum(best_segment.values()) if len(best_segment) == len(catalog.targets) else None
    return Scoreboard(attempt, rows, total, sob)


@dataclass(frozen=True)
class TargetStats:
    target: str
    target_time: int
    attempts: int
    best: float | None
    median_last_five: float | None
    times: tuple[float, ...]
    """Passed times, oldest first (for the sparkline)."""
    share_under: float | None
    last: Attempt | None


def stats(history: History, target_id: str) -> TargetStats:
    done = finished_attempts(history, target_id)
    times = tuple(a.time for a in done if a.time is not None)
    limit = target_time(target_id)
    under = sum(1 for a in done if a.time is not None and a.time <= limit)
    return TargetStats(
        target=target_id,
        target_time=limit,
        attempts=len(done),
        best=personal_best(history, target_id),
        median_last_five=statistics.median(times[-5:]) if times else None,
        times=times,
        share_under=under / len(done) if done else None,
        last=done[-1] if done else None,
    )


# ---------------------------------------------------------------------------- pause, give up, abandon, hints


def pause(history: History, clock: Clock) -> Attempt:
    attempt = require_active(history)
    if attempt.paused:
        raise DrillError(f"the clock of {attempt.target} is already paused at {format_time(attempt.elapsed(clock()))}")
    return history.pause(attempt, clock())


def resume(history: History, clock: Clock) -> Attempt:
    attempt = require_active(history)
    if not attempt.paused:
        raise DrillError(f"the clock of {attempt.target} is running ({format_time(attempt.elapsed(clock()))})")
    return history.resume(attempt, clock())


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
    drilled = targets_of(attempt.target)
    if target_id is None:
        target = next((t for t in drilled if t.id not in attempt.splits), drilled[-1])
    else:
        target = catalog.get(target_id)
        if target not in drilled:
            raise DrillError(f"the attempt in progress drills {attempt.target}, not {target.id}")
    shown = min(history.show_hint(attempt, target.id), len(target.hints))
    return Hints(target.id, target.hints[:shown], len(target.hints) - shown, counted=True)


# ---------------------------------------------------------------------------- compare with the reference


@dataclass(frozen=True)
class Comparison:
    target: str
    source_label: str
    pairs: tuple[tuple[str, str | None, str], ...]
    """(symbol, the user's code or None when missing, the reference's code)."""
    peeked: bool
    """Shown before the target passed."""
    marked_assisted: bool
    """The peek marked the attempt in progress assisted."""


def symbol_sources(source: str) -> dict[str, str]:
    """Each function's source, by catalog symbol name; empty when the file does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    lines = source.splitlines(keepends=True)
    found = {}
    for name, node in find_functions(tree).items():
        start = min([node.lineno, *[d.lineno for d in node.decorator_list]])
        assert node.end_lineno is not None
        keep = list(range(start - 1, node.end_lineno))
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            docstring = range(first.lineno - 1, (first.end_lineno or first.lineno))
            keep = [i for i in keep if i not in docstring]  # the docstring is the same on both sides
        found[name] = _dedent("".join(lines[i] for i in keep))
    return found


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).rstrip() + "\n"


def compare(history: History, target_id: str | None, peek: bool) -> Comparison:
    catalog = load_catalog()
    attempt = history.active()
    if target_id is None:
        if attempt is None:
            attempts = history.attempts()
            if not attempts:
                raise DrillError("nothing to compare yet: start a drill with  drill start TARGET")
            attempt = attempts[-1]
        target = next((t for t in targets_of(attempt.target) if t.id not in attempt.splits), None)
        target = target or targets_of(attempt.target)[0]
    else:
        target = catalog.get(target_id)
        if attempt is None or target not in targets_of(attempt.target):
            mine = [a for a in history.attempts() if target in targets_of(a.target)]
            if not mine:
                raise DrillError(f"you have never attempted {target.id}: start with  drill start {target.id}")
            attempt = mine[-1]
    allowed = target.id in attempt.splits or attempt.outcome == "gave-up"
    if not allowed and attempt.outcome == "abandoned" and not peek:
        raise DrillError(
            f"your last attempt at {target.id} was abandoned before it passed: "
            f"drill diff {target.id} --peek shows it anyway"
        )
    if not allowed and not peek:
        raise DrillError(
            f"{target.id} has not passed yet, and comparing now would spoil the drill: "
            f"drill diff {target.id} --peek shows it and marks the attempt assisted; drill give-up ends it first"
        )
    marked = not allowed and attempt.in_progress
    if marked:
        history.mark_assisted(attempt)
    source, label = _latest_source(history, attempt)
    ours = symbol_sources(source)
    reference = symbol_sources(REFERENCE.read_text(encoding="utf-8"))
    pairs = tuple((s, ours.get(s), reference[s]) for s in target.symbols)
    return Comparison(target.id, label, pairs, peeked=not allowed, marked_assisted=marked)


def _latest_source(history: History, attempt: Attempt) -> tuple[str, str]:
    if attempt.in_progress and attempt.file.exists():
        return attempt.file.read_text(encoding="utf-8", errors="replace"), display(attempt.file)
    submissions = history.submissions(attempt)
    if submissions:
        readable = submissions[-1].source.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return readable, f"{display(attempt.file)} as last graded"
    if attempt.archive and Path(attempt.archive).exists():
        return Path(attempt.archive).read_text(encoding="utf-8", errors="replace"), display(Path(attempt.archive))
    if attempt.file.exists():
        return attempt.file.read_text(encoding="utf-8", errors="replace"), display(attempt.file)
    return "", "(no source kept)"


def status_lines(history: History, attempt: Attempt) -> list[tuple[str, str, str]]:
    """Per target of the attempt: (target, state, detail) from the latest graded version."""
    submissions = history.submissions(attempt)
    latest = json.loads(submissions[-1].result) if submissions else None
    rows = []
    for target in targets_of(attempt.target):
        if target.id in attempt.splits:
            rows.append((target.id, "passed", f"at {format_time(attempt.splits[target.id])}"))
        elif latest is None:
            rows.append((target.id, "not graded", "save your file, or run drill check"))
        else:
            failures = latest.get("failures", {}).get(target.id, [])
            rows.append((target.id, "failing", failures[0].splitlines()[0] if failures else ""))
    return rows
