"""The drill catalog: the targets of docs/contract.md, loaded from ``catalog.toml`` into frozen dataclasses."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CATALOG_FILE = Path(__file__).with_name("catalog.toml")
FULL = "full"
"""The id of the full drill: every core target blank at once, one split per target."""
BUILTIN = "autograd"
"""The built-in pack's name (grader/packs.py): its ids are bare, ``autograd/ID`` typed is ``ID``."""
SEPARATOR = "/"
"""Between a pack's name and its own id in a canonical id: ``layers/layernorm``."""


def canonical(pack: str, local: str) -> str:
    """The canonical id of the id ``local`` of the pack named ``pack``: bare for the built-in pack."""
    return local if pack == BUILTIN else f"{pack}{SEPARATOR}{local}"


def pack_name(drill_id: str) -> str:
    """The name of the pack a canonical id is of (``layers/layernorm`` -> ``layers``, ``max`` -> autograd)."""
    name, slash, _ = drill_id.partition(SEPARATOR)
    return name if slash else BUILTIN


def local_id(drill_id: str) -> str:
    """A canonical id as its pack's own catalog names it (``layers/layernorm`` -> ``layernorm``)."""
    _, slash, local = drill_id.partition(SEPARATOR)
    return local if slash else drill_id


def listed(names: Sequence[str]) -> str:
    """Names as a sentence lists them: ``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def parse_time(text: str) -> int:
    """``"5:00"`` -> 300 seconds."""
    minutes, _, seconds = text.partition(":")
    if not (minutes.isdigit() and seconds.isdigit() and len(seconds) == 2 and int(seconds) < 60):
        raise ValueError(f"a target time is written m:ss, got {text!r}")
    return int(minutes) * 60 + int(seconds)


def format_time(seconds: float) -> str:
    """300 -> ``"5:00"``; negative durations get a minus sign."""
    sign = "-" if seconds < 0 else ""
    whole = int(round(abs(seconds)))
    return f"{sign}{whole // 60}:{whole % 60:02d}"


@dataclass(frozen=True)
class Target:
    """One drill: a group of engine symbols re-implemented from memory against a target time."""

    id: str
    """What users type: ``drill start <id>``."""
    marker: str
    """The pytest marker of its oracle tests in ``grader/``."""
    symbols: tuple[str, ...]
    """Blanked in its stub: ``name`` or ``Class.method`` of ``reference/engine.py``."""
    target_time: int
    """Seconds a practised user needs."""
    needs: tuple[str, ...]
    """Ids of the targets whose code this target's tests run too (besides ``Tensor.__init__``): probed
    when one of its tests fails on values. Listed before it."""
    summary: str
    """One line for ``drill list``."""
    hints: tuple[str, ...]
    """Progressive hints, one more per ``drill hint``."""
    extension: bool = False
    """Beyond the core targets: not in ``full``, graded only when named."""
    time_reasoning: str = ""
    """Why the target time is what it is (extension targets)."""
    runs: tuple[str, ...] = ()
    """Symbols of other targets that some of its tests run, besides those of ``needs`` (not probed;
    their targets may come after it): a change to them grades it again (drills/loop/incremental.py)."""
    pack: str = BUILTIN
    """The name of the pack it is of (grader/packs.py). In the merged catalog of every installed pack
    (drills/targets.py) another pack's ``id`` and ``needs`` are canonical (``layers/layernorm``);
    ``marker`` and ``symbols`` stay the pack's own (its tests' marker, its reference's names)."""

    @property
    def own_id(self) -> str:
        """The id its pack's own catalog gives it (``layernorm`` for ``layers/layernorm``): what its pack's
        tests and their report name it by."""
        return local_id(self.id)


@dataclass(frozen=True)
class Full:
    """Another pack's full drill in the merged catalog (drills/targets.py): ``P/full``."""

    id: str
    """Canonical: ``layers/full``."""
    pack: str
    targets: tuple[Target, ...]
    """The pack's core targets, canonical ids, in its order: what it blanks, one split each."""
    target_time: int
    summary: str = ""
    time_reasoning: str = ""
    """Why its target time is what it is (its catalog's ``[full]`` ``time_reasoning``, if any)."""


