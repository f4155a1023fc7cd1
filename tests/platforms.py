"""Other platforms, simulated on Linux: the pieces macOS or Windows lack, removed or made to fail.

``simulate(folder, *missing)`` writes a ``sitecustomize.py`` that Python runs at start-up, and
returns the environment that puts it on the path: every process a command starts (the grading,
the watch worker) inherits it, so the whole tool runs as it would there.
"""

from __future__ import annotations

import os
from pathlib import Path

PIECES = {
    "resource": (
        "import psutil  # first: its Linux backend uses resource, which its Windows backend does not\n"
        "sys.modules['resource'] = None  # import resource -> ImportError, as on Windows"
    ),
    "setrlimit": (
        "import resource\n"
        "def _refuse(*args):\n"
        "    raise ValueError('current limit exceeds maximum limit')  # what macOS answers for RLIMIT_AS\n"
        "resource.setrlimit = _refuse"
    ),
    "fork": "del os.fork",
    "killpg": "del os.killpg",
    "setitimer": "del signal.setitimer",
}
"""What each simulated absence does."""

WINDOWS = ("resource", "fork", "killpg", "setitimer")
"""What Windows lacks of what the grader used to need."""
MACOS = ("setrlimit",)
"""What macOS refuses (fork is there, but unsafe after importing NumPy: the tool does not fork there)."""


def simulate(folder: Path, *missing: str) -> dict[str, str]:
    """The environment of a process (and its children) that lacks ``missing`` (keys of PIECES)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["import os, signal, sys"] + [PIECES[piece] for piece in missing]
    (folder / "sitecustomize.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}
