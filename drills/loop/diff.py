"""``drill diff``: your code and the reference side by side, symbol by symbol (after a pass, or
with ``--peek``, which marks the attempt assisted); and ``drill show``: the reference alone."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

from autograd_drill.errors import DrillError
from autograd_drill.grader.catalog import BUILTIN, FULL, find_functions, listed
from autograd_drill.grader.solution_file import UnreadableFile, read_solution
from autograd_drill.loop.stubs import reference_for
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.paths import display
from autograd_drill.store.states import Outcome
from autograd_drill.targets import catalog as merged
from autograd_drill.targets import reference_of


@dataclass(frozen=True)
class Comparison:
    target: str
    source_label: str
    pairs: tuple[tuple[str, str | None, str], ...]
    """(symbol, the user's code or None when missing, the reference's code)."""
    peeked: bool
    """Shown before the target passed."""
    marked_assisted: bool
    """The peek marked the attempt in progress assisted."""


def symbol_sources(source: str) -> dict[str, str]:
    """Each function's source, by catalog symbol name; empty when the file does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    lines = source.splitlines(keepends=True)
    found = {}
    for name, node in find_functions(tree).items():
        start = min([node.lineno, *[d.lineno for d in node.decorator_list]])
        assert node.end_lineno is not None
        keep = list(range(start - 1, node.end_lineno))
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            docstring = range(first.lineno - 1, (first.end_lineno or first.lineno))
            keep = [i for i in keep if i not in docstring]  # the docstring is the same on both sides
        found[name] = _dedent("".join(lines[i] for i in keep))
    return found


def _dedent(text: str) -> str:
    return textwrap.dedent(text).rstrip() + "\n"


def compare(history: History, target_id: str | None, peek: bool) -> Comparison:
    """``drill diff [TARGET]``: TARGET, ``full`` (every core target's symbols, of your latest full
    drill) or, left out, the drill of your latest attempt (all of a full drill once it ended; while
    it runs, its first target not passed yet)."""
    catalog = merged()
    attempt = history.active()
    if target_id is None:
        if attempt is None:
            attempts = history.attempts()
            if not attempts:
                raise DrillError("nothing to compare yet: start a drill with  drill start TARGET")
            attempt = attempts[-1]
        drilled = catalog.drilled(attempt.target)
        if catalog.is_full(attempt.target) and not attempt.in_progress:
            targets = drilled
        else:
            targets = (next((t for t in drilled if t.id not in attempt.splits), drilled[0]),)
        drill_id = attempt.target if len(targets) > 1 else targets[0].id
    elif catalog.is_full(target_id):
        drill_id, targets = target_id, catalog.drilled(target_id)
        if attempt is None or attempt.target != target_id:
            fulls = history.attempts(target_id)
            if not fulls:
                command = FULL if target_id == FULL else f"start {target_id}"
                raise DrillError(f"you have never drilled {target_id}: start with  drill {command}")
            attempt = fulls[-1]
    else:
        target = catalog.get(target_id)
        drill_id, targets = target.id, (target,)
        if attempt is None or target not in catalog.drilled(attempt.target):
            mine = [a for a in history.attempts() if target in catalog.drilled(a.target)]
            if not mine:
                raise DrillError(f"you have never attempted {target.id}: start with  drill start {target.id}")
            attempt = mine[-1]
    pending = [] if attempt.outcome is Outcome.GAVE_UP else [t.id for t in targets if t.id not in attempt.splits]
    if pending and attempt.outcome is Outcome.ABANDONED and not peek:
        raise DrillError(
            f"your last attempt at {drill_id} was abandoned before {'it' if pending == [drill_id] else listed(pending)} passed: "
            f"drill diff {drill_id} --peek shows it anyway"
        )
    if pending and not peek:
        verb = "has" if len(pending) == 1 else "have"
        raise DrillError(
            f"{listed(pending)} {verb} not passed yet, and comparing now would spoil the drill: "
            f"drill diff {drill_id} --peek shows it and marks the attempt assisted; drill give-up ends it first"
        )
    marked = bool(pending) and attempt.in_progress
    if marked:
        history.mark_assisted(attempt)
    source, label = _latest_source(history, attempt)
    ours = symbol_sources(source)
    # the reference as the drill's stub shows it: the code tagged for other drills left out
    shown = reference_of(drill_id).read_text(encoding="utf-8")
    reference = symbol_sources(reference_for(shown, [t.own_id for t in targets]))
    pairs = tuple((s, ours.get(s), reference[s]) for t in targets for s in t.symbols)
    return Comparison(drill_id, label, pairs, peeked=bool(pending), marked_assisted=marked)


@dataclass(frozen=True)
class Reference:
    """``drill show``: the reference's code of a target's symbols."""

    target: str
    symbols: tuple[tuple[str, str], ...]
    """(symbol, the reference's code), in the catalog's order."""
    marked_assisted: bool
    """Read during an attempt at the target before it passed: that attempt is now assisted."""
    where: str = "reference/engine.py"
    """Which file it is: the built-in engine's, or another pack's reference (``the layers pack's reference.py``)."""


def reference(history: History, drill_id: str) -> Reference:
    """The reference of a target (of every core target for full). Reading it marks nothing, unless an
    attempt in progress drills one of these targets and has not passed it yet: then, as a peek with
    ``drill diff --peek`` or a hint, that attempt is marked assisted."""
    catalog = merged()
    targets = catalog.drilled(drill_id)
    attempt = history.active()
    marked = attempt is not None and any(
        t in catalog.drilled(attempt.target) and t.id not in attempt.splits for t in targets
    )
    if marked:
        assert attempt is not None
        history.mark_assisted(attempt)
    shown = reference_of(drill_id).read_text(encoding="utf-8")
    sources = symbol_sources(reference_for(shown, [t.own_id for t in targets]))
    pack = targets[0].pack
    where = "reference/engine.py" if pack == BUILTIN else f"the {pack} pack's {reference_of(drill_id).name}"
    return Reference(drill_id, tuple((s, sources[s]) for t in targets for s in t.symbols), marked, where)


def _latest_source(history: History, attempt: Attempt) -> tuple[str, str]:
    held = _readable(attempt.file)
    if attempt.in_progress and held is not None:
        return held, display(attempt.file)
    submissions = history.submissions(attempt)
    if submissions:
        readable = submissions[-1].source.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return readable, f"{display(attempt.file)} as last graded"
    if attempt.archive and Path(attempt.archive).exists():
        return Path(attempt.archive).read_text(encoding="utf-8", errors="replace"), display(Path(attempt.archive))
    if held is not None:
        return held, display(attempt.file)
    return "", "(no source kept)"


def _readable(path: Path) -> str | None:
    """The file's text; None when it is missing, odd (a FIFO, a device...) or too big."""
    try:
        return read_solution(path).decode("utf-8", "replace")
    except UnreadableFile:
        return None
