"""Which statements a cloze blanks, chosen from the reference's syntax tree, never by hand per target.

A statement of a drilled function is *key* when it
- writes a gradient: an assignment into a ``.grad`` (``self.grad += ...``, ``node.grad = ...``);
- is marked as a trap: a ``# NOTE:`` comment is on one of its lines, or is the comment just above it
  (for a ``# NOTE:`` on the header of an ``if`` or a loop, the first statement of its body);
- is a gradient or tangent rule: it is in a ``_backward`` closure, it assigns a name that holds a
  gradient (``grad``, ``grad_self``, ``grad[i]``), or it reads a ``.tangent`` (forward mode);
- implements a follow-up drill's paragraph: for a drill whose tagged docstring paragraph names a
  parameter (``(free-memory drill) Unless ``retain_graph`` ...``), the statements under an ``if`` on it.

A function with none of these (``_topological_order``) gets the statements inside its loops; one
whose key statements are all of it keeps its first one given. Compound statements (``if``, ``for``,
``def``) are never blanked: their bodies are, so the shape of the code stays in view. A function whose
body is one statement gets its last call argument blanked instead (``Dual(np.log(x), <blank>)``).
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Collection, Mapping
from functools import lru_cache

from autograd_drill.grader.catalog import find_functions

NOTE = "NOTE:"
COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef, ast.Match)


def comments(source: str) -> list[tuple[int, str]]:
    """The comments of ``source`` (never text in a string): their 1-based line, and their text less the ``#``."""
    return list(_comments(source))


@lru_cache(maxsize=64)
def _comments(source: str) -> tuple[tuple[int, str], ...]:
    """``comments``, tokenized once per source (the reference is read for every rung time)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return tuple((t.start[0], t.string.lstrip("#").strip()) for t in tokens if t.type == tokenize.COMMENT)


@lru_cache(maxsize=64)
def functions_in(source: str) -> Mapping[str, ast.FunctionDef]:
    """The functions of ``source`` by symbol (``autograd_drill.grader.catalog.find_functions``), parsed once per source:
    the reference is parsed for every stub and every rung time. A SyntaxError if it does not parse.
    NOTE: the nodes are shared between callers: read them, never change them."""
    return find_functions(ast.parse(source))


def note_lines(source: str) -> set[int]:
    """The lines that hold a ``# NOTE:`` comment."""
    return {line for line, text in comments(source) if text.startswith(NOTE)}


def simple_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that are not compound, in source order, nested bodies included."""
    found: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, COMPOUND):
            for field in ("body", "orelse", "finalbody"):
                found.extend(simple_statements(getattr(stmt, field, [])))
            for handler in getattr(stmt, "handlers", []):
                found.extend(simple_statements(handler.body))
        else:
            found.append(stmt)
    return sorted(found, key=lambda s: (s.lineno, s.col_offset))


def has_docstring(node: ast.FunctionDef) -> bool:
    first = node.body[0]
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def body_of(node: ast.FunctionDef) -> list[ast.stmt]:
    """A function's statements less its docstring."""
    return node.body[1:] if has_docstring(node) else node.body


def _assigned(stmt: ast.stmt) -> list[ast.expr]:
    """What an assignment (``=`` or ``+=``) writes to, less its subscripts (``grad[i]``: ``grad``)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AugAssign) else []
    found = []
    for target in targets:
        while isinstance(target, ast.Subscript):
            target = target.value
        found.append(target)
    return found


def _writes_grad(stmt: ast.stmt) -> bool:
    return any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in _assigned(stmt))


def _names_a_gradient(stmt: ast.stmt) -> bool:
    return any(isinstance(t, ast.Name) and t.id.startswith("grad") and t.id != "grads" for t in _assigned(stmt))


def _reads_tangent(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "tangent" for n in ast.walk(stmt))


def _closure_statements(node: ast.FunctionDef) -> set[int]:
    """ids of the statements inside nested ``_backward`` closures."""
    return {
        id(s)
        for inner in ast.walk(node)
        if isinstance(inner, ast.FunctionDef) and inner is not node and inner.name == "_backward"
        for s in simple_statements(inner.body)
    }


def _governed(body: list[ast.stmt], names: set[str]) -> set[int]:
    """ids of the statements under an ``if`` whose test reads one of ``names``."""
    found: set[int] = set()
    for stmt in body:
        if not isinstance(stmt, COMPOUND):
            continue
        if isinstance(stmt, ast.If) and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(stmt.test)):
            found |= {id(s) for s in simple_statements([stmt])}
        else:
            for field in ("body", "orelse"):
                found |= _governed(getattr(stmt, field, []), names)
    return found


def _in_loops(body: list[ast.stmt]) -> set[int]:
    """ids of the statements inside a loop."""
    loops = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, (ast.For, ast.While))]
    return {id(s) for loop in loops for s in simple_statements(loop.body + loop.orelse)}


def key_statements(node: ast.FunctionDef, notes: set[int], parameters: Collection[str] = ()) -> list[ast.stmt]:
    """The statements of ``node`` that its cloze blanks: at least one, and never every one of them,
    but in a body of one statement: none when its cloze blanks an argument of it (``blanked_argument``),
    else that one.

    ``notes`` are the module's ``# NOTE:`` lines; ``parameters`` those the drill's own docstring
    paragraphs name (``drill_parameters``)."""
    statements = simple_statements(body_of(node))
    if len(statements) < 2:
        return [] if blanked_argument(node) is not None else statements
    closure = _closure_statements(node)
    governed = _governed(body_of(node), set(parameters))
    noted = set()
    for line in sorted(notes):
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            marked = next((s for s in statements if (s.end_lineno or s.lineno) >= line), None)
            if marked is not None:
                noted.add(id(marked))
    chosen = [
        s
        for s in statements
        if _writes_grad(s)
        or id(s) in noted
        or id(s) in closure
        or id(s) in governed
        or _names_a_gradient(s)
        or _reads_tangent(s)
    ]
    if not chosen:
        loops = _in_loops(body_of(node))
        chosen = [s for s in statements if id(s) in loops] or statements[-1:]
    if len(chosen) == len(statements):
        chosen = chosen[1:]
    return chosen


def blanked_argument(node: ast.FunctionDef) -> ast.expr | None:
    """For a body of one statement: the last argument of its outermost call (the tangent of
    ``return Dual(primal, tangent)``), which its cloze blanks; None otherwise."""
    statements = simple_statements(body_of(node))
    if len(statements) != 1:
        return None
    value = getattr(statements[0], "value", None)
    if isinstance(value, ast.Call) and value.args:
        return value.args[-1]
    return None
