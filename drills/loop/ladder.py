"""The learning ladder of a target: its rungs' target times, computed from the reference with the
reasoning written down, and how an attempt moves a target up or down (``RUNGS``: copy, cloze, recall).

- recall: the catalog's target time (its ``time_reasoning`` says why, for a follow-up).
- copy: the characters typed to retype the symbols' code (no indentation, comments or docstrings) at
  ``TYPING_SPEED``, rounded up to the half minute; the code as the stub shows it (``reference_for``:
  less the code tagged for other drills, such as ``backward``'s cotangent and ``retain_graph`` code).
- cloze: the share of the recall time that the blanked code carries, by those same characters,
  rounded up to the half minute.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from autograd_drill.grader.catalog import CATALOG_FILE, FULL, format_time
from autograd_drill.reference import ENGINE as REFERENCE
from autograd_drill.store import states
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.paths import atomic_write, data_dir
from autograd_drill.store.records import finished, segments
from autograd_drill.store.states import RUNGS, Rung
from autograd_drill.targets import builtin_catalog, full_drill_of, is_full
from autograd_drill.targets import catalog as merged

TYPING_SPEED = 200
"""Characters a minute when retyping code one reads as one goes: about 40 words a minute, a steady
typist's pace on prose, kept for code, whose symbols are slower to type but which one does not
have to think up."""
STEP = 30
"""Rung times are rounded up to this many seconds, and are never less."""


@dataclass(frozen=True)
class RungTime:
    seconds: int
    reasoning: str
    """One sentence: where the time comes from."""


def _rounded_up(seconds: float) -> int:
    return max(STEP, math.ceil(seconds / STEP - 1e-9) * STEP)


def rung_time(drill_id: str, rung: Rung, reference: Path | None = None) -> RungTime:
    """The target time of ``drill_id`` (a target id, or a full drill) on ``rung``, and why; a ValueError
    for an unknown rung, or for a full drill off the recall rung. ``reference``: default the drill's
    pack's. (The stubs are cut and their characters counted here alone: ``drill list`` replays the
    ladder from the times ``target_seconds`` keeps.)"""
    from autograd_drill.loop.stubs import check_rung
    from autograd_drill.targets import reference_of

    rung = check_rung(rung)
    catalog = merged()
    reference = reference or reference_of(drill_id)
    if catalog.is_full(drill_id):
        if rung is not Rung.RECALL:
            raise ValueError("the full drill is recall only: every target from memory at once")
        full = catalog.full_of(drill_id)  # another pack's: its catalog may say why
        why = (
            full.time_reasoning
            if full is not None and full.time_reasoning
            else "the catalog's target time of the full drill"
        )
        return RungTime(catalog.target_time(drill_id), f"recall: {why[0].lower()}{why[1:].rstrip('.')}.")
    target = catalog.get(drill_id)
    recall = target.target_time
    if rung is Rung.RECALL:
        why = target.time_reasoning or "the catalog's target time for writing it from memory"
        return RungTime(recall, f"recall: {why[0].lower()}{why[1:].rstrip('.')}.")
    counts = _counted(drill_id, rung, reference, target.symbols, target.own_id)
    whole, gaps, blanked = counts
    if rung is Rung.COPY:
        seconds = _keep(drill_id, rung, reference, _rounded_up(whole / TYPING_SPEED * 60), counts)
        return RungTime(
            seconds,
            f"copy: {whole} characters of code to retype at {TYPING_SPEED} characters a minute, rounded up to"
            f" the half minute: {format_time(seconds)}.",
        )
    seconds = _keep(drill_id, rung, reference, _rounded_up(recall * blanked / whole), counts)
    return RungTime(
        seconds,
        f"cloze: its {gaps} blank{' carries' if gaps == 1 else 's carry'} {blanked} of the {whole} characters of code ({blanked / whole:.0%})"
        f" of the {format_time(recall)} recall time, rounded up to the half minute: {format_time(seconds)}.",
    )


def _counted(drill_id: str, rung: Rung, reference: Path, symbols: tuple[str, ...], own_id: str) -> tuple[int, int, int]:
    """What the time of ``drill_id`` on ``rung`` (copy or cloze) is worked out from: the characters of
    code the stub shows of ``symbols``, and for a cloze its blanks and the characters they carry (0 and 0
    for a copy). Kept in the data folder with the times for the shipped reference (``_keep``): counting
    them cuts and tokenizes the reference, tens of milliseconds a rung, and ``drill ladder`` shows every
    rung's reasoning."""
    kept = _kept_counts().get(f"{drill_id} {rung}") if reference == REFERENCE else None
    if kept is not None:
        return kept
    text = reference.read_text(encoding="utf-8")
    whole = _characters(text, symbols, own_id)
    return (whole, *_blanked(text, symbols, own_id)) if rung is Rung.CLOZE else (whole, 0, 0)


