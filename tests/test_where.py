"""Issue 27 point 1, a stable workspace: from a clone, its ``solutions/``; installed (the clone
detection of drills/store/paths.py says None), one per-user folder whatever the current folder;
``$DRILL_WORKSPACE`` and ``--workspace`` override, a relative one resolved once; ``drill where`` says
where everything lives and why; every path printed is absolute, or relative to the current folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import platformdirs
import pytest

from autograd_drill.store import paths
from tests.support import REFERENCE_SOURCE, ROOT, drill, said, use_consoles

PLACES = ("workspace", "history", "interviews", "recording", "data")


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    use_consoles(monkeypatch)  # a long path on one line


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """As from a wheel: no clone, no $DRILL_WORKSPACE, no $DRILL_HOME; the per-user folders in tmp_path
    (platformdirs' answers, replaced: on Windows they do not follow $HOME). The documents folder."""
    monkeypatch.setattr(paths, "clone_root", lambda: None)
    monkeypatch.delenv("DRILL_WORKSPACE")
    monkeypatch.delenv("DRILL_HOME")
    documents = tmp_path / "Documents"
    monkeypatch.setattr(platformdirs, "user_documents_dir", lambda: str(documents))
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(tmp_path / "data" / a[0]))
    return documents


def where() -> dict:
    told = json.loads(drill("where", "--json").stdout)
    assert set(told) == set(PLACES)
    return told


def test_from_a_clone_the_workspace_is_its_solutions_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("DRILL_WORKSPACE")
    monkeypatch.chdir(tmp_path)  # whatever the current folder
    told = where()
    assert told["workspace"] == {"path": str(ROOT / "solutions"), "source": "clone"}
    assert told["history"]["source"] == told["data"]["source"] == "$DRILL_HOME"
    assert Path(told["history"]["path"]) == tmp_path / "drill-home" / "history.sqlite3"
    assert Path(told["interviews"]["path"]) == tmp_path / "drill-home" / "interviews"
    recording = told["recording"]
    assert Path(recording["path"]) == ROOT / "grader" / "recorded" / "oracle.npz" and recording["exists"] is True
    assert recording["torch"] is None or recording["torch"][0].isdigit()


def test_installed_one_per_user_workspace_whatever_the_current_folder(installed, tmp_path, monkeypatch, clock):
    """`drill start` in two folders: one workspace, in the documents folder, printed absolute."""
    expected = installed / "autograd-drill" / "unbroadcast.py"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        assert where()["workspace"] == {"path": str(installed / "autograd-drill"), "source": "per-user default"}
        assert f"Wrote {expected}:" in said(drill("start", "unbroadcast"))
        drill("abandon")
    assert not (tmp_path / "a" / "solutions").exists() and not (tmp_path / "b" / "solutions").exists()
    assert len(list((installed / "autograd-drill" / ".archive").iterdir())) == 2
    data = where()["data"]
    assert data == {"path": str(tmp_path / "data" / "autograd-drill"), "source": "per-user default"}


def test_installed_with_drill_home_the_workspace_is_in_it(monkeypatch, tmp_path):
    """$DRILL_HOME isolates all user state, the workspace too (tests, CI, a second profile)."""
    monkeypatch.setattr(paths, "clone_root", lambda: None)
    monkeypatch.delenv("DRILL_WORKSPACE")
    told = where()
    assert told["workspace"] == {"path": str(tmp_path / "drill-home" / "workspace"), "source": "$DRILL_HOME"}


@pytest.mark.parametrize("how", ["env", "option"])
def test_a_relative_override_is_resolved_once(how, tmp_path, monkeypatch, clock):
    """A relative workspace is the current folder's at `drill start`; `drill check` from another
    folder finds the file there (the attempt holds its absolute path)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    if how == "env":
        monkeypatch.setenv("DRILL_WORKSPACE", "mine")
        assert where()["workspace"] == {"path": str(tmp_path / "a" / "mine"), "source": "$DRILL_WORKSPACE"}
        started = drill("start", "unbroadcast")
    else:
        started = drill("start", "unbroadcast", "--workspace", "mine")
    assert "Wrote mine/unbroadcast.py:" in said(started).replace("\\", "/")
    file = tmp_path / "a" / "mine" / "unbroadcast.py"
    file.write_text(REFERENCE_SOURCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "b")
    monkeypatch.setenv("DRILL_WORKSPACE", "elsewhere")  # read at start only
    checked = said(drill("check"))
    assert checked.startswith(f"{file} ✓ unbroadcast 18 tests passed"), checked  # absolute: outside b/


def test_drill_where_says_each_place_and_its_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = drill("where").stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(PLACES)
    assert "(clone)" not in lines[0] and f"{tmp_path / 'solutions'}  ($DRILL_WORKSPACE)" in lines[0]
    assert str(tmp_path / "drill-home" / "history.sqlite3") in lines[1] and "($DRILL_HOME)" in lines[1]
    assert re.search(r"oracle\.npz  \((torch \S+ is live too|no torch installed)", lines[3]), lines[3]


def test_the_help_names_the_defaults():
    helped = said(drill("start", "-h"))
    assert "per user" in helped and "drill where" in helped and "$DRILL_WORKSPACE" in helped
    assert "the workspace" in said(drill("where", "-h"))


def test_display_is_relative_inside_the_current_folder_else_absolute(tmp_path, monkeypatch):
    real = tmp_path.resolve()
    file = real / "solutions" / "a.py"
    (real / "sub").mkdir()
    monkeypatch.chdir(real.anchor)  # from the root: absolute (it printed tmp/pytest-.../solutions/a.py)
    assert paths.display(file) == str(file)
    monkeypatch.chdir(real)  # inside: relative
    assert paths.display(file) == str(Path("solutions", "a.py"))
    monkeypatch.chdir(real / "sub")  # outside: absolute
    assert paths.display(file) == str(file)


def test_the_clone_is_found_by_its_files_not_by_its_depth(tmp_path):
    """drills/store/paths.py in a checkout (at any depth) finds it; a copy installed under a
    site-packages folder, even inside a clone (a .venv there), does not; nor another project."""
    clone = tmp_path / "clone"
    (clone / "solutions").mkdir(parents=True)
    (clone / "pyproject.toml").write_text('[project]\nname = "autograd-drill"\n', encoding="utf-8")
    assert paths._clone_of(clone / "drills" / "store" / "paths.py") == clone
    assert paths._clone_of(clone / "autograd_drill" / "drills" / "store" / "paths.py") == clone
    site = clone / ".venv" / "lib" / "python3.13" / "site-packages"
    assert paths._clone_of(site / "autograd_drill" / "drills" / "store" / "paths.py") is None
    other = tmp_path / "other"
    (other / "solutions").mkdir(parents=True)
    (other / "pyproject.toml").write_text('[project]\nname = "something-else"\n', encoding="utf-8")
    assert paths._clone_of(other / "drills" / "store" / "paths.py") is None
    assert paths.clone_root() == ROOT  # this checkout
