"""``drill grade FILE [--target ID ...] [--json]``, exactly as SPEC §3 describes it, run as users run it."""

import json

import pytest
from typer.testing import CliRunner

from drills.cli import app
from tests.conftest import CATALOG, REFERENCE, run_drill

runner = CliRunner()


def test_reference_passes_all_six_targets_as_json():
    proc = run_drill("grade", str(REFERENCE), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"file", "passed", "targets"}
    assert data["passed"] is True and data["file"] == str(REFERENCE)
    assert list(data["targets"]) == [t.id for t in CATALOG.targets]
    for target in data["targets"].values():
        assert set(target) == {"passed", "tests", "failed"}
        assert target["passed"] is True and target["tests"] > 0 and target["failed"] == 0


def test_target_option_grades_only_those_targets(tmp_path):
    bad = tmp_path / "engine.py"
    bad.write_text(REFERENCE.read_text().replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)"))
    proc = run_drill("grade", str(bad), "--target", "unbroadcast", "-t", "unary", "--json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert list(data["targets"]) == ["unbroadcast", "unary"]
    assert data["passed"] is False
    assert data["targets"]["unbroadcast"]["passed"] is False and data["targets"]["unbroadcast"]["failed"] > 0
    assert data["targets"]["unary"] == {"passed": True, "tests": data["targets"]["unary"]["tests"], "failed": 0}


def test_marker_spelling_of_a_target_is_accepted():
    result = runner.invoke(app, ["grade", str(REFERENCE), "-t", "cross_entropy", "--json"])
    assert result.exit_code == 0
    assert list(json.loads(result.stdout)["targets"]) == ["cross-entropy"]


def test_human_report_names_the_symbol_and_the_line(tmp_path):
    bad = tmp_path / "mine.py"
    bad.write_text(
        REFERENCE.read_text().replace(
            "self.grad += (self.data > 0) * out.grad", "self.grad += (self.data >= 0) * out.grad"
        )
    )
    result = runner.invoke(app, ["grade", str(bad), "-t", "unary"])
    assert result.exit_code == 1
    assert "✗" in result.stdout and "unary" in result.stdout
    assert "Tensor.relu" in result.stdout and "exactly 0" in result.stdout


def test_syntax_error_is_a_verdict_with_file_and_line(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("import numpy as np\n\ndef unbroadcast(grad, shape)\n    return grad\n")
    result = runner.invoke(app, ["grade", str(bad), "-t", "unbroadcast"])
    assert result.exit_code == 1
    assert "SyntaxError at broken.py:3" in result.stdout
    proc = run_drill("grade", str(bad), "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["passed"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grade", "no/such/file.py"], "no such file"),
        (["grade", "tests"], "not a file"),
        (["grade", str(REFERENCE), "-t", "unbroadcst"], "Did you mean 'unbroadcast'"),
    ],
)
def test_bad_usage_exits_2_with_one_line(args, message):
    proc = run_drill(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_unreadable_file_exits_2(tmp_path):
    import os

    path = tmp_path / "secret.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything
        pytest.skip("running as root: every file is readable")
    proc = run_drill("grade", str(path), "--json")
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_unknown_option_exits_2():
    proc = run_drill("grade", str(REFERENCE), "--jsn")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_reference_passes_every_follow_up():
    ids = [t.id for t in CATALOG.extensions]
    proc = run_drill("grade", str(REFERENCE), *[a for i in ids for a in ("-t", i)], "--json")
    assert proc.returncode == 0, proc.stdout
    data = json.loads(proc.stdout)
    assert list(data["targets"]) == ids and data["passed"] is True
