"""Where the suite's processes keep Python's bytecode when the machine says write none, and the
pruning that keeps that folder from growing with every run."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

BYTECODE = Path(tempfile.gettempdir()) / f"drill-tests-bytecode-{os.getuid() if hasattr(os, 'getuid') else 0}"
"""Where the suite's processes keep Python's bytecode when the machine says write none
(PYTHONDONTWRITEBYTECODE, set on the machine the suite was measured on): without it each of the
suite's hundreds of children (drill, a grading) compiled drill's and the grader's modules anew (0.1 s
of a 0.3 s ``drill stats``) and each xdist worker rewrote every test module's asserts (4 of its 6 s of
collection). Outside the repository, as that setting wants. Solutions are compiled from their source
at every grading (grader/sandbox.py), never from this cache."""

DEPTH = 2
"""How deep under the temporary folder's mirror ``prune`` looks: a run's base folder is two down
(``pytest-of-USER/pytest-N``), a clone's checkout one (``tmp.XXXX``)."""


def mirror(folder: Path, cache: Path) -> Path:
    """Where Python keeps the bytecode of ``folder``'s modules under the prefix ``cache`` (the
    folder's absolute path below it, less a Windows drive)."""
    saved = sys.pycache_prefix
    sys.pycache_prefix = str(cache)
    try:
        return Path(importlib.util.cache_from_source(str(folder / "m.py"))).parent
    finally:
        sys.pycache_prefix = saved


def prune(cache: Path = BYTECODE, temp: Path | None = None) -> list[Path]:
    """Remove the bytecode of temporary folders that are gone (a test run's base folder once pytest
    dropped it, a clone CI checked out): each run's modules under ``tmp_path`` are compiled and kept
    here once, never read again (98 MB of them had piled up on the machine this was written on). What
    is kept for a folder still there, or for any folder outside the temporary one, stays. Returns the
    mirrors removed."""
    temp = Path(temp or tempfile.gettempdir()).resolve()
    removed: list[Path] = []

    def visit(real: Path, cached: Path, depth: int) -> None:
        try:
            children = [c for c in cached.iterdir() if c.is_dir() and not c.is_symlink()]
        except OSError:
            return
        for child in children:
            there = real / child.name
            if not there.exists():
                shutil.rmtree(child, ignore_errors=True)
                removed.append(child)
            elif depth > 1:
                visit(there, child, depth - 1)

    visit(temp, mirror(temp, cache), DEPTH)
    return removed
