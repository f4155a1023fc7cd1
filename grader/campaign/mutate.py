"""The mutants of the reference: each operator applied at each node of each catalog symbol, as a source file that differs from the reference in that node's text only."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autograd_drill.grader.campaign.operators import (
    Step,
    is_docstring,
    later_mutations,
    local_names,
    mutations,
    owners,
    returns_value,
    same_tree,
    walk_nodes,
)
from autograd_drill.grader.catalog import Catalog, find_functions, load_catalog
from autograd_drill.reference import ENGINE

REFERENCE = ENGINE


# ------------------------------------------------------------------------------ the mutator


@dataclass(frozen=True)
class Mutant:
    id: str
    """``symbol:line:column:operator``, the line counted from the symbol's first statement after its
    docstring (1): an edit elsewhere in the reference, or of the docstring, does not change it."""
    symbol: str
    """The catalog symbol whose body holds the mutated node: ``unbroadcast``, ``Tensor.__add__``."""
    targets: tuple[str, ...]
    """The targets that grade it (catalog order): it is killed if any of them fails."""
    line: int
    end_line: int
    """The lines of the reference the mutated node spans; the mutant's other lines are the reference's."""
    operator: str
    description: str
    """``line 33: grad.sum(axis=0) -> grad.sum(axis=1)``."""
    source: str


class _Source:
    """The reference's text, addressed by AST positions (whose columns count UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)


def _texts(source: _Source, node: ast.AST, new: ast.AST, how: str) -> list[str]:
    """Candidate replacement texts for ``node``'s span, as many lines as the original's."""
    assert node.end_lineno is not None
    extra = node.end_lineno - node.lineno
    if how == "keyword":
        start, end = source.span(node)
        header = source.text[start:end].split("\n", 1)
        assert header[0].startswith("while")
        return ["if" + source.text[start + len("while") : end]]
    text = ast.unparse(new)
    if how == "stmt":
        return [text + "\n" * extra] if "\n" not in text else []
    if "\n" in text:
        return []
    if extra:
        return [f"({text}{chr(10) * extra})"]
    return [text, f"({text})"]


def _set(tree: ast.AST, path: Sequence[Step], new: ast.AST) -> ast.AST:
    """Put ``new`` at ``path`` in ``tree``; returns what was there."""
    node = tree
    for name, index in path[:-1]:
        value = getattr(node, name)
        node = value[index] if index is not None else value
    name, index = path[-1]
    if index is None:
        old = getattr(node, name)
        setattr(node, name, new)
    else:
        old = getattr(node, name)[index]
        getattr(node, name)[index] = new
    return old


def _statements(parent: ast.AST, step: Step) -> int:
    """How many statements the block at ``step`` of ``parent`` holds, a docstring not counted."""
    block = getattr(parent, step[0])
    if not isinstance(block, list) or not all(isinstance(s, ast.stmt) for s in block):
        return 0
    docstring = isinstance(parent, ast.FunctionDef) and step[0] == "body" and bool(block) and is_docstring(block[0])
    return len(block) - docstring


def _describe(
    node: ast.AST, new: ast.AST, how: str, chain: tuple[ast.AST, ...], path: tuple[Step, ...], tree: ast.Module
) -> str:
    """``line N: before -> after``, with enough of the surrounding expression to read it."""
    if how == "keyword":
        assert isinstance(node, ast.While)
        return f"line {node.lineno}: while {ast.unparse(node.test)}: -> if {ast.unparse(node.test)}:"
    if how == "stmt":
        return f"line {node.lineno}: {_short(ast.unparse(node))} -> {_short(ast.unparse(new))}"
    # Climb to the widest enclosing expression that still reads on one short line.
    depth = len(path)
    shown = node
    while depth > 1:
        parent = chain[depth - 1]
        if not isinstance(parent, ast.expr | ast.keyword) or len(ast.unparse(parent)) > 70:
            break
        depth -= 1
        shown = parent
    before = ast.unparse(shown)
    old = _set(tree, path, new)
    try:
        after = ast.unparse(_get(tree, path[:depth]))
    finally:
        _set(tree, path, old)
    return f"line {node.lineno}: {_short(before)} -> {_short(after)}"


