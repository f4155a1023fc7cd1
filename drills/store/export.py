"""Export the history for analysis elsewhere, and import it back.

Both formats hold every finished attempt (passed, given up or abandoned; the attempt in progress,
if any, is left out until it ends) with its splits and hints. Times are ISO 8601 in UTC, durations
are seconds.

CSV is one tidy table, one row per attempt, per split and per hint count, told apart by ``kind``
(``attempt | split | hint``) and tied together by ``attempt``, the attempt's number in the file.
On an attempt row ``seconds`` is the clock at the end (a pass's time); on a split row, the clock
when that target first passed; on a hint row, ``hints`` is how many hints of ``target`` were shown.

JSON is ``{"version": 2, "attempts": [...]}``, each attempt holding its splits and hints, and,
with ``--with-sources``, every graded version of the file.

Each attempt carries its ``rung`` of the learning ladder (copy, cloze or recall; version 2). An
export made before the ladder (JSON version 1, a CSV without the column) imports as recall, which
is what every attempt then was.

Importing skips the attempts already in the history (same target, same start) and checks the
whole file before it writes anything.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from autograd_drill.store.history import History
from autograd_drill.store.paths import atomic_write
from autograd_drill.store.states import Outcome, Rung

VERSION = 2
READABLE = (1, 2)
"""The JSON versions ``drill import`` reads: 1 is an export from before the ladder (all recall)."""
FORMATS = ("csv", "json")
CSV_FIELDS = (
    "kind",
    "attempt",
    "target",
    "started_at",
    "ended_at",
    "outcome",
    "seconds",
    "paused_seconds",
    "assisted",
    "hints",
    "file",
    "archive",
    "reason",
    "rung",
)
OPTIONAL_FIELDS = ("rung", "reason")
"""Columns an older export lacks (its attempts are recall; assisted, if at all, by hints or peeks)."""
SAME_START = 0.001
"""Seconds within which two starts of the same target are the same attempt (ISO keeps microseconds)."""


class ExportError(ValueError):
    """A file that cannot be imported: one line, saying where."""


# ---------------------------------------------------------------------------- the records


@dataclass(frozen=True)
class Submission:
    graded_at: float
    elapsed: float | None
    source: str
    result: str
    passed: bool


@dataclass(frozen=True)
class Record:
    """One attempt as exported: what the history holds, without its database ids."""

    target: str
    file: str
    started_at: float
    ended_at: float
    outcome: Outcome
    paused_seconds: float
    assisted: bool
    archive: str | None
    splits: tuple[tuple[str, float], ...]
    """(target, clock when it first passed), in the order passed."""
    hints: tuple[tuple[str, int], ...]
    submissions: tuple[Submission, ...] | None = None
    """The graded versions of the file; None when not exported."""
    rung: Rung = Rung.RECALL
    reason: str | None = None
    """Why it is assisted besides hints and peeks (edited while paused...)."""

    @property
    def seconds(self) -> float:
        """The clock at the end."""
        return max(0.0, self.ended_at - self.started_at - self.paused_seconds)


def records(history: History, with_sources: bool = False) -> list[Record]:
    """Every finished attempt, oldest first."""
    out = []
    for attempt in history.attempts():
        if attempt.outcome is None or attempt.ended_at is None:
            continue
        subs = None
        if with_sources:
            subs = tuple(
                Submission(s.graded_at, s.elapsed, s.source, s.result, s.passed) for s in history.submissions(attempt)
            )
        out.append(
            Record(
                target=attempt.target,
                file=str(attempt.file),
                started_at=attempt.started_at,
                ended_at=attempt.ended_at,
                outcome=attempt.outcome,
                # the clock is read on a monotonic clock, the dates on the wall clock: their difference,
                # the time paused, can come out a few nanoseconds below 0, which drill import refuses
                paused_seconds=max(0.0, attempt.paused_total),
                assisted=attempt.assisted,
                archive=attempt.archive,
                splits=tuple(sorted(attempt.splits.items(), key=lambda kv: kv[1])),
                hints=tuple(history.hints(attempt)),
                submissions=subs,
                rung=attempt.rung,
                reason=attempt.reason,
            )
        )
    return out


# ---------------------------------------------------------------------------- writing


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")


def _attempt_fields(r: Record) -> dict[str, Any]:
    """An attempt's own fields, as both formats write them (CSV then spells booleans and None its way)."""
    return {
        "target": r.target,
        "started_at": iso(r.started_at),
        "ended_at": iso(r.ended_at),
        "outcome": r.outcome,
        "seconds": r.seconds,
        "paused_seconds": r.paused_seconds,
        "assisted": r.assisted,
        "file": r.file,
        "archive": r.archive,
        "rung": r.rung,
        "reason": r.reason,
    }


