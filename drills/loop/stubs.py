"""Stubs are generated from the reference: the target's functions keep their signature, type hints
and docstring, and their body becomes a TODO and ``raise NotImplementedError``. The two can never drift.

A docstring paragraph that starts with a drill tag, ``(cotangent drill) ...``, is part of the contract
of that drill only: the stubs of other drills leave it out (the reference keeps every paragraph). So
one reference function serves a core drill and the follow-ups that extend it, and each stub asks for
exactly what its drill grades.

Code is tagged the same way, by a trailing comment on the first line of a statement (or on an
``else:``): ``if not retain_graph:  # (free-memory drill)`` makes that statement, its body with it,
the code of that drill. ``reference_for`` leaves it out of the reference for any other drill, so
the copy rung never shows it, the cloze never blanks it, and the rung times do not count it; a
stub of the drill itself keeps it, tag removed. A comment moves no line, so the mutation campaign's
ids (counted in lines) stay put. And a follow-up's own symbols (``Tensor.max``, ``gradcheck``, ...)
are left out of every other drill's stub: their signature and docstring stay, the body is a
``raise NotImplementedError``, so the file still imports and the follow-up can be drilled later.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from autograd_drill.grader.catalog import BUILTIN
from autograd_drill.loop.cloze import (
    blanked_argument,
    body_of,
    comments,
    functions_in,
    has_docstring,
    key_statements,
    note_lines,
    simple_statements,
)
from autograd_drill.reference import ENGINE
from autograd_drill.store.states import RUNGS, Rung
from autograd_drill.targets import catalog as merged

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


CODE_TAG = re.compile(r"\s*#\s*\((?P<ids>[a-z][a-z-]*(?:, [a-z][a-z-]*)*) drills?\)\s*$")
"""A trailing ``# (free-memory drill)`` comment: the statement it ends the first line of is that drill's code."""


@lru_cache(maxsize=8)
def tagged_code(source: str) -> tuple[tuple[frozenset[str], int, int], ...]:
    """The code tagged for drills (``CODE_TAG``): each tag's drill ids, and the first and last line
    (1-based) of the statement it tags, or of the ``else:`` block it is on. A ValueError for a tag
    on a line where no statement starts. Parsed once per source (every stub and rung time reads it)."""
    lines = source.splitlines()
    tags = [(line, tag) for line, _ in comments(source) if (tag := CODE_TAG.search(lines[line - 1])) is not None]
    if not tags:
        return ()
    # One walk of the tree for every tag: the statements by the line they start on, the blocks with an else.
    starting: dict[int, list[ast.stmt]] = {}
    with_else: list[ast.If | ast.For | ast.While | ast.Try] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            starting.setdefault(node.lineno, []).append(node)
            if isinstance(node, (ast.If, ast.For, ast.While, ast.Try)) and node.orelse:
                with_else.append(node)
    found = []
    for line, tag in tags:
        ids = frozenset(tag["ids"].split(", "))
        statements = starting.get(line)
        if statements:
            found.append((ids, line, max(s.end_lineno or s.lineno for s in statements)))
            continue
        branches = [
            n
            for n in with_else
            if lines[line - 1].strip().startswith("else:") and (n.body[-1].end_lineno or 0) < line < n.orelse[0].lineno
        ]
        if not branches:
            raise ValueError(f"line {line}: a drill tag on a line where no statement (or else:) starts")
        found.append((ids, line, branches[-1].orelse[-1].end_lineno or line))
    return tuple(found)


def reference_for(source: str, drills: Collection[str] | None) -> str:
    """``source`` as the stub of ``drills`` shows it: the code tagged for other drills left out, the
    tags of its own removed (None: the source as it is)."""
    return source if drills is None else _reference_for(source, frozenset(drills))


