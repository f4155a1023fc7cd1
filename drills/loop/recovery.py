"""``drill restore``: a solution file deleted or overwritten, brought back from the history, which
keeps the source of every graded save: the latest, or any of them (``--list`` numbers them, ``--save N``
chooses one), so a file overwritten and graded (say, while ``drill watch`` ran) is no loss. (Not ``drills/store/restore.py``, which reads a file of
``drill export`` back into the history for ``drill import``.)"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from autograd_drill.errors import DrillError
from autograd_drill.grader.catalog import listed
from autograd_drill.grader.solution_file import UnreadableFile, read_solution
from autograd_drill.grader.verdict import GradeResult
from autograd_drill.loop.session import archive_file
from autograd_drill.store.history import Attempt, History, Submission
from autograd_drill.store.paths import atomic_write, display


@dataclass(frozen=True)
class Recovered:
    attempt: Attempt
    submission: Submission
    """The graded save written back."""
    path: Path
    archived: Path | None
    """Where the file that was in the way went (``.archive/`` beside it), if there was one."""
    unchanged: bool
    """The file already held that source: nothing was written."""
    others: tuple[int, ...]
    """The other attempts of the same drill with graded saves, newest first (for --attempt)."""
    number: int = 0
    """Which graded save of the attempt it is, from 1 (``drill restore --list``)."""
    saves: int = 0
    """How many graded saves the attempt has."""


@dataclass(frozen=True)
class Save:
    """One graded save of an attempt, as ``drill restore --list`` shows it."""

    number: int
    """From 1, in the order they were graded: what ``--save N`` takes."""
    elapsed: float | None
    """The attempt's clock at the save (None: graded outside a timed attempt)."""
    verdict: str
    """``passed``, or what failed: ``3 of 10 tests failed``; ``unbroadcast and arith failed``."""
    in_file: bool
    """The solution file holds this source now."""
    same_as: int | None = None
    """The first earlier save with the very same source, if any (the watch grades a restored file again)."""


@dataclass(frozen=True)
class Saves:
    attempt: Attempt
    saves: tuple[Save, ...]
    others: tuple[int, ...]
    """The other attempts of the same drill with graded saves, newest first."""


def verdict(result: str) -> str:
    """A graded save's verdict in a few words, from the JSON the history keeps."""
    try:
        graded = GradeResult.from_json(json.loads(result))
    except (ValueError, TypeError, AttributeError):
        return "verdict unreadable"
    if graded.targets and graded.passed:
        return "passed"
    failing = [t for t in graded.targets if not t.passed]
    if len(graded.targets) == 1:
        [t] = failing
        if t.failed:
            return f"{t.failed} of {t.tests} tests failed"
        return "not run" if t.not_run else "no tests"
    if not failing:
        return "no verdict"
    return f"{listed([t.target for t in failing])} failed"


def _graded(history: History, attempts: list[Attempt]) -> list[tuple[Attempt, Submission]]:
    """The attempts that have a graded save, newest first, each with its latest one."""
    found = []
    for attempt in sorted(attempts, key=lambda a: a.id, reverse=True):
        last = history.last_submission(attempt)
        if last is not None:
            found.append((attempt, last))
    return found


def choose(history: History, drill_id: str | None, attempt_id: int | None) -> list[tuple[Attempt, Submission]]:
    """The candidates, the one to restore first: attempt ``attempt_id``; else the attempts at
    ``drill_id``; else the attempt in progress."""
    if attempt_id is not None:
        try:
            attempt = history.get(attempt_id)
        except KeyError:
            raise DrillError(f"there is no attempt {attempt_id} in your history") from None
        if drill_id is not None and attempt.target != drill_id:
            raise DrillError(f"attempt {attempt_id} was at {attempt.target}, not {drill_id}")
        graded = _graded(history, [attempt])
        if not graded:
            raise DrillError(f"attempt {attempt_id} ({attempt.target}) was never graded: no source of it is kept")
        return graded + [g for g in _graded(history, history.attempts(attempt.target)) if g[0].id != attempt_id]
    if drill_id is None:
        active = history.active()
        if active is None:
            raise DrillError("no attempt in progress: name the drill whose file to bring back,  drill restore TARGET")
        drill_id = active.target
        if history.last_submission(active) is None:
            earlier = [str(a.id) for a, _ in _graded(history, history.attempts(drill_id))]
            noun = "attempt" if len(earlier) == 1 else "attempts"
            raise DrillError(
                f"the attempt at {drill_id} in progress has not been graded yet, so none of its source is kept"
                + (f"; earlier graded {noun}: {', '.join(earlier)} (drill restore --attempt N)" if earlier else "")
            )
    graded = _graded(history, history.attempts(drill_id))
    if not graded:
        raise DrillError(f"no graded save of {drill_id} in your history: nothing to bring back")
    return graded


def _numbered(history: History, attempt: Attempt, save: int | None) -> tuple[Submission, int, int]:
    """The save to restore (``save``, from 1; None: the latest), its number, and how many there are."""
    kept = history.submissions(attempt)
    if save is None:
        return kept[-1], len(kept), len(kept)
    if not 1 <= save <= len(kept):
        noun = "save" if len(kept) == 1 else "saves"
        raise DrillError(
            f"attempt {attempt.id} ({attempt.target}) has {len(kept)} graded {noun}: --save takes 1"
            + (f" to {len(kept)}" if len(kept) > 1 else "")
            + f", not {save} (drill restore --list shows them)"
        )
    return kept[save - 1], save, len(kept)


def _held(path: Path) -> bytes | None:
    """What the file holds now; None when it is missing or cannot be read (odd, or too big)."""
    try:
        return read_solution(path)
    except UnreadableFile:
        return None


def saves(history: History, drill_id: str | None = None, attempt_id: int | None = None) -> Saves:
    """``drill restore --list``: every graded save of the attempt ``recover`` would restore from."""
    (attempt, _), *others = choose(history, drill_id, attempt_id)
    held = _held(attempt.file)
    first: dict[bytes, int] = {}
    listed_saves = []
    for i, s in enumerate(history.submissions(attempt), start=1):
        raw = s.source.encode("utf-8", "surrogateescape")
        earlier = first.get(raw)
        first.setdefault(raw, i)
        listed_saves.append(Save(i, s.elapsed, verdict(s.result), raw == held, earlier))
    return Saves(attempt, tuple(listed_saves), tuple(a.id for a, _ in others))


def recover(
    history: History, drill_id: str | None = None, attempt_id: int | None = None, save: int | None = None
) -> Recovered:
    """Write a graded source of the chosen attempt back to its file (save ``save``, from 1; None: its
    latest); a different file in the way is archived first, never overwritten."""
    (attempt, _), *others = choose(history, drill_id, attempt_id)
    submission, number, count = _numbered(history, attempt, save)
    path = attempt.file
    raw = submission.source.encode("utf-8", "surrogateescape")
    ids = tuple(a.id for a, _ in others)
    try:
        if read_solution(path, display(path)) == raw:
            return Recovered(attempt, submission, path, None, True, ids, number, count)
    except UnreadableFile as exc:  # a huge file or a symlink loop is set aside below, never read
        if exc.odd:  # a FIFO, a device, a directory: not a file to archive
            raise DrillError(f"{exc}: move it away, then run  drill restore  again") from None
    try:
        archived = archive_file(path) if os.path.lexists(path) else None
        atomic_write(path, raw)
    except OSError as exc:
        raise DrillError(f"cannot write {display(path)}: {exc.strerror or exc}") from None
    return Recovered(attempt, submission, path, archived, False, ids, number, count)
