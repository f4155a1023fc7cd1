"""``drill restore``: a solution file deleted or overwritten, brought back from the history, which
keeps the source of every graded save. (Not ``drills/store/restore.py``, which reads a file of
``drill export`` back into the history for ``drill import``.)"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drills.loop.session import DrillError, archive_file
from drills.store.history import Attempt, History, Submission
from drills.store.paths import atomic_write, display


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


def recover(history: History, drill_id: str | None = None, attempt_id: int | None = None) -> Recovered:
    """Write the latest graded source of the chosen attempt back to its file; a different file in the
    way is archived first, never overwritten."""
    (attempt, submission), *others = choose(history, drill_id, attempt_id)
    path = attempt.file
    raw = submission.source.encode("utf-8", "surrogateescape")
    ids = tuple(a.id for a, _ in others)
    if path.exists() and path.read_bytes() == raw:
        return Recovered(attempt, submission, path, None, True, ids)
    try:
        archived = archive_file(path) if path.exists() else None
        atomic_write(path, raw)
    except OSError as exc:
        raise DrillError(f"cannot write {display(path)}: {exc.strerror or exc}") from None
    return Recovered(attempt, submission, path, archived, False, ids)
