"""The drill loop on another pack's targets (issue 28, point 1 and its Done-when): the ``layers`` pack
"installed" as tests/test_pack_installed.py does it (packs/layers and a throwaway dist-info on a
child's PYTHONPATH), torch unimportable, DRILL_HOME a temporary folder, every command a real child
``drill``. ``drill start layernorm`` writes ``<workspace>/layers/layernorm.py`` from the pack's
reference, ``drill check`` grades it with the pack's suite (a wrong save fails naming its symbol, a
right one passes with the scoreboard), the views name it by its canonical id, ``drill start
layers/full`` blanks the pack's six targets with a split each, and ``drill watch`` grades a save."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT, without_torch
from tests.test_pack_installed import IDS, PACK, REFERENCE, installed_site

LAYERS = [f"layers/{i}" for i in IDS]
SOURCE = REFERENCE.read_text(encoding="utf-8")
WRONG = SOURCE.replace("var = x.var(axis=-1, keepdims=True)", "var = x.var(axis=-1, keepdims=True, ddof=1)", 1)
"""layernorm_forward normalising with the unbiased variance (torch's layer norm uses the biased one)."""
assert WRONG != SOURCE


@pytest.fixture(scope="module")
def layers_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A child's environment: the layers pack installed, torch unimportable (PYTHONPATH); its DRILL_HOME
    is set per test."""
    folder = tmp_path_factory.mktemp("pack-loop")
    site = installed_site(folder / "site")
    base = without_torch(folder / "no-torch")
    return {**base, "PYTHONPATH": ":".join([str(PACK), str(site), base["PYTHONPATH"]])}


def child(env: dict[str, str], *args: str, code: int = 0) -> str:
    """``drill ARGS``'s stdout and stderr, its exit status ``code``, never a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "autograd_drill", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    said = done.stdout + done.stderr
    assert done.returncode == code, (args, done.returncode, said[-3000:])
    assert "Traceback" not in said, said
    return said


def blank(path: Path) -> set[str]:
    """The functions of ``path`` that raise NotImplementedError as their stub left them."""
    return set(re.findall(r'raise NotImplementedError\("(\w+)"\)', path.read_text(encoding="utf-8")))


def test_a_layers_target_drilled_from_start_to_scoreboard(layers_env, tmp_path):
    env = {**layers_env, "DRILL_HOME": str(tmp_path / "home"), "COLUMNS": "120"}
    workspace = tmp_path / "ws"
    said = child(env, "start", "layernrm", "--workspace", str(workspace), code=2)
    assert said.count("\n") == 1 and "Did you mean 'layers/layernorm'?" in said

    said = child(env, "start", "layernorm", "--rung", "recall", "--workspace", str(workspace))
    path = workspace / "layers" / "layernorm.py"
    assert blank(path) == {"layernorm_forward", "layernorm_backward"}, path.read_text(encoding="utf-8")[:3000]
    assert "# autograd-drill: target layers/layernorm" in path.read_text(encoding="utf-8")
    assert "Timer started:" in said and "layers/layernorm.py" in said
    assert "layers/layernorm" in child(env, "status")
    status = json.loads(child(env, "status", "--json"))["attempt"]
    assert status["target"] == "layers/layernorm" and list(status["targets"]) == ["layers/layernorm"]
    assert status["target_seconds"] == 8 * 60 and status["file"] == str(path)

    path.write_text(WRONG, encoding="utf-8")
    said = child(env, "check", "--oracle", "replay", code=1)
    assert re.search(r"✗ layers/layernorm .*failed", said) and "layernorm_forward" in said, said

    path.write_text(SOURCE, encoding="utf-8")
    said = child(env, "check", "--oracle", "replay")
    assert "✓ layers/layernorm" in said and "(target 8:00" in said and "new personal best" in said, said

    listed = child(env, "list")
    assert "layers pack" in listed and re.search(r"^layers/layernorm +\w+ +layernorm_forward", listed, re.M), listed
    assert all(i in listed for i in [*LAYERS, "layers/full", "unbroadcast", "forward-mode"])
    assert re.search(r"layers/layernorm +│ +8:00 +│ +1 ", child(env, "stats")), "one attempt, target 8:00"
    said = child(env, "diff", "layers/layernorm")
    assert "layernorm_forward" in said and "layernorm_backward" in said and "x.mean(axis=-1, keepdims=True)" in said

    said = child(env, "start", "layers/full", "--workspace", str(workspace))
    full = workspace / "layers" / "full.py"
    assert "all 11 functions of the layers pack are blank" in " ".join(said.split()), said
    assert "Why 50:00: recall: the six targets add up to 56:00;" in " ".join(said.split()), said
    assert blank(full) == {f"{i}_{p}" for i in IDS if i != "adam" for p in ("forward", "backward")} | {"adam_step"}
    full.write_text(SOURCE, encoding="utf-8")
    said = child(env, "check", "--oracle", "replay")
    assert "6 of 6 targets passed" in said and "Sum of best splits" in said, said
    with sqlite3.connect(tmp_path / "home" / "history.sqlite3") as db:
        (run,) = db.execute("SELECT id FROM attempts WHERE target = 'layers/full'").fetchall()
        split = {t for (t,) in db.execute("SELECT target FROM splits WHERE attempt_id = ?", run)}
    assert split == set(LAYERS)

    exported = tmp_path / "history.json"
    child(env, "export", "--format", "json", "--output", str(exported))
    elsewhere = {**env, "DRILL_HOME": str(tmp_path / "elsewhere")}
    child(elsewhere, "import", str(exported))
    again = json.loads(child(elsewhere, "stats", "--json"))["rows"]
    kept = {r["target"]: r["attempts"] for r in again if r["target"].startswith("layers/")}
    assert kept["layers/layernorm"] == 1 and kept["layers/full"] == 1, kept

    gone = {**env, "PYTHONPATH": env["PYTHONPATH"].split(":")[-1]}  # the pack uninstalled, torch still not there
    assert "layers/" not in child(gone, "list")  # its history stays, its drills are not listed
    for args in (("start", "layernorm"), ("diff",), ("stats", "layers/full")):
        said = child(gone, *args, code=2)
        assert said.count("\n") == 1 and "pack layers is not installed (pip install" in said, (args, said)


def test_drill_watch_grades_a_layers_save(layers_env, tmp_path):
    pytest.importorskip("pexpect")
    pytest.importorskip("pyte")
    from tests.terminal import Pty

    env = {**layers_env, "DRILL_HOME": str(tmp_path / "home")}
    workspace = tmp_path / "ws"
    child(env, "start", "layers/adam", "--rung", "recall", "--workspace", str(workspace))
    own = {key: env[key] for key in ("PYTHONPATH", "DRILL_HOME")}  # the Pty's own size, whatever ours says
    term = Pty([sys.executable, "-m", "autograd_drill", "watch", "--oracle", "replay"], env=own)
    try:
        term.wait(lambda screen: "adam_step is not written yet" in screen, "the stub's verdict")
        (workspace / "layers" / "adam.py").write_text(SOURCE, encoding="utf-8")
        term.wait(lambda screen: "Next due:" in screen and "⟳ grading" not in screen, "the screen after the pass")
        term.child.sendintr()
        assert term.end() == 0, term.said[-2000:]
    finally:
        term.kill()
    assert "layers/adam" in term.said and "Traceback" not in term.said
    assert "passed at" in term.said, term.said[-3000:]


def test_the_spares_stand_by_with_the_packs_tests_collected(tmp_path, monkeypatch):
    """grader/spawn.py and spare.py, where a grading must not fork: a layers grading is graded in an
    interpreter started ahead with the pack's tests, catalog, reference and recording, and the spare
    then stands by for that selection, so the next save finds the pack's tests collected ("go")."""
    from dataclasses import replace

    from autograd_drill.grader import spawn
    from autograd_drill.grader.catalog import load_catalog
    from autograd_drill.grader.run import grade_file
    from autograd_drill.grader.spawn import SpawnRunner
    from autograd_drill.grader.suite import Suite
    from autograd_drill.targets import qualified
    from tests.processes import wait_until
    from tests.test_spawn_standby import WARM_WITHIN, Watched

    monkeypatch.setenv(spawn.SPARES_ENV, "1")  # one spare: its warm-up and its standing session
    package = REFERENCE.parent
    suite = Suite(package / "tests", package / "catalog.toml", REFERENCE, package / "recorded" / "oracle.npz")
    norm = [qualified(replace(load_catalog(suite.catalog).get("layernorm"), pack="layers"))]
    right, wrong = tmp_path / "right.py", tmp_path / "wrong.py"
    right.write_text(SOURCE, encoding="utf-8")
    wrong.write_text(WRONG, encoding="utf-8")
    watched = Watched(SpawnRunner())
    try:
        first = grade_file(right, norm, oracle="replay", runner=watched, suite=suite)
        assert first.passed and first.targets[0].target == "layers/layernorm" and first.targets[0].tests == 48
        standing = lambda: any(s.ready and s.key and s.key[-1] == "layernorm" for s in watched.runner.spares)  # noqa: E731
        wait_until(standing, WARM_WITHIN, "a spare standing by for the layers selection")
        failed = grade_file(wrong, norm, oracle="replay", runner=watched, suite=suite).targets[0]
        assert "go" in watched.events  # its session had collected the pack's tests before the save
        assert failed.target == "layers/layernorm" and failed.failures[0].symbol == "layernorm_forward"
    finally:
        watched.runner.close()


def test_a_packs_failure_names_its_test_file_as_the_graders_do(tmp_path):
    """grader/suite.py: the pack's tests folder is the session's root, so a failure's test id is
    ``test_layernorm.py::test_layernorm[...]`` (the grader's folder as root made it ``::test_layernorm[...]``)."""
    from dataclasses import replace

    from autograd_drill.grader.catalog import load_catalog
    from autograd_drill.grader.run import grade_file
    from autograd_drill.grader.suite import Suite
    from autograd_drill.targets import qualified

    package = REFERENCE.parent
    suite = Suite(package / "tests", package / "catalog.toml", REFERENCE, package / "recorded" / "oracle.npz")
    norm = [qualified(replace(load_catalog(suite.catalog).get("layernorm"), pack="layers"))]
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG, encoding="utf-8")
    failed = grade_file(wrong, norm, oracle="replay", suite=suite, first_failure_only=True).targets[0]
    assert failed.failures[0].test.startswith("test_layernorm.py::test_layernorm["), failed.failures[0].test
