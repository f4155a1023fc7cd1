"""Mutation campaign: does the grader catch the bugs nobody listed?

tests/mutants.py lists classic bugs by hand. This script makes the bugs nobody thought of: it
mutates ``reference/engine.py`` one AST node at a time, inside the functions each catalog target
blanks (nested closures included), grades every mutant at the target that owns the mutated
function, and writes ``grader/campaign-report.md``: per target, how many mutants were killed (the
target fails), how many survived (it passes: the grader misses a real bug) and how many are
equivalent (they compute the same thing on every input the contract admits, so no test can kill
them: ``grader/campaign.toml`` lists them, one line of reasoning each). The goal: at least 95 % of
the non-equivalent mutants killed, for every target.

Why a small AST mutator of our own rather than mutmut 3 or cosmic-ray: both mutate a package that
a test runner imports and run that runner once per mutant (a fresh interpreter, pytest's start-up
and the torch oracle each time), they mutate whole modules rather than one catalog target's
functions, and they do not know that a mutant of ``Tensor.backward`` is graded at three targets.
Here each mutant is a file graded like a user's solution, by ``grader.run.grade`` through a
warm fork runner (drills.loop.worker, with torch imported before it forks: 0.1-1.5 s a grading), so the
whole campaign runs in minutes on two cores.

The operators, each a single change at one AST node (the docstring, comments, annotations and
f-string messages are never mutated):

- arithmetic: ``+ <-> -``, ``* <-> /``, ``** -> *``, ``@ -> *``, ``// -> *``, ``a % n -> a``;
  augmented assignments ``+= -> =`` and ``+= -> -=``;
- comparisons: ``> <-> >=``, ``< <-> <=``, ``== <-> !=``, ``is <-> is not``, ``in <-> not in``;
  ``and <-> or``; a unary ``-`` or ``not`` dropped;
- constants: ``0 -> 1``, ``1 -> 0`` and ``2``, ``n -> n+1``, ``-1 -> 1`` and ``0``, ``-n -> n`` and
  ``-n+1`` (floats alike: ``0.0 -> 1.0``); ``True <-> False``;
- keywords: ``axis=X -> axis=0`` and ``axis=None``; ``keepdims=X -> True`` and ``False``;
- calls: two adjacent positional arguments swapped; ``return f(a, b)`` with one argument dropped,
  ``return x.f(...) -> return x`` and ``return f(x) -> return x``;
- statements: an expression, assignment or augmented assignment replaced by ``pass`` (anywhere but
  as the only statement of a function); ``while -> if``.

A mutant's source is the reference with only the mutated node's text replaced (line numbers, in
messages, stay the reference's), and the symbol must parse to exactly the intended tree; a mutant
whose text equals another's, or the reference's, is left out. Each grading has 2 s a test; a
mutant killed only by that clock is graded again at the default limits (5 s a test), so a loaded
machine cannot pass for a hang. An id is ``symbol:line:column:operator``, the line counted from the
symbol's first statement after its docstring: editing a docstring, or another function, moves no
id of grader/campaign.toml.

    python -m grader.campaign                     # every target; writes grader/campaign-report.md
    python -m grader.campaign --target unbroadcast --limit 20
    python -m grader.campaign --list              # the mutants, without grading
    python -m grader.campaign --check             # exit 1 if a target is below the goal
"""

from __future__ import annotations

import argparse
import ast
import bisect
import datetime as dt
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from drills.loop.stubs import find_functions
from grader.catalog import Catalog, UnknownTarget, load_catalog
from grader.process import GRADER, Runner, grading_env, run_in_subprocess
from grader.run import Limits, grade_file
from grader.verdict import GradeError, TargetResult
from reference import ENGINE

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ENGINE
EQUIVALENTS = Path(__file__).with_name("campaign.toml")
REPORT = Path(__file__).with_name("campaign-report.md")
GOAL = 0.95
"""The share of non-equivalent mutants each target must kill."""
LIMITS = Limits(test_seconds=2.0, check_seconds=60.0, memory_mb=4096)
"""A mutant that loops forever dies in 2 s a test (and then its target's other tests are not run)."""


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


Step = tuple[str, int | None]
"""A field of an AST node, and the index in it when the field is a list."""

