"""The question bank of ``drill interview``: explanation questions with strong answers, and the
follow-up drill paired with each core target, loaded from ``questions.toml`` into frozen dataclasses
and checked against the catalog.

``load_bank()`` is the union of every installed pack's questions.toml (grader/packs.py ``Pack.questions``):
the built-in pack's first, as before packs (bare ids and targets: an interview history reads unchanged),
then each other pack's, checked against its own catalog and then named as the merged catalog names its
drills: targets and follow-ups canonical (``layers/layernorm``); a question id another pack took already
qualified the same way (``layers/<id>``). A pack's file that does not load is one line on stderr and no
questions of that pack; the built-in bank's problems stay errors (BankError), as before."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from autograd_drill.grader.catalog import Catalog, load_catalog

if TYPE_CHECKING:
    from autograd_drill.grader.packs import Pack

QUESTIONS_FILE = Path(__file__).with_name("questions.toml")
MIN_POINTS, MAX_POINTS = 3, 6
"""Key points per question: enough to rate an answer by, few enough to tick off."""
DIFFICULTIES = (1, 2, 3)
TIME_BOX = (60, 900)
"""The shortest and longest time box, in seconds."""
ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class BankError(ValueError):
    """A question bank that cannot be used: one line, naming the file and the question."""


@dataclass(frozen=True)
class Question:
    id: str
    prompt: str
    answer: str
    """A strong answer, a few short paragraphs, each on one line."""
    points: tuple[str, ...]
    """The key points a strong answer covers: the share you covered is the rating."""
    target: str
    """The catalog target it goes with (core or follow-up)."""
    difficulty: int
    """1 (a definition), 2 (a mechanism), 3 (a design to reason about)."""
    time_box: int
    """Seconds to answer in."""


@dataclass(frozen=True)
class Bank:
    questions: tuple[Question, ...]
    """In the file's order."""
    follow_ups: dict[str, str]
    """Core target id -> the follow-up drill asked for once it passes."""

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(q.id for q in self.questions)

    def get(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(question_id)

    def follow_up(self, target_id: str) -> str | None:
        return self.follow_ups.get(target_id)


def reflowed(text: str) -> str:
    """Paragraphs (split at blank lines) each on one line: the terminal and Markdown wrap them."""
    return "\n\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip())


def _text(raw: dict[str, object], name: str, where: str) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise BankError(f"{where}: '{name}' must be a non-empty string")
    return value.strip()


def _int(raw: dict[str, object], name: str, where: str) -> int:
    value = raw.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BankError(f"{where}: '{name}' must be an integer")
    return value


def _question(raw: dict[str, object], where: str, catalog: Catalog) -> Question:
    qid = _text(raw, "id", where)
    where = f"{where} ({qid})"
    if not ID.fullmatch(qid):
        raise BankError(f"{where}: an id is lowercase words joined by dashes")
    prompt, answer, target = (_text(raw, name, where) for name in ("prompt", "answer", "target"))
    if target not in catalog.all_ids:
        raise BankError(f"{where}: unknown target {target!r}; targets: {', '.join(catalog.all_ids)}")
    points = raw.get("points")
    if not isinstance(points, list) or not all(isinstance(p, str) and p.strip() for p in points):
        raise BankError(f"{where}: 'points' must be a list of non-empty strings")
    if not MIN_POINTS <= len(points) <= MAX_POINTS:
        raise BankError(f"{where}: {len(points)} key points; a question has {MIN_POINTS} to {MAX_POINTS}")
    if len({p.strip() for p in points}) != len(points):
        raise BankError(f"{where}: two key points are the same")
    difficulty = _int(raw, "difficulty", where)
    if difficulty not in DIFFICULTIES:
        raise BankError(f"{where}: difficulty is 1, 2 or 3, not {difficulty}")
    time_box = _int(raw, "time_box", where)
    if not TIME_BOX[0] <= time_box <= TIME_BOX[1]:
        raise BankError(f"{where}: time_box is {TIME_BOX[0]} to {TIME_BOX[1]} seconds, not {time_box}")
    unknown = set(raw) - {"id", "prompt", "answer", "target", "points", "difficulty", "time_box"}
    if unknown:
        raise BankError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    return Question(qid, prompt, reflowed(answer), tuple(p.strip() for p in points), target, difficulty, time_box)


def _follow_ups(raw: object, name: str, catalog: Catalog) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise BankError(f"{name}: [follow_up] maps core target ids to follow-up drill ids")
    follow_ups = {}
    extensions = tuple(t.id for t in catalog.extensions)
    for core, drill in raw.items():
        if core not in catalog.ids:
            raise BankError(f"{name}: [follow_up] {core!r} is not a core target ({', '.join(catalog.ids)})")
        if drill not in extensions:
            raise BankError(
                f"{name}: [follow_up] {core} = {drill!r} is not a follow-up drill ({', '.join(extensions)})"
            )
        follow_ups[core] = drill
    return follow_ups


def parse_bank(text: str, name: str, catalog: Catalog) -> Bank:
    """The bank a TOML text holds; a BankError naming ``name`` and the question otherwise."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BankError(f"{name} is not valid TOML: {exc}") from None
    entries = raw.get("question")
    if not isinstance(entries, list) or not entries:
        raise BankError(f"{name} holds no [[question]]")
    questions = []
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise BankError(f"{name}, question {i}: a [[question]] is a table")
        question = _question(entry, f"{name}, question {i}", catalog)
        if any(q.id == question.id for q in questions):
            raise BankError(f"{name}, question {i}: the id {question.id!r} is used twice")
        questions.append(question)
    return Bank(tuple(questions), _follow_ups(raw.get("follow_up", {}), name, catalog))


def load_bank(path: Path | None = None) -> Bank:
    """The bank of every installed pack (module docstring); with ``path``, that one file's alone,
    checked against the built-in catalog."""
    if path is not None:
        return file_bank(path)
    from autograd_drill.grader.packs import installed

    return merged_bank(installed())


@cache
def file_bank(path: Path = QUESTIONS_FILE) -> Bank:
    """One questions.toml checked against the built-in catalog (the built-in pack's bank)."""
    from autograd_drill.targets import builtin_catalog

    return parse_bank(path.read_text(encoding="utf-8"), path.name, builtin_catalog())


@cache
def merged_bank(packs: tuple[Pack, ...]) -> Bank:
    """The union of these packs' banks, the first (the built-in pack) as ``file_bank`` reads it."""
    from autograd_drill.grader.packs import warn_part
    from autograd_drill.targets import canonical

    core = file_bank()
    questions, follow_ups = list(core.questions), dict(core.follow_ups)
    for pack in packs[1:]:
        try:
            text = pack.questions.read_text(encoding="utf-8")
            own = parse_bank(text, str(pack.questions), load_catalog(pack.catalog))
        except (BankError, OSError, UnicodeDecodeError) as exc:
            warn_part(pack.name, "interview questions", exc)
            continue
        taken = {q.id for q in questions}
        for question in own.questions:
            qid = canonical(pack.name, question.id) if question.id in taken else question.id
            questions.append(replace(question, id=qid, target=canonical(pack.name, question.target)))
        for task, follow in own.follow_ups.items():
            follow_ups[canonical(pack.name, task)] = canonical(pack.name, follow)
    return Bank(tuple(questions), follow_ups)