@lru_cache(maxsize=64)
def _characters(text: str, symbols: tuple[str, ...], own_id: str) -> int:
    """The characters of the code of ``symbols`` that the stub of ``own_id`` shows of the reference
    ``text`` (a pure function of them: worked out once a process for each, not for each rung and view
    that asks; ``drill ladder`` asks for each target's copy and cloze)."""
    from autograd_drill.loop.retype import body_lines, typed_characters
    from autograd_drill.loop.stubs import reference_for

    source = reference_for(text, [own_id])  # what its stub shows
    lines = body_lines(source, symbols)
    return typed_characters(source, {line for s in symbols for line in lines[s]})


@lru_cache(maxsize=64)
def _blanked(text: str, symbols: tuple[str, ...], own_id: str) -> tuple[int, int]:
    """The cloze stub's blanks of ``symbols`` in the reference ``text``: how many, and the characters
    of code they carry."""
    import textwrap

    from autograd_drill.loop.retype import typed_characters
    from autograd_drill.loop.stubs import cut, reference_for

    gaps = cut(reference_for(text, [own_id]), symbols, [own_id], Rung.CLOZE).gaps
    return len(gaps), sum(typed_characters(textwrap.dedent(gap.blanked)) for gap in gaps)


@dataclass(frozen=True)
class Outcome:
    """One attempt at a target on a rung, as the ladder reads it."""

    passed: bool
    seconds: float | None
    """Its time to the pass (or to where it ended); None when unknown."""
    assisted: bool = False
    """Hints, a peek: it passed, but not on its own."""
    gave_up: bool = False


def moved(rung: Rung, outcomes: Sequence[Outcome], target_seconds: float) -> Rung:
    """The rung a target is on after ``outcomes``: its attempts on ``rung`` since it last moved,
    oldest first, ``target_seconds`` that rung's target time.

    A pass, unassisted and within the time, moves it up one (recall is the top); giving up, or going
    over the time twice in a row, moves it down one (copy is the bottom). Anything else keeps it."""
    if not outcomes:
        return rung
    at = RUNGS.index(rung)
    last = outcomes[-1]

    def over(outcome: Outcome) -> bool:
        return outcome.seconds is not None and outcome.seconds > target_seconds

    if last.passed and not last.assisted and not over(last):
        return RUNGS[min(at + 1, len(RUNGS) - 1)]
    if last.gave_up or (len(outcomes) >= 2 and over(outcomes[-1]) and over(outcomes[-2])):
        return RUNGS[max(at - 1, 0)]
    return rung


# ---------------------------------------------------------------------------- where a target is

FIRST = RUNGS[0]
"""The rung of a target never attempted: someone who does not know the engine yet retypes it first."""


def target_seconds(drill_id: str, rung: Rung) -> int:
    """``rung_time(drill_id, rung).seconds`` of the reference. Copy and cloze times cost a few tens of
    milliseconds each (the reference cut and tokenized), and replaying a history needs one per rung
    drilled: they are kept in the data folder, for as long as the reference and the catalog are the
    same, so that ``drill list`` stays fast."""
    if rung is Rung.RECALL:
        return rung_time(drill_id, rung).seconds
    kept = _kept_times().get(f"{drill_id} {rung}")
    return kept if kept is not None else rung_time(drill_id, rung).seconds  # which keeps it