ARITH: dict[type[ast.operator], tuple[type[ast.operator], ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Div,),
    ast.Div: (ast.Mult,),
    ast.Pow: (ast.Mult,),
    ast.MatMult: (ast.Mult,),
    ast.FloorDiv: (ast.Mult,),
}
COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
SKIPPED_FIELDS = {"annotation", "returns", "decorator_list", "type_comment", "type_params"}
"""Annotations and decorators say nothing the grader could test."""
DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)


def owners(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Each catalog symbol and the targets that blank it, in catalog order (``Tensor.backward``:
    backward, cotangent and free-memory)."""
    found: dict[str, list[str]] = {}
    for target in catalog.every:
        for symbol in target.symbols:
            found.setdefault(symbol, []).append(target.id)
    return {symbol: tuple(ids) for symbol, ids in found.items()}


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _children(node: ast.AST) -> Iterator[tuple[Step, ast.AST]]:
    for name, value in ast.iter_fields(node):
        if name in SKIPPED_FIELDS or (name == "args" and isinstance(node, ast.FunctionDef | ast.Lambda)):
            continue
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield (name, i), item
        elif isinstance(value, ast.AST):
            yield (name, None), value


def _walk(
    node: ast.AST, path: tuple[Step, ...], chain: tuple[ast.AST, ...]
) -> Iterator[tuple[ast.AST, tuple[Step, ...], tuple[ast.AST, ...]]]:
    """The nodes under ``node`` in source order with their path from the module and their ancestors
    (nearest last); f-strings (messages) and the operand of a negative number are not entered."""
    for step, child in _children(node):
        if (
            isinstance(node, ast.FunctionDef)
            and step == ("body", 0)
            and isinstance(child, ast.stmt)
            and _is_docstring(child)
        ):
            continue
        if isinstance(child, ast.JoinedStr):
            continue
        yield child, (*path, step), (*chain, node)
        if _negative_number(child) is not None:
            continue
        yield from _walk(child, (*path, step), (*chain, node))


def _number(node: ast.AST) -> int | float | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return _negative_number(node)


def _negative_number(node: ast.AST) -> int | float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            return -operand.value
    return None


def _literal(value: int | float) -> ast.expr:
    if value < 0:
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
    return ast.Constant(value=value)


def _numbers(value: int | float) -> list[int | float]:
    kind = type(value)
    if value == 0:
        return [kind(1)]
    if value == 1:
        return [kind(0), kind(2)]
    if value == -1:
        return [kind(1), kind(0)]
    return [-value, value + 1] if value < 0 else [value + 1]


def _fmt(value: object) -> str:
    return repr(value)


Mutation = tuple[str, ast.AST, str, ast.AST | None]
"""An operator's name, the node that replaces the original, how its text is written (``expr``;
``stmt``, a simple statement padded to the original's lines; ``keyword``, ``while`` -> ``if``), and
for an operator token (arithmetic, comparison), the operand it follows: the mutant's id gives the
token's column, as nested operations can start at the same column."""


def mutations(node: ast.AST, parent: ast.AST, step: Step, siblings: int) -> list[Mutation]:
    """The single-node changes of ``node`` (at ``step`` of ``parent``; ``siblings``: the statements
    of its block, a docstring not counted), in a fixed order. A statement is dropped anywhere but
    as the only statement of a function (which would leave nothing of it)."""
    found: list[Mutation] = []
    number = _number(node)
    if number is not None:
        for new in _numbers(number):
            found.append((f"{_fmt(number)}->{_fmt(new)}", _literal(new), "expr", None))
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        found.append((f"{node.value}->{not node.value}", ast.Constant(value=not node.value), "expr", None))
    elif isinstance(node, ast.BinOp):
        for new_op in ARITH.get(type(node.op), ()):
            new = ast.BinOp(left=node.left, op=new_op(), right=node.right)
            found.append((f"{type(node.op).__name__}->{new_op.__name__}", new, "expr", node.left))
        if isinstance(node.op, ast.Mod):
            found.append(("Mod-dropped", node.left, "expr", node.left))
    elif isinstance(node, ast.BoolOp):
        swapped = ast.Or if isinstance(node.op, ast.And) else ast.And
        found.append(
            (
                f"{type(node.op).__name__}->{swapped.__name__}",
                ast.BoolOp(op=swapped(), values=node.values),
                "expr",
                node.values[0],
            )
        )
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Not):
        found.append((f"{type(node.op).__name__}-dropped", node.operand, "expr", None))
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE:
                ops = list(node.ops)
                ops[i] = COMPARE[type(op)]()
                new = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
                after = node.left if i == 0 else node.comparators[i - 1]
                found.append((f"{type(op).__name__}->{type(ops[i]).__name__}", new, "expr", after))
    if isinstance(parent, ast.keyword) and isinstance(node, ast.expr):
        if parent.arg == "keepdims" and not (isinstance(node, ast.Constant) and isinstance(node.value, bool)):
            found.append(("keepdims->True", ast.Constant(value=True), "expr", None))
            found.append(("keepdims->False", ast.Constant(value=False), "expr", None))
        elif parent.arg == "axis":
            found.append(("axis->0", ast.Constant(value=0), "expr", None))
            found.append(("axis->None", ast.Constant(value=None), "expr", None))
    if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
        for i in range(len(node.args) - 1):
            if ast.dump(node.args[i]) != ast.dump(node.args[i + 1]):
                args = list(node.args)
                args[i], args[i + 1] = args[i + 1], args[i]
                new = ast.Call(func=node.func, args=args, keywords=node.keywords)
                found.append((f"swap-args-{i}-{i + 1}", new, "expr", None))
    if isinstance(node, ast.AugAssign):
        found.append(
            (f"Aug{type(node.op).__name__}->Assign", ast.Assign(targets=[node.target], value=node.value), "stmt", None)
        )
        for new_op in ARITH.get(type(node.op), ()):
            new = ast.AugAssign(target=node.target, op=new_op(), value=node.value)
            found.append((f"Aug{type(node.op).__name__}->Aug{new_op.__name__}", new, "stmt", None))
    if (
        isinstance(node, DROPPABLE)
        and step[0] in ("body", "orelse", "finalbody")
        and (siblings >= 2 or not isinstance(parent, ast.FunctionDef))
    ):
        found.append(("drop", ast.Pass(), "stmt", None))
    if isinstance(node, ast.While):
        found.append(("while->if", ast.If(test=node.test, body=node.body, orelse=node.orelse), "keyword", None))
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
        call = node.value
        if isinstance(call.func, ast.Attribute):  # return x.reshape(shape) -> return x
            found.append(("drop-call", ast.Return(value=call.func.value), "stmt", None))
        elif len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred):
            found.append(("drop-call", ast.Return(value=call.args[0]), "stmt", None))
        if len(call.args) + len(call.keywords) >= 2 and not any(isinstance(a, ast.Starred) for a in call.args):
            for i in range(len(call.args)):
                new_call = ast.Call(func=call.func, args=call.args[:i] + call.args[i + 1 :], keywords=call.keywords)
                found.append((f"drop-arg-{i}", ast.Return(value=new_call), "stmt", None))
            for i, kw in enumerate(call.keywords):
                new_call = ast.Call(func=call.func, args=call.args, keywords=call.keywords[:i] + call.keywords[i + 1 :])
                found.append((f"drop-kw-{kw.arg}", ast.Return(value=new_call), "stmt", None))
    return found


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
    docstring = isinstance(parent, ast.FunctionDef) and step[0] == "body" and bool(block) and _is_docstring(block[0])
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
        code = function.body[1] if _is_docstring(function.body[0]) and len(function.body) > 1 else function.body[0]
        root, chain0 = _locate(tree, function)
        for node, path, chain in _walk(function, root, chain0):
            parent, step = chain[-1], path[-1]
            for operator, new, how, after in mutations(node, parent, step, _statements(parent, step)):
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
    old = _set(tree, path, new)
    try:
        wanted = ast.dump(function)
    finally:
        _set(tree, path, old)
    start, end = source.span(node)
    assert function.end_lineno is not None
    first, last = function.lineno - 1, function.end_lineno
    for candidate in _texts(source, node, new, how):
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
        if len(parsed) == 1 and ast.dump(parsed[0]) == wanted:
            return attempt
    return None