def to_json(recs: Iterable[Record], extra: dict[str, Any] | None = None) -> str:
    """The JSON export; ``extra``: more top-level keys, after the attempts (``"interviews"``)."""
    attempts = []
    for r in recs:
        item: dict[str, Any] = {
            **_attempt_fields(r),
            "splits": [{"target": t, "seconds": s} for t, s in r.splits],
            "hints": dict(r.hints),
        }
        if r.submissions is not None:
            item["submissions"] = [
                {
                    "graded_at": iso(s.graded_at),
                    "elapsed": s.elapsed,
                    "passed": s.passed,
                    "result": _parsed(s.result),
                    "source": s.source,  # ensure_ascii: bytes that were not UTF-8 survive as \udcXX
                }
                for s in r.submissions
            ]
        attempts.append(item)
    return json.dumps({"version": VERSION, "attempts": attempts, **(extra or {})}, indent=1) + "\n"


def _parsed(result: str) -> Any:
    try:
        return json.loads(result)
    except ValueError:
        return result


def to_csv(recs: Iterable[Record]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for n, r in enumerate(recs, 1):
        writer.writerow(
            {
                "kind": "attempt",
                "attempt": n,
                **_attempt_fields(r),
                "assisted": "true" if r.assisted else "false",
                "archive": r.archive or "",
                "reason": r.reason or "",
            }
        )
        for target, seconds in r.splits:
            writer.writerow({"kind": "split", "attempt": n, "target": target, "seconds": seconds})
        for target, shown in r.hints:
            writer.writerow({"kind": "hint", "attempt": n, "target": target, "hints": shown})
    return buffer.getvalue()


@dataclass(frozen=True)
class Exported:
    text: str
    attempts: int
    splits: int


def export(history: History, fmt: str, with_sources: bool = False, extra: dict[str, Any] | None = None) -> Exported:
    """The history in ``fmt``; ``extra``: more top-level keys of a JSON export (see ``to_json``)."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}: csv or json")
    if with_sources and fmt != "json":
        raise ExportError("--with-sources needs --format json (a CSV cell is no place for a source file)")
    recs = records(history, with_sources)
    text = to_json(recs, extra) if fmt == "json" else to_csv(recs)
    return Exported(text, len(recs), sum(len(r.splits) for r in recs))


def write_export(path: Path, text: str) -> str:
    """Write ``text`` where ``drill export -o PATH`` says, and how it was written:

    - a regular file, or none yet: replaced whole and atomically (a temporary file beside it, then
      renamed over it), so that a crash leaves the old export or the new one ("replaced");
    - a symlink to a regular file (or to none yet): the same, at its target; the link stays a link;
    - a FIFO, a terminal or another device (``/dev/stdout``, ``/dev/null``): written to as it is, in
      order, never replaced ("written"); a FIFO waits for its reader, as ``cat > fifo`` does;
    - a directory or a socket: OSError, as for a path that cannot be written.
    """
    try:
        mode = os.stat(path).st_mode  # through symlinks: what the data would land in
    except FileNotFoundError:
        mode = None
    if mode is None or stat.S_ISREG(mode):
        atomic_write(Path(os.path.realpath(path)), text)
        return "replaced"
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if stat.S_ISSOCK(mode):
        raise OSError(errno.ENXIO, "is a socket", str(path))
    with open(path, "w", encoding="utf-8", newline="") as stream:  # a device or FIFO: never replaced
        stream.write(text)
    return "written"
