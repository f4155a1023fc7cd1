"""``drill import``: a file written by ``drill export`` read back, checked field by field (a wrong
field is named, with its row or attempt), and its attempts added to the history unless already there."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from autograd_drill.store.export import (
    CSV_FIELDS,
    FORMATS,
    OPTIONAL_FIELDS,
    READABLE,
    SAME_START,
    VERSION,
    ExportError,
    Record,
    Submission,
)
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.states import Outcome, Rung, State, state_of
from autograd_drill.targets import SEPARATOR, is_full, pack_name
from autograd_drill.targets import catalog as merged

# ---------------------------------------------------------------------------- reading


ROUNDING = 1e-6
"""Seconds below 0 taken as 0: a float's rounding (exports before 0.1.1 could say -2e-9 s paused)."""


class _Check:
    """Field checks that name the place of a bad value."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.known = set(merged().drill_ids)

    def fail(self, message: str) -> ExportError:
        return ExportError(f"{self.where}: {message}")

    def target(self, value: object, field: str = "target") -> str:
        if value not in self.known and SEPARATOR in value and pack_name(value) not in {t.pack for t in merged().every}:
            raise self.fail(f"{field} {value!r} is of the pack {pack_name(value)}, which is not installed")
        if value not in self.known:
            raise self.fail(f"{field} {value!r} is not a target ({', '.join(sorted(self.known))})")
        return str(value)

    def time(self, value: object, field: str) -> float:
        if not isinstance(value, str):
            raise self.fail(f"{field} must be an ISO 8601 time, got {value!r}")
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            raise self.fail(f"{field} is not an ISO 8601 time: {value!r}") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)  # a spreadsheet may drop the zone: the export wrote UTC
        return when.timestamp()

    def number(self, value: object, field: str, optional: bool = False) -> float | None:
        if value is None and optional:
            return None
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise self.fail(f"{field} must be a number of seconds, got {value!r}") from None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < -ROUNDING
        ):
            raise self.fail(f"{field} must be a number of seconds (0 or more), got {value!r}")
        return max(0.0, float(value))

    def seconds(self, value: object, field: str) -> float:
        number = self.number(value, field)
        assert number is not None
        return number

    def flag(self, value: object, field: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        raise self.fail(f"{field} must be true or false, got {value!r}")

    def count(self, value: object, field: str) -> int:
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"{field} must be a whole number, got {value!r}")
        return value

    def text(self, value: object, field: str, optional: bool = False) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(f"{field} must be text, got {value!r}")
        return value

    def state(self, kind: type[State], value: object, field: str) -> State:
        try:
            return state_of(kind, value, field)
        except ValueError as exc:
            raise self.fail(str(exc)) from None

    def attempt(self, fields: dict[str, Any], splits: list[tuple[str, float]], hints: list[tuple[str, int]]) -> Record:
        outcome = self.state(Outcome, fields.get("outcome"), "outcome")
        started = self.time(fields.get("started_at"), "started_at")
        ended = self.time(fields.get("ended_at"), "ended_at")
        if ended < started:
            raise self.fail("ended_at is before started_at")
        target = self.target(fields.get("target"))
        allowed = tuple(t.id for t in merged().drilled(target))
        for split, _ in splits:
            if split not in allowed:
                raise self.fail(f"an attempt at {target} cannot have a split for {split}")
        if len({t for t, _ in splits}) < len(splits) or len({t for t, _ in hints}) < len(hints):
            raise self.fail("a target appears twice in the splits or hints of one attempt")
        if outcome is Outcome.PASSED and not splits:
            raise self.fail("a passed attempt needs its splits")
        paused = self.seconds(fields.get("paused_seconds", 0), "paused_seconds")
        rung = self.state(Rung, fields.get("rung") or Rung.RECALL, "rung")  # an export from before the ladder
        if is_full(target) and rung is not Rung.RECALL:
            raise self.fail("the full drill is recall only")
        return Record(
            target=target,
            file=self.text(fields.get("file"), "file") or "",
            started_at=started,
            ended_at=ended,
            outcome=outcome,
            paused_seconds=paused,
            assisted=self.flag(fields.get("assisted"), "assisted"),
            archive=self.text(fields.get("archive"), "archive", optional=True) or None,
            splits=tuple(sorted(splits, key=lambda kv: kv[1])),
            hints=tuple(sorted(hints)),
            submissions=None,
            rung=rung,
            reason=self.text(fields.get("reason"), "reason", optional=True) or None,
        )


def from_json(text: str) -> tuple[list[Record], dict[str, Any]]:
    """The attempts of a JSON export, and the export's whole object (for its other keys: ``"interviews"``)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ExportError(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or "attempts" not in data:
        raise ExportError('not an autograd-drill export: expected {"version": 1, "attempts": [...]}')
    if data.get("version") not in READABLE:
        raise ExportError(
            f"export version {data.get('version')!r} is not supported (this drill reads versions 1 to {VERSION})"
        )
    if not isinstance(data["attempts"], list):
        raise ExportError('"attempts" must be a list')
    out = []
    for n, item in enumerate(data["attempts"], 1):
        check = _Check(f"attempt {n}")
        if not isinstance(item, dict):
            raise check.fail("must be an object")
        raw_splits, raw_hints = item.get("splits", []), item.get("hints", {})
        if not isinstance(raw_splits, list) or not all(isinstance(s, dict) for s in raw_splits):
            raise check.fail('"splits" must be a list of {"target": ..., "seconds": ...}')
        if not isinstance(raw_hints, dict):
            raise check.fail('"hints" must be an object {target: count}')
        splits = [
            (check.target(s.get("target"), "split"), check.seconds(s.get("seconds"), "split seconds"))
            for s in raw_splits
        ]
        hints = [(check.target(t, "hint"), check.count(c, "hints")) for t, c in raw_hints.items()]
        record = check.attempt(item, splits, hints)
        if "submissions" in item:
            record = _with_submissions(record, item["submissions"], check)
        out.append(record)
    return out, data