def _operator_at(source: _Source, left: ast.AST, node: ast.AST) -> tuple[int, int]:
    """Line and column of the operator token that follows ``left`` (a BinOp's or a comparison's)."""
    _, offset = source.span(left)
    while source.text[offset] in " \t\n\\()":
        offset += 1
    line = bisect.bisect_right(source.starts, offset)
    return line, offset - source.starts[line - 1]


# ------------------------------------------------------------------------------ grading


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    killed_by: tuple[str, ...]
    """The targets that failed (empty: the mutant survived)."""
    first_failure: str = ""
    """The first line of the first failure message of the first target that failed."""
    seconds: float = 0.0
    timed_out: bool = False
    """Killed only by a time limit, at the default limits too."""

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)


WORKER = (
    "import sys\n"
    "try:\n"
    "    import torch  # noqa: F401\n"
    "except ImportError:\n"
    "    pass\n"
    "from drills.loop.worker import serve\n"
    "serve(sys.stdin, sys.stdout)\n"
)
"""drills.loop.worker with torch imported before it forks: a test the recording does not answer asks live
torch, and importing it in every grading (1-2 s) would eat the 2 s a test may take."""


def _runner() -> tuple[Runner, Callable[[], None]]:
    """The warm fork runner where there is one (Linux), else a fresh interpreter per grading."""
    if sys.platform.startswith("linux") and hasattr(os, "fork"):
        from drills.loop.worker import WarmRunner

        class TorchWarmRunner(WarmRunner):
            def start(self) -> None:
                self.proc = subprocess.Popen(
                    [sys.executable, "-c", WORKER],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    cwd=GRADER.parent,
                    env=grading_env(),
                    text=True,
                    start_new_session=True,
                )
                assert self.proc.stdout is not None
                if not self.proc.stdout.readline():
                    raise RuntimeError("the grading worker did not start")

        warm = TorchWarmRunner()
        try:
            warm.start()
        except (OSError, RuntimeError) as exc:
            print(f"campaign: no warm worker ({exc}); a fresh interpreter per grading", file=sys.stderr)
        else:
            return warm, warm.close
    return run_in_subprocess, lambda: None


