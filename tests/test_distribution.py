"""What the distributions declare and carry: torch for users (any from 2.1, the exact pin for CI only),
the licence and the index metadata, and an sdist that holds every file the checkout has, so that its
tests run once unpacked (it used to carry the test files without tests/support.py, conftest.py,
mutants.toml or alternatives/)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from autograd_drill.grader.record import differences

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# Files of the checkout the sdist need not carry.
NOT_SHIPPED = {".gitignore"}


def _torch(extra: str) -> Requirement:
    found = [r for r in map(Requirement, PROJECT["optional-dependencies"][extra]) if r.name == "torch"]
    assert len(found) == 1, f"[{extra}] names torch {len(found)} times"
    return found[0]


def test_oracle_extra_takes_any_torch_from_2_1():
    oracle = _torch("oracle")
    for version in ("2.1.0", "2.1.2", "2.5.1", "2.13.0", "2.20.0", "3.0.0"):
        assert oracle.specifier.contains(Version(version)), f"[oracle] ({oracle}) refuses torch {version}"
    for version in ("1.13.1", "2.0.1"):
        assert not oracle.specifier.contains(Version(version)), f"[oracle] ({oracle}) takes torch {version}"
    assert {s.operator for s in oracle.specifier} == {">="}, f"[oracle] ({oracle}) has an upper bound or a pin"


def test_dev_extra_keeps_the_exact_torch_of_ci():
    dev = _torch("dev")
    assert [(s.operator, s.version) for s in dev.specifier] == [("==", "2.13.0")], str(dev)


def test_readme_says_how_to_get_a_cpu_only_torch_and_check_the_recording():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in (
        "pip install torch --index-url https://download.pytorch.org/whl/cpu",
        "pip install -e '.[oracle]'",
        "python -m autograd_drill.grader.record --check",
    ):
        assert command in readme, f"README: no {command}"


def test_record_check_passes_another_torchs_last_bits_and_nothing_more(tmp_path):
    """What the README says of ``--check``: answers a few ulps apart match, answers 1e-9 apart do not."""
    rng = np.random.default_rng(27)
    answer = rng.standard_normal(64) * 10.0 ** rng.integers(-3, 4, 64)
    np.savez(tmp_path / "recorded.npz", **{"t#0|grad": answer, "t#0|digest": np.array("d")})
    for name, factor in (("ulps", 1 + 4 * np.finfo(float).eps), ("differs", 1 + 1e-9)):
        np.savez(tmp_path / f"{name}.npz", **{"t#0|grad": answer * factor, "t#0|digest": np.array("d")})
    assert differences(tmp_path / "recorded.npz", tmp_path / "ulps.npz") == []
    assert differences(tmp_path / "recorded.npz", tmp_path / "differs.npz") == ["differs from live torch: t#0|grad"]


def test_license_and_index_metadata():
    assert PROJECT["license"] == "MIT"
    assert "LICENSE" in PROJECT["license-files"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 the autograd-drill maintainers" in text
    classifiers = set(PROJECT["classifiers"])
    for wanted in ("Environment :: Console", "Intended Audience :: Education", "Topic :: Education"):
        assert wanted in classifiers
    for minor in (11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    # PEP 639: a license expression and a licence classifier together make setuptools refuse to build.
    assert not [c for c in classifiers if c.startswith("License ::")]
    assert PROJECT["keywords"]


def _checkout_files() -> list[str]:
    """What git has (tracked, and new files not ignored), as it is in the folder; skip without git."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        pytest.skip("not a git checkout (an unpacked sdist, say)")
    return sorted(name for name in done.stdout.split("\0") if name and (ROOT / name).is_file())


def test_sdist_carries_every_file_of_the_checkout(tmp_path):
    files = _checkout_files()
    source = tmp_path / "checkout"
    for name in files:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    litter = ["tests/__pycache__/support.cpython-311.pyc", "grader/__pycache__/check.cpython-311.pyc", "docs/x.pyc"]
    for name in litter:  # what running the tests leaves behind must stay out
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(b"\0")
    build = "from setuptools import build_meta as b; print(b.build_sdist(r'%s'))" % (tmp_path / "dist")
    done = subprocess.run([sys.executable, "-c", build], cwd=source, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    archive = tmp_path / "dist" / done.stdout.split()[-1]
    with tarfile.open(archive) as tar:
        top = f"{archive.name.removesuffix('.tar.gz')}/"
        carried = {m.name.removeprefix(top) for m in tar.getmembers() if m.isfile()}
        pkg_info = tar.extractfile(f"{top}PKG-INFO").read().decode()  # type: ignore[union-attr]
    missing = [name for name in files if name not in carried and name not in NOT_SHIPPED]
    assert not missing, f"the sdist lacks {len(missing)} file(s) (add them to MANIFEST.in): {missing[:15]}"
    assert not [name for name in litter if name in carried], "compiled files went into the sdist"
    assert "License-Expression: MIT" in pkg_info and "License-File: LICENSE" in pkg_info
