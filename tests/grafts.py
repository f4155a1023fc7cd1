"""The alternatives and a new core symbol: an engine of tests/alternatives/ that lacks a symbol of a core
target is graded with the reference's code for it, grafted onto a copy (tests/test_alternatives.py),
and a test of its own says which engine lacks which symbol. So a new op needs no alternative edited;
writing it in an engine's style is a gap closed later, not a step of adding a drill.

A graft is the reference's function with every module-level name it reads renamed ``_reference_NAME``
and defined after the engine (helpers, imports, constants: the reference's, never the engine's homonym),
except the contract's names (``Tensor``, ``unbroadcast``, ...: the engine's); a method is attached to
the engine's class. Annotations are left out (the engine may not postpone them). The reference ignores
``requires_grad``; an engine may honour it (torch_style runs only the closures of nodes that need a
gradient): so a grafted op's output needs one when one of its inputs does, as the contract says."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

from autograd_drill.grader.catalog import Catalog, find_functions
from tests.support import REFERENCE_SOURCE, load

PREFIX = "_reference_"
ATTACH = f"""
def {PREFIX}op(method):
    def op(*args, **kwargs):
        out = method(*args, **kwargs)
        inputs = getattr(out, "_prev", ())
        if inputs and hasattr(out, "requires_grad"):
            out.requires_grad = any(getattr(t, "requires_grad", True) for t in inputs)
        return out

    return op
"""
"""Wraps a grafted method: its output needs a gradient when one of its inputs does."""


def lacks(path: Path, catalog: Catalog) -> tuple[str, ...]:
    """The core symbols the engine in ``path`` does not define (a method of its class, inherited from
    anything but ``object``, counts)."""
    engine = load(path)

    def defined(symbol: str) -> bool:
        owner, _, name = symbol.rpartition(".")
        if not owner:
            return hasattr(engine, name)
        cls = getattr(engine, owner, None)
        return isinstance(cls, type) and any(name in vars(k) for k in cls.__mro__ if k is not object)

    return tuple(s for t in catalog.targets for s in t.symbols if not defined(s))


def _top_level(tree: ast.Module) -> dict[str, ast.stmt]:
    """The statement that defines each module-level name of the reference."""
    found: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update({t.id: node for t in targets if isinstance(t, ast.Name)})
    return found


class _Rename(ast.NodeTransformer):
    def __init__(self, names: set[str]) -> None:
        self.names, self.read = names, set[str]()

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names:
            self.read.add(node.id)
            node.id = PREFIX + node.id
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.returns = None
        self.generic_visit(node)
        return node


def graft_source(symbols: tuple[str, ...], catalog: Catalog) -> str:
    """Code that, run after an engine, gives it the reference's ``symbols``."""
    tree = ast.parse(REFERENCE_SOURCE)
    functions, top = find_functions(tree), _top_level(tree)
    contract = {s.split(".")[0] for t in catalog.every for s in t.symbols}
    rename = _Rename(set(top) - contract)
    parts: list[str] = []
    for symbol in symbols:
        node = rename.visit(copy.deepcopy(functions[symbol]))
        owner, _, name = symbol.rpartition(".")
        if owner:
            node.name = f"{PREFIX}{owner}_{name}"
            parts.append(f"{ast.unparse(node)}\n{owner}.{name} = {PREFIX}op({node.name})")
        else:
            parts.append(ast.unparse(node))
    helpers: list[str] = []
    done: set[str] = set()
    while rename.read - done:  # the reference's helpers the grafts read, and theirs in turn
        name = min(rename.read - done)
        done.add(name)
        node = copy.deepcopy(top[name])
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            (alias,) = [a for a in node.names if (a.asname or a.name).split(".")[0] == name]
            node.names = [ast.alias(alias.name, PREFIX + name)]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node.name = PREFIX + name
        node = rename.visit(node)
        helpers.insert(0, ast.unparse(node))
    head = ["# Grafted from reference/engine.py (tests/grafts.py)", ATTACH.strip()]
    return "\n\n".join([*head, *helpers, *parts]) + "\n"


def grafted(path: Path, symbols: tuple[str, ...], catalog: Catalog, folder: Path) -> Path:
    """The engine in ``path`` with the reference's ``symbols`` grafted on, written in ``folder``; the
    engine itself when there are none."""
    if not symbols:
        return path
    copy_path = folder / f"grafted_{path.name}"
    copy_path.write_text(path.read_text(encoding="utf-8") + "\n\n" + graft_source(symbols, catalog), encoding="utf-8")
    return copy_path


def without(path: Path, symbols: tuple[str, ...], folder: Path) -> Path:
    """A copy of the engine in ``path`` whose definitions of ``symbols`` are cut out (as if written before
    they were in the catalog)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    functions = find_functions(ast.parse("".join(lines)))
    for node in sorted((functions[s] for s in symbols), key=lambda n: n.lineno, reverse=True):
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        lines[start : node.end_lineno] = [f"{indent}pass\n"] if indent else []
    cut = folder / path.name
    cut.write_text("".join(lines), encoding="utf-8")
    return cut
