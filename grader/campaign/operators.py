"""The mutation operators: for one AST node, the single changes to try (grader/campaign/__init__.py lists them)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from grader.catalog import Catalog

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


def is_docstring(stmt: ast.stmt) -> bool:
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


def walk_nodes(
    node: ast.AST, path: tuple[Step, ...], chain: tuple[ast.AST, ...]
) -> Iterator[tuple[ast.AST, tuple[Step, ...], tuple[ast.AST, ...]]]:
    """The nodes under ``node`` in source order with their path from the module and their ancestors
    (nearest last); f-strings (messages) and the operand of a negative number are not entered."""
    for step, child in _children(node):
        if (
            isinstance(node, ast.FunctionDef)
            and step == ("body", 0)
            and isinstance(child, ast.stmt)
            and is_docstring(child)
        ):
            continue
        if isinstance(child, ast.JoinedStr):
            continue
        yield child, (*path, step), (*chain, node)
        if _negative_number(child) is not None:
            continue
        yield from walk_nodes(child, (*path, step), (*chain, node))


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