def _keep(drill_id: str, rung: str, reference: Path, seconds: int, counts: tuple[int, int, int]) -> int:
    """``seconds``, the time of ``drill_id`` on ``rung`` (copy or cloze) just computed, kept for
    ``target_seconds`` when it is the shipped reference's (so that ``drill start`` keeps the time of the
    rung it starts, and ``drill status`` reads it), with the ``counts`` it comes from (``_counted``)."""
    times, counted, key = _kept_times(), _kept_counts(), f"{drill_id} {rung}"
    if reference == REFERENCE and (times.get(key), counted.get(key)) != (seconds, counts):
        times[key], counted[key] = seconds, counts
        import json

        try:
            kept = {"for": _fingerprint(), "times": times, "counts": counted}
            atomic_write(_times_file(), json.dumps(kept))
        except OSError:
            pass  # a read-only data folder: computed again next time
    return seconds


def _times_file() -> Path:
    return data_dir() / "rung-times.json"


@cache
def _fingerprint() -> str:
    """What the rung times depend on: the reference, the catalog, the typing speed and the rounding, and
    the code that cuts the stubs and counts their characters (what a stub shows changes them)."""
    digest = hashlib.sha256(f"{TYPING_SPEED} {STEP}".encode())
    here = Path(__file__).resolve().parent
    for path in (REFERENCE, CATALOG_FILE, *(here / f"{name}.py" for name in ("ladder", "stubs", "cloze", "retype"))):
        digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def _kept_times() -> dict[str, int]:
    """The rung times kept in the data folder, if they are of this reference and catalog."""
    try:
        return {k: int(v) for k, v in _kept("times").items()}
    except (ValueError, TypeError):
        return {}


@cache
def _kept_counts() -> dict[str, tuple[int, int, int]]:
    """The counts the kept rung times come from (``_counted``), if they are of this reference and catalog."""
    try:
        counts = {k: (int(a), int(b), int(c)) for k, (a, b, c) in _kept("counts").items()}
    except (ValueError, TypeError):
        return {}
    return {k: v for k, v in counts.items() if v[0] > 0}  # a count of no code is none: counted again


def _kept(part: str) -> dict[str, Any]:
    """``part`` of what the data folder keeps for the rung times, if it is of this reference and catalog."""
    import json  # here: drill list reads these times only once a target was drilled on copy or cloze

    try:
        kept = json.loads(_times_file().read_text(encoding="utf-8"))
        if kept.get("for") == _fingerprint() and isinstance(kept.get(part), dict):
            return kept[part]
    except (OSError, ValueError, AttributeError):
        pass
    return {}


def outcome(attempt: Attempt) -> Outcome:
    """A finished attempt as the ladder reads it."""
    ended = attempt.outcome
    return Outcome(
        ended is states.Outcome.PASSED, attempt.clock_at_end, attempt.assisted, ended is states.Outcome.GAVE_UP
    )


@dataclass(frozen=True)
class Place:
    """Where a target stands on the ladder, replayed from its finished attempts."""

    target: str
    rung: Rung
    overs: int
    """Passes over the rung's time in a row since it last moved (one more, and it moves down)."""
    attempted: bool
    """It has a finished attempt (of any rung)."""


def split_outcomes(target: str, runs: Iterable[Attempt]) -> list[tuple[float, int, Outcome]]:
    """A core target's splits in the finished full drills among ``runs``, as recall passes (end time,
    run id, outcome): the target written from memory, its time the split's segment. A shared segment's
    time is scaled to the target's own recall time, so that it is over exactly when the segment is over
    its targets' recall times added up (as the schedule rates it)."""
    catalog = merged()
    full = _full_of(target)
    if full is None:
        return []
    out = []
    for run in finished(r for r in runs if r.target == full):
        segment = next((s for s in segments(run) if target in s.targets), None)
        if segment is None:
            continue
        own = catalog.get(target).target_time
        limit = sum(catalog.get(t).target_time for t in segment.targets)
        seconds = segment.seconds * own / limit if limit else segment.seconds
        out.append((run.ended_at or run.started_at, run.id, Outcome(True, seconds, run.assisted)))
    return out


