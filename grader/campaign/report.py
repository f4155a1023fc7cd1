"""The equivalent mutants (grader/campaign.toml, or a pack's campaign.toml), the tally per target, and the report
(grader/campaign-report.md, or the pack's campaign-report.md)."""

from __future__ import annotations

import datetime as dt
import hashlib
import subprocess
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from autograd_drill.grader.campaign.grading import Outcome
from autograd_drill.grader.campaign.mutate import Mutant
from autograd_drill.grader.campaign.operators import family
from autograd_drill.grader.campaign.subject import ROOT, Subject, autograd
from autograd_drill.grader.catalog import Catalog

EQUIVALENTS = autograd().equivalents
"""The autograd pack's (grader/campaign.toml); a pack's is its Subject's."""
REPORT = autograd().report
GOAL = 0.95
"""The share of non-equivalent mutants each target must kill."""


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


@dataclass
class OperatorTally:
    family: str
    """An operator family (autograd_drill.grader.campaign.operators.family): ``name -> constant``, ``comparison``."""
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    equivalent: int = 0

    @property
    def rate(self) -> float:
        graded = self.killed + self.survived
        return self.killed / graded if graded else 1.0


def tally_operators(outcomes: Sequence[Outcome], equivalents: Sequence[Equivalent]) -> list[OperatorTally]:
    """Per operator family (most mutants first), its mutants' fate; each mutant counted once."""
    listed = {e.id for e in equivalents}
    rows: dict[str, OperatorTally] = {}
    for outcome in outcomes:
        name = family(outcome.mutant.operator)
        row = rows.setdefault(name, OperatorTally(name))
        row.mutants += 1
        if outcome.killed:
            row.killed += 1
        elif outcome.mutant.id in listed:
            row.equivalent += 1
        else:
            row.survived += 1
    return sorted(rows.values(), key=lambda r: (-r.mutants, r.family))


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


def _versions(reference_text: str | None, subject: Subject) -> str:
    """The commit, the reference that was mutated, and whether it or the grader (a pack's tests
    too) differ from the commit."""
    head = _git("rev-parse", "--short", "HEAD").strip()
    if not head:
        return "not a git checkout"
    text = f"commit {head}"
    ref = subject.shown(subject.reference)
    if reference_text is not None:
        text += f"; {ref} as blob {blob(reference_text)}"
    tests = [subject.shown(subject.suite.tests)] if subject.suite else []
    changed = _git("status", "--porcelain", "--", ref, "grader", *tests, ":!grader/campaign*")
    dirty = sorted({line[3:] for line in changed.splitlines() if line.strip()})
    if dirty:
        grader = [p for p in dirty if p.startswith(("grader/", *tests))]
        where = "grader/" + (f" and {tests[0]}/" if tests else "")
        parts = ([ref] if ref in dirty else []) + (
            [f"{len(grader)} file{'s' if len(grader) != 1 else ''} of {where}"] if grader else []
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
    subject: Subject | None = None,
) -> str:
    subject = subject or autograd()
    rows = tally(outcomes, equivalents, catalog)
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# Mutation campaign" + ("" if subject.suite is None else f" of the {subject.name} pack"),
        "",
        f"Generated by `{command}` on {now} in {seconds / 60:.1f} min ({len(outcomes)} mutants); {_versions(reference_text, subject)}.",
        "",
        *_preamble(subject),
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
    out += [
        "",
        "Per operator family (each mutant counted once, whichever targets grade it):",
        "",
        "| operator | mutants | killed | survived | equivalent | kill rate |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for op in tally_operators(outcomes, equivalents):
        out.append(f"| {op.family} | {op.mutants} | {op.killed} | {op.survived} | {op.equivalent} | {op.rate:.1%} |")
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
        out += ["", f"## {subject.shown(subject.equivalents)} to update", ""]
        out += [f"- `{o.mutant.id}` is listed as equivalent but was killed: {o.first_failure}" for o, _ in wrong]
        out += [f"- {line}" for line in stale]
    text = "\n".join(out).rstrip() + "\n"
    return text.replace("\n\n\n", "\n\n")


def _preamble(subject: Subject) -> list[str]:
    """What a mutant is, and what the columns count."""
    if subject.suite is None:
        return [
            "Each mutant is `reference/engine.py` with one change inside a function a catalog target blanks,",
            "graded at that target (grader/campaign/__init__.py says which changes). *Killed*: the target fails;",
            "*survived*: it passes, so the grader misses that bug; *equivalent*: no input the contract admits",
            "tells it from the reference (grader/campaign.toml argues each). A `Tensor.backward` mutant is",
            "graded at backward, cotangent and free-memory, and counts as killed in each row if any kills it.",
        ]
    return [
        f"Each mutant is `{subject.shown(subject.reference)}` with one change inside a function a target of",
        "its catalog blanks, graded at that target by the pack's oracle tests",
        f"(`{subject.shown(subject.suite.tests)}/`; grader/campaign/__init__.py says which changes).",
        "*Killed*: the target fails; *survived*: it passes, so the grader misses that bug; *equivalent*: no",
        f"input the contract admits tells it from the reference (`{subject.shown(subject.equivalents)}` argues each).",
    ]


T = TypeVar("T")


def _grouped(items: Sequence[tuple[str, T]]) -> Iterator[tuple[str, list[T]]]:
    groups: dict[str, list[T]] = {}
    for key, item in items:
        groups.setdefault(key, []).append(item)
    yield from groups.items()