@lru_cache(maxsize=32)
def _reference_for(source: str, drills: frozenset[str]) -> str:
    """``reference_for``, once per source and drills (``drill ladder`` asks it for every rung time)."""
    lines = source.splitlines(keepends=True)
    dropped: set[int] = set()
    for ids, first, last in tagged_code(source):
        if not ids & drills:
            dropped |= set(range(first, last + 1))
    kept = []
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            continue
        tag = CODE_TAG.search(line.rstrip("\n"))
        kept.append(line[: tag.start()] + "\n" if tag else line)
    shown = "".join(kept)
    try:
        functions_in(shown)  # it parses (and is parsed once, for every reader of it)
    except SyntaxError as error:  # a block whose every statement is another drill's
        raise ValueError(f"the code tagged for other drills than {sorted(drills)} leaves {error.msg}") from None
    return shown


def trimmed(source: str, drills: Collection[str] | None) -> dict[str, list[str]]:
    """The functions of ``source`` that ``reference_for(source, drills)`` shows without some of their
    code, and the drills whose code that is (None: none)."""
    if drills is None:
        return {}
    functions = functions_in(source)
    found: dict[str, list[str]] = {}
    for ids, first, _ in tagged_code(source):
        if ids & set(drills):
            continue
        around = [(n.lineno, name) for name, n in functions.items() if n.lineno <= first <= (n.end_lineno or 0)]
        if around:
            name = max(around)[1]
            found[name] = sorted({*found.get(name, []), *ids})
    return found


def left_out(drills: Collection[str] | None, source: str, pack: str = BUILTIN) -> list[str]:
    """The symbols of ``source`` (the reference of the pack named ``pack``) that only its follow-ups
    other than ``drills`` (ids in that pack's own catalog) drill: the stub of ``drills`` leaves their
    code out (None: none)."""
    if drills is None:
        return []
    mine = [t for t in merged().every if t.pack == pack]
    core = {s for t in mine if not t.extension for s in t.symbols}
    own = {s for t in mine if t.own_id in drills for s in t.symbols}
    functions = functions_in(source)
    return [s for t in mine if t.extension for s in t.symbols if s not in core | own and s in functions]


def check_rung(rung: str) -> Rung:
    """The rung named ``rung``; a ValueError that says which rungs there are, for any other."""
    if rung not in RUNGS:
        raise ValueError(f"unknown rung {rung!r}: one of {', '.join(RUNGS)}")
    return Rung(rung)


def drill_parameters(node: ast.FunctionDef, drills: Collection[str] | None) -> set[str]:
    """The parameters of ``node`` that its docstring paragraphs tagged for ``drills`` name in double
    backquotes (``(free-memory drill) Unless ``retain_graph`` ...``): what those drills add to it."""
    params = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
    named: set[str] = set()
    for paragraph in (ast.get_docstring(node) or "").split("\n\n"):
        tag = DRILL_TAG.match(paragraph)
        if tag and drills is not None and set(tag["ids"].split(", ")) & set(drills):
            named |= set(re.findall(r"``(\w+)``", paragraph)) & params
    return named


@dataclass(frozen=True)
class Gap:
    """One blank of a cloze stub."""

    symbol: str
    placeholder: str
    """Its text in the stub: a TODO comment and a ``raise NotImplementedError`` (and, for a blanked
    argument, the statement with ``...`` in its place)."""
    answer: str
    """The reference's text that ``placeholder`` stands for."""
    blanked: str
    """The reference code the user writes in it."""


@dataclass(frozen=True)
class Stub:
    """A stub's text, and the blanks of a cloze (none for the other rungs)."""

    text: str
    gaps: tuple[Gap, ...]


def _groups(node: ast.FunctionDef, chosen: list[ast.stmt], lines: list[str]) -> list[list[ast.stmt]]:
    """``chosen`` in runs of adjacent statements of one block with only empty lines between them."""
    place: dict[int, tuple[int, str, int]] = {}
    for parent in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            for i, stmt in enumerate(block if isinstance(block, list) else []):
                place[id(stmt)] = (id(parent), field, i)
    runs: list[list[ast.stmt]] = []
    for stmt in chosen:
        if runs:
            last = runs[-1][-1]
            (parent, field, i), here = place[id(last)], place[id(stmt)]
            between = lines[last.end_lineno or last.lineno : stmt.lineno - 1]
            if here == (parent, field, i + 1) and not any(line.strip() for line in between):
                runs[-1].append(stmt)
                continue
        runs.append([stmt])
    return runs


