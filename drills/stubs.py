"""Stubs are generated from the reference: the target's functions keep their signature, type hints
and docstring, and their body becomes a TODO and ``raise NotImplementedError``. The two can never drift."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "engine.py"


def find_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Module functions as ``name`` and methods as ``Class.name``."""
    found: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def blank(source: str, symbols: Iterable[str], header: str = "") -> str:
    """``source`` with the bodies of ``symbols`` replaced by a TODO; docstrings kept."""
    tree = ast.parse(source)
    functions = find_functions(tree)
    lines = source.splitlines(keepends=True)
    edits = []
    for symbol in symbols:
        if symbol not in functions:
            raise KeyError(f"{symbol} is not a function of the reference")
        node = functions[symbol]
        first = node.body[0]
        if not (
            isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
        ):
            raise ValueError(f"{symbol} has no docstring: a stub keeps the docstring to say what to write")
        assert first.end_lineno is not None and node.end_lineno is not None
        indent = lines[first.lineno - 1][: first.col_offset]
        body = [
            f"{indent}# TODO: write {symbol} from memory (the docstring says what it does).\n",
            f'{indent}raise NotImplementedError("{symbol}")\n',
        ]
        edits.append((first.end_lineno, node.end_lineno, body))
    for start, end, body in sorted(edits, reverse=True):
        lines[start:end] = body
    text = "".join(lines)
    return header + text if header else text


def stub_for(symbols: Iterable[str], target_label: str, reference: Path = REFERENCE) -> str:
    """The stub of a drill: the reference with ``symbols`` blanked, and a header that says so."""
    symbols = list(symbols)
    header = (
        f"# autograd-drill: {target_label}.\n"
        f"# Write: {', '.join(symbols)}; each is marked TODO below. Everything else is the reference.\n"
        "# NumPy only: the grader compares your gradients with torch.autograd in float64.\n\n"
    )
    return blank(reference.read_text(encoding="utf-8"), symbols, header)
