"""`drill list`, `drill --help`, `drill status` and `drill where` answer without importing NumPy, pytest or torch
(`drill where` names the recording, and imported the oracle, and NumPy with it, for its path: 0.2 of its 0.46 CPU-s)."""

import pytest

from tests.support import drill_imports

HEAVY = ("numpy", "pytest", "torch", "plotext")


@pytest.mark.parametrize(
    "args", [["list"], ["--help"], ["status"], [], ["where"]], ids=["list", "help", "status", "bare", "where"]
)
def test_light_commands_import_nothing_heavy(args):
    _, modules = drill_imports(*args, ok=(0, 2))  # status with no attempt: exit 2
    imported = {name.split(".")[0] for name in modules}
    assert not imported & set(HEAVY), imported & set(HEAVY)