@dataclass(frozen=True)
class Catalog:
    targets: tuple[Target, ...]
    """The core targets, in dependency order: what ``full`` and ``drill grade`` cover."""
    full_time: int
    """Target time of the ``full`` drill, which blanks every core target at once."""
    extensions: tuple[Target, ...] = ()
    """The follow-up targets, each drilled and graded on its own."""
    full_summary: str = ""
    """One line for ``drill list``: what the ``full`` drill is."""
    full_reasoning: str = ""
    """Why the full drill's target time is what it is: its ``[full]`` table's ``time_reasoning``, if any."""
    others: tuple[Target, ...] = ()
    """The merged catalog's (drills/targets.py): every other installed pack's targets, canonical ids,
    pack by pack, each pack's core targets then its follow-ups. Empty in a pack's own catalog."""
    fulls: tuple[Full, ...] = ()
    """The merged catalog's: every other installed pack's full drill (``layers/full``), in pack order."""

    @property
    def every(self) -> tuple[Target, ...]:
        return self.targets + self.extensions + self.others

    @property
    def ids(self) -> tuple[str, ...]:
        """The core targets' ids."""
        return tuple(t.id for t in self.targets)

    @property
    def all_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.every)

    @property
    def drill_ids(self) -> tuple[str, ...]:
        """Everything ``drill start`` takes, in the one order the tool lists them: the core targets,
        ``full``, then the follow-ups; then each other pack's drills in the same order (merged catalog)."""
        ids = [*self.ids, FULL, *(t.id for t in self.extensions)]
        for full in self.fulls:
            mine = [t for t in self.others if t.pack == full.pack]
            ids += [*(t.id for t in mine if not t.extension), full.id, *(t.id for t in mine if t.extension)]
        return tuple(ids)

    def full_of(self, drill_id: str) -> Full | None:
        """The other pack's full drill of this id (``layers/full``), if it is one."""
        return next((f for f in self.fulls if f.id == drill_id), None)

    def is_full(self, drill_id: str) -> bool:
        """``drill_id`` is a full drill: ``full`` or another pack's (``layers/full``)."""
        return drill_id == FULL or self.full_of(drill_id) is not None

    def get(self, target_id: str) -> Target:
        """The target with this id; a KeyError that suggests the closest id otherwise. ``full`` is no
        one target: a NotOneTarget (a KeyError too) says so, where the caller takes one target only
        (the callers that take ``full`` go through ``drilled``)."""
        for target in self.every:
            if target.id == target_id:
                return target
        if target_id == FULL:
            raise NotOneTarget(self.all_ids)
        if (full := self.full_of(target_id)) is not None:
            raise NotOneTarget(tuple(t.id for t in self.every if t.pack == full.pack), full.id)
        pack = pack_name(target_id)
        if pack != BUILTIN and all(f.pack != pack for f in self.fulls):
            raise PackNotInstalled(target_id, pack)  # an id the history keeps of a pack gone
        raise UnknownTarget(target_id, self.drill_ids)

    def resolve(self, typed: str) -> str:
        """The canonical drill id a user typed, an UnknownTarget that suggests the closest id otherwise.
        Typed: a canonical id (``full``, ``max``, ``layers/layernorm``, ``layers/full``); ``autograd/ID``
        for a built-in id; a bare id of another pack that one installed pack alone has and the built-in
        pack has not (``layernorm``); ``_`` for ``-`` anywhere in the id. A bare id several other packs
        have is an AmbiguousTarget naming the qualified ids."""
        known = self.drill_ids
        pack, slash, bare = typed.rpartition("/")
        for candidate in dict.fromkeys((bare, bare.replace("_", "-"))):
            if slash and pack == BUILTIN:
                if candidate in known and "/" not in candidate:
                    return candidate
                continue
            wanted = f"{pack}/{candidate}" if slash else candidate
            if wanted in known:
                return wanted
            if not slash:
                clash = [i for i in known if i.endswith(f"/{candidate}")]
                if len(clash) == 1:
                    return clash[0]
                if clash:
                    raise AmbiguousTarget(typed, tuple(clash))
        raise UnknownTarget(typed.replace("_", "-"), known)  # as before packs: named with - for _

    def drilled(self, drill_id: str) -> tuple[Target, ...]:
        """The targets a drill blanks: one, or every core target of its pack for a full drill."""
        if drill_id == FULL:
            return self.targets
        full = self.full_of(drill_id)
        return full.targets if full is not None else (self.get(drill_id),)

    def target_time(self, drill_id: str) -> int:
        """Seconds to beat in the drill ``drill_id`` (``full`` and ``layers/full`` included)."""
        if drill_id == FULL:
            return self.full_time
        full = self.full_of(drill_id)
        return full.target_time if full is not None else self.get(drill_id).target_time

    def top_level_names(self) -> tuple[str, ...]:
        """The names a solution file defines (``unbroadcast``, ``Tensor``, ...), in catalog order."""
        names = [s.split(".")[0] for t in self.targets for s in t.symbols]
        return tuple(dict.fromkeys(names))

    def owner(self, symbol: str) -> Target | None:
        """The target whose stub blanks ``symbol`` (``"Tensor.__add__"``), if any."""
        return next((t for t in self.every if symbol in t.symbols), None)


