"""Issue 27 point 1: a failure's location is ``path:LINE`` with a path that resolves from the current
folder of the command (an editor's terminal opens it at the line): in drill check (and drill watch,
which grades through the same check, its first failure told early), and drill grade, --json included
(the location keeps its meaning: the user's lines the error went through, last one last)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.run import grade_file
from tests.support import REFERENCE_SOURCE, drill, use_consoles

BUG = ("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)")
LOCATION = re.compile(r"(\S+\.py):(\d+) in unbroadcast: (.+)$")


def opened(location: str, cwd: Path) -> tuple[Path, str]:
    """The file a ``path:LINE in f: code`` location names, resolved from ``cwd``, and its line there."""
    found = LOCATION.match(location.strip())
    assert found, location
    file = (cwd / found.group(1)).resolve()
    line = file.read_text(encoding="utf-8").splitlines()[int(found.group(2)) - 1].strip()
    assert line == found.group(3).strip(), (line, location)
    return file, line


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_drill_check_names_the_file_from_the_current_folder(where, tmp_path, workspace, monkeypatch, warm_grading):
    """From the folder above the workspace: ``solutions/unbroadcast.py:N``; from a sibling folder, the
    absolute path (it was ``unbroadcast.py:N`` wherever you were)."""
    use_consoles(monkeypatch)
    cwd = tmp_path if where == "inside" else tmp_path / "elsewhere"
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    drill("start", "unbroadcast")
    file = workspace / "unbroadcast.py"
    file.write_text(REFERENCE_SOURCE.replace(*BUG), encoding="utf-8")
    output = drill("check", code=1).stdout
    located = [line for line in output.splitlines() if LOCATION.search(line)]
    assert located, output
    named, line = opened(located[0], cwd)
    assert named == file.resolve() and "grad" in line
    shown = LOCATION.match(located[0].strip()).group(1)
    assert Path(shown).is_absolute() is (where == "outside"), shown


def test_drill_grade_json_locations_resolve_from_the_current_folder(tmp_path, monkeypatch, warm_runner):
    (tmp_path / "sub").mkdir()
    engine = tmp_path / "sub" / "engine.py"
    engine.write_text(REFERENCE_SOURCE.replace(*BUG), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    from autograd_drill.grader import run as grader_run

    monkeypatch.setattr(grader_run, "grade_file", lambda *a, **k: grade_file(*a, **{**k, "runner": warm_runner}))
    verdict = json.loads(drill("grade", str(Path("sub", "engine.py")), "-t", "unbroadcast", "--json", code=1).stdout)
    assert verdict["file"] == str(Path("sub", "engine.py"))  # as typed, as before
    failure = verdict["targets"]["unbroadcast"]["failures"][0]
    assert failure["location"], failure
    for location in failure["location"]:  # each a string, the user's line last
        assert opened(location, tmp_path)[0] == engine.resolve()
    assert failure["location"][-1] in failure["message"]


def test_the_first_failure_told_early_names_the_file_as_the_verdict_does(tmp_path, warm_runner):
    """drill watch shows a grading's first failure before the verdict: that one is named the same way."""
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE.replace(*BUG), encoding="utf-8")
    told = []
    result = grade_file(
        engine, [load_catalog().get("unbroadcast")], label="here/engine.py", runner=warm_runner, on_failure=told.append
    )
    assert told and told[0].location and all(line.startswith("here/engine.py:") for line in told[0].location)
    assert result.file == "here/engine.py"
    first = result.get("unbroadcast").failures[0]
    assert first.location[0].startswith("here/engine.py:") and str(engine) not in first.message


def test_a_verdict_read_back_later_names_the_file_from_where_you_are_then(
    tmp_path, workspace, monkeypatch, warm_grading
):
    """The history keeps the absolute path (it kept the name as shown then: from another folder,
    ``drill status`` and the watch's first screen named a file that is not there)."""
    use_consoles(monkeypatch)
    monkeypatch.chdir(tmp_path)
    drill("start", "unbroadcast")
    file = workspace / "unbroadcast.py"
    file.write_text("def unbroadcast(grad, shape)\n", encoding="utf-8")
    assert f"SyntaxError at {Path('solutions', 'unbroadcast.py')}:1" in drill("check", code=1).stdout
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    status = " ".join(drill("status").stdout.split())
    assert f"SyntaxError at {file}:1" in status, status


def test_the_watch_is_told_its_first_failure_named_from_here(tmp_path, workspace, monkeypatch, clock, warm_grading):
    """drill watch's early failure comes through session.check's on_failure: named as the verdict is."""
    from autograd_drill.loop import session
    from autograd_drill.store.history import History
    from autograd_drill.store.paths import history_path

    monkeypatch.chdir(tmp_path)
    drill("start", "unbroadcast")
    (workspace / "unbroadcast.py").write_text(REFERENCE_SOURCE.replace(*BUG), encoding="utf-8")
    told = []
    history = History(history_path())
    try:
        checked = session.check(history, clock, on_failure=told.append)
    finally:
        history.close()
    shown = str(Path("solutions", "unbroadcast.py"))
    assert told and told[0].location[0].startswith(f"{shown}:"), told
    assert checked.result.file == shown and checked.result.get("unbroadcast").failures[0].location[0].startswith(shown)
