"""Issue 28 point 3: a pack written from docs/packs.md alone, really installed, and drilled with.

The page shows every file of its example pack, ``acts`` (one target, ``relu``), each code block under a
line that names it (```drill-acts/drill_acts/catalog.toml`:``). The files are written to a temporary
folder as the page names them, the recording is made with the page's own recorder command (the dev
install has torch), and the project is installed by pip, really, into a folder of its own (``pip
install --no-deps --no-build-isolation --no-index --target SITE PROJECT``: setuptools, the pyproject's
build backend, comes with the dev extra; nothing is fetched). Then children ``drill``, with SITE on
PYTHONPATH, torch made unimportable and DRILL_HOME in the temporary folder: ``drill packs --json``
lists the pack, ``drill grade REFERENCE --pack acts --json`` passes every target from the recording,
and the wrong copy the page describes fails its target naming the function. The page's cards and
questions load with the tool's own loaders, and its oracle tests cite only phrases its reference's
docstrings state (as tests/test_pack_contract.py proves for the layers pack).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.interview.bank import parse_bank
from autograd_drill.views.reviews import ReviewCard
from tests.support import ROOT, without_torch
from tests.test_contract import unstated

PAGE = ROOT / "docs" / "packs.md"
TEXT = PAGE.read_text(encoding="utf-8")
PROJECT = "drill-acts"
FILE = re.compile(r"^`(" + PROJECT + r"/[^`]+)`:\n\n```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
"""A file of the page: its name on a line of its own, a blank line, then its code block."""
RECORDER = "python -m autograd_drill.grader.record "
RIGHT, WRONG = "return np.where(cache, dout, 0.0)", "return dout.copy()"
"""The reference's relu_backward, and the wrong copy the page describes: the mask forgotten."""


def page_files() -> dict[str, str]:
    """Every file the page shows, by its path under the project's parent folder."""
    found = {name: body for name, body in FILE.findall(TEXT)}
    assert len(found) == len(FILE.findall(TEXT)), "a file shown twice"
    return found


def page_command(start: str) -> list[str]:
    """The page's one command line that starts with ``start``, split as a shell splits it."""
    (line,) = [line for line in TEXT.splitlines() if line.startswith(start)]
    return shlex.split(line)


def test_the_page_shows_every_file_its_tree_lists():
    """The tree at the top of the page is what its code blocks hold, and the recording, which the
    recorder makes."""
    tree = TEXT.split("## The files")[1].split("```")[1]
    listed = {w.rsplit("/", 1)[-1] for w in (line.split()[0] for line in tree.splitlines() if line.strip()) if "." in w}
    shown = {name.rsplit("/", 1)[-1] for name in page_files()}
    assert listed - shown == {"oracle.npz"} and shown <= listed, (listed, shown)
    assert "recorded/oracle.npz" in " ".join(page_command(RECORDER))


