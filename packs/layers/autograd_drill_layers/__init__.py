"""The ``layers`` pack of autograd-drill: six from-scratch layers (layer norm, batch norm, attention,
conv2d, max pooling, an Adam step), each a forward and its hand-written backward in NumPy, graded
against torch in float64.

``pack()`` is the entry point ``autograd_drill.packs`` names (``layers =
"autograd_drill_layers:pack"``): it describes the pack's files to the tool.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograd_drill.grader.packs import Pack

__version__ = "0.1.0"
ROOT = Path(__file__).parent
"""The pack's folder: catalog.toml, reference.py, reviews.toml, questions.toml (and, as the pack grows,
its oracle tests and their recording)."""


def pack() -> Pack:
    """The pack's description, a ``Pack`` of the tool's pack machinery (imported here, when the tool asks,
    so that importing this package needs no tool)."""
    from autograd_drill.grader.packs import Pack

    return Pack(
        name="layers",
        title="from-scratch layers: norms, attention, conv2d, max pooling and Adam, forward and backward",
        root=ROOT,
        catalog=ROOT / "catalog.toml",
        reference=ROOT / "reference.py",
        tests=ROOT / "tests",
        recording=ROOT / "recorded" / "oracle.npz",
        reviews=ROOT / "reviews.toml",
        questions=ROOT / "questions.toml",
        version=__version__,
    )
