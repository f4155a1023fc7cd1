"""Classic bugs: each is a pack's reference with one realistic mistake, which must fail its target.
They are data, one ``[[mutant]]`` table each: the autograd pack's in tests/mutants.toml (bugs of
reference/engine.py), the layers pack's in packs/layers/mutants.toml (of its reference.py); this
module loads them, the same way for every pack (``load``).

A mutant is matched on code, not comments: its ``find`` and the reference are compared with every
comment cut (and a line that held only a comment left out), so a comment of the reference may change,
move or go without changing which code a mutant replaces (``Mutant.apply``)."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MUTANTS_FILE = Path(__file__).with_name("mutants.toml")
LAYERS_FILE = Path(__file__).resolve().parents[1] / "packs" / "layers" / "mutants.toml"


_OUTSIDE = re.compile("[#'\"]")
_IN_STRING = {q: re.compile(f"[\\\\{q}]") for q in "'\""}
"""What ends a comment-free stretch of a line: outside a string, a comment or a quote; inside one, a
backslash or its quote."""


@functools.lru_cache(maxsize=8)
def code_only(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` without its comments: each ``# ...`` cut with the blanks before it, each line that held
    only a comment left out; and for each character kept, where it stood in ``text``. The last few
    texts are kept: the reference, read for each of its 92 mutants, is read once; only a few, as a
    whole file's positions take megabytes.

    Read one line after another, with the quotes of string literals followed (triple-quoted ones across
    lines), so that a ``#`` inside a string is code. Works on a fragment of a file as on a whole one."""
    kept: list[str] = []
    origin: list[int] = []
    quote = ""  # the quote of the string literal open at this point, if any
    start = 0
    for line in text.splitlines(keepends=True):
        end = len(line.rstrip("\r\n"))
        cut, i = end, 0
        while i < end:  # from one character that matters to the next: a quote, a backslash, a "#"
            found = (_IN_STRING[quote[0]] if quote else _OUTSIDE).search(line, i, end)
            if found is None:
                break
            i, ch = found.start(), found[0]
            if quote:
                if ch == "\\":
                    i += 2
                elif line.startswith(quote, i):
                    i += len(quote)
                    quote = ""
                else:
                    i += 1
            elif ch == "#":
                cut = i
                break
            else:
                quote = ch * 3 if line.startswith(ch * 3, i) else ch
                i += len(quote)
        if quote and len(quote) == 1:  # an unterminated one-line string ends with its line
            quote = ""
        code = line[:cut].rstrip(" \t") if cut < end else line[:end]
        if cut < end and not code.strip():
            start += len(line)
            continue  # a comment alone on its line
        kept += (code, line[end:])
        origin += range(start, start + len(code))
        origin += range(start + end, start + len(line))
        start += len(line)
    return "".join(kept), tuple(origin)


@dataclass(frozen=True)
class Mutant:
    id: str
    """Short kebab-case, unique: ``unbroadcast-skips-prepended-axes``."""
    target: str
    """The target of its pack's catalog it must fail."""
    symbol: str
    """The symbol that is wrong, as the catalog names it: ``unbroadcast``, ``Tensor.__add__``."""
    bug: str
    """One line: the mistake, as a reviewer would describe it."""
    find: str
    """A snippet of the pack's reference whose code (its comments aside) occurs exactly once in it."""
    replace: str
    """What it becomes."""

    def apply(self, source: str) -> str:
        """``source`` with the code of ``find`` replaced (comments in the span go with it); an
        AssertionError that says so unless that code occurs in ``source`` exactly once."""
        code, origin = code_only(source)
        find, _ = code_only(self.find)
        assert find.strip(), f"{self.id}: its find has no code"
        at = code.find(find)
        assert at >= 0 and code.find(find, at + 1) < 0, (
            f"{self.id}: the code of its find no longer occurs exactly once in the reference"
        )
        # A find that ends a line ends at its newline: a trailing comment of that line goes too.
        first, last = origin[at], origin[at + len(find) - 1]
        return source[:first] + self.replace + source[last + 1 :]


def load(path: Path) -> tuple[Mutant, ...]:
    """The classic bugs a mutants file lists, in its order."""
    return tuple(Mutant(**entry) for entry in tomllib.loads(path.read_text(encoding="utf-8"))["mutant"])


MUTANTS = load(MUTANTS_FILE)
"""The autograd pack's: bugs of reference/engine.py."""
LAYERS_MUTANTS = load(LAYERS_FILE)
"""The layers pack's: bugs of packs/layers/autograd_drill_layers/reference.py."""
