"""``drill export`` and ``drill import``: your history as CSV or JSON, and back."""

from __future__ import annotations

import sys
from pathlib import Path

from drills.commands.common import Terminal, history
from drills.loop.session import DrillError
from drills.store.export import ExportError, export
from drills.store.paths import atomic_write
from drills.store.restore import parse, restore
from drills.views.lines import exported_line, imported_view


def export_history(term: Terminal, fmt: str, output: Path | None, with_sources: bool) -> None:
    with history(term) as store:
        try:
            exported = export(store, fmt.lower(), with_sources)
        except ExportError as exc:
            raise DrillError(str(exc)) from None
    if output is None:
        sys.stdout.write(exported.text)
        return
    try:
        atomic_write(output, exported.text)
    except OSError as exc:
        raise DrillError(f"cannot write {output}: {exc.strerror or exc}") from None
    term.out.print(exported_line(exported, output))


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
        records = parse(text, fmt.lower() if fmt else None)
    except ExportError as exc:
        raise DrillError(f"{file}: {exc}") from None
    with history(term) as store:
        done = restore(store, records)
    term.out.print(imported_view(done))