class UnknownTarget(KeyError):
    def __init__(self, target_id: str, known: tuple[str, ...]) -> None:
        import difflib  # here, not at the top: every grading interpreter and drill command imports this module

        others = [k for k in known if k != target_id]  # never "did you mean" what was typed
        close = difflib.get_close_matches(target_id, others, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        self.message = f"unknown target {target_id!r}.{hint} Targets: {', '.join(known)}."
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class NotOneTarget(UnknownTarget):
    """``full`` (or ``layers/full``) where one target is asked for: it is the drill of every core target."""

    def __init__(self, known: tuple[str, ...], full: str = FULL) -> None:
        KeyError.__init__(self, full)
        self.message = f"{full} is the drill of every core target, not one target: name one of {', '.join(known)}."


class PackNotInstalled(UnknownTarget):
    """A drill id of a pack that is not installed (any more): the history has it, no catalog does."""

    def __init__(self, typed: str, pack: str) -> None:
        KeyError.__init__(self, typed)
        self.message = (
            f"target {typed!r}: pack {pack} is not installed "
            f"(pip install the package that provides it; drill packs lists the packs installed)."
        )


class AmbiguousTarget(UnknownTarget):
    """A bare id that several installed packs (none the built-in one) have: which one is asked."""

    def __init__(self, typed: str, qualified: tuple[str, ...]) -> None:
        KeyError.__init__(self, typed)
        self.message = f"target {typed!r} is in several packs: name one of {', '.join(qualified)}."


def find_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Where each symbol of a module is defined: its functions as ``name``, its methods as ``Class.name``
    (the way the catalog names symbols)."""
    found: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


@cache
def load_catalog(path: Path = CATALOG_FILE) -> Catalog:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    every = tuple(
        Target(
            id=t["id"],
            marker=t["marker"],
            symbols=tuple(t["symbols"]),
            target_time=parse_time(t["target_time"]),
            needs=tuple(t["needs"]),
            summary=t["summary"],
            hints=tuple(t["hints"]),
            extension=t.get("extension", False),
            time_reasoning=t.get("time_reasoning", ""),
            runs=tuple(t.get("runs", ())),
        )
        for t in raw["target"]
    )
    return Catalog(
        targets=tuple(t for t in every if not t.extension),
        full_time=parse_time(raw["full"]["target_time"]),
        extensions=tuple(t for t in every if t.extension),
        full_summary=raw["full"]["summary"],
        full_reasoning=reasoning if isinstance(reasoning := raw["full"].get("time_reasoning", ""), str) else "",
    )
