"""``drill export`` and ``drill import``: your history as CSV or JSON, and back. JSON holds the
interviews too (``"interviews"``, each as drills/interview/store.py's ``to_json`` writes it); CSV,
a table of attempts, leaves them out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from autograd_drill.commands.common import Terminal, history
from autograd_drill.errors import DrillError
from autograd_drill.interview.store import InterviewStoreError, import_interview, interviews
from autograd_drill.store.export import ExportError, export, write_export
from autograd_drill.store.history import History
from autograd_drill.store.restore import parse, restore
from autograd_drill.views.lines import exported_line, imported_view
from autograd_drill.views.render import counted


def export_history(term: Terminal, fmt: str, output: Path | None, with_sources: bool) -> None:
    with history(term) as store:
        held = interviews(store.db) if fmt.lower() == "json" else []  # a CSV row is no place for an interview
        extra = {"interviews": [r.to_json() for r in held]} if held else None
        try:
            exported = export(store, fmt.lower(), with_sources, extra)
        except ExportError as exc:
            raise DrillError(str(exc)) from None
    if output is None:
        sys.stdout.write(exported.text)
        return
    try:
        how = write_export(output, exported.text)
    except OSError as exc:
        raise DrillError(f"cannot write {output}: {exc.strerror or exc}") from None
    said = term.out if how == "replaced" else term.err  # a device may be this very stdout: the data alone there
    said.print(exported_line(exported, output))
    if held:
        said.print(f" and {counted(len(held), 'interview')}.")


def import_history(term: Terminal, file: Path, fmt: str | None) -> None:
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DrillError(f"no such file: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DrillError(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}") from None
    if fmt is None and file.suffix.lower() in (".csv", ".json"):
        fmt = file.suffix.lower()[1:]
    try:
        records, data = parse(text, fmt.lower() if fmt else None)
    except ExportError as exc:
        raise DrillError(f"{file}: {exc}") from None
    except RecursionError:  # JSON nested thousands deep: no export of drill's is
        raise DrillError(f"{file}: not a drill export (its JSON is nested too deeply to read)") from None
    given = [] if data is None else interviews_in(data)
    with history(term) as store:
        added = _import_interviews(store, given, file)  # first: a bad interview stops the import before any write
        done = restore(store, records)
    term.out.print(imported_view(done))
    if given:
        term.out.print(f" Interviews: {added} added, {len(given) - added} already there.")


def interviews_in(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The interviews of a JSON export, its object as autograd_drill.store.restore read it (with its attempts)."""
    given = data.get("interviews", [])
    if not isinstance(given, list) or not all(isinstance(i, dict) for i in given):
        raise DrillError('"interviews" must be a list of objects')
    return given


def _import_interviews(store: History, given: list[dict[str, Any]], file: Path) -> int:
    """Add the interviews not held yet, all or none; how many were added."""
    if not given:
        return 0
    try:
        with store.transaction() as conn:
            return sum(import_interview(conn, item) is not None for item in given)
    except InterviewStoreError as exc:
        raise DrillError(f"{file}: {exc}") from None
