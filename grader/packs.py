"""Drill packs: the catalog, reference, oracle tests, recording, review cards and interview questions of
one family of from-scratch tasks, named by one frozen ``Pack`` (docs/packs.md).

A pack is declared by an entry point of the group ``autograd_drill.packs`` whose value is a callable
returning a ``Pack`` (or a ``Pack`` itself). The autograd engine is the built-in pack: ``builtin()``
is always first in ``installed()``, called directly, whatever the entry points say. Our own
pyproject.toml declares it too, as ``autograd_drill.grader.packs:builtin``: that entry point adds
nothing. A pack
that does not load (its entry point raises, returns no Pack, is named otherwise, has a path missing or
relative, a catalog that does not load, or a name already taken) is left out and kept in
``not_loaded()`` as its name and a one-line reason: never a traceback.

Importing this module imports nothing heavy (no NumPy, no pytest): ``drill list`` reads it.
"""

from __future__ import annotations

import re
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from autograd_drill.grader.catalog import BUILTIN, CATALOG_FILE, FULL, load_catalog
from autograd_drill.reference import ENGINE

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "autograd_drill.packs"
"""The entry point group a pack declares itself in."""
OURS = "autograd_drill.grader.packs:builtin"
"""The value of the built-in pack's entry point in our pyproject.toml (written as the module is named
once the tool is one ``autograd_drill`` package)."""
NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
"""A pack's name: what qualifies its targets (``layers/layernorm``), so no slash, no capitals."""
TARGET_ID = re.compile(r"[a-z][a-z0-9_-]{0,63}")
"""A target id of a pack's catalog: the name of its drill's file (``layers/layernorm.py``), so no slash."""
HERE = Path(__file__).resolve().parent
UNKNOWN = "?"
"""The name a problem goes by when no entry point could be read at all."""


@dataclass(frozen=True)
class Pack:
    """One family of drills, as the tool needs it: every path absolute, every file there."""

    name: str
    """Unique among the installed packs; the qualifier of a target id that clashes (``layers/layernorm``)."""
    title: str
    """One line for ``drill packs``."""
    version: str
    """The pack's version (its distribution's, as a rule)."""
    root: Path
    """The pack's folder (a package directory)."""
    catalog: Path
    """Its ``catalog.toml``: the format of grader/catalog.toml (``[[target]]`` and ``[full]``)."""
    reference: Path
    """Its reference module (one .py file): stubs are cut from it, ``drill diff`` shows it."""
    tests: Path
    """The folder of its ``test_<marker>.py`` oracle tests."""
    recording: Path
    """Its recorded oracle (.npz): answers by test id and input digest."""
    reviews: Path
    """Its review cards: the format of drills/views/reviews.toml."""
    questions: Path
    """Its interview questions: the format of drills/interview/questions.toml."""


FILES = ("catalog", "reference", "recording", "reviews", "questions")
"""The fields of a Pack that name a file; ``root`` and ``tests`` name folders."""


def tool_folder(grader: Path = HERE) -> Path:
    """The folder of the tool's own package (drills/), found from the grader's without importing it.
    In the source tree, and in any install made before the rename, drills/ and grader/ are siblings;
    in a wheel of the one ``autograd_drill`` package, drills/ *is* the package and grader/ is inside it
    (pyproject.toml's package-dir). Whichever holds ``views/reviews.toml``; the sibling otherwise (a
    Pack whose files are missing then says so)."""
    for folder in (grader.parent / "drills", grader.parent):
        if (folder / "views" / "reviews.toml").is_file():
            return folder
    return grader.parent / "drills"


@cache
def builtin() -> Pack:
    """The autograd engine: the pack every drill was before packs existed (its ids, times and history
    unchanged)."""
    tool = tool_folder()
    return Pack(
        name=BUILTIN,
        title="A tensor autograd engine in NumPy, graded against torch.autograd",
        version=getattr(sys.modules[__name__.partition(".")[0]], "__version__", "unknown"),  # the tool's
        root=HERE,
        catalog=CATALOG_FILE,
        reference=ENGINE,
        tests=HERE,
        recording=HERE / "recorded" / "oracle.npz",
        reviews=tool / "views" / "reviews.toml",
        questions=tool / "interview" / "questions.toml",
    )


def installed() -> tuple[Pack, ...]:
    """The packs that load, the built-in one first, then the entry points' in their order."""
    return (builtin(), *_scan()[0])


def not_loaded() -> tuple[tuple[str, str], ...]:
    """The packs that did not load: (name, one-line reason), in the entry points' order (``drill list``
    asks this)."""
    return _scan()[1]


@cache
def _scan() -> tuple[tuple[Pack, ...], tuple[tuple[str, str], ...]]:
    """Every entry point of GROUP but ours, loaded and checked once per process (tests clear the cache)."""
    if _ours_alone():
        return (), ()  # what the entry points would give: ours adds nothing
    from importlib.metadata import entry_points

    packs: list[Pack] = []
    roots = {BUILTIN: HERE}  # the first pack of each name: where it is
    problems: list[tuple[str, str]] = []
    try:
        points = entry_points(group=GROUP)
    except Exception as exc:  # one distribution's entry_points.txt that does not parse fails them all
        reason = f"the installed distributions' entry points do not read: {type(exc).__name__}: {exc}"
        return (), ((UNKNOWN, one_line(reason)),)
    for point in points:
        try:
            pack = _load(point)
        except PackProblem as exc:
            problems.append((point.name, one_line(str(exc))))
            continue
        if pack is None:
            continue
        if pack.name in roots:
            problems.append((pack.name, f"a pack named {pack.name} is already loaded, from {roots[pack.name]}"))
            continue
        roots[pack.name] = pack.root
        packs.append(pack)
    return tuple(packs), tuple(problems)