@pytest.fixture(scope="module")
def acts(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The page's pack: written, recorded, installed into SITE; a child's environment that finds it."""
    folder = tmp_path_factory.mktemp("acts")
    for name, body in page_files().items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    project = folder / PROJECT
    record = [sys.executable, *page_command(RECORDER)[1:]]
    done = subprocess.run(record, cwd=project, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    site = folder / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    done = subprocess.run([*install, "--target", str(site), str(project)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    base = without_torch(folder / "no-torch")
    env = {**base, "PYTHONPATH": os.pathsep.join([str(site), base["PYTHONPATH"]]), "DRILL_HOME": str(folder / "home")}
    empty = folder / "empty"  # not the project: its folder on sys.path would shadow the installed copy
    empty.mkdir()
    return SimpleNamespace(site=site, package=site / "drill_acts", env=env, cwd=empty)


def drill(acts: SimpleNamespace, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "autograd_drill", *args]
    return subprocess.run(command, cwd=acts.cwd, env=acts.env, capture_output=True, text=True, timeout=600)


def graded(acts: SimpleNamespace, file: Path, code: int) -> dict:
    done = drill(acts, "grade", str(file), "--pack", "acts", "--json", "--oracle", "replay")
    assert done.returncode == code, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def test_pip_installed_the_pack_with_its_data_and_entry_point(acts):
    names = {p.relative_to(acts.package).as_posix() for p in acts.package.rglob("*") if p.is_file()}
    assert {"catalog.toml", "reference.py", "tests/test_relu.py", "recorded/oracle.npz"} <= names, names
    (info,) = acts.site.glob("drill_acts-*.dist-info")
    assert "acts = drill_acts:pack" in (info / "entry_points.txt").read_text(encoding="utf-8")


def test_drill_packs_lists_the_installed_pack(acts):
    done = drill(acts, "packs", "--json")
    assert done.returncode == 0 and "not loaded" not in done.stderr, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)["packs"]}
    assert list(rows)[:1] == ["autograd"] and rows["acts"]["loaded"], rows
    assert rows["acts"]["targets"] == ["relu"] and rows["acts"]["full_time"] == 180
    assert Path(rows["acts"]["root"]) == acts.package.resolve()


def test_the_reference_passes_every_target_without_torch(acts):
    verdict = graded(acts, acts.package / "reference.py", code=0)
    assert verdict["passed"] is True and list(verdict["targets"]) == ["relu"], verdict
    assert verdict["targets"]["relu"]["tests"] == 12 and verdict["targets"]["relu"]["failed"] == 0


def test_the_wrong_copy_the_page_describes_fails_naming_the_function(acts, tmp_path):
    assert f"(`{WRONG}`)" in " ".join(TEXT.split()), "the page describes the wrong copy"
    source = (acts.package / "reference.py").read_text(encoding="utf-8")
    assert source.count(RIGHT) == 1
    wrong = tmp_path / "relu.py"
    wrong.write_text(source.replace(RIGHT, WRONG), encoding="utf-8")
    verdict = graded(acts, wrong, code=1)
    relu = verdict["targets"]["relu"]
    assert verdict["passed"] is False and not relu["passed"] and relu["failed"] > 0, verdict
    first = relu["failures"][0]
    assert first["symbol"] == "relu_backward" and first["message"].startswith("relu_backward ["), first


def test_the_pages_cards_questions_and_clauses_pass_the_tools_checks(acts, tmp_path):
    """The review card and the questions load as the tool's do; every test case of the page's pack
    names clauses, each stated in the docstrings the relu stub keeps (tests/test_contract.py's check)."""
    package = acts.package
    catalog = load_catalog(package / "catalog.toml")
    cards = tomllib.loads((package / "reviews.toml").read_text(encoding="utf-8"))["card"]
    for card in cards:
        ReviewCard(
            card["id"], card["formula"].strip("\n"), tuple(card["classic_bugs"]), tuple(card["interviewer_next"])
        )
        assert card["id"] in catalog.drill_ids and min(len(card["classic_bugs"]), len(card["interviewer_next"])) >= 3
    bank = parse_bank((package / "questions.toml").read_text(encoding="utf-8"), "questions.toml", catalog)
    assert [q.target for q in bank.questions] == ["relu"]
    dump = tmp_path / "clauses.json"
    command = [sys.executable, "-m", "pytest", str(package / "tests"), "-p", "autograd_drill.grader.conftest"]
    command += [f"--catalog={package / 'catalog.toml'}", f"--reference={package / 'reference.py'}"]
    command += ["--collect-only", "-q", "-p", "tests.clause_dump", "-p", "no:cacheprovider"]
    env = {**os.environ, "DRILL_CLAUSE_DUMP": str(dump), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(acts.site), str(ROOT)])
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    collected = json.loads(dump.read_text(encoding="utf-8"))
    assert len(collected) == 12 and unstated(collected, package / "reference.py", catalog) == []
