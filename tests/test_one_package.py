"""One import package in site-packages (issue 27): the wheel used to install three top-level packages,
``drills``, ``grader`` and ``reference`` (the last two names other distributions use). Now drills/,
grader/ and reference/ are ``autograd_drill``, ``autograd_drill.grader`` and ``autograd_drill.reference``
(pyproject.toml, package-dir; the folders stay where they are), in the wheel as in the editable install.

Checked here: no code names a module by a folder's name (an import, ``-m``, a patch target: the rename
script of the issue rewrote them, and whatever it missed shows here); pyproject's packages are the
folders; the wheel holds ``autograd_drill`` alone, with its data, and not the maintainers' campaign; a
grading imports the grader's conftest and test modules once, under their import names, from a clone too;
``python -m autograd_drill`` runs the tool, and the folder's old name says what to run instead."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.run import pytest_args
from autograd_drill.reference import ENGINE
from tests import sources
from tests.test_distribution import _checkout_files

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"drills": "autograd_drill", "grader": "autograd_drill.grader", "reference": "autograd_drill.reference"}
OUT_OF_THE_WHEEL = {"autograd_drill.grader.campaign"}  # the maintainers' mutation campaign: run from a clone
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
OLD_NAME = re.compile(r"^(drills|grader|reference)(\.|$)")


def python_files() -> list[Path]:
    found = [
        p for folder in (*FOLDERS, "tests", "benchmarks", "docs", ".github") for p in (ROOT / folder).rglob("*.py")
    ]
    return sorted(found)


def text_files() -> list[Path]:
    """The files that give commands in prose or shell: the Markdown, and CI's script."""
    return sorted(
        {*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "grader").glob("*.md"), ROOT / ".ci" / "run"}
    )


