"""A grading imports the grader's modules under their import names, from a clone as from the wheel.

pytest names a test file after the folders above it that hold an ``__init__.py``: installed,
``site-packages/autograd_drill/grader/test_x.py`` is ``autograd_drill.grader.test_x``; in a clone,
``grader/test_x.py`` would be ``grader.test_x``, with ``grader/__init__.py`` imported as a package
``grader`` of its own and the clone put first on ``sys.path``: a second copy of each test module beside
the one the warm worker preloads (grader/worker.py, ``_preload``) or tests/test_localize.py imports. The
two hooks below (grader/conftest.py takes them in) import the grader's test modules by name instead, and
collect the grader's folder as a plain folder (pytest would import its ``__init__.py`` by path). A grading
loads the conftest by name too (grader/run.py, ``BASE_ARGS``: ``--noconftest -p``). tests/test_one_package.py
checks the names a grading imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from autograd_drill.grader.process import GRADER, PACKAGE


class GraderModule(pytest.Module):
    """A test module of the grader, imported as ``autograd_drill.grader.test_x`` (pytest's Module imports
    its file by path in ``_getobj``; this imports it by name, then takes its ``pytest_plugins`` as pytest does)."""

    def _getobj(self) -> ModuleType:
        module = importlib.import_module(f"{PACKAGE}.{self.path.stem}")
        if Path(module.__file__ or "").resolve() != self.path.resolve():
            raise self.CollectError(f"{module.__name__} is imported from {module.__file__}, not from {self.path}")
        self.config.pluginmanager.consider_module(module)
        return module


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    if module_path.parent.resolve() != GRADER:
        return None
    return GraderModule.from_parent(parent, path=module_path)


class GraderDir(pytest.Dir):
    """The grader's folder, its entries looked at once per session.

    A grading names each test file of its targets (grader/run.py), and pytest collects the folder
    again for each file named (files named twice are not deduplicated): every entry of the folder
    walked, and a node made for each test file, thirteen times in a full grading, for one file kept
    each time. The same entries are kept here and given again."""

    def collect(self) -> Sequence[pytest.Item | pytest.Collector]:
        entries: list[pytest.Item | pytest.Collector] | None = getattr(self, "_entries", None)
        if entries is None:
            entries = self._entries = list(super().collect())
        return entries


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if path.resolve() != GRADER:
        return None
    return GraderDir.from_parent(parent, path=path)