def _cloze_edits(
    symbol: str, node: ast.FunctionDef, lines: list[str], notes: set[int], drills: Collection[str] | None
) -> list[tuple[int, int, list[str], Gap]]:
    """The blanks of one function: (first line, end line, the lines in their place, the gap), 0-based."""
    blankable = [
        s
        for s in key_statements(node, notes, drill_parameters(node, drills))
        if not lines[s.lineno - 1][: s.col_offset].strip()
    ]
    edits = []
    argument = blanked_argument(node)
    if not blankable and argument is not None:
        stmt = simple_statements(body_of(node))[0]
        assert stmt.end_lineno is not None and argument.end_lineno is not None and argument.end_col_offset is not None
        answer = "".join(lines[stmt.lineno - 1 : stmt.end_lineno])
        text = "".join(lines[: stmt.end_lineno]).encode()
        start = sum(len(line.encode()) for line in lines[: argument.lineno - 1]) + argument.col_offset
        end = sum(len(line.encode()) for line in lines[: argument.end_lineno - 1]) + argument.end_col_offset
        rest = (text[:start] + b"..." + text[end : len(text)]).decode()
        indent = lines[stmt.lineno - 1][: stmt.col_offset]
        placeholder = (
            f"{indent}# TODO: replace the ... below with the missing argument, then delete this raise.\n"
            f'{indent}raise NotImplementedError("{symbol}, blank 1")\n'
        ) + "".join(rest.splitlines(keepends=True)[stmt.lineno - 1 :])
        blanked = text[start:end].decode()
        edits.append((stmt.lineno - 1, stmt.end_lineno, [placeholder], Gap(symbol, placeholder, answer, blanked)))
        return edits
    for k, run in enumerate(_groups(node, blankable, lines), start=1):
        first, last = run[0].lineno - 1, run[-1].end_lineno or run[-1].lineno
        answer = "".join(lines[first:last])
        indent = lines[first][: run[0].col_offset]
        what = "the missing statement" if len(run) == 1 else f"the {len(run)} missing statements"
        notes_here = [text for _, text in comments(answer)]
        said = f" ({'; '.join(notes_here)})" if notes_here else ""
        placeholder = f'{indent}# TODO: {what}{said}\n{indent}raise NotImplementedError("{symbol}, blank {k}")\n'
        edits.append((first, last, [placeholder], Gap(symbol, placeholder, answer, answer)))
    return edits


def _copy_lines(lines: list[str], first: ast.stmt, node: ast.FunctionDef, symbol: str, indent: str) -> list[str]:
    """The reference's body of ``symbol`` as a comment block, then the blank to retype it in."""
    assert first.end_lineno is not None and node.end_lineno is not None
    body = textwrap.dedent("".join(lines[first.end_lineno : node.end_lineno])).splitlines()
    shown = [f"{indent}# {line}".rstrip() + "\n" for line in body]
    return [
        f"{indent}# The reference's {symbol}, to retype below the comment block (comments are optional):\n",
        *shown,
        f"{indent}# TODO: retype {symbol} from the reference above.\n",
        f'{indent}raise NotImplementedError("{symbol}")\n',
    ]