def grade_mutant(mutant: Mutant, runner: Runner, catalog: Catalog, workdir: Path) -> Outcome:
    """Grade ``mutant`` at each of its targets (one grading); killed if any of them fails. Each
    mutant is written to a fresh directory, so no bytecode cache can stand in for it."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / "engine.py"
        path.write_text(mutant.source, encoding="utf-8")
        targets = [catalog.get(t) for t in mutant.targets]
        try:
            result = grade_file(path, targets, label=mutant.id, runner=runner, limits=LIMITS)
            if any(_timed_out(result.get(t.id)) for t in targets):
                # Killed by the clock alone: make sure it is the mutant that hangs, not a loaded machine.
                result = grade_file(path, targets, label=mutant.id, runner=runner, limits=Limits())
        except GradeError as exc:  # no verdict at all: the user would be told the file cannot be graded
            return Outcome(mutant, mutant.targets, f"no verdict: {exc}", time.perf_counter() - start)
    killed_by = tuple(t.id for t in targets if not result.get(t.id).passed)
    first = ""
    if killed_by:
        verdict = result.get(killed_by[0])
        first = verdict.failures[0].headline if verdict.failures else verdict.not_run_line or "failed"
    timed_out = bool(killed_by) and all(_timed_out(result.get(t)) for t in killed_by)
    return Outcome(mutant, killed_by, first, time.perf_counter() - start, timed_out)


def _timed_out(result: TargetResult) -> bool:
    """Failed only because a test ran past its time limit (and the others were then not run)."""
    stopped = [m for m in result.messages if "took longer than" in m or "ran past its time limit" in m]
    return not result.passed and len(stopped) == len(result.messages)


def run(
    mutants: Sequence[Mutant],
    catalog: Catalog,
    jobs: int = 2,
    progress: Callable[[int, int, Outcome], None] | None = None,
) -> list[Outcome]:
    """Grade every mutant, ``jobs`` at a time (one warm worker per thread); outcomes in ``mutants``' order."""
    local = threading.local()
    closers: list[Callable[[], None]] = []
    lock = threading.Lock()

    def work(mutant: Mutant, workdir: Path) -> Outcome:
        if not hasattr(local, "runner"):
            local.runner, close = _runner()
            with lock:
                closers.append(close)
        return grade_mutant(mutant, local.runner, catalog, workdir)

    outcomes: dict[str, Outcome] = {}
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # inherited by the workers: no stale bytecode
    try:
        with tempfile.TemporaryDirectory(prefix="drill-campaign-") as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
            pending: set[Future[Outcome]] = {pool.submit(work, m, Path(tmp)) for m in mutants}
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        outcome = future.result()
                        outcomes[outcome.mutant.id] = outcome
                        if progress is not None:
                            progress(len(outcomes), len(mutants), outcome)
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    finally:
        for close in closers:
            close()
    return [outcomes[m.id] for m in mutants]


