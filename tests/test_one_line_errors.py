"""One-line errors everywhere (issue 24, point 8) and ``--oracle record`` out of drill's reach (point 6):
``drill grade --json`` always prints a JSON object with a ``version``; a JSON nested too deeply to
import, an attempt number too large for SQLite and a solution that kills itself are each one line
that says what happened; ``drill grade --oracle record`` is refused and leaves the shipped recording
as it was. The fuzzed command lines are in tests/test_fuzz_cli.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from autograd_drill.commands.grade import JSON_VERSION
from autograd_drill.grader.oracle import RECORDING, RECORDING_ENV
from tests.processes import in_unbroadcast
from tests.support import REFERENCE, ROOT, digest_of, drill, opened


def one_error_line(result) -> str:
    """The refusal, as typer's CliRunner saw it: no traceback, one line starting 'error:'."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# ---------------------------------------------------------------------------- drill grade --json


@pytest.mark.parametrize(
    ("path", "args", "says"),
    [
        ("missing.py", (), "no such file"),
        (".", (), "not a regular file"),
        ("engine", ("-t", "nope"), "unknown target 'nope'"),
        ("engine", ("--oracle", "record"), "--oracle record: choose auto, live, replay, fd"),
        ("engine", ("--oracle", "bogus"), "--oracle bogus"),
    ],
)
def test_grade_json_prints_an_error_object(path, args, says, tmp_path, wide_terminal):
    file = str(REFERENCE) if path == "engine" else str(tmp_path / path)
    result = drill("grade", file, *args, "--json", code=2)
    data = json.loads(result.stdout)
    assert data == {
        "version": JSON_VERSION,
        "file": file,
        "passed": False,
        "targets": {},
        "notes": [],
        "error": data["error"],
    }
    assert says in data["error"] and one_error_line(result) == f"error: {data['error']}"


def test_a_verdict_carries_the_version_too(reference_verdict):
    """The run's one real ``drill grade --json`` of the reference (tests/conftest.py)."""
    data = json.loads(str(reference_verdict["stdout"]))
    assert reference_verdict["returncode"] == 0 and data["version"] == JSON_VERSION and data["passed"] is True


# ---------------------------------------------------------------------------- the fuzz findings


def test_a_json_nested_too_deeply_is_one_line(tmp_path, wide_terminal):
    for text in ("[" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000):
        deep = tmp_path / "deep.json"
        deep.write_text(text)
        line = one_error_line(drill("import", str(deep), code=2))
        assert "nested too deeply" in line and str(deep) in line


@pytest.mark.parametrize("number", ["99999999999999999999", "-99999999999999999999", str(2**63)])
@pytest.mark.parametrize("option", ["--attempt", "--save"])
def test_a_number_too_large_for_the_history_is_one_line(option, number, tmp_path):
    """Before: OverflowError (a Python int too large for SQLite's INTEGER), taken to the history.

    The attempt's one graded save is written to the history as ``drill check`` writes it (the file as
    started, its failing verdict): what restore looks up is the history's rows, not how they were graded."""
    drill("start", "unbroadcast")
    with opened() as store:
        source = (tmp_path / "solutions" / "unbroadcast.py").read_text(encoding="utf-8")
        verdict = json.dumps({"passed": False, "failures": {"unbroadcast": ["unbroadcast is not written yet"]}})
        store.add_submission(store.active(), time.time(), 1.0, source, verdict, passed=False)
    result = drill("restore", "unbroadcast", option, number, code=2)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and "Overflow" not in result.output
    line = " ".join(result.stderr.split())  # one error, wrapped at the test console's 80 columns
    assert line.startswith("error: ") and line.count("error:") == 1, result.stderr
    assert number in line and ("there is no attempt" in line or "--save takes 1" in line), line


def test_a_self_kill_is_not_called_out_of_memory(tmp_path):
    """drill grade in process: the grading runs in an interpreter of its own (grader/process.py), the
    process the solution kills; the test's process reads its end as drill's would."""
    solution = tmp_path / "solution.py"
    solution.write_text(in_unbroadcast("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"))
    result = drill("grade", str(solution), "-t", "unbroadcast", "--json", code=1)
    [failure] = json.loads(result.stdout)["targets"]["unbroadcast"]["failures"]
    assert "killed by signal 9 (SIGKILL)" in failure["message"]
    assert "out of memory" not in failure["message"] and "by your code, or by another program" in failure["message"]


# ---------------------------------------------------------------------------- --oracle record


def test_drill_cannot_record_over_the_shipped_oracle(tmp_path, wide_terminal):
    """grade, check and watch refuse --oracle record in one line, exit 2, in process (a real child's
    refusal was the same line: the refusal comes before any grading or process of its own)."""
    before, stamp = digest_of(RECORDING), RECORDING.stat().st_mtime_ns
    line = one_error_line(drill("grade", str(REFERENCE), "-t", "unbroadcast", "--oracle", "record", code=2))
    assert "python -m autograd_drill.grader.record" in line
    drill("start", "unbroadcast")
    (tmp_path / "solutions" / "unbroadcast.py").write_text(REFERENCE.read_text())
    for command in (["check"], ["watch"]):
        assert "--oracle record" in one_error_line(drill(*command, "--oracle", "record", code=2))
    assert one_error_line(drill("grade", str(REFERENCE), "--oracle", "record", code=2)).startswith(
        "error: --oracle record"
    )
    assert digest_of(RECORDING) == before and RECORDING.stat().st_mtime_ns == stamp


def test_the_grader_records_only_for_grader_record(tmp_path):
    """A hand-run ``pytest grader --oracle record`` is refused. (With grader/record.py's variable it
    records: python -m autograd_drill.grader.record, run whole by tests/test_oracle.py's live-torch test, which needs
    that variable to record at all.)"""
    recording = tmp_path / "oracle.npz"
    command = [sys.executable, "-m", "pytest", "grader", "-q", "-p", "no:cacheprovider", "-m", "unbroadcast"]
    command += ["--oracle", "record", "--oracle-file", str(recording)]
    env = {k: v for k, v in os.environ.items() if k != RECORDING_ENV}
    refused = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert refused.returncode == 4 and "python -m autograd_drill.grader.record" in refused.stderr
    assert not recording.exists()
