"""``drill grade FILE [--target ID ...] [--json]``, exactly as docs/contract.md describes it: its JSON and a
hang's limit run as users run it, in a real child with a grading interpreter of its own; the refusals
(before any grading) and what a verdict says of a file, in process (a grading in a fork of the warm
worker, tests/conftest.py)."""

import json
import subprocess

import pytest

from tests.processes import UNBROADCAST_BODY
from tests.support import CATALOG, REFERENCE, ROOT, drill, human_report, refused, run_drill

TOP_KEYS = {"version", "file", "passed", "targets", "notes"}
FAILURE_KEYS = {"test", "message", "symbol", "case", "text", "hint", "location", "notes", "output"}
TARGET_KEYS = {"passed", "tests", "failed", "not_run", "not_run_reason", "failures"}
WRONG_AXIS = REFERENCE.read_text().replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis=-1)")


def test_reference_passes_every_target_as_json(reference_verdict):
    """The run's one full grading of the reference (tests/conftest.py: ``--target full`` and every
    follow-up, ``--json``, in a real child): ``full`` is the core targets, and the reference passes
    them and every follow-up. (The core targets graded by default: test_syntax_error_is_a_verdict_with_file_and_line.)"""
    assert reference_verdict["returncode"] == 0, reference_verdict["stderr"]
    data = json.loads(str(reference_verdict["stdout"]))
    assert set(data) == TOP_KEYS and data["notes"] == []
    assert data["passed"] is True and data["file"] == str(REFERENCE)
    assert list(data["targets"]) == [t.id for t in CATALOG.targets] + [t.id for t in CATALOG.extensions]
    for target in data["targets"].values():
        assert set(target) == TARGET_KEYS
        assert target["passed"] is True and target["tests"] > 0 and target["failed"] == 0
        assert target["not_run"] == 0 and target["failures"] == []


