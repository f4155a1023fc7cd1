"""The drill loop on another pack's targets (issue 28, point 1 and its Done-when): the ``layers`` pack
"installed" as tests/test_pack_installed.py does it (packs/layers and a throwaway dist-info on the
path: this process's, tests/pack_here.py, and the PYTHONPATH of the children it starts), torch
unimportable where a grading runs, DRILL_HOME a temporary folder; each command run in process as
typed (typer's CliRunner), ``drill watch`` in a real pseudo-terminal. ``drill start layernorm`` writes ``<workspace>/layers/layernorm.py`` from the pack's
reference, ``drill check`` grades it with the pack's suite (a wrong save fails naming its symbol, a
right one passes with the scoreboard), the views name it by its canonical id, ``drill start
layers/full`` blanks the pack's six targets with a split each, and ``drill watch`` grades a save."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
from contextlib import nullcontext
from pathlib import Path

import pytest

from autograd_drill.grader import spawn
from tests.pack_here import layers_here
from tests.support import drill, use_consoles
from tests.test_pack_installed import IDS, REFERENCE

LAYERS = [f"layers/{i}" for i in IDS]
SOURCE = REFERENCE.read_text(encoding="utf-8")
WRONG = SOURCE.replace("var = x.var(axis=-1, keepdims=True)", "var = x.var(axis=-1, keepdims=True, ddof=1)", 1)
"""layernorm_forward normalising with the unbiased variance (torch's layer norm uses the biased one)."""
assert WRONG != SOURCE


def blank(path: Path) -> set[str]:
    """The functions of ``path`` that raise NotImplementedError as their stub left them."""
    return set(re.findall(r'raise NotImplementedError\("(\w+)"\)', path.read_text(encoding="utf-8")))


def run(*args: str, code: int = 0) -> str:
    """``drill ARGS`` in process (typer's CliRunner), as tests/support.py ``drill`` runs it: what it printed
    (stdout and stderr), its exit status ``code``, never a traceback."""
    result = drill(*args, code=code)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    return result.output


def test_a_layers_target_drilled_from_start_to_scoreboard(tmp_path, drill_home, monkeypatch):
    """In process, the pack installed in this process (tests/pack_here.py): each command as a user types
    it, its output and exit status; the gradings in a fresh interpreter each (the drill loop's runner),
    torch unimportable there. What a real child adds (start-up, signals, encodings) is tested elsewhere:
    drill watch of a layers save below, the pack installed in tests/test_pack_installed.py."""
    use_consoles(monkeypatch)
    monkeypatch.setattr(spawn, "OneShot", lambda start=True: nullcontext())  # the drill loop's runner grades
    workspace = tmp_path / "ws"
    with layers_here(tmp_path / "layers"):
        said = run("start", "layernrm", "--workspace", str(workspace), code=2)
        assert said.count("\n") == 1 and "Did you mean 'layers/layernorm'?" in said

        said = run("start", "layernorm", "--rung", "recall", "--workspace", str(workspace))
        path = workspace / "layers" / "layernorm.py"
        assert blank(path) == {"layernorm_forward", "layernorm_backward"}, path.read_text(encoding="utf-8")[:3000]
        assert "# autograd-drill: target layers/layernorm" in path.read_text(encoding="utf-8")
        assert "Timer started:" in said and "layers/layernorm.py" in said
        assert "layers/layernorm" in run("status")
        status = json.loads(run("status", "--json"))["attempt"]
        assert status["target"] == "layers/layernorm" and list(status["targets"]) == ["layers/layernorm"]
        assert status["target_seconds"] == 8 * 60 and status["file"] == str(path)

        path.write_text(WRONG, encoding="utf-8")
        said = run("check", "--oracle", "replay", code=1)
        assert re.search(r"✗ layers/layernorm .*failed", said) and "layernorm_forward" in said, said

        path.write_text(SOURCE, encoding="utf-8")
        said = run("check", "--oracle", "replay")
        assert "✓ layers/layernorm" in said and "(target 8:00" in said and "new personal best" in said, said

        listed = run("list")
        assert "layers pack" in listed and re.search(r"^layers/layernorm +\w+ +layernorm_forward", listed, re.M), listed
        assert all(i in listed for i in [*LAYERS, "layers/full", "unbroadcast", "forward-mode"])
        assert re.search(r"layers/layernorm +│ +8:00 +│ +1 ", run("stats")), "one attempt, target 8:00"
        said = run("diff", "layers/layernorm")
        assert "layernorm_forward" in said and "layernorm_backward" in said and "x.mean(axis=-1, keepdims=True)" in said

        said = run("start", "layers/full", "--workspace", str(workspace))
        full = workspace / "layers" / "full.py"
        assert "all 11 functions of the layers pack are blank" in " ".join(said.split()), said
        assert "Why 50:00: recall: the six targets add up to 56:00;" in " ".join(said.split()), said
        assert blank(full) == {f"{i}_{p}" for i in IDS if i != "adam" for p in ("forward", "backward")} | {"adam_step"}
        full.write_text(SOURCE, encoding="utf-8")
        said = run("check", "--oracle", "replay")
        assert "6 of 6 targets passed" in said and "Sum of best splits" in said, said
        with sqlite3.connect(drill_home / "history.sqlite3") as db:
            (attempt,) = db.execute("SELECT id FROM attempts WHERE target = 'layers/full'").fetchall()
            split = {t for (t,) in db.execute("SELECT target FROM splits WHERE attempt_id = ?", attempt)}
        assert split == set(LAYERS)

        exported = tmp_path / "history.json"
        run("export", "--format", "json", "--output", str(exported))
        monkeypatch.setenv("DRILL_HOME", str(tmp_path / "elsewhere"))
        run("import", str(exported))
        again = json.loads(run("stats", "--json"))["rows"]
        kept = {r["target"]: r["attempts"] for r in again if r["target"].startswith("layers/")}
        assert kept["layers/layernorm"] == 1 and kept["layers/full"] == 1, kept
        monkeypatch.setenv("DRILL_HOME", str(drill_home))

    # the pack uninstalled (out of the path, its packs forgotten), torch still not where a grading runs
    assert "layers/" not in run("list")  # its history stays, its drills are not listed
    for args in (("start", "layernorm"), ("diff",), ("stats", "layers/full")):
        said = run(*args, code=2)
        assert said.count("\n") == 1 and "pack layers is not installed (pip install" in said, (args, said)


def test_drill_watch_grades_a_layers_save(tmp_path, drill_home, monkeypatch):
    """drill watch in a real pseudo-terminal, the pack on its path and torch unimportable there (its
    attempt started in process, as the test above starts them)."""
    pytest.importorskip("pexpect")
    pytest.importorskip("pyte")
    from tests.terminal import Pty

    use_consoles(monkeypatch)
    workspace = tmp_path / "ws"
    with layers_here(tmp_path / "layers"):
        run("start", "layers/adam", "--rung", "recall", "--workspace", str(workspace))
        own = {"PYTHONPATH": os.environ["PYTHONPATH"], "DRILL_HOME": str(drill_home)}  # the Pty's own size
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
