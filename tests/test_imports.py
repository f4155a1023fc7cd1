"""`drill list`, `drill --help` and `drill status` answer without importing NumPy, pytest or torch."""

import subprocess
import sys

import pytest

from tests.support import ROOT

HEAVY = ("numpy", "pytest", "torch", "plotext")


@pytest.mark.parametrize("args", [["list"], ["--help"], ["status"], []], ids=["list", "help", "status", "bare"])
def test_light_commands_import_nothing_heavy(args):
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "drills", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode in (0, 2), proc.stderr[-2000:]  # status with no attempt: exit 2
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert not imported & set(HEAVY), imported & set(HEAVY)