def cut(
    source: str,
    symbols: Iterable[str],
    drills: Collection[str] | None = None,
    rung: Rung = Rung.RECALL,
    absent: Iterable[str] = (),
) -> Stub:
    """``source`` with ``symbols`` blanked for ``rung`` (see ``RUNGS``), and the blanks of a cloze;
    ``absent``: symbols of other drills, their body left out whatever the rung."""
    rung = check_rung(rung)
    functions = functions_in(source)
    notes = note_lines(source) if rung is Rung.CLOZE else set()
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, list[str], Gap | None]] = []
    symbols = list(symbols)
    absent = [s for s in absent if s not in symbols]
    for symbol in [*symbols, *absent]:
        if symbol not in functions:
            raise KeyError(f"{symbol} is not a function of the reference")
        node = functions[symbol]
        first = node.body[0]
        if not has_docstring(node):
            raise ValueError(f"{symbol} has no docstring: a stub keeps the docstring to say what to write")
        assert first.end_lineno is not None and node.end_lineno is not None
        indent = lines[first.lineno - 1][: first.col_offset]
        doc = docstring_lines(lines[first.lineno - 1 : first.end_lineno], drills)
        if symbol in absent:
            drill = next((t.id for t in merged().every if symbol in t.symbols), "its own")
            body = [
                f"{indent}# Not part of this drill: {symbol} is drilled by  drill start {drill}.\n",
                f'{indent}raise NotImplementedError("{symbol}")\n',
            ]
            edits.append((first.lineno - 1, node.end_lineno, doc + body, None))
            continue
        if rung is Rung.CLOZE:
            edits.append((first.lineno - 1, first.end_lineno, doc, None))
            edits.extend(_cloze_edits(symbol, node, lines, notes, drills))
            continue
        if rung is Rung.COPY:
            body = _copy_lines(lines, first, node, symbol, indent)
        else:
            body = [
                f"{indent}# TODO: write {symbol} from memory (the docstring says what it does).\n",
                f'{indent}raise NotImplementedError("{symbol}")\n',
            ]
        edits.append((first.lineno - 1, node.end_lineno, doc + body, None))
    gaps = []
    for start, end, body, gap in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[start:end] = body
        if gap is not None:
            gaps.append(gap)
    return Stub("".join(lines), tuple(reversed(gaps)))


def blank(
    source: str,
    symbols: Iterable[str],
    header: str = "",
    drills: Collection[str] | None = None,
    rung: Rung = Rung.RECALL,
    absent: Iterable[str] = (),
) -> str:
    """``source`` with ``symbols`` blanked for ``rung``: docstrings kept, less the paragraphs tagged for
    drills other than ``drills`` (None: all kept). ``recall``: the body becomes a TODO; ``copy``: the
    same, below the reference's body as a comment block; ``cloze``: the key statements become TODOs.
    ``absent``: symbols whose body is left out (``left_out``)."""
    text = cut(source, symbols, drills, rung, absent).text
    return header + text if header else text


HEADERS = {
    Rung.RECALL: "# Write: {symbols}; each is marked TODO below. Everything else is the reference.\n",
    Rung.COPY: "# Retype: {symbols}; each shows the reference as a comment block above its TODO. Everything else is the reference.\n",
    Rung.CLOZE: "# Fill in the blanks of {symbols}: replace each TODO and its raise NotImplementedError with the missing code. Everything else is the reference.\n",
}


def stub_for(
    symbols: Iterable[str],
    target_label: str,
    reference: Path = REFERENCE,
    drills: Collection[str] | None = None,
    rung: Rung = Rung.RECALL,
    pack: str = BUILTIN,
) -> str:
    """The stub of a drill: the reference with ``symbols`` blanked for ``rung``, and a header that says so.

    ``drills``: the ids whose tagged docstring paragraphs and tagged code the stub keeps (None: every
    paragraph, all the code), as the reference of the pack named ``pack`` tags them (its own catalog's
    ids); the follow-ups' own symbols of other drills are left out (``left_out``)."""
    rung = check_rung(rung)
    symbols = list(symbols)
    label = target_label if rung is Rung.RECALL else f"{target_label}, {rung} rung"
    whole = reference.read_text(encoding="utf-8")
    source = reference_for(whole, drills)
    absent = left_out(drills, source, pack)
    header = (
        f"# autograd-drill: {label}.\n"
        + HEADERS[rung].format(symbols=", ".join(symbols))
        + "".join(
            f"# {name} here is without the code of the {', '.join(ids)} drill{'s' if len(ids) > 1 else ''}.\n"
            for name, ids in trimmed(whole, drills).items()
        )
        + (
            f"# Left out, for the follow-up drills: {', '.join(absent)} (each raises NotImplementedError).\n"
            if absent
            else ""
        )
        + "# NumPy only: the grader compares your gradients with torch.autograd in float64.\n\n"
    )
    return blank(source, symbols, header, drills, rung, absent)
