"""The oracle: answers recorded from torch replay without torch, stale recordings are caught, and the
shipped recording agrees with live torch."""

import functools
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from grader.oracle import RECORDING, OracleError, ReplayOracle, digest
from tests.support import ROOT, count_tests, run_grader


@functools.cache
def has_torch() -> bool:
    """Whether torch imports here (asked once per test process, by the first test that needs it: an
    import of torch takes seconds, which every test process would pay at collection)."""
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
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('torch imported during a replayed check')\n")
    return {**os.environ, "PYTHONPATH": str(fake.parent)}


def test_shipped_recording_covers_the_whole_suite_without_torch(no_torch):
    proc = run_grader("-q", "--oracle", "replay", env=no_torch)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert " passed" in proc.stdout


def test_record_then_replay_round_trip(tmp_path, no_torch):
    require_torch("recording needs torch")
    recording = tmp_path / "oracle.npz"
    proc = run_grader("-m", "unbroadcast", "--oracle", "record", "--oracle-file", str(recording))
    assert proc.returncode == 0, proc.stdout[-2000:]
    with np.load(recording) as store:
        asked = len([k for k in store.files if k.endswith("|digest")])
    tests = count_tests("unbroadcast")  # collected once per test process (tests/support.py)
    assert asked > tests > 10  # every unbroadcast test but one asks (a batch of generated cases asks many times)
    proc = run_grader("-m", "unbroadcast", "--oracle", "replay", "--oracle-file", str(recording), env=no_torch)
    assert proc.returncode == 0, proc.stdout[-2000:]


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
    with pytest.raises(OracleError, match="recorded for other inputs.*python -m grader.record"):
        oracle.vjp("k#0", lambda x: x.sum(), [np.ones(3)])
    with pytest.raises(OracleError, match="never recorded"):
        oracle.vjp("other#0", lambda x: x.sum(), [np.ones(3)])


def test_unreadable_recording_is_a_clear_error(tmp_path):
    path = tmp_path / "oracle.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(OracleError, match="cannot read the recorded oracle"):
        ReplayOracle(path)


def test_shipped_recording_matches_live_torch():
    require_torch("the drift check needs torch")
    proc = subprocess.run([sys.executable, "-m", "grader.record", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert f"the recording {RECORDING} matches live torch" in proc.stdout


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
