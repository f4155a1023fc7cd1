"""The architecture the file tree shows, checked: the arrows between packages go one way (README,
Layout), there are no import cycles, and no module grows past what one sitting reads."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tests import sources

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("drills", "grader", "reference")
NAMES = {"drills": "autograd_drill", "grader": "autograd_drill.grader", "reference": "autograd_drill.reference"}
"""The import name of each folder (pyproject.toml, package-dir): the layers below are named by it."""

# What each layer may import from the project (TYPE_CHECKING imports aside: they name types only).
ALLOWED = {
    "autograd_drill.reference": set(),
    "autograd_drill": set(),
    "autograd_drill.grader": {"autograd_drill.grader", "autograd_drill.reference"},
    "autograd_drill.targets": {"autograd_drill.grader", "autograd_drill.reference"},  # every pack's drills, merged
    "autograd_drill.store": {
        "autograd_drill.store",
        "autograd_drill.targets",
        "autograd_drill.grader",
        "autograd_drill.reference",
    },
    "autograd_drill.errors": set(),  # DrillError: the refusal every layer above the store raises
    "autograd_drill.loop": {
        "autograd_drill.loop",
        "autograd_drill.targets",
        "autograd_drill.store",
        "autograd_drill.errors",
        "autograd_drill.grader",
        "autograd_drill.reference",
    },
    "autograd_drill.interview": {
        "autograd_drill.interview",
        "autograd_drill.targets",
        "autograd_drill.store",
        "autograd_drill.loop",
        "autograd_drill.errors",
        "autograd_drill.grader",
    },
    "autograd_drill.views": {
        "autograd_drill.views",
        "autograd_drill.targets",
        "autograd_drill.interview",
        "autograd_drill.store",
        "autograd_drill.loop",
        "autograd_drill.grader",
    },
    "autograd_drill.commands": {
        "autograd_drill.commands",
        "autograd_drill.targets",
        "autograd_drill.views",
        "autograd_drill.interview",
        "autograd_drill.loop",
        "autograd_drill.store",
        "autograd_drill.errors",
        "autograd_drill.grader",
    },
    "autograd_drill.cli": {
        "autograd_drill.cli",
        "autograd_drill.targets",
        "autograd_drill.errors",
        "autograd_drill.commands",
        "autograd_drill.interview",
        "autograd_drill.loop",
        "autograd_drill.grader",
    },  # and autograd_drill.__version__
    "autograd_drill.__main__": {"autograd_drill.entry"},
    "autograd_drill.entry": {
        "autograd_drill.cli",
        "autograd_drill.commands.quick",
        "autograd_drill.commands.quick_help",
        "autograd_drill.ascii_fallback",
        "autograd_drill.grader",
    },  # the console entry point: before the heavy imports; the commands typed bare (drills/commands/quick.py)
    # and the app's help (quick_help.py) answer without typer; drill check's grading interpreter starts first
    # (grader/spawn.py, start_early)
    "autograd_drill.ascii_fallback": set(),
}
MAX_LINES = 420  # "about 400": what one sitting reads
LONGER = {"reference/engine.py"}  # the answer key reads top to bottom, as micrograd's engine does (and so do
# the correct engines of tests/alternatives/, written in other styles, left out above)


@functools.cache
def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name.startswith("test_") or path.name == "conftest.py":
                continue  # the grader's tests and fixtures: pytest's, not an importable layer
            parts = (NAMES[package], *path.relative_to(ROOT / package).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@functools.cache
def imports(path: Path, typing: bool = False) -> frozenset[str]:
    """The project modules ``path`` imports at run time (anywhere in it, functions included), and with
    ``typing`` those it imports for type checkers only (``if TYPE_CHECKING:``) too."""
    typing_only: set[int] = set()
    for node in sources.nodes(path):
        if not typing and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
    found = set()
    for node in sources.nodes(path):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    known = modules()
    return frozenset(name for name in found if name in known)


def layer(module: str) -> str:
    return max((key for key in ALLOWED if module == key or module.startswith(key + ".")), key=len)


@pytest.mark.parametrize("module", sorted(modules()))
def test_arrows_go_one_way(module):
    allowed = ALLOWED[layer(module)]
    found = imports(modules()[module]) - {"autograd_drill"}  # the package itself holds only its docstring and version
    wrong = sorted(name for name in found if not any(name == a or name.startswith(a + ".") for a in allowed))
    assert not wrong, f"{module} ({layer(module)}) imports {wrong}: README, Layout, says which way the arrows go"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import cycle of ``graph`` (module -> the modules it imports), as a path back to its start."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for other in sorted(graph.get(module, ())):
            if state.get(other) == 1:
                return stack[stack.index(other) :] + [other]
            if other not in state and (cycle := visit(other)):
                return cycle
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return None


def test_no_import_cycles():
    """Not at run time, and not for a type checker either (``TYPE_CHECKING`` imports included)."""
    graph = {module: imports(path, typing=True) - {module} for module, path in modules().items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def python_files() -> list[Path]:
    """Every Python file of the project: the packages, their tests, the benchmarks, CI's helpers."""
    found = [p for folder in (*PACKAGES, "tests", "benchmarks", ".github") for p in (ROOT / folder).rglob("*.py")]
    return sorted(p for p in found if "alternatives" not in p.parts)


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_are_short(path):
    if str(path.relative_to(ROOT)) in LONGER:
        return
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by concept (README, Layout)"


def test_plain_pytest_runs_without_pytest_xdist(tmp_path):
    """The suite's options need no plugin: ``pytest`` with pytest-xdist absent (``-p no:xdist``) runs,
    and so it does with no installed plugin at all (PYTEST_DISABLE_PLUGIN_AUTOLOAD: neither are
    hypothesis's and anyio's loaded, which cost the child half its CPU); under ``-n`` the distribution
    is worksteal (tests/conftest.py). Its temporary folders are in this test's (``--basetemp``): in
    pytest's shared root it would number a run of its own and delete the oldest run's folders there
    (thousands, a second of the child's time)."""
    import os
    import subprocess
    import sys

    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "tests/test_layers.py", "-k", "cycles", f"--basetemp={tmp_path / 'basetemp'}"],
        capture_output=True, text=True, cwd=ROOT, timeout=600, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "passed" in plain.stdout