def old_names(path: Path) -> list[str]:
    """What ``path`` imports, or names as a module, by a folder's name: ``import grader.x``, ``from drills
    import y``, ``import_module("grader.x")``, ``-m`` and a folder's name, ``"drills.x.y"`` (a patch target)."""
    found = []
    for node in sources.nodes(path):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if OLD_NAME.match(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and OLD_NAME.match(node.module or ""):
            found.append(f"from {node.module} import")
        elif isinstance(node, (ast.List, ast.Tuple)):
            items = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            found += [f"{flag} {name}" for flag, name in zip(items, items[1:], strict=False) if flag in ("-m", "-p")]
            found = [f for f in found if not f.startswith(("-m ", "-p ")) or OLD_NAME.match(f[3:])]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
            head, _, rest = node.value.partition(".")
            member = re.match(r"\w+", rest)
            if head in FOLDERS and member and _is_member(head, member[0]) and " " not in node.value:
                found.append(repr(node.value))
    return [f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}: {f}" for f in found]


def _is_member(folder: str, name: str) -> bool:
    base = ROOT / folder
    return (base / f"{name}.py").is_file() or (base / name / "__init__.py").is_file()


def test_no_code_names_a_module_by_its_folder():
    """This fails for the code as it was (796 imports of drills, grader and reference); after a merge,
    for whatever the rename script did not rewrite."""
    found = [line for path in python_files() for line in old_names(path)]
    assert not found, f"{len(found)} module name(s) by folder (autograd_drill...): {found[:20]}"
    commands = re.compile(r"-m\s+(drills|grader|reference)\b(?!/)")
    found = [f"{p.relative_to(ROOT)}: {m[0]}" for p in text_files() for m in commands.finditer(p.read_text("utf-8"))]
    assert not found, f"commands that run a folder by its name (python -m autograd_drill...): {found[:20]}"


def test_the_check_finds_the_old_names(tmp_path):
    def spelt(text: str) -> str:  # the old names spelt out of their parts: the rename script rewrites none of them
        return text.replace("G_", "grader").replace("D_", "drills").replace("R_", "reference")

    code = tmp_path / "old.py"
    code.write_text(
        spelt(
            "import G_.check\nfrom D_ import cli\nfrom R_.engine import Tensor\n"
            "RUN = [sys.executable, '-m', 'D_']\nmonkeypatch.setattr('D_.cli.CLOCK', clock)\n"
            "FINE = [ROOT / 'G_', '-m', 'pytest', 'G_', 'G_.py', 'autograd_drill.grader.check']\n"
        ),
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in old_names(code)]
    wanted = ["import G_.check", "from D_ import", "from R_.engine import", "-m D_", "'D_.cli.CLOCK'"]
    assert sorted(found) == sorted(map(spelt, wanted)), found


def test_pyproject_maps_the_folders_and_lists_every_package():
    assert SETUPTOOLS["package-dir"] == {name: folder for folder, name in FOLDERS.items()}
    folders = sorted(p.parent for folder in FOLDERS for p in (ROOT / folder).rglob("__init__.py"))
    names = {".".join((FOLDERS[p.relative_to(ROOT).parts[0]], *p.relative_to(ROOT).parts[1:])) for p in folders}
    assert set(SETUPTOOLS["packages"]) == names - OUT_OF_THE_WHEEL, "pyproject.toml: list the package folders"
    assert set(SETUPTOOLS["package-data"]) <= set(SETUPTOOLS["packages"])
    assert not [n for n in ("grader", "reference") if (ROOT / "drills" / n).exists()], "drills/ holds the subpackages"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"] == {"drill": "autograd_drill.entry:main"}


def test_the_wheel_installs_autograd_drill_alone_with_its_data(tmp_path):
    source = tmp_path / "checkout"
    for name in _checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((ROOT / name).read_bytes())
    build = "from setuptools import build_meta as b; print(b.build_wheel(r'%s'))" % (tmp_path / "dist")
    done = subprocess.run([sys.executable, "-c", build], cwd=source, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with zipfile.ZipFile(tmp_path / "dist" / done.stdout.split()[-1]) as wheel:
        names = wheel.namelist()
        entry_points = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
        metadata = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert {n.split("/")[0] for n in names} == {"autograd_drill", "autograd_drill-0.1.0.dist-info"}
    for wanted in (
        "autograd_drill/__main__.py",
        "autograd_drill/views/reviews.toml",
        "autograd_drill/interview/questions.toml",
        "autograd_drill/grader/conftest.py",
        "autograd_drill/grader/test_unbroadcast.py",
        "autograd_drill/grader/catalog.toml",
        "autograd_drill/grader/pytest.ini",
        "autograd_drill/grader/recorded/oracle.npz",
        "autograd_drill/grader/record.py",
        "autograd_drill/reference/engine.py",
    ):
        assert wanted in names, f"the wheel lacks {wanted}"
    assert not [n for n in names if "campaign" in n], "the campaign is the maintainers' (it runs from a clone)"
    assert "drill = autograd_drill.entry:main" in entry_points
    # the long description an index page shows: docs/pypi.md (tests/test_long_description.py)
    assert "## Quickstart" in metadata and "scoreboard.svg" not in metadata and "](docs/" not in metadata


PROBE = """
import json, os, sys
def pytest_sessionfinish(session):
    with open(os.environ["DRILL_PROBE"], "w") as f:
        json.dump(sorted(sys.modules), f)
"""


def modules_imported_by(pytest_args: list[str], cwd: Path, tmp_path: Path) -> list[str]:
    """The modules a ``python -m pytest`` session with ``pytest_args`` has imported when it ends."""
    (tmp_path / "drill_probe.py").write_text(PROBE, encoding="utf-8")
    env = {"DRILL_PROBE": str(tmp_path / "modules.json"), "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_args, "-p", "drill_probe"],
        cwd=cwd, capture_output=True, text=True, timeout=600,
        env={**os.environ, **env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads((tmp_path / "modules.json").read_text(encoding="utf-8"))


def test_a_grading_imports_the_grader_once_under_its_import_names(tmp_path):
    """From this clone, pytest would name grader/test_x.py ``grader.test_x`` (and import grader/ as a
    package ``grader``, its conftest.py as ``grader`` dot ``conftest``): copies of what the warm worker imports as
    ``autograd_drill.grader...``. A grading's session imports each under its import name alone."""
    unbroadcast = [t for t in load_catalog().every if t.id == "unbroadcast"]
    args = pytest_args(ENGINE, unbroadcast, tmp_path / "report.jsonl", oracle="replay")
    modules = modules_imported_by(args, tmp_path, tmp_path)
    assert not [m for m in modules if OLD_NAME.match(m)], [m for m in modules if OLD_NAME.match(m)]
    assert {"autograd_drill.grader.conftest", "autograd_drill.grader.test_unbroadcast"} <= set(modules)
    events = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(next(e["tests"] for e in events if e["event"] == "collected")) == 18
    assert events[-1]["event"] == "finished" and not [e for e in events if e.get("outcome") == "failed"]


def test_the_grader_run_on_its_own_from_the_clone_imports_each_test_module_once(tmp_path):
    """``python -m pytest grader --impl FILE`` from the clone's root (the README's way, tests/support.py's):
    pytest loads the conftest by path there (as ``grader`` dot ``conftest``, the one copy in that process), and
    its hooks import the test modules by name."""
    args = ["grader", "-q", "--impl", str(ENGINE), "--oracle", "replay", "-m", "unbroadcast"]
    modules = set(modules_imported_by(args, ROOT, tmp_path))
    assert "autograd_drill.grader.test_unbroadcast" in modules
    assert not [m for m in modules if OLD_NAME.match(m) and m.split(".") not in (["grader"], ["grader", "conftest"])]
    assert "autograd_drill.grader.conftest" not in modules


def test_python_m_runs_the_package_and_the_folder_name_says_what_to_run(tmp_path):
    version = subprocess.run(
        [sys.executable, "-m", "autograd_drill", "-V"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert (version.returncode, version.stdout) == (0, "autograd-drill 0.1.0\n")
    folder = subprocess.run(  # run from the clone's root, where the folder is importable by its name
        [sys.executable, "-c", "import runpy; runpy.run_module('drills', run_name='__main__')"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert folder.returncode == 1 and "python -m autograd_drill" in folder.stderr, folder.stderr
