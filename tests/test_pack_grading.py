"""The grader grades a pack: the ``layers`` pack's oracle tests (packs/layers/autograd_drill_layers/tests/)
run through grader/run.py's ``grade_file`` with the pack's files (grader/suite.py), in a child process
as ``drill grade`` runs them, from the pack's recording. The reference passes every target without
torch. The pack's alternatives passing every target (tests/test_alternatives.py) and its classic bugs
failing theirs, each verdict naming the function it broke and the case (packs/layers/mutants.toml,
tests/test_mutants.py), are proved with the autograd pack's, by the same tests."""

from __future__ import annotations

from autograd_drill.grader.run import grade_file
from tests.layers_pack import CATALOG, REFERENCE, SUITE
from tests.support import without_torch

IDS = ["layernorm", "batchnorm", "attention", "conv2d", "maxpool2d", "adam"]


def graded(file):
    return grade_file(file, CATALOG.targets, oracle="replay", suite=SUITE)


def test_the_suite_finds_one_test_file_per_target():
    files = SUITE.test_files(CATALOG.targets)
    assert [f.rsplit("/", 1)[1] for f in files] == [f"test_{t.marker}.py" for t in CATALOG.targets]
    assert [t.id for t in CATALOG.targets] == IDS


def test_the_reference_passes_every_target_from_the_recording_without_torch(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", without_torch(tmp_path)["PYTHONPATH"])
    result = graded(REFERENCE)
    assert [t.target for t in result.targets] == IDS
    assert result.passed, [f.message for t in result.targets for f in t.failures][:3]
    assert all(t.tests >= 48 and t.not_run == 0 for t in result.targets), [(t.target, t.tests) for t in result.targets]
    verdict = result.to_json()  # the grader's recording has none of these answers: the pack's was read
    assert verdict["passed"] is True and list(verdict["targets"]) == IDS
