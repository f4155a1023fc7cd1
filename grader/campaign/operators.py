"""The mutation operators: for one AST node, the single changes to try (grader/campaign/__init__.py lists them)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from autograd_drill.grader.catalog import Catalog

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
        # copy=True -> False turns a copy into an alias: named for it (the reference passes no copy=).
        copy = isinstance(parent, ast.keyword) and parent.arg == "copy" and node.value is True
        name = "copy=True->False" if copy else f"{node.value}->{not node.value}"
        found.append((name, ast.Constant(value=not node.value), "expr", None))
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


# ------------------------------------------------------------------------------ the second pass
# Operators added later run in a pass of their own, after every node has had the operators above:
# a new mutant whose text equals an older one's is then the one left out, so no older id moves.

COPIES = {"array": "asarray"}
"""``np.array(x, ...)`` copies; ``np.asarray(x, ...)`` returns ``x`` itself when it already fits."""


def local_names(function: ast.FunctionDef) -> set[str]:
    """The parameters and the names bound inside ``function`` (its nested closures and
    comprehensions included): the names a mutant may replace with a constant."""
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.FunctionDef | ast.Lambda):
            a = node.args
            found.update(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
            found.update(p.arg for p in (a.vararg, a.kwarg) if p is not None)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return found


def later_mutations(node: ast.AST, parent: ast.AST, step: Step, names: set[str]) -> list[Mutation]:
    """The single-node changes of the second pass: a local name replaced by a constant, one
    argument of any call dropped, a copy turned into an alias (``names``: the function's locals)."""
    found: list[Mutation] = []
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
        # Not the object of an attribute, a subscript or a call, nor what a loop runs over: 0.data
        # or `for x in 0` only crash, which any test sees.
        used = not (
            (isinstance(parent, ast.Attribute | ast.Subscript) and step[0] == "value")
            or (isinstance(parent, ast.Call) and step[0] == "func")
            or (isinstance(parent, ast.For | ast.comprehension) and step[0] == "iter")
        )
        if used:
            constants: list[object] = [0, 1]
            if isinstance(parent, ast.Call | ast.keyword | ast.Return | ast.Compare):
                constants.append(None)
            if isinstance(parent, ast.Compare) and any(isinstance(op, ast.Is | ast.IsNot) for op in parent.ops):
                constants = [None]  # `x is 0` is a SyntaxWarning, and an identity test of a number says nothing
            for value in constants:
                found.append((f"name->{value}", ast.Constant(value=value), "expr", None))
    if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
        for i in range(len(node.args)):
            new = ast.Call(func=node.func, args=node.args[:i] + node.args[i + 1 :], keywords=node.keywords)
            found.append((f"call-drop-arg-{i}", new, "expr", node.func))
        for i, kw in enumerate(node.keywords):
            if kw.arg is not None:
                new = ast.Call(func=node.func, args=node.args, keywords=node.keywords[:i] + node.keywords[i + 1 :])
                found.append((f"call-drop-kw-{kw.arg}", new, "expr", node.func))
        func = node.func
        numpy = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"
        if numpy and isinstance(func, ast.Attribute) and func.attr in COPIES and node.args:
            alias = ast.Attribute(value=func.value, attr=COPIES[func.attr], ctx=ast.Load())
            found.append(("array->asarray", ast.Call(func=alias, args=node.args, keywords=node.keywords), "expr", None))
            found.append(("array->alias", node.args[0], "expr", None))
        if numpy and isinstance(func, ast.Attribute) and func.attr == "copy" and len(node.args) == 1:
            found.append(("copy->alias", node.args[0], "expr", None))
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not numpy and not node.args:
            found.append(("copy->alias", func.value, "expr", None))
    return found


def returns_value(function: ast.FunctionDef) -> bool:
    """Whether ``function`` itself (not a closure of it) has a ``return <value>``."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            return True
        if not isinstance(node, ast.FunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return False


FAMILIES: tuple[tuple[str, str], ...] = (
    ("insert-return", "early return inserted"),
    ("append-return", "early return inserted"),
    ("name->", "name -> constant"),
    ("call-drop-", "any call's argument dropped"),
    ("array->", "copy -> alias"),
    ("copy", "copy -> alias"),
    ("drop-call", "returned call dropped"),
    ("drop-arg-", "returned call's argument dropped"),
    ("drop-kw-", "returned call's argument dropped"),
    ("drop", "statement dropped"),
    ("swap-args-", "arguments swapped"),
    ("axis->", "axis / keepdims keyword"),
    ("keepdims->", "axis / keepdims keyword"),
    ("while->if", "while -> if"),
    ("Aug", "augmented assignment"),
    ("True->", "constant"),
    ("False->", "constant"),
    ("And->", "and <-> or"),
    ("Or->", "and <-> or"),
    ("USub-dropped", "unary operator dropped"),
    ("Not-dropped", "unary operator dropped"),
)
ARITH_NAMES = {t.__name__ for t in ARITH} | {"Mod"}
COMPARE_NAMES = {t.__name__ for t in COMPARE}


def family(operator: str) -> str:
    """The operator family an operator name belongs to, as the report's per-operator table groups them."""
    for prefix, name in FAMILIES:
        if operator == prefix or operator.startswith(prefix):
            return name
    head = operator.split("->")[0].split("-")[0]
    if head in ARITH_NAMES:
        return "arithmetic operator"
    if head in COMPARE_NAMES:
        return "comparison"
    return "constant"


def same_tree(a: object, b: object) -> bool:
    """Whether two trees are the same code: ``ast.dump(a) == ast.dump(b)`` (fields alike, positions
    aside, a missing field as None, values by their repr), without writing out either dump (twice
    per candidate mutant, half the time of generating them all), and stopping at the first difference."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(same_tree(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    return a == b if isinstance(a, str) or a is None else repr(a) == repr(b)
