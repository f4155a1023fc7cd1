"""Retyping feedback: how the code of your target's symbols differs from the reference's, token by
token, after a copy or a cloze pass (a pass can still differ: ``x * 2`` for ``2 * x``).

Layout, comments and docstrings are left out: the tokens compared are Python's (``tokenize``), less
comments and line breaks inside brackets; a string compares by its value (``'a'`` is ``"a"``). The
ends of statements and the indentation of blocks stay in: a line moved out of a loop is a difference.
"""

from __future__ import annotations

import ast
import difflib
import io
import itertools
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from autograd_drill.loop.cloze import body_of, functions_in

SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.TYPE_COMMENT}
SHOWN = {tokenize.NEWLINE: "⏎", tokenize.INDENT: "⇥", tokenize.DEDENT: "⇤"}
"""How the tokens of the structure are shown."""
CONTEXT = 8
"""Equal tokens shown on each side of a difference, within its statement."""


@dataclass(frozen=True)
class Token:
    text: str
    """As written (``⏎`` the end of a statement, ``⇥``/``⇤`` a block's start and end)."""
    key: str
    """What compares: a string's value, an indentation whatever its width."""
    line: int
    """1-based, in the file it comes from."""
    start: int
    """Column of its first character."""
    end: int


@dataclass(frozen=True)
class Difference:
    symbol: str
    reference: tuple[str, ...]
    """The reference's tokens here (empty: you added ``yours``)."""
    yours: tuple[str, ...]
    """Yours (empty: you left ``reference`` out)."""
    lines: tuple[int, int]
    """The first and last line of your file it is on."""
    before: tuple[str, ...]
    """The equal tokens just before it."""
    after: tuple[str, ...]


@dataclass(frozen=True)
class Retyped:
    """One symbol, compared."""

    symbol: str
    found: bool
    """Your file defines it (a file that does not parse defines nothing)."""
    differences: tuple[Difference, ...] = ()


def _key(token: tokenize.TokenInfo) -> str:
    if token.type == tokenize.STRING:
        try:
            return repr(ast.literal_eval(token.string))
        except (ValueError, SyntaxError):  # an f-string
            return token.string
    return SHOWN.get(token.type, token.string)


def code_tokens(source: str, lines: Iterable[int] | None = None) -> list[Token]:
    """The tokens of ``source`` that compare, less comments and layout; only those starting on
    ``lines`` (1-based), if given. A SyntaxError if it does not tokenize."""
    every = _code_tokens(source)
    if lines is None:
        return list(every)
    wanted = set(lines)
    return [token for token in every if token.line in wanted]


@lru_cache(maxsize=64)
def _code_tokens(source: str) -> tuple[Token, ...]:
    """``code_tokens`` of the whole source, tokenized once per source (the reference is read for every
    rung time)."""
    try:
        raw = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError) as error:
        raise SyntaxError(str(error)) from None
    found = []
    for i, token in enumerate(raw):
        if token.type in SKIPPED:
            continue
        if token.string == "," and _closes_below(raw, i):
            continue  # the trailing comma of a bracket closed on a later line: the formatter's
        text = SHOWN.get(token.type, token.string)
        found.append(Token(text, _key(token), token.start[0], token.start[1], token.end[1]))
    return tuple(found)


def _closes_below(raw: list[tokenize.TokenInfo], i: int) -> bool:
    """The comma ``raw[i]`` is followed by nothing but a closing bracket on a later line."""
    for after in itertools.islice(raw, i + 1, None):
        if after.type not in (tokenize.NL, tokenize.COMMENT):
            return after.string in {")", "]", "}"} and after.start[0] > raw[i].start[0]
    return False


def typed_characters(source: str, lines: Iterable[int] | None = None) -> int:
    """The characters one types for the code of ``source`` (on ``lines``): its tokens, one space
    between tokens that are apart, a line break per line; no indentation, comments or blank lines."""
    count = 0
    last: Token | None = None
    for token in code_tokens(source, lines):
        if token.text in SHOWN.values():
            continue
        same_line = last is not None and last.line == token.line
        count += len(token.text) + (1 if not same_line else int(last is not None and token.start > last.end))
        last = token
    return count


