"""The files one pack's grading reads, as paths: its oracle tests, catalog, reference and recording.

The autograd pack's are the grader's own (grader/test_*.py, grader/catalog.toml, reference/engine.py,
grader/recorded/oracle.npz), which every grading uses when told no suite. Another pack's grading runs
the same machinery (grader/conftest.py as a plugin: the ``grade`` fixture, the contract clauses, the
report, the verdict order) on that pack's files::

    python -m pytest P/tests -c grader/pytest.ini --rootdir grader -p autograd_drill.grader.conftest \\
        --catalog=P/catalog.toml --reference=P/reference.py --oracle-file=P/recorded/oracle.npz \\
        --rootdir=P/tests --impl=FILE --oracle=replay --report-json=REPORT

The second ``--rootdir`` wins: a test's id then names its file (``test_layernorm.py::test_layernorm[...]``,
as the grader's own do), where the grader's folder as root left it ``::test_layernorm[...]``.
``Suite.options`` is that command's part after the tests (grader/run.py ``pytest_args`` adds the rest);
a pack's description (its ``tests``, ``catalog``, ``reference`` and ``recording``) makes one with
``Suite.of``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograd_drill.grader.catalog import Target


@dataclass(frozen=True)
class Suite:
    tests: Path
    """The folder of the pack's ``test_<marker>.py`` oracle tests."""
    catalog: Path
    reference: Path
    recording: Path

    @classmethod
    def of(cls, pack: Any) -> Suite:
        """The suite of anything that names the four files as attributes (a pack's description)."""
        return cls(Path(pack.tests), Path(pack.catalog), Path(pack.reference), Path(pack.recording))

    def test_files(self, targets: Sequence[Target]) -> list[str]:
        """A target's tests: ``test_<marker>.py``, and ``test_<marker>_<topic>.py`` where one file would be long."""
        found = [
            [self.tests / f"test_{t.marker}.py", *sorted(self.tests.glob(f"test_{t.marker}_*.py"))] for t in targets
        ]
        return [str(path.resolve()) for paths in found for path in paths]

    test_files.__test__ = False  # type: ignore[attr-defined]  # not a pytest test

    def options(self) -> list[str]:
        """The shared plugin, and the pack's catalog, reference and recording (``--option=value``, one token),
        and its tests folder as the rootdir (the module's docstring says why)."""
        return [
            *("-p", "autograd_drill.grader.conftest"),
            f"--catalog={self.catalog.resolve()}",
            f"--reference={self.reference.resolve()}",
            f"--oracle-file={self.recording.resolve()}",
            f"--rootdir={self.tests.resolve()}",  # after the grader's: a test's id names its file, as ours do
        ]