def _get(tree: ast.AST, path: Sequence[Step]) -> ast.AST:
    node = tree
    for name, index in path:
        value = getattr(node, name)
        node = value[index] if index is not None else value
    return node


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def generate(reference: Path = REFERENCE, catalog: Catalog | None = None, text: str | None = None) -> list[Mutant]:
    """Every mutant of the catalog symbols of ``reference`` (whose ``text`` may be given), in
    source order; ids are unique."""
    catalog = catalog or load_catalog()
    text = reference.read_text(encoding="utf-8") if text is None else text
    tree = ast.parse(text)
    source = _Source(text)
    functions = find_functions(tree)
    owned = owners(catalog)
    missing = sorted(set(owned) - set(functions))
    if missing:
        raise KeyError(f"not functions of {reference}: {', '.join(missing)}")
    seen = {text}
    mutants: list[Mutant] = []
    for symbol in sorted(owned, key=lambda s: (functions[s].lineno, s)):
        function = functions[symbol]
        code = function.body[1] if is_docstring(function.body[0]) and len(function.body) > 1 else function.body[0]
        root, chain0 = _locate(tree, function)
        names = local_names(function)
        nodes = list(walk_nodes(function, root, chain0))
        # The first pass: the original operators; the second: the later ones (operators.py), so
        # that a later mutant equal to an older one is the one left out and no older id moves.
        passes = [
            ((node, path, chain, mutations(node, chain[-1], path[-1], _statements(chain[-1], path[-1]))))
            for node, path, chain in nodes
        ] + [(node, path, chain, later_mutations(node, chain[-1], path[-1], names)) for node, path, chain in nodes]
        for node, path, chain, found in passes:
            for operator, new, how, after in found:
                if not any(new is child for child in ast.walk(node)):  # a new node: give it the old one's place
                    ast.copy_location(new, node)
                mutated = _rewrite(source, tree, function, node, path, new, how)
                if mutated is None or mutated in seen:
                    continue
                seen.add(mutated)
                line, col = _operator_at(source, after, node) if after is not None else (node.lineno, node.col_offset)
                assert node.end_lineno is not None
                mutants.append(
                    Mutant(
                        id=f"{symbol}:{line - code.lineno + 1}:{col}:{operator}",
                        symbol=symbol,
                        targets=owned[symbol],
                        line=node.lineno,
                        end_line=node.end_lineno,
                        operator=operator,
                        description=_describe(node, new, how, chain, path, tree),
                        source=mutated,
                    )
                )
        for mutant in _returns(source, tree, function, symbol, owned[symbol], code, root):
            if mutant.source not in seen:
                seen.add(mutant.source)
                mutants.append(mutant)
    ids = [m.id for m in mutants]
    assert len(set(ids)) == len(ids), "mutant ids must be unique"
    return mutants


def _locate(tree: ast.Module, function: ast.FunctionDef) -> tuple[tuple[Step, ...], tuple[ast.AST, ...]]:
    """The path from the module to ``function`` (a module function or a method), and its ancestors."""
    for i, node in enumerate(tree.body):
        if node is function:
            return (("body", i),), (tree,)
        if isinstance(node, ast.ClassDef):
            for j, item in enumerate(node.body):
                if item is function:
                    return (("body", i), ("body", j)), (tree, node)
    raise LookupError(function.name)


def _rewrite(
    source: _Source,
    tree: ast.Module,
    function: ast.FunctionDef,
    node: ast.AST,
    path: tuple[Step, ...],
    new: ast.AST,
    how: str,
) -> str | None:
    """The reference with ``node``'s text replaced so that ``function`` parses to exactly the
    mutated tree, its lines where they were; None if no text does."""
    start, end = source.span(node)
    candidates = _texts(source, node, new, how)
    old = _set(tree, path, new)
    try:
        return _replaced(source, function, start, end, candidates)
    finally:
        _set(tree, path, old)


def _replaced(
    source: _Source, function: ast.FunctionDef, start: int, end: int, candidates: Sequence[str]
) -> str | None:
    """The reference with its text from ``start`` to ``end`` replaced by the first of ``candidates``
    with which ``function`` parses to the tree ``function`` now is (mutated in place by the caller),
    its lines where they were."""
    assert function.end_lineno is not None
    first, last = function.lineno - 1, function.end_lineno
    for candidate in candidates:
        attempt = source.text[:start] + candidate + source.text[end:]
        lines = attempt.splitlines(keepends=True)
        if len(lines) != len(source.lines):
            continue
        # A method is indented: parse it inside an `if` (dedenting would change its docstring).
        body = ("if 1:\n" if function.col_offset else "") + "".join(lines[first:last])
        try:
            parsed = ast.parse(body).body
            if function.col_offset and isinstance(parsed[0], ast.If):
                parsed = parsed[0].body
        except SyntaxError:
            continue
        if len(parsed) == 1 and same_tree(parsed[0], function):
            return attempt
    return None


COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef)
BLOCKS = ("body", "orelse", "finalbody")
ENDS_BLOCK = (ast.Return, ast.Raise, ast.Continue, ast.Break)

Block = tuple[ast.AST, str, list[ast.stmt]]
"""A statement list: its owner (a function, an ``if``, a loop), the owner's field and the statements."""


def _blocks(
    node: ast.AST, function: ast.FunctionDef, outer: tuple[tuple[Block, int], ...]
) -> list[tuple[Block, ast.FunctionDef, tuple[tuple[Block, int], ...]]]:
    """Every statement list under ``node`` (``node``'s own included), with the function it belongs
    to and the enclosing lists, each with the index of the statement that holds it (nearest last)."""
    found = []
    for field in BLOCKS:
        block = getattr(node, field, None)
        if not isinstance(block, list) or not block or not all(isinstance(s, ast.stmt) for s in block):
            continue
        here: Block = (node, field, block)
        found.append((here, function, outer))
        for i, stmt in enumerate(block):
            if isinstance(stmt, ast.FunctionDef):
                found += _blocks(stmt, stmt, ())
            elif isinstance(stmt, COMPOUND):
                found += _blocks(stmt, function, (*outer, (here, i)))
    return found


