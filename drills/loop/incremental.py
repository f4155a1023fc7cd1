"""Incremental grading of a drill of several targets (the full drill): which targets' code changed
since the last graded version, so that only those are graded again.

A target's code is its own symbols, those of the targets it needs and the others its tests run
(grader/catalog.toml, ``needs`` and ``runs``),
``Tensor.__init__``, the rest of the file (everything that is not a symbol of a drilled target:
imports, module-level code, helpers such as ``_as_tensor``, ``__sub__``, the headers of every
function, which run at import), and every symbol its functions may reach by name, transitively:
``x.exp()`` may call any ``exp``, ``a * b`` any ``__mul__`` or ``__rmul__``, ``unbroadcast(...)``
the function. Names of imported modules' attributes (``np.exp``) reach nothing, but
``getattr`` and the like reach everything; dunders that Python or NumPy may call without naming
them (``__repr__``, ``__array_ufunc__``, ``__eq__``...) are reached from everywhere. It errs on the
side of grading again.

Each function is compared by its AST (``ast.dump``): whitespace and comments change nothing. A
verdict is reused when its target's code is unchanged: a failure only when the lines it names are
still where they were, and never a verdict on the file as a whole (it did not import) nor one with
tests not run. A file that does not parse reuses nothing.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache

from autograd_drill.grader.catalog import Target, find_functions
from autograd_drill.grader.verdict import GradeResult, TargetResult
from autograd_drill.targets import catalog as merged

ALWAYS = ("Tensor.__init__",)
"""Run by every target's tests."""

ARITHMETIC = (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "lshift",
    "rshift",
    "and",
    "or",
    "xor",
)
BINARY: dict[type[ast.operator], str] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
}
UNARY: dict[type[ast.unaryop], tuple[str, ...]] = {
    ast.USub: ("__neg__",),
    ast.UAdd: ("__pos__",),
    ast.Invert: ("__invert__",),
    ast.Not: ("__bool__", "__len__"),
}
SUBSCRIPT = ("__getitem__", "__setitem__", "__delitem__")
EXPLICIT = frozenset(
    {f"__{op}__" for op in ARITHMETIC}
    | {f"__r{op}__" for op in ARITHMETIC}
    | {f"__i{op}__" for op in ARITHMETIC}
    | {"__neg__", "__pos__", "__invert__", "__abs__", *SUBSCRIPT}
)
"""The dunders reached only through syntax (operators, subscripts) or by name: the others, Python and
NumPy may call without the code naming them."""
EVERY_OPERATOR = frozenset(n for n in EXPLICIT if n not in SUBSCRIPT)
FOLDS = frozenset(
    {"sum", "prod", "reduce", "accumulate", "fsum", "dot", "einsum", "inner", "outer", "tensordot"}
    | {"multiply", "subtract", "divide", "true_divide", "negative", "power", "positive"}
)
"""Functions that may apply operators to what they are given (``sum(tensors)`` adds them), as do those
named after an operator (``abs``, ``operator.mul``, ``np.add``)."""
DYNAMIC = frozenset(
    {"getattr", "setattr", "delattr", "hasattr", "eval", "exec", "compile", "globals", "locals", "vars", "__import__"}
    | {"methodcaller", "attrgetter", "__dict__", "__getattribute__", "import_module"}
)
"""Names through which code may reach any function: they reach every one."""
EVERYTHING = "*"


def imported_modules(tree: ast.Module) -> set[str]:
    """The names the file binds to modules (``np`` of ``import numpy as np``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return found


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _applies_operators(name: str) -> bool:
    return name in FOLDS or f"__{name}__" in EXPLICIT


def _constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant)


def _children(node: ast.AST) -> Iterator[ast.AST]:
    """What ``ast.iter_child_nodes`` gives, less annotations: evaluated at most (this file may not
    even evaluate them), never calling a function of the file."""
    for name in node._fields:
        if name in ("annotation", "returns"):
            continue
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, ast.AST))


def names_used(nodes: Iterable[ast.AST], modules: set[str]) -> set[str]:
    """Every name through which these nodes may call a function of the file."""
    found: set[str] = set()
    todo = list(nodes)
    while todo:
        node = todo.pop()
        todo.extend(_children(node))
        kind = type(node)
        if kind is ast.Name:
            assert isinstance(node, ast.Name)
            found.add(node.id)
            if _applies_operators(node.id):  # sum(tensors), abs(x), reduce(mul, ...)
                found.update(EVERY_OPERATOR)
        elif kind is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            root = _root(node)
            if not (isinstance(root, ast.Name) and root.id in modules):
                found.add(node.attr)
            elif _applies_operators(node.attr):  # np.sum, operator.mul; np.exp and np.linalg.norm reach nothing
                found.update(EVERY_OPERATOR)
        elif kind is ast.BinOp or kind is ast.AugAssign:
            assert isinstance(node, ast.BinOp | ast.AugAssign)
            if isinstance(node, ast.BinOp) and _constant(node.left) and _constant(node.right):
                continue  # 2 ** 10: numbers
            op = BINARY.get(type(node.op))
            found.update(EVERY_OPERATOR if op is None else (f"__{op}__", f"__r{op}__", f"__i{op}__"))
        elif kind is ast.UnaryOp:
            assert isinstance(node, ast.UnaryOp)
            if not _constant(node.operand):  # -1: a number
                found.update(UNARY.get(type(node.op), ()))
        elif kind is ast.Subscript:
            found.update(SUBSCRIPT)
        elif kind is ast.Constant and isinstance(node.value, str) and node.value.isidentifier():  # type: ignore[attr-defined]
            found.add(node.value)  # type: ignore[attr-defined]  # getattr(x, "exp")
    if found & DYNAMIC:
        found.add(EVERYTHING)
    return found


def needed(target: Target) -> list[Target]:
    """The target and the targets it needs (catalog ``needs``), transitively."""
    catalog, out, todo = merged(), [target], list(target.needs)
    while todo:
        other = catalog.get(todo.pop())
        if other not in out:
            out.append(other)
            todo.extend(other.needs)
    return out


@lru_cache(maxsize=4)  # drill watch hashes each version once: as the new one, then as the one before
def fingerprints(source: str, targets: tuple[Target, ...]) -> Mapping[str, str] | None:
    """Each target's code in ``source``, hashed; None when the source does not parse."""
    analysed = analyse(source, targets)
    if analysed is None:
        return None
    rest, code, covered = analysed
    return {t: _hash(rest, *(f"{key}\0{code.get(key, 'absent')}" for key in keys)) for t, keys in covered.items()}


