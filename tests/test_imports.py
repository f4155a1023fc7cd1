"""`drill list`, `drill --help` and `drill status` answer without importing NumPy, pytest or torch."""

import pytest

from tests.support import drill_imports

HEAVY = ("numpy", "pytest", "torch", "plotext")


@pytest.mark.parametrize("args", [["list"], ["--help"], ["status"], []], ids=["list", "help", "status", "bare"])
def test_light_commands_import_nothing_heavy(args):
    _, modules = drill_imports(*args, ok=(0, 2))  # status with no attempt: exit 2
    imported = {name.split(".")[0] for name in modules}
    assert not imported & set(HEAVY), imported & set(HEAVY)