def _falls_off(owner: ast.AST, outer: tuple[tuple[Block, int], ...]) -> bool:
    """Whether the end of a block of ``owner`` is also the end of its function (a bare ``return``
    there changes nothing): no loop around it, nothing after it up to the function's end."""
    if isinstance(owner, ast.FunctionDef):
        return True
    if isinstance(owner, ast.For | ast.While):
        return False
    if not outer:
        return True
    (parent, _, block), index = outer[-1]
    return index == len(block) - 1 and _falls_off(parent, outer[:-1])


def _assigned(stmt: ast.stmt) -> str | None:
    """The name a simple assignment binds (the first of a tuple's)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AugAssign) else []
    for target in targets:
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]
        if isinstance(target, ast.Name):
            return target.id
    return None


def _last_assigned(block: list[ast.stmt], k: int, outer: tuple[tuple[Block, int], ...]) -> str | None:
    """The name bound last before the statement at ``k`` of ``block``, in it or in the blocks around it."""
    for stmt in reversed(block[:k]):
        name = _assigned(stmt)
        if name is not None:
            return name
    if outer:
        (_, _, parent), index = outer[-1]
        return _last_assigned(parent, index, outer[:-1])
    return None


def _returns(
    source: _Source,
    tree: ast.Module,
    function: ast.FunctionDef,
    symbol: str,
    targets: tuple[str, ...],
    code: ast.stmt,
    root: tuple[Step, ...],
) -> list[Mutant]:
    """A ``return`` inserted before a statement of any block of ``function`` (its closures included)
    or at the end of a block that does not end the function: a bare one, and where the function
    returns a value, a fast path returning its first parameter or the value bound last. The
    ``return`` shares a line with the statement after it (``return; x = ...``), or with the one
    before it when the statement after it is compound."""
    found: list[Mutant] = []
    for (owner, _field, block), inner, outer in _blocks(function, function, ()):
        start = 1 if owner is function and is_docstring(block[0]) else 0
        params = [a.arg for a in (*inner.args.posonlyargs, *inner.args.args)]
        for k in range(start, len(block) + 1):
            at_end = k == len(block)
            if at_end and (isinstance(block[-1], ENDS_BLOCK) or _falls_off(owner, outer)):
                continue
            values: list[str | None] = [None]
            if returns_value(inner) and not at_end:
                values += [v for v in (params[:1] + [_last_assigned(block, k, outer)]) if v is not None]
            if not at_end and isinstance(block[k], ast.Return):
                continue  # a return before a return only replaces it: drop-call and drop-arg do that
            if not at_end and not isinstance(block[k], COMPOUND):
                anchor, before = block[k], True
            elif k > start and not isinstance(block[k - 1], COMPOUND):
                anchor, before = block[k - 1], False
            else:
                continue
            where = block[-1] if at_end else block[k]
            a, b = source.span(anchor)
            text = source.text[a:b]
            for value in dict.fromkeys(values):
                ret = "return" if value is None else f"return {value}"
                new = ast.Return(value=None if value is None else ast.Name(id=value, ctx=ast.Load()))
                candidate = f"{ret}; {text}" if before else f"{text}; {ret}"
                block.insert(k, new)
                try:
                    mutated = _replaced(source, function, a, b, [candidate])
                finally:
                    del block[k]
                if mutated is None:
                    continue
                operator = ("append-return" if at_end else "insert-return") + ("" if value is None else f"-{value}")
                shown = _short(ast.unparse(anchor), 60)
                assert anchor.end_lineno is not None
                found.append(
                    Mutant(
                        id=f"{symbol}:{where.lineno - code.lineno + 1}:{where.col_offset}:{operator}",
                        symbol=symbol,
                        targets=targets,
                        line=anchor.lineno,
                        end_line=anchor.end_lineno,
                        operator=operator,
                        description=f"line {anchor.lineno}: {shown} -> {ret + '; ' + shown if before else shown + '; ' + ret}",
                        source=mutated,
                    )
                )
    return found


def _operator_at(source: _Source, left: ast.AST, node: ast.AST) -> tuple[int, int]:
    """Line and column of the operator token that follows ``left`` (a BinOp's or a comparison's)."""
    _, offset = source.span(left)
    while source.text[offset] in " \t\n\\()":
        offset += 1
    line = bisect.bisect_right(source.starts, offset)
    return line, offset - source.starts[line - 1]


def select(mutants: Sequence[Mutant], targets: Sequence[str], limit: int | None) -> list[Mutant]:
    """The mutants graded at any of ``targets`` (all if none), the first ``limit`` of each target."""
    chosen: list[Mutant] = []
    count: dict[str, int] = {}
    for mutant in mutants:
        mine = [t for t in mutant.targets if not targets or t in targets]
        if not mine:
            continue
        if limit is not None and all(count.get(t, 0) >= limit for t in mine):
            continue
        for t in mine:
            count[t] = count.get(t, 0) + 1
        chosen.append(mutant)
    return chosen