def analyse(source: str, targets: Sequence[Target]) -> tuple[str, dict[str, str], dict[str, list[str]]] | None:
    """The rest of ``source`` and each symbol's code, as AST dumps, and the symbols each target's
    code covers (a symbol of its own not written too); None when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    defs = find_functions(tree)
    symbols = {s for t in targets for s in t.symbols} & defs.keys()
    modules = imported_modules(tree)
    uses = {key: names_used(node.body, modules) for key, node in defs.items()}
    bodies = {key: node.body for key, node in defs.items()}
    for node in defs.values():  # what runs at import: the module, class bodies, every function's header
        node.body = []
    top = names_used([tree], modules)
    for key, node in defs.items():
        if key not in symbols:
            node.body = bodies[key]  # a helper of the user's: part of the rest
    rest = ast.dump(tree)
    for key in symbols:
        defs[key].body = bodies[key]
    code = {key: ast.dump(defs[key]) for key in symbols}

    by_name: dict[str, list[str]] = {}
    for key in defs:
        by_name.setdefault(key.rpartition(".")[2], []).append(key)
    for node in tree.body:  # a class's name constructs it
        if isinstance(node, ast.ClassDef):
            by_name.setdefault(node.name, []).extend(
                f"{node.name}.{m}" for m in ("__init__", "__new__", "__post_init__") if f"{node.name}.{m}" in defs
            )

    def step(names: set[str]) -> set[str]:
        if EVERYTHING in names:
            return set(defs)
        return {key for name in names for key in by_name.get(name, ())}

    implicit = {
        k for k in defs if (n := k.rpartition(".")[2]).startswith("__") and n.endswith("__") and n not in EXPLICIT
    }
    everyone = step(top) | implicit

    def reach(start: set[str]) -> set[str]:
        seen, todo = set(start), list(start)
        while todo:
            for key in step(uses.get(todo.pop(), set())) - seen:
                seen.add(key)
                todo.append(key)
        return seen

    covered = {}
    for target in targets:
        own = {s for t in needed(target) for s in (*t.symbols, *t.runs)} | set(ALWAYS)
        covered[target.id] = sorted(reach(own & defs.keys() | everyone) & symbols | own)
    return rest, code, covered


def _hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0\0")
    return digest.hexdigest()


LOCATION = re.compile(r"^[^:]*:(?P<line>\d+) in [^:]+: (?P<text>.*)$")
"""A line a failure names: ``engine.py:12 in Tensor.__mul__: out = ...`` (grader/check.py, Blame)."""


def reusable(verdict: TargetResult, lines: Sequence[str]) -> bool:
    """Whether a verdict on unchanged code holds for the file of ``lines``: not one on the file as a
    whole (it did not import, the check was stopped), nor one with tests not run; a failure only when
    each line it names is still there, with the same number."""
    if verdict.tests == 0 or verdict.not_run or any(f.symbol is None for f in verdict.failures):
        return False
    for failure in verdict.failures:
        for where in failure.location:
            named = LOCATION.match(where)
            if named is None:
                return False
            n = int(named["line"])
            if not 0 < n <= len(lines) or lines[n - 1].strip() != named["text"]:
                return False
    return True


def reused_verdicts(
    before: str, verdict: GradeResult | None, now: str, targets: Sequence[Target]
) -> dict[str, TargetResult]:
    """The verdicts of ``verdict`` (on the source ``before``) that hold for the source ``now``: those of
    the targets whose code did not change."""
    if verdict is None:
        return {}
    old = {t.target: t for t in verdict.targets}
    was, prints = fingerprints(before, tuple(targets)), fingerprints(now, tuple(targets))
    if was is None or prints is None:
        return {}
    lines = now.splitlines()
    return {
        t.id: old[t.id] for t in targets if t.id in old and was[t.id] == prints[t.id] and reusable(old[t.id], lines)
    }


def merge(fresh: GradeResult, reused: dict[str, TargetResult], targets: Sequence[Target]) -> GradeResult:
    """One verdict, in catalog order: the targets just graded, and those whose verdict was reused."""
    graded = {t.target: t for t in fresh.targets}
    merged = tuple(graded[t.id] if t.id in graded else reused[t.id] for t in targets)
    notes = fresh.notes
    if reused:
        kept = [t.id for t in targets if t.id in reused and t.id not in graded]
        if kept:
            notes += (f"not graded again, their code unchanged since the last grading: {', '.join(kept)}",)
    return GradeResult(fresh.file, merged, fresh.seconds, notes)
