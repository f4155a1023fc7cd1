"""``drill where``: where things live (the workspace, the history, the interviews, the recording in
use and the data folder), each with why it is that one; ``--json`` for scripts.

The JSON object has one key per place (``workspace``, ``history``, ``interviews``, ``recording``,
``data``), each ``{"path": ABSOLUTE, "source": WHY}``; ``recording`` adds ``exists`` (the file is
there) and ``torch`` (the version of the torch installed, which answers live what the recording
lacks; null when there is none).
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from autograd_drill.commands.common import Terminal
from autograd_drill.store.paths import Place, data_place, history_path, interviews_folder, workspace_place


def torch_version() -> str | None:
    """The installed torch's version, read from its metadata (importing it takes a second); None when
    there is none."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return None


def places() -> dict[str, dict[str, Any]]:
    """The ``--json`` object: each place's absolute path and source."""
    from autograd_drill.grader.recording import RECORDING

    data = data_place()
    found: dict[str, Place] = {
        "workspace": workspace_place(),
        "history": Place(history_path(), data.source),
        "interviews": Place(interviews_folder(), data.source),
        "recording": Place(RECORDING.resolve(), "shipped with the grader"),
        "data": data,
    }
    told = {name: {"path": str(p.path), "source": p.source} for name, p in found.items()}
    told["recording"] |= {"exists": RECORDING.is_file(), "torch": torch_version()}
    return told


def recording_note(recording: dict[str, Any]) -> str:
    """What answers a grading: the recording, live torch, or both."""
    torch = recording["torch"]
    if not recording["exists"]:
        return f"missing: live torch {torch} answers" if torch else "missing, and no torch: a grading cannot run"
    if torch:
        return f"torch {torch} is live too, for what it lacks"
    return "no torch installed: the recording answers alone"


def where(term: Terminal, as_json: bool) -> None:
    told = places()
    if as_json:
        print(json.dumps(told, indent=2))
        return
    width = max(map(len, told))
    for name, place in told.items():
        note = recording_note(place) if name == "recording" else place["source"]
        line = Text(f" {name:<{width}}  ", style="bold") + Text(place["path"]) + Text(f"  ({note})", style="dim")
        term.out.print(line, soft_wrap=True)
