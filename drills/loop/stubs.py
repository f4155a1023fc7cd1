"""Stubs are generated from the reference: the target's functions keep their signature, type hints
and docstring, and their body becomes a TODO and ``raise NotImplementedError``. The two can never drift.

A docstring paragraph that starts with a drill tag, ``(cotangent drill) ...``, is part of the contract
of that drill only: the stubs of other drills leave it out (the reference keeps every paragraph). So
one reference function serves a core drill and the follow-ups that extend it, and each stub asks for
exactly what its drill grades.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable
from pathlib import Path

from grader.catalog import find_functions
from reference import ENGINE

REFERENCE = ENGINE


DRILL_TAG = re.compile(r"\((?P<ids>[a-z][a-z-]*(?:, [a-z][a-z-]*)*) drills?\) ")
"""``(cotangent drill) `` or ``(cotangent, free-memory drills) `` at the start of a paragraph."""


def docstring_lines(lines: list[str], drills: Collection[str] | None) -> list[str]:
    """A docstring's source lines without the paragraphs tagged for other drills, tags removed.

    ``drills`` are the ids of the drill the stub is for (``full``: every core target); None keeps all.
    """
    if drills is None:
        return lines
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    kept: list[list[str]] = []
    for paragraph in paragraphs:
        body = paragraph[0].lstrip()
        tag = DRILL_TAG.match(body)
        if tag is None:
            kept.append(paragraph)
            continue
        closes = paragraph[-1].rstrip().endswith('"""') and paragraph[-1].strip() != '"""'
        if set(tag["ids"].split(", ")) & set(drills):
            indent = paragraph[0][: len(paragraph[0]) - len(body)]
            kept.append([indent + body[tag.end() :], *paragraph[1:]])
        elif closes:  # the closing quotes end this paragraph: keep them on the previous one
            kept[-1][-1] = kept[-1][-1].rstrip("\n") + '"""\n'
        elif paragraph[-1].strip() == '"""':
            kept.append(paragraph[-1:])
    if len(kept) == 2 and kept[1][0].strip() == '"""':  # one paragraph left: close it on its last line
        kept = [[*kept[0][:-1], kept[0][-1].rstrip("\n") + '"""\n']]
    out: list[str] = []
    for i, paragraph in enumerate(kept):
        if i and paragraph[0].strip() != '"""':
            out.append("\n")
        out.extend(paragraph)
    return out


def blank(source: str, symbols: Iterable[str], header: str = "", drills: Collection[str] | None = None) -> str:
    """``source`` with the bodies of ``symbols`` replaced by a TODO; docstrings kept, less the
    paragraphs tagged for drills other than ``drills`` (None: all kept)."""
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
        doc = docstring_lines(lines[first.lineno - 1 : first.end_lineno], drills)
        edits.append((first.lineno - 1, node.end_lineno, doc + body))
    for start, end, body in sorted(edits, reverse=True):
        lines[start:end] = body
    text = "".join(lines)
    return header + text if header else text


def stub_for(
    symbols: Iterable[str], target_label: str, reference: Path = REFERENCE, drills: Collection[str] | None = None
) -> str:
    """The stub of a drill: the reference with ``symbols`` blanked, and a header that says so.

    ``drills``: the ids whose tagged docstring paragraphs the stub keeps (None: every paragraph)."""
    symbols = list(symbols)
    header = (
        f"# autograd-drill: {target_label}.\n"
        f"# Write: {', '.join(symbols)}; each is marked TODO below. Everything else is the reference.\n"
        "# NumPy only: the grader compares your gradients with torch.autograd in float64.\n\n"
    )
    return blank(reference.read_text(encoding="utf-8"), symbols, header, drills)