def _with_submissions(record: Record, raw: object, check: _Check) -> Record:
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise check.fail('"submissions" must be a list of objects')
    subs = []
    for s in raw:
        result = s.get("result")
        subs.append(
            Submission(
                graded_at=check.time(s.get("graded_at"), "graded_at"),
                elapsed=check.number(s.get("elapsed"), "elapsed", optional=True),
                source=check.text(s.get("source"), "source") or "",
                result=result if isinstance(result, str) else json.dumps(result),
                passed=check.flag(s.get("passed"), "passed"),
            )
        )
    return replace(record, submissions=tuple(subs))


def from_csv(text: str) -> list[Record]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [f for f in CSV_FIELDS if f not in (reader.fieldnames or []) and f not in OPTIONAL_FIELDS]
    if missing:
        raise ExportError(f"not an autograd-drill CSV export: no column {', '.join(missing)} (line 1)")
    attempts: dict[str, tuple[dict[str, Any], _Check]] = {}
    splits: dict[str, list[tuple[str, float]]] = {}
    hints: dict[str, list[tuple[str, int]]] = {}
    for row in reader:
        check = _Check(f"line {reader.line_num}")
        if None in row or any(v is None for v in row.values()):
            raise check.fail(f"expected {len(reader.fieldnames or CSV_FIELDS)} columns")
        kind, number = row["kind"], row["attempt"]
        if not number.isdigit():
            raise check.fail(f"attempt must be the attempt's number, got {number!r}")
        if kind == "attempt":
            if number in attempts:
                raise check.fail(f"attempt {number} appears twice")
            attempts[number] = ({k: (v if v != "" else None) for k, v in row.items()}, check)
        elif kind == "split":
            seconds = check.seconds(row["seconds"], "seconds")
            splits.setdefault(number, []).append((check.target(row["target"], "split"), seconds))
        elif kind == "hint":
            hints.setdefault(number, []).append(
                (check.target(row["target"], "hint"), check.count(row["hints"], "hints"))
            )
        else:
            raise check.fail(f"kind must be attempt, split or hint, got {kind!r}")
    for number in [*splits, *hints]:
        if number not in attempts:
            raise ExportError(f"a split or hint row names attempt {number}, which has no attempt row")
    return [
        check.attempt(fields, splits.get(number, []), hints.get(number, []))
        for number, (fields, check) in attempts.items()
    ]


def parse(text: str, fmt: str | None = None) -> tuple[list[Record], dict[str, Any] | None]:
    """Records from an export, and a JSON export's whole object (None for CSV); the format is guessed
    from the text when not given."""
    if fmt is None:
        fmt = "json" if text.lstrip().startswith("{") else "csv"
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}: csv or json")
    return from_json(text) if fmt == "json" else (from_csv(text), None)


# ---------------------------------------------------------------------------- importing


@dataclass(frozen=True)
class Imported:
    added: int
    skipped: int
    """Already in the history (same target and start), or twice in the file."""
    splits: int
    submissions: int


def _same(a: Attempt | Record, target: str, started_at: float) -> bool:
    return a.target == target and abs(a.started_at - started_at) < SAME_START


def restore(history: History, recs: list[Record]) -> Imported:
    """Add the records that are not in the history yet, in one transaction."""
    existing: list[Attempt | Record] = list(history.attempts())
    added = skipped = splits = submissions = 0
    with history.transaction():
        for r in sorted(recs, key=lambda r: r.started_at):
            if any(_same(a, r.target, r.started_at) for a in existing):
                skipped += 1
                continue
            existing.append(r)
            attempt = history.add_finished(
                r.target, r.file, r.started_at, r.paused_seconds, r.ended_at, r.outcome, r.assisted, r.archive,
                r.splits, r.hints, r.rung, r.reason,
            )  # fmt: skip
            for sub in r.submissions or ():
                history.add_submission(attempt, sub.graded_at, sub.elapsed, sub.source, sub.result, sub.passed)
            added += 1
            splits += len(r.splits)
            submissions += len(r.submissions or ())
    return Imported(added, skipped, splits, submissions)