# ------------------------------------------------------------------------------ equivalents and report


@dataclass(frozen=True)
class Equivalent:
    id: str
    why: str
    change: str = ""
    """The change the id named when it was listed (the description less its line number): if the
    symbol's code is edited, the same id may come to name another change, and the listing is stale."""


def change_of(mutant: Mutant) -> str:
    """``grad.sum(axis=0) -> grad.sum(axis=1)``: the description without its line number."""
    return mutant.description.split(": ", 1)[1]


def split_stale(equivalents: Sequence[Equivalent], mutants: Sequence[Mutant]) -> tuple[list[Equivalent], list[str]]:
    """The listed equivalents that still name the change they were listed for, and why each other one is stale."""
    by_id = {m.id: m for m in mutants}
    current: list[Equivalent] = []
    stale: list[str] = []
    for e in equivalents:
        mutant = by_id.get(e.id)
        if mutant is None:
            stale.append(f"`{e.id}` is listed as equivalent but is no longer generated (stale)")
        elif e.change and e.change != change_of(mutant):
            stale.append(f"`{e.id}` was listed for `{e.change}` but now names `{change_of(mutant)}` (stale)")
        else:
            current.append(e)
    return current, stale


def load_equivalents(path: Path = EQUIVALENTS) -> list[Equivalent]:
    if not path.exists():
        return []
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    found = [
        Equivalent(id=str(e["id"]), why=str(e["why"]), change=str(e.get("change", "")))
        for e in raw.get("equivalent", [])
    ]
    ids = [e.id for e in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"{path.name} lists these ids twice: {', '.join(duplicates)}")
    return found