def body_lines(source: str, symbols: Iterable[str]) -> dict[str, range]:
    """The lines of each symbol's function that hold its code: from its signature to its end, less
    its docstring. A SyntaxError if ``source`` does not parse; a symbol it lacks is left out."""
    functions = functions_in(source)
    found = {}
    for symbol in symbols:
        node = functions.get(symbol)
        if node is None:
            continue
        body = body_of(node)
        start = body[0].lineno if body else node.lineno
        found[symbol] = range(start, (node.end_lineno or node.lineno) + 1)
    return found


def _symbol_tokens(source: str, symbols: Iterable[str]) -> dict[str, list[Token]]:
    tokens = code_tokens(source)
    found = {}
    for symbol, lines in body_lines(source, symbols).items():
        ours = [t for t in tokens if t.line in lines]
        while ours and ours[-1].text == "⇤":  # where a block ends is where the next statement starts
            ours.pop()
        while ours and ours[0].text == "⇥":
            ours.pop(0)
        found[symbol] = ours
    return found


def retyped(yours: str, reference: str, symbols: Iterable[str]) -> tuple[Retyped, ...]:
    """Each symbol's body in ``yours`` against ``reference``'s, token by token (the signatures and
    docstrings are the stub's: left out)."""
    symbols = list(symbols)
    theirs = _symbol_tokens(reference, symbols)
    try:
        mine = _symbol_tokens(yours, symbols)
    except SyntaxError:
        mine = {}
    results = []
    for symbol in symbols:
        if symbol not in mine:
            results.append(Retyped(symbol, False))
            continue
        ref, own = theirs[symbol], mine[symbol]
        matcher = difflib.SequenceMatcher(None, [t.key for t in ref], [t.key for t in own], autojunk=False)
        differences = []
        opcodes = matcher.get_opcodes()
        for k, (op, i1, i2, j1, j2) in enumerate(opcodes):
            if op == "equal":
                continue
            # The context is the equal tokens around: up to the differences on either side.
            start = opcodes[k - 1][3] if k and opcodes[k - 1][0] == "equal" else j1
            stop = opcodes[k + 1][4] if k + 1 < len(opcodes) and opcodes[k + 1][0] == "equal" else j2
            at = own[j1:j2] or own[min(j1, len(own) - 1) : min(j1, len(own) - 1) + 1]
            differences.append(
                Difference(
                    symbol,
                    tuple(t.text for t in ref[i1:i2]),
                    tuple(t.text for t in own[j1:j2]),
                    (at[0].line, at[-1].line) if at else (0, 0),
                    _statement(own[max(start, j1 - CONTEXT) : j1], before=True),
                    _statement(own[j2 : min(stop, j2 + CONTEXT)], before=False),
                )
            )
        results.append(Retyped(symbol, True, tuple(differences)))
    return tuple(results)


def _statement(tokens: list[Token], before: bool) -> tuple[str, ...]:
    """Context tokens, cut at the end of a statement (and the block marks beyond it)."""
    texts = [t.text for t in tokens]
    if before:
        ends = [i for i, text in enumerate(texts) if text in SHOWN.values()]
        return tuple(texts[ends[-1] + 1 :] if ends else texts)
    ends = [i for i, text in enumerate(texts) if text in SHOWN.values()]
    return tuple(texts[: ends[0]] if ends else texts)


def spaced(tokens: Iterable[str]) -> list[str]:
    """Each token with the space code puts before it: ``grad.sum(axis=0)``, not ``grad . sum ( axis = 0 )``."""
    out: list[str] = []
    depth = 0
    before = prev = ""  # the two tokens before this one
    for text in tokens:
        tight = (
            not out
            or text in {")", "]", "}", ",", ".", ":"}
            or prev in {"(", "[", "{", ".", "~"}
            or (text in {"(", "["} and (prev[-1:].isalnum() or prev[-1:] in {")", "]", "_"}))
            or (depth > 0 and "=" in {text, prev})
            or (prev in {"-", "+"} and not (before[-1:].isalnum() or before[-1:] in {")", "]", "}", "_"}))
        )
        out.append(text if tight else " " + text)
        depth += (text in {"(", "[", "{"}) - (text in {")", "]", "}"})
        before, prev = prev, text
    return out