def place(target: str, attempts: Iterable[Attempt]) -> Place:
    """Replay ``moved`` over the target's finished attempts (passed or given up; an abandoned one is
    a reset), in the order they ended, its splits in the full drills among ``attempts`` included: a
    split is a recall pass (``split_outcomes``), the same one the schedule counts as a review. An
    attempt on a higher rung than the target's (``drill start --rung``) puts it on that rung first:
    you chose to climb. One on a lower rung is practice: it moves the target neither down nor up (a
    recall-level user who retypes once stays on recall). ``full`` is recall only."""
    if is_full(target):
        return Place(target, Rung.RECALL, 0, False)
    attempts = list(attempts)
    events = [
        (a.ended_at or a.started_at, a.id, a.rung, outcome(a))
        for a in finished(a for a in attempts if a.target == target)
    ]
    events += [(at, run_id, Rung.RECALL, done) for at, run_id, done in split_outcomes(target, attempts)]
    events.sort(key=lambda e: (e[0], e[1]))
    rung: Rung | None = None
    since: list[Outcome] = []
    for _, _, on, done in events:
        if rung is not None and RUNGS.index(on) < RUNGS.index(rung):
            continue  # practice below the target's rung
        if on != rung:
            rung, since = on, []
        since.append(done)
        after = moved(rung, since, target_seconds(target, rung))
        if after != rung:
            rung, since = after, []
    if rung is None:
        return Place(target, FIRST, 0, False)
    seconds = target_seconds(target, rung)
    overs = int(bool(since) and since[-1].passed and since[-1].seconds is not None and since[-1].seconds > seconds)
    return Place(target, rung, overs, True)


def current_rung(history: History, target: str) -> Rung:
    """The rung ``drill start TARGET`` starts."""
    full = _full_of(target)
    return place(target, [*history.attempts(target), *(history.attempts(full) if full else [])]).rung


def _full_of(drill_id: str) -> str | None:
    """The full drill that blanks the target ``drill_id`` (``full``, ``layers/full``); None for a
    follow-up or a full drill."""
    return None if is_full(drill_id) else full_drill_of(merged().get(drill_id))


# ---------------------------------------------------------------------------- the README's table

TABLE_START = (
    "<!-- rung times: generated by  python -m autograd_drill.loop.ladder --readme ; tests/test_ladder.py checks it -->"
)
TABLE_END = "<!-- end of rung times -->"


def rung_table() -> str:
    """The built-in pack's drills' rung times as a Markdown table, from ``rung_time`` (what the README shows)."""
    catalog = builtin_catalog()
    rows = [
        "| drill | copy | cloze | recall |",
        "|---|---|---|---|",
    ]
    for drill_id in catalog.drill_ids:
        if drill_id == FULL:
            rows.append(f"| `{FULL}` | | | {format_time(rung_time(FULL, Rung.RECALL).seconds)} |")
            continue
        copy, cloze, recall = (rung_time(drill_id, r) for r in RUNGS)
        characters = copy.reasoning.split(" characters")[0].removeprefix("copy: ")
        blanks = cloze.reasoning.split(" carr")[0].removeprefix("cloze: its ")
        share = cloze.reasoning.split("(")[1].split(")")[0]
        rows.append(
            f"| `{drill_id}` | {format_time(copy.seconds)} ({characters} characters)"
            f" | {format_time(cloze.seconds)} ({blanks}, {share} of the code) | {format_time(recall.seconds)} |"
        )
    return "\n".join([TABLE_START, *rows, TABLE_END])


def readme_with_table(readme: str) -> str:
    """``readme`` with its rung-time table (between ``TABLE_START`` and ``TABLE_END``) regenerated."""
    start, end = readme.index(TABLE_START), readme.index(TABLE_END) + len(TABLE_END)
    return readme[:start] + rung_table() + readme[end:]


if __name__ == "__main__":  # python -m autograd_drill.loop.ladder [--readme]: print the table, or rewrite the README's
    import sys

    readme = Path(__file__).resolve().parents[2] / "README.md"
    if sys.argv[1:] == ["--readme"]:
        readme.write_text(readme_with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(rung_table())