@dataclass
class Tally:
    target: str
    mutants: int = 0
    killed: int = 0
    survived: list[Outcome] = field(default_factory=list)
    equivalent: list[tuple[Outcome, Equivalent]] = field(default_factory=list)
    listed_but_killed: list[tuple[Outcome, Equivalent]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        graded = self.killed + len(self.survived)
        return self.killed / graded if graded else 1.0

    @property
    def meets_goal(self) -> bool:
        return self.rate >= GOAL


def tally(outcomes: Sequence[Outcome], equivalents: Sequence[Equivalent], catalog: Catalog) -> list[Tally]:
    """Per target (catalog order), its mutants' fate. A mutant of a symbol several targets share
    (``Tensor.backward``) counts for each of them, killed if any of them kills it."""
    why = {e.id: e for e in equivalents}
    tallies = {t.id: Tally(t.id) for t in catalog.every}
    for outcome in outcomes:
        listed = why.get(outcome.mutant.id)
        for target in outcome.mutant.targets:
            row = tallies[target]
            row.mutants += 1
            if outcome.killed:
                row.killed += 1
                if listed is not None:
                    row.listed_but_killed.append((outcome, listed))
            elif listed is not None:
                row.equivalent.append((outcome, listed))
            else:
                row.survived.append(outcome)
    return [row for row in tallies.values() if row.mutants]


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def blob(text: str) -> str:
    """Git's id of a file with this text (``git hash-object``), short."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()[:10]


def _versions(reference_text: str | None) -> str:
    """The commit, the reference that was mutated, and whether it or the grader differ from the commit."""
    head = _git("rev-parse", "--short", "HEAD").strip()
    if not head:
        return "not a git checkout"
    text = f"commit {head}"
    if reference_text is not None:
        text += f"; reference/engine.py as blob {blob(reference_text)}"
    changed = _git("status", "--porcelain", "--", "reference/engine.py", "grader", ":!grader/campaign*")
    dirty = sorted({line[3:] for line in changed.splitlines() if line.strip()})
    if dirty:
        grader = [p for p in dirty if p.startswith("grader/")]
        parts = (["reference/engine.py"] if "reference/engine.py" in dirty else []) + (
            [f"{len(grader)} file{'s' if len(grader) != 1 else ''} of grader/"] if grader else []
        )
        text += f", with uncommitted changes to {' and '.join(parts)}"
    return text


def report(
    outcomes: Sequence[Outcome],
    equivalents: Sequence[Equivalent],
    catalog: Catalog,
    command: str,
    seconds: float,
    stale: Sequence[str] = (),
    reference_text: str | None = None,
) -> str:
    rows = tally(outcomes, equivalents, catalog)
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# Mutation campaign",
        "",
        f"Generated by `{command}` on {now} in {seconds / 60:.1f} min ({len(outcomes)} mutants); {_versions(reference_text)}.",
        "",
        "Each mutant is `reference/engine.py` with one change inside a function a catalog target blanks,",
        "graded at that target (grader/campaign.py says which changes). *Killed*: the target fails;",
        "*survived*: it passes, so the grader misses that bug; *equivalent*: no input the contract admits",
        "tells it from the reference (grader/campaign.toml argues each). A `Tensor.backward` mutant is",
        "graded at backward, cotangent and free-memory, and counts as killed in each row if any kills it.",
        f"Goal: {GOAL:.0%} of the non-equivalent mutants killed, for every target.",
        "",
        "| target | mutants | killed | survived | equivalent | kill rate | goal |",
        "|---|---:|---:|---:|---:|---:|:---:|",
    ]
    for row in rows:
        mark = "yes" if row.meets_goal else "**no**"
        out.append(
            f"| {row.target} | {row.mutants} | {row.killed} | {len(row.survived)} | {len(row.equivalent)} "
            f"| {row.rate:.1%} | {mark} |"
        )
    clock = sum(o.timed_out for o in outcomes)
    if clock:
        out += [
            "",
            f"{clock} of the killed mutants failed only by running past a time limit (a loop that never ends):"
            " each was graded again at the default limits, 5 s a test, with the same verdict.",
        ]
    shared = [o for o in outcomes if len(o.mutant.targets) > 1]
    if shared:
        out += ["", "Mutants of a shared symbol, by the targets that kill them:", ""]
        kinds: dict[tuple[str, ...], int] = {}
        for outcome in shared:
            kinds[outcome.killed_by] = kinds.get(outcome.killed_by, 0) + 1
        for killers, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
            who = ", ".join(killers) if killers else "none (survived or equivalent)"
            out.append(f"- {who}: {count}")
    survivors = [(row.target, o) for row in rows for o in row.survived if o.mutant.targets[0] == row.target]
    out += ["", f"## Survivors ({len(survivors)})", ""]
    if not survivors:
        out.append("None.")
    for target, group in _grouped(survivors):
        out += [f"### {target}", ""]
        out += [f"- `{o.mutant.id}`: {o.mutant.description}" for o in group]
        out.append("")
    equivalent = [
        (row.target, pair) for row in rows for pair in row.equivalent if pair[0].mutant.targets[0] == row.target
    ]
    out += ["", f"## Equivalent ({len(equivalent)})", ""]
    if not equivalent:
        out.append("None listed.")
    for target, group in _grouped(equivalent):
        out += [f"### {target}", ""]
        out += [f"- `{o.mutant.id}`: {o.mutant.description}. *{e.why}*" for o, e in group]
        out.append("")
    wrong = [(o, e) for row in rows for o, e in row.listed_but_killed if o.mutant.targets[0] == row.target]
    if wrong or stale:
        out += ["", "## grader/campaign.toml to update", ""]
        out += [f"- `{o.mutant.id}` is listed as equivalent but was killed: {o.first_failure}" for o, _ in wrong]
        out += [f"- {line}" for line in stale]
    text = "\n".join(out).rstrip() + "\n"
    return text.replace("\n\n\n", "\n\n")


T = TypeVar("T")


def _grouped(items: Sequence[tuple[str, T]]) -> Iterator[tuple[str, list[T]]]:
    groups: dict[str, list[T]] = {}
    for key, item in items:
        groups.setdefault(key, []).append(item)
    yield from groups.items()


# ------------------------------------------------------------------------------ command line


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.campaign", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="ID",
        help="only this target (repeatable; full: the six core ones)",
    )
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="the first N mutants of each target")
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="gradings at a time (default 2)")
    parser.add_argument(
        "--report", type=Path, default=REPORT, help=f"where to write the report (default {REPORT.relative_to(ROOT)})"
    )
    parser.add_argument("--list", action="store_true", help="print the mutants, grade nothing")
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 if a target kills less than {GOAL * 100:.0f}%% of its non-equivalent mutants",
    )
    args = parser.parse_args(argv)
    catalog = load_catalog()
    targets: list[str] = []
    for target in args.target:
        try:
            targets += catalog.ids if target == "full" else [catalog.get(target).id]
        except UnknownTarget as exc:
            parser.error(str(exc))
    reference_text = REFERENCE.read_text(encoding="utf-8")  # read once: the one that is mutated and reported
    everything = generate(REFERENCE, catalog, reference_text)
    mutants = select(everything, targets, args.limit)
    if args.list:
        for mutant in mutants:
            print(f"{mutant.id}\t{','.join(mutant.targets)}\t{mutant.description}")
        print(f"{len(mutants)} mutants", file=sys.stderr)
        return 0
    equivalents = load_equivalents()
    equivalents, stale = split_stale(equivalents, everything)
    graded = sorted({t for m in mutants for t in m.targets}, key=catalog.all_ids.index)
    baseline = _baseline(catalog, graded, reference_text)
    if baseline:
        print(f"campaign: the reference itself fails {', '.join(baseline)}: no campaign", file=sys.stderr)
        return 2
    start = time.perf_counter()
    survivors = 0
    listed = {e.id for e in equivalents}

    def progress(done: int, total: int, outcome: Outcome) -> None:
        nonlocal survivors
        if not outcome.killed and outcome.mutant.id not in listed:
            survivors += 1
            print(f"  survived {outcome.mutant.id}: {outcome.mutant.description}", file=sys.stderr)
        if done % 25 == 0 or done == total:
            elapsed = time.perf_counter() - start
            eta = elapsed / done * (total - done)
            print(
                f"campaign: {done}/{total} graded, {survivors} survived, {elapsed:.0f} s, ~{eta:.0f} s left",
                file=sys.stderr,
            )

    print(f"campaign: {len(mutants)} mutants, {args.jobs} at a time", file=sys.stderr)
    outcomes = run(mutants, catalog, args.jobs, progress)
    seconds = time.perf_counter() - start
    command = " ".join(
        ["python -m grader.campaign", *(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))]
    )
    text = report(outcomes, equivalents, catalog, command, seconds, stale, reference_text)
    args.report.write_text(text, encoding="utf-8")
    print(f"campaign: {len(outcomes)} mutants in {seconds:.0f} s; report in {args.report}", file=sys.stderr)
    rows = tally(outcomes, equivalents, catalog)
    for row in rows:
        print(
            f"  {row.target:14} {row.killed:4} killed {len(row.survived):3} survived {len(row.equivalent):3} equivalent  {row.rate:6.1%}",
            file=sys.stderr,
        )
    return 1 if args.check and not all(row.meets_goal for row in rows) else 0


def _baseline(catalog: Catalog, targets: Sequence[str], text: str) -> list[str]:
    """The targets the unmutated reference (``text``) fails: none, or every mutant would count as killed."""
    if not targets:
        return []
    runner, close = _runner()
    try:
        with tempfile.TemporaryDirectory(prefix="drill-campaign-") as tmp:
            path = Path(tmp) / "engine.py"
            path.write_text(text, encoding="utf-8")
            result = grade_file(path, [catalog.get(t) for t in targets], runner=runner, limits=Limits())
    finally:
        close()
    return [t for t in targets if not result.get(t).passed]


if __name__ == "__main__":
    sys.exit(main())
