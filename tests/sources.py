"""The project's files parsed once per test process: the tests that read the code itself (the layers'
arrows and cycles, dead code, names by folder, one home per concept) share each file's tree and the
list of its nodes instead of parsing and walking every file again in each test. Read only: nothing
may change a tree it is given (the next test would read the change)."""

from __future__ import annotations

import ast
import functools
import gc
from pathlib import Path


@functools.cache
def tree(path: Path) -> ast.Module:
    """``path`` parsed (files do not change while the tests run), with the cycle collector paused: a
    tree holds no cycle, and its tens of thousands of nodes made the collector run (and walk the trees
    parsed before it) many times per file, a third of the parsing of the project's 275 files."""
    text = path.read_text(encoding="utf-8")
    running = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(text)
    finally:
        if running:
            gc.enable()


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s tree, in ``ast.walk``'s order."""
    return tuple(ast.walk(tree(path)))
