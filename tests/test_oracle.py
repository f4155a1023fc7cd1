"""The oracle: answers recorded from torch replay without torch, stale recordings are caught, and the
shipped recording agrees with live torch."""

import functools
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from autograd_drill.grader import record
from autograd_drill.grader.oracle import RECORDING, OracleError, ReplayOracle, digest
from autograd_drill.grader.record import differences
from tests.support import CATALOG, GRADER_TEST_LIMIT, ROOT, run_grader, without_torch


@functools.cache
def has_torch() -> bool:
    """Whether torch imports here (asked once per test process, and only when a run that needed torch
    failed: an import of torch takes seconds, which every test process would pay at collection, and a
    run that succeeded has imported it)."""
    return (
        shutil.which("python") is not None
        and subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0
    )


def require_torch(reason: str) -> None:
    """Skip the test (for ``reason``) where torch does not import."""
    if not has_torch():
        pytest.skip(reason)


@pytest.fixture
def no_torch(tmp_path):
    """A PYTHONPATH on which `import torch` fails, to prove a run never imports it."""
    return without_torch(tmp_path / "fake")


def test_shipped_recording_covers_the_whole_suite_without_torch(reference_verdict):
    """The run's one full grading of the reference (tests/conftest.py): every target, so every grader
    test (each belongs to one: tests/test_catalog.py), replayed with torch unimportable, passes."""
    assert reference_verdict["returncode"] == 0, str(reference_verdict["stdout"])[-2000:] + str(
        reference_verdict["stderr"]
    )
    data = json.loads(str(reference_verdict["stdout"]))
    assert list(data["targets"]) == [t.id for t in CATALOG.every] and data["passed"] is True
    assert all(t["tests"] > 0 and t["failed"] == t["not_run"] == 0 for t in data["targets"].values())


def test_replay_rejects_answers_recorded_for_other_inputs(tmp_path):
    path = tmp_path / "oracle.npz"
    np.savez(
        path,
        **{
            "k#0|digest": np.array(digest([np.zeros(3)])),
            "k#0|out": np.zeros(()),
            "k#0|cotangent": np.ones(()),
            "k#0|grad0": np.ones(3),
        },
    )
    oracle = ReplayOracle(path, fallback_to_live=False)
    answer = oracle.vjp("k#0", lambda x: x.sum(), [np.zeros(3)])
    assert answer.grads[0].tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(OracleError, match="recorded for other inputs.*python -m autograd_drill.grader.record"):
        oracle.vjp("k#0", lambda x: x.sum(), [np.ones(3)])
    with pytest.raises(OracleError, match="never recorded"):
        oracle.vjp("other#0", lambda x: x.sum(), [np.ones(3)])


def test_unreadable_recording_is_a_clear_error(tmp_path):
    path = tmp_path / "oracle.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(OracleError, match="cannot read the recorded oracle"):
        ReplayOracle(path)


