"""Verdicts the history could not take (a full disk, a lock, a read-only folder), kept in a JSON file
beside it (or, when its folder cannot be written, in the temporary folder) until a command can
record them: a grading is never lost to a storage fault."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from autograd_drill.store.paths import atomic_write


def places(history: Path) -> tuple[Path, Path]:
    """Where the verdicts waiting for ``history`` are kept: beside it, else in the temporary folder."""
    beside = history.with_name(f"{history.name}.pending.json")
    key = hashlib.sha256(str(history.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return beside, Path(tempfile.gettempdir()) / f"autograd-drill-{uid}" / f"pending-{key}.json"


def _read(path: Path) -> list[dict[str, Any]]:
    import json  # here: every command looks for these files, and finds none almost always

    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [v for v in kept.get("verdicts", []) if isinstance(v, dict)] if isinstance(kept, dict) else []


def waiting(history: Path) -> list[dict[str, Any]]:
    """The verdicts waiting for ``history``, oldest first (none: an empty list, and nothing read)."""
    found = [v for place in places(history) if place.exists() for v in _read(place)]
    return sorted(found, key=lambda v: float(v.get("graded_at", 0.0)))


def keep(history: Path, verdict: dict[str, Any]) -> Path:
    """Add ``verdict`` to those waiting for ``history``, written atomically; where it is kept. Raises
    OSError when neither place can be written."""
    import json

    error: OSError | None = None
    for place in places(history):
        try:
            atomic_write(place, json.dumps({"history": str(history), "verdicts": [*_read(place), verdict]}))
            return place
        except OSError as exc:
            error = error or exc
    assert error is not None
    raise error


def clear(history: Path) -> None:
    """Forget the verdicts waiting for ``history`` (they are recorded)."""
    for place in places(history):
        try:
            place.unlink(missing_ok=True)
        except OSError:
            pass