def test_json_of_a_failing_file_has_only_the_targets_named_and_names_the_failed_tests(tmp_path):
    """One grading: ``--target`` grades only those targets (one spelled as its marker, cross_entropy),
    and the JSON of a failing file names its failed tests."""
    bad = tmp_path / "engine.py"
    bad.write_text(WRONG_AXIS)
    proc = run_drill("grade", str(bad), "--target", "unbroadcast", "-t", "unary", "-t", "cross_entropy", "--json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert list(data["targets"]) == ["unbroadcast", "unary", "cross-entropy"]
    assert data["targets"]["unbroadcast"]["passed"] is False and data["targets"]["unbroadcast"]["failed"] > 0
    unary = data["targets"]["unary"]
    assert unary == {
        "passed": True,
        "tests": unary["tests"],
        "failed": 0,
        "not_run": 0,
        "not_run_reason": "",
        "failures": [],
    }
    # The keys of the contract, with their types, are unchanged; the new ones come beside them.
    assert set(data) == TOP_KEYS and data["file"] == str(bad) and data["passed"] is False and data["notes"] == []
    verdict = data["targets"]["unbroadcast"]
    assert set(verdict) == TARGET_KEYS
    assert verdict["passed"] is False and isinstance(verdict["tests"], int) and isinstance(verdict["failed"], int)
    assert 0 < verdict["failed"] < verdict["tests"] and verdict["not_run"] == 0
    failures = verdict["failures"]
    assert 1 <= len(failures) == min(verdict["failed"], 5)
    for failure in failures:
        assert set(failure) == FAILURE_KEYS
        file, _, name = failure["test"].partition("::")
        assert file == "test_unbroadcast.py" and name.startswith("test_unbroadcast")
        assert "engine.py:" in failure["message"]  # the verdict, at the user's line
    first = failures[0]
    assert first["test"] == "test_unbroadcast.py::test_unbroadcast[prepended-one-axis]"
    assert first["message"].startswith("unbroadcast [prepended-one-axis]: ")
    # The same verdict in parts: nothing downstream re-splits the message.
    assert (first["symbol"], first["case"]) == ("unbroadcast", "prepended-one-axis")
    assert first["message"].startswith(f"unbroadcast [prepended-one-axis]: {first['text']}\n")
    assert first["location"] and all(f"  {where}" in first["message"] for where in first["location"])
    assert first["hint"] is None or f"  hint: {first['hint']}" in first["message"]


def grade_with_env(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_drill("grade", *args, env=env, timeout=300)


def test_a_hang_fails_one_test_and_the_rest_of_its_target_is_not_run(tmp_path):
    hangs = tmp_path / "engine.py"
    source = REFERENCE.read_text()
    assert source.count(UNBROADCAST_BODY) == 1
    hangs.write_text(source.replace(UNBROADCAST_BODY, UNBROADCAST_BODY + "    while True:\n        pass\n"))
    # the other target: cotangent, 16 light tests (each under 0.05 s at a load of 10), never calling
    # unbroadcast: it passes under the 0.5 s limit on a busy machine (unary's 79, up to 0.12 s each, burnt
    # more CPU and came nearer it)
    proc = grade_with_env(str(hangs), "-t", "unbroadcast", "-t", "cotangent", "--json", DRILL_TEST_TIMEOUT="0.5")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    verdict = data["targets"]["unbroadcast"]
    assert verdict["passed"] is False and verdict["failed"] == 1
    assert verdict["not_run"] == verdict["tests"] - 1 > 0
    [failure] = verdict["failures"]
    assert failure["test"].startswith("test_unbroadcast.py::") and "took longer than 0.5 s" in failure["message"]
    assert data["targets"]["cotangent"]["passed"] is True  # the other targets still run
    # The report a person reads, drawn from that object in process (the human CLI path is tested end
    # to end by test_human_report_names_the_symbol_and_the_line): one hanging grading, not two.
    text = human_report(data)
    assert f"1 of {verdict['tests']} tests failed, {verdict['not_run']} not run" in text
    assert f"{verdict['not_run']} tests not run: an earlier test of unbroadcast" in text


def test_help_says_what_is_graded_by_default_and_where_the_contract_is():
    result = drill("grade", "--help", env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    text = " ".join(result.output.split())
    assert "docs/contract.md" in text and "SPEC" not in text
    core = ", ".join(t.id for t in CATALOG.targets[:-1]) + f" and {CATALOG.targets[-1].id}"
    assert f"By default the core targets are graded: {core}" in text
    assert "--target full" in text
    assert all(t.id in text for t in CATALOG.extensions) and "graded only when named" in text


def test_human_report_names_the_symbol_and_the_line(tmp_path, warm_drill_grade):
    """The human report, through the CLI in process; its grading in a fork of the warm worker (a fresh
    grading interpreter is started by the real children above)."""
    bad = tmp_path / "mine.py"
    bad.write_text(
        REFERENCE.read_text().replace(
            "self.grad += (self.data > 0) * out.grad", "self.grad += (self.data >= 0) * out.grad"
        )
    )
    result = drill("grade", str(bad), "-t", "unary", code=1)
    assert "✗" in result.stdout and "unary" in result.stdout
    assert "Tensor.relu" in result.stdout and "exactly 0" in result.stdout


def test_syntax_error_is_a_verdict_with_file_and_line(tmp_path, warm_drill_grade):
    """``drill grade --json`` in process, its grading in a fork of the warm worker: what the verdict
    says of the file and which targets it has, not how the grading started."""
    bad = tmp_path / "broken.py"
    bad.write_text("import numpy as np\n\ndef unbroadcast(grad, shape)\n    return grad\n")
    done = drill("grade", str(bad), "--json", code=1)
    assert done.exception is None or isinstance(done.exception, SystemExit), repr(done.exception)
    data = json.loads(done.stdout)
    assert data["passed"] is False
    assert list(data["targets"]) == [t.id for t in CATALOG.targets]  # by default, the core targets
    assert f"SyntaxError at {bad}:3" in human_report(data)  # the path as given: an editor opens it at the line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grade", "no/such/file.py"], "no such file"),
        (["grade", "tests"], "is a directory, not a regular file"),
        (["grade", str(REFERENCE), "-t", "unbroadcst"], "Did you mean 'unbroadcast'"),
        (["grade", str(REFERENCE), "-t", "ful"], "Did you mean 'full'"),
    ],
)
def test_bad_usage_exits_2_with_one_line(args, message, monkeypatch):
    """In process, from the clone's root as a user's child ran (its relative paths): each refusal comes
    before any grading, from drill's checks of its arguments (the graded cases above run ``drill
    grade`` in a real child, as users run it)."""
    monkeypatch.chdir(ROOT)
    assert message in refused(*args).stderr


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
    """In process: click refuses the option as it parses the command line."""
    assert "No such option" in " ".join(refused("grade", str(REFERENCE), "--jsn").stderr.split())