def _ours_alone() -> bool:
    """Whether no entry point of GROUP on ``sys.path`` but ours, as OURS (the built-in pack's, which
    adds nothing), if any, is declared: read from each folder's ``*.dist-info`` and ``*.egg-info``
    ``entry_points.txt`` without importlib.metadata (about 45 ms to import: email, zipfile, csv), paid by every command that
    lists the drills when no pack is installed. False, so that importlib.metadata reads them, wherever
    this could differ from what it finds: another entry of the group, a file it cannot read, a zip on
    the path, an import finder that finds distributions itself."""
    import os
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return False
    header = f"[{GROUP}]"
    for entry in sys.path:
        folder = entry or "."
        if os.path.isfile(folder):
            return False  # a zip (an egg): importlib.metadata looks inside
        try:
            names = [n for n in os.listdir(folder) if n.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue  # not a folder (gone, unreadable): importlib.metadata finds nothing there either
        for name in names:
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except (FileNotFoundError, NotADirectoryError):
                continue  # no entry points (an egg-info can be a file: PKG-INFO's lines alone)
            except (OSError, ValueError):
                return False
            if GROUP not in text:
                continue
            lines = [line.strip() for line in text.splitlines()]
            if lines.count(header) != 1:
                return False  # the group named otherwise than as a section of its own, once
            section = lines[lines.index(header) + 1 :]
            section = section[: next((i for i, line in enumerate(section) if line.startswith("[")), len(section))]
            if [e.replace(" ", "") for e in section if e and e[0] not in "#;"] != [f"{BUILTIN}={OURS}"]:
                return False
    return True  # ours alone, or no entry point of the group at all: no pack either way


class PackProblem(Exception):
    """Why an entry point gave no pack the tool can use."""


def _load(point: EntryPoint) -> Pack | None:
    """The checked Pack of ``point``; None for our own built-in entry point, which ``builtin()`` answers
    (called directly). Ours is skipped when it loads the built-in pack; any other outcome of ours is a
    problem, as a third party's is."""
    ours = point.name == BUILTIN and point.value == OURS
    try:
        with redirect_stdout(sys.stderr):  # what a pack prints as it loads is not drill packs --json's
            value = point.load()
            pack = value() if callable(value) and not isinstance(value, Pack) else value
    except (Exception, SystemExit) as exc:  # whatever a third party's import or call raises, but Ctrl-C
        raise PackProblem(f"its entry point {point.value} raised {type(exc).__name__}: {exc}") from None
    if ours and isinstance(pack, Pack) and pack.name == BUILTIN and pack.root == HERE:
        return None
    if not isinstance(pack, Pack):
        raise PackProblem(f"its entry point {point.value} gave a {type(pack).__name__}, not a Pack")
    check(pack, point.name)
    return pack


def check(pack: Pack, declared: str) -> None:
    """A PackProblem unless ``pack`` is named as its entry point is, every path is there, and its
    catalog loads."""
    if not isinstance(pack.name, str) or not NAME.fullmatch(pack.name):
        raise PackProblem(f"its name {pack.name!r} is not lowercase letters, digits, - and _ (up to 32)")
    if pack.name != declared:
        raise PackProblem(f"its entry point is named {declared} but the pack {pack.name}")
    for field in fields(pack):
        value = getattr(pack, field.name)
        if field.name in ("name", "title", "version"):
            if not isinstance(value, str):
                raise PackProblem(f"its {field.name} is a {type(value).__name__}, not a str")
            continue
        if not isinstance(value, Path) or not value.is_absolute():
            raise PackProblem(f"its {field.name} {value!r} is not an absolute Path")
        kind = "file" if field.name in FILES else "folder"
        try:
            there = value.is_file() if kind == "file" else value.is_dir()
        except OSError as exc:  # a folder on the way that may not be read
            raise PackProblem(f"its {field.name} {value} cannot be read: {exc.strerror or exc}") from None
        if not there:
            raise PackProblem(f"its {field.name} {value} is not a {kind}")
    try:
        catalog = load_catalog(pack.catalog)
    except Exception as exc:  # a TOML error, a key missing, a time not m:ss: whatever the file holds
        raise PackProblem(f"its catalog {pack.catalog} does not load: {type(exc).__name__}: {exc}") from None
    for target_id in catalog.all_ids:  # a drill's file is <workspace>/<name>/<id>.py: no id may leave it
        if not isinstance(target_id, str) or not TARGET_ID.fullmatch(target_id) or target_id == FULL:
            raise PackProblem(
                f"its target id {target_id!r} is not lowercase letters, digits, - and _ (up to 64), or full"
            )


def warn_part(pack: str, part: str, reason: object) -> None:
    """One line on stderr: a part of the pack named ``pack`` (its ``part``: its review cards, its
    interview questions) does not load, for ``reason``; the rest of the tool goes on without it."""
    sys.stderr.write(one_line(f"drill: the {part} of the pack {pack} do not load: {reason}") + "\n")


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line (its whitespace runs as one space), cut at ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
