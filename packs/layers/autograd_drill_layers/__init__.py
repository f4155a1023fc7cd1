"""The ``layers`` pack of autograd-drill: six from-scratch layers (layer norm, batch norm, attention,
conv2d, max pooling, an Adam step), each a forward and its hand-written backward in NumPy, graded
against torch in float64.

``pack()`` is the entry point ``autograd_drill.packs`` names (``layers =
"autograd_drill_layers:pack"``): it describes the pack's files to the tool, as a ``Pack`` built from
``description()``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autograd_drill.grader.packs import Pack

DISTRIBUTION = "autograd-drill-layers"
__version__ = "0.1.0"
"""The version when the distribution's metadata cannot be read (the package imported from a source
tree, not installed): pyproject.toml's."""
ROOT = Path(__file__).resolve().parent
"""The pack's folder: catalog.toml, reference.py, reviews.toml, questions.toml, tests/ (its oracle
tests) and recorded/oracle.npz (their recorded answers)."""


def version() -> str:
    """The installed distribution's version, else ``__version__``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return __version__


def description() -> dict[str, Any]:
    """The fields of the pack's ``Pack``, by name: every path absolute (needs no tool to read)."""
    return {
        "name": "layers",
        "title": "from-scratch layers: norms, attention, conv2d, max pooling and Adam, forward and backward",
        "version": version(),
        "root": ROOT,
        "catalog": ROOT / "catalog.toml",
        "reference": ROOT / "reference.py",
        "tests": ROOT / "tests",
        "recording": ROOT / "recorded" / "oracle.npz",
        "reviews": ROOT / "reviews.toml",
        "questions": ROOT / "questions.toml",
    }


def pack() -> Pack:
    """The pack's description, a ``Pack`` of the tool's pack machinery (imported here, when the tool asks,
    so that importing this package needs no tool)."""
    from autograd_drill.grader.packs import Pack

    return Pack(**description())