def test_live_torch_agrees_with_the_shipped_recording_and_its_recording_replays_without_torch(
    tmp_path, no_torch, unbroadcast_tests
):
    """One run of the whole suite with live torch (``python -m autograd_drill.grader.record``, as a maintainer runs it)
    serves both the drift check and the record/replay round trip: torch is imported once, not twice.
    What ``--check`` prints is tested below, in process, on recordings that differ on purpose."""
    live = tmp_path / "live.npz"
    command = [sys.executable, "-m", "autograd_drill.grader.record", "--file", str(live)]
    limit = {**os.environ, "PYTEST_ADDOPTS": GRADER_TEST_LIMIT}  # not the product's 5 s a test, on a busy machine
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=limit)
    if proc.returncode != 0:  # asked only then: the recording imported torch, or this says whether it can
        require_torch("recording from live torch needs torch")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert f"recorded {live}" in proc.stdout
    # The drift check: what live torch answers now is what the shipped recording says.
    assert differences(RECORDING, live) == []
    # The round trip: every unbroadcast test but one asks (a batch of generated cases asks many times),
    # and the target replays from the fresh recording with torch unimportable.
    tests = set(unbroadcast_tests)  # collected once per run (tests/conftest.py)
    with np.load(live) as store:
        asked = len([k for k in store.files if k.endswith("|digest") and k.partition("#")[0] in tests])
    assert asked > len(tests) > 10
    proc = run_grader("-m", "unbroadcast", "--oracle", "replay", "--oracle-file", str(live), env=no_torch)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_answers_stored_unlike_are_compared_as_arrays(tmp_path):
    """``differences`` skips an answer stored as the same bytes in both files; one stored otherwise
    (here deflated in one, not in the other) is read and compared, not taken for a difference."""
    answers = {"k#0|digest": np.array("d"), "k#0|out": np.arange(6.0)}
    np.savez(tmp_path / "stored.npz", **answers)
    np.savez_compressed(tmp_path / "deflated.npz", **answers)
    np.savez_compressed(tmp_path / "other.npz", **{**answers, "k#0|out": np.arange(6.0) + 1e-9})
    assert differences(tmp_path / "stored.npz", tmp_path / "deflated.npz") == []
    assert differences(tmp_path / "stored.npz", tmp_path / "other.npz") == ["differs from live torch: k#0|out"]


def save(path, **arrays) -> None:
    np.savez(path, **{k.replace("_", "|"): np.asarray(v) for k, v in arrays.items()})


@pytest.mark.parametrize(
    ("fresh", "status", "said"),
    [
        ({"k#0_digest": "d", "k#0_out": 1.0}, 0, ["the recording {file} matches live torch"]),
        ({"k#0_digest": "d", "k#0_out": 1.0 + 1e-15}, 0, ["the recording {file} matches live torch"]),
        (
            {"k#0_digest": "d", "k#0_out": 2.0, "k#1_digest": "e"},
            1,
            [
                "missing from the recording: k#1|digest",
                "differs from live torch: k#0|out",
                "2 difference(s): regenerate with python -m autograd_drill.grader.record",
            ],
        ),
        (None, 1, ["the reference failed its own grader with live torch (pytest exit 1)"]),
    ],
    ids=["matches", "within-rounding", "differs", "reference-fails"],
)
def test_record_check_says_whether_the_recording_matches(tmp_path, monkeypatch, capsys, fresh, status, said):
    """``python -m autograd_drill.grader.record --check``'s verdicts, with what live torch answers stood in for by ``fresh``."""
    file = tmp_path / "oracle.npz"
    save(file, **{"k#0_digest": "d", "k#0_out": 1.0})

    def answers_now(path) -> int:
        if fresh is None:
            return 1
        save(path, **fresh)
        return 0

    monkeypatch.setattr(record, "record", answers_now)
    assert record.main(["--check", "--file", str(file)]) == status
    out = capsys.readouterr().out
    assert all(line.format(file=file) in out for line in said), out


def test_record_check_without_a_recording_says_how_to_make_one(tmp_path, capsys):
    assert record.main(["--check", "--file", str(tmp_path / "none.npz")]) == 1
    assert (
        f"no recording at {tmp_path / 'none.npz'}: run python -m autograd_drill.grader.record"
        in capsys.readouterr().out
    )


def test_finite_difference_oracle_grades_without_torch(no_torch, tmp_path):
    """--oracle fd: the op checks by central differences of the reference's forward, no torch imported."""
    command = ["-q", "--oracle", "fd"]
    proc = run_grader(*command, env=no_torch)
    assert proc.returncode == 0, proc.stdout[-2000:]
    wrong = tmp_path / "engine.py"
    source = (ROOT / "reference" / "engine.py").read_text()
    wrong.write_text(
        source.replace(
            "self.grad += unbroadcast(out.grad * other.data, self.shape)",
            "self.grad += unbroadcast(out.grad * self.data, self.shape)",
        )
    )
    proc = run_grader(*command, "-m", "arith", "-k", "op_mul", "--impl", str(wrong), env=no_torch)
    assert proc.returncode == 1 and "Tensor.__mul__" in proc.stdout
