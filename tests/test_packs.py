"""Drill packs (issue 28, point 1, first slice: grader/packs.py, drill packs): packs are found through
the entry point group ``autograd_drill.packs``, listed, and loaded safely. A pack that does not load is
one line on stderr, ``drill: pack NAME not loaded: REASON``, and a row marked so in ``drill packs``;
``drill list`` goes on working.

The throwaway packs are real packages in tmp_path with a ``NAME-0.1.dist-info`` folder beside them
(METADATA and entry_points.txt), put on sys.path: importlib.metadata finds them as it finds a pack
installed by pip, with no pip install."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest

from autograd_drill.grader import oracle, packs
from autograd_drill.grader.catalog import CATALOG_FILE
from autograd_drill.interview.bank import QUESTIONS_FILE
from autograd_drill.reference import ENGINE
from autograd_drill.views.reviews import REVIEWS_FILE
from tests.support import CATALOG, ROOT, drill, use_consoles

CATALOG_TOML = """
[[target]]
id = "double"
marker = "double"
symbols = ["double"]
target_time = "1:30"
needs = []
summary = "twice x"
hints = ["Multiply by two."]

[[target]]
id = "triple"
marker = "triple"
symbols = ["triple"]
target_time = "2:00"
needs = []
summary = "three times x"
hints = ["Multiply by three."]
extension = true
time_reasoning = "one line"

[full]
target_time = "3:00"
summary = "double, from memory"
"""

PACK_MODULE = """
from pathlib import Path

from autograd_drill.grader.packs import Pack

ROOT = Path(__file__).resolve().parent


def pack():
    return Pack(
        name={name!r},
        title="A throwaway pack",
        version="0.1",
        root=ROOT,
        catalog=ROOT / {catalog!r},
        reference=ROOT / "reference.py",
        tests=ROOT / "tests",
        recording=ROOT / "recorded.npz",
        reviews=ROOT / "reviews.toml",
        questions=ROOT / "questions.toml",
    )


def broken():
    raise RuntimeError("the pack's author\\nwrote two lines")


def chatty():
    print("hello from a pack")
    return pack()


def relative():
    import dataclasses

    return dataclasses.replace(pack(), catalog=Path({catalog!r}))


def not_a_pack():
    return {{"name": {name!r}}}
"""

Make = Callable[..., Path]


@pytest.fixture
def make_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Make]:
    """``make_pack(module, entry=..., pack_name=..., catalog=...)``: a package ``module`` in a folder of
    its own on sys.path (after those made before it), with a distribution declaring ``entry``
    (``NAME = module:attr``) in the group; the packs found again. Its modules are forgotten afterwards."""
    made: list[str] = []

    def make(
        module: str,
        entry: str | None = None,
        pack_name: str | None = None,
        catalog: str = "catalog.toml",
        catalog_text: str = CATALOG_TOML,
    ) -> Path:
        site = tmp_path / f"site-{len(made)}"
        package = site / module
        (package / "tests").mkdir(parents=True)
        (package / "__init__.py").write_text(PACK_MODULE.format(name=pack_name or module, catalog=catalog))
        (package / "catalog.toml").write_text(catalog_text)
        (package / "reference.py").write_text("def double(x):\n    return 2 * x\n")
        for name in ("recorded.npz", "reviews.toml", "questions.toml"):
            (package / name).write_text("")
        info = site / f"{module}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        line = entry or f"{pack_name or module} = {module}:pack"
        (info / "entry_points.txt").write_text(f"[{packs.GROUP}]\n{line}\n")
        monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
        made.append(module)
        packs._scan.cache_clear()
        return package

    packs._scan.cache_clear()
    yield make
    for module in made:
        sys.modules.pop(module, None)
    packs._scan.cache_clear()


def packs_json(*, warned: tuple[str, ...] = ()) -> list[dict[str, object]]:
    """``drill packs --json``'s rows; its stderr is one warning line per name of ``warned``."""
    result = drill("packs", "--json")
    assert not_loaded_lines(result.stderr) == list(warned), result.stderr
    shown = json.loads(result.stdout)
    assert shown["version"] == 1
    return shown["packs"]


def not_loaded_lines(stderr: str) -> list[str]:
    """The pack names of the warnings on stderr, each one whole line; nothing else printed there."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert all(line.startswith("drill: pack ") and " not loaded: " in line for line in lines), stderr
    assert "Traceback" not in stderr
    return [line.removeprefix("drill: pack ").split(" not loaded: ")[0] for line in lines]


# ---------------------------------------------------------------------------- the built-in pack


def test_the_builtin_pack_is_the_autograd_engine_as_the_tool_finds_it():
    pack = packs.builtin()
    assert pack.name == "autograd" and pack.root == ROOT / "grader"
    assert pack.catalog == CATALOG_FILE and pack.reference == ENGINE and pack.tests == ROOT / "grader"
    assert pack.recording == oracle.RECORDING.resolve()
    assert pack.reviews == REVIEWS_FILE.resolve() and pack.questions == QUESTIONS_FILE.resolve()
    packs.check(pack, "autograd")  # every file there, the catalog loads


def test_pyproject_declares_the_builtin_pack_as_a_third_party_would():
    """Our own entry point, written as it reads once the tool is one autograd_drill package; installed
    (this checkout, pip install -e), it adds no pack and no warning, whether it imports or not."""
    raw = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert raw["project"]["entry-points"][packs.GROUP] == {"autograd": packs.OURS}
    declared = {p.name: p.value for p in entry_points(group=packs.GROUP)}
    assert declared.get("autograd") == packs.OURS, "reinstall the checkout: pip install -e ."
    packs._scan.cache_clear()
    assert [p.name for p in packs.installed()] == ["autograd"] and packs.not_loaded() == ()


def test_the_entry_points_are_read_without_importlib_metadata_only_where_ours_is_alone(
    make_pack, tmp_path, monkeypatch
):
    """``_ours_alone`` (grader/packs.py) spares importlib.metadata's import where it would find no pack but
    ours; anything it could read otherwise sends the packs to importlib.metadata."""
    assert packs._ours_alone()  # this environment: the checkout installed, no pack
    odd = tmp_path / "odd-site"
    for group in (f"[ {packs.GROUP} ]", f"[{packs.GROUP}]\n{packs.BUILTIN} = {packs.OURS}\n[{packs.GROUP}]"):
        info = odd / "odd-0.1.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "entry_points.txt").write_text(f"{group}\nodd = odd:pack\n")
        monkeypatch.setattr(sys, "path", [*sys.path, str(odd)])
        assert not packs._ours_alone(), group
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(odd)])
    (tmp_path / "eggs.zip").write_bytes(b"")
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path / "eggs.zip")])
    assert not packs._ours_alone()  # importlib.metadata would look inside
    monkeypatch.setattr(sys, "path", sys.path[:-1])
    assert packs._ours_alone()
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.egg-info").write_text("Metadata-Version: 1.0\nName: old\n")  # a file: no entry points
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path / "legacy")])
    assert packs._ours_alone()
    make_pack("extra")
    assert not packs._ours_alone() and [p.name for p in packs.installed()] == ["autograd", "extra"]


@pytest.mark.parametrize("value", ["autograd_drill.grader.packs:builtin"])
def test_our_entry_point_adds_nothing(make_pack, monkeypatch, value):
    """``autograd_drill.grader.packs:builtin`` imports the same Pack as ``builtin()``: skipped."""
    point = EntryPoint(name="autograd", value=value, group=packs.GROUP)
    monkeypatch.setattr(packs, "OURS", value)
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: (point,) if group == packs.GROUP else ())
    packs._scan.cache_clear()
    assert [row["name"] for row in packs_json()] == ["autograd"]


def test_our_entry_point_that_fails_otherwise_is_a_warning(make_pack, monkeypatch):
    """A typo in our own pyproject.toml is a warning, as a third party's would be."""
    value = "autograd_drill.grader.packs:no_such_function"
    point = EntryPoint(name="autograd", value=value, group=packs.GROUP)
    monkeypatch.setattr(packs, "OURS", value)
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: (point,) if group == packs.GROUP else ())
    packs._scan.cache_clear()
    rows = packs_json(warned=("autograd",))
    assert [(r["name"], r["loaded"]) for r in rows] == [("autograd", True), ("autograd", False)]
    assert "raised AttributeError" in rows[1]["reason"]


@pytest.mark.parametrize("layout", ["source", "one package"])
def test_the_cards_and_questions_are_found_in_either_layout(tmp_path, layout):
    """The source tree (and an install before the rename): drills/ beside grader/. A wheel of the one
    autograd_drill package: grader/ inside the package that drills/ is."""
    tool = tmp_path / "drills" if layout == "source" else tmp_path / "autograd_drill"
    grader = tmp_path / "grader" if layout == "source" else tool / "grader"
    (tool / "views").mkdir(parents=True)
    (tool / "views" / "reviews.toml").write_text("")
    grader.mkdir()
    assert packs.tool_folder(grader) == tool


def test_drill_packs_lists_the_builtin_pack(make_pack):
    [row] = packs_json()
    assert row["name"] == "autograd" and row["loaded"] is True and row["reason"] is None
    assert row["targets"] == list(CATALOG.ids) and row["follow_ups"] == [t.id for t in CATALOG.extensions]
    assert row["full_time"] == CATALOG.full_time and row["root"] == str(ROOT / "grader")
    table = drill("packs")
    assert not table.stderr
    [line] = [line for line in table.stdout.splitlines() if line.startswith("autograd ")]
    assert f"{len(CATALOG.targets)} + {len(CATALOG.extensions)}" in line and "45:00" in line


# ---------------------------------------------------------------------------- a pack installed


def test_a_good_pack_is_listed_with_its_targets(make_pack):
    package = make_pack("goodpack")
    rows = packs_json()
    assert [r["name"] for r in rows] == ["autograd", "goodpack"]
    good = rows[1]
    assert good["loaded"] and good["title"] == "A throwaway pack" and good["version"] == "0.1"
    assert good["targets"] == ["double"] and good["follow_ups"] == ["triple"] and good["full_time"] == 180
    assert good["root"] == str(package.resolve())
    table = drill("packs").stdout
    [line] = [line for line in table.splitlines() if line.startswith("goodpack ")]
    assert "1 + 1" in line and "3:00" in line


BROKEN = {
    "raises": ({"entry": "bad = badpack:broken"}, "raised RuntimeError: the pack's author wrote two lines"),
    "not a Pack": ({"entry": "bad = badpack:not_a_pack"}, "gave a dict, not a Pack"),
    "no such attribute": ({"entry": "bad = badpack:nothing"}, "raised AttributeError"),
    "named otherwise": ({"entry": "bad = badpack:pack", "pack_name": "other"}, "named bad but the pack other"),
    "a bad name": ({"entry": "Bad/Pack = badpack:pack", "pack_name": "Bad/Pack"}, "is not lowercase"),
    "catalog missing": ({"entry": "bad = badpack:pack", "pack_name": "bad", "catalog": "gone.toml"}, "is not a file"),
    "catalog not TOML": (
        {"entry": "bad = badpack:pack", "pack_name": "bad", "catalog_text": "[[target]\n"},
        "does not load: TOMLDecodeError",
    ),
    "catalog without [full]": (
        {"entry": "bad = badpack:pack", "pack_name": "bad", "catalog_text": CATALOG_TOML.split("[full]")[0]},
        "does not load: KeyError",
    ),
    "catalog with a bad time": (
        {"entry": "bad = badpack:pack", "pack_name": "bad", "catalog_text": CATALOG_TOML.replace("1:30", "90s")},
        "does not load: ValueError",
    ),
    "a relative path": (
        {"entry": "bad = badpack:relative", "pack_name": "bad"},
        "catalog.toml') is not an absolute Path",
    ),
    "the builtin's name": ({"entry": "autograd = badpack:pack", "pack_name": "autograd"}, "is already loaded"),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_a_pack_that_does_not_load_is_one_line_and_drill_list_works(make_pack, case):
    how, reason = BROKEN[case]
    make_pack("badpack", **how)
    name = how["entry"].split(" = ")[0]
    rows = packs_json(warned=(name,))
    assert [(r["name"], r["loaded"]) for r in rows] == [("autograd", True), (name, False)]
    assert reason in rows[1]["reason"], rows[1]["reason"]
    assert "\n" not in rows[1]["reason"]
    table = drill("packs")
    assert not_loaded_lines(table.stderr) == [name]
    assert reason in " ".join(table.stderr.split())
    row = [line for line in table.stdout.splitlines() if line.startswith(f"{name} ")][-1]  # after autograd's
    assert row.split()[1:] == ["-", "-", "-"], row
    squeezed = "".join(f"not loaded: {rows[1]['reason']}".split())  # and why, too, wrapped (a long path folded)
    assert squeezed in "".join(table.stdout.split()), table.stdout
    for command in (["list"], []):  # the commands that list targets warn too, and go on
        listed = drill(*command)
        assert not_loaded_lines(listed.stderr) == [name]
        assert all(target in listed.stdout for target in CATALOG.drill_ids)
    assert not drill("ladder").stderr  # the others say nothing of packs


def test_entry_points_that_do_not_parse_are_one_line_and_drill_list_works(make_pack):
    """A distribution's entry_points.txt with a line that is no ``name = value`` makes
    importlib.metadata.entry_points() raise (TypeError, Python 3.11 to 3.13) for every group: the built-in
    pack stays, the others are one warning."""
    make_pack("goodpack")
    make_pack("junkpack", entry="this line has no equals sign")
    rows = packs_json(warned=("?",))
    assert [(r["name"], r["loaded"]) for r in rows] == [("autograd", True), ("?", False)]
    assert rows[1]["reason"].startswith("the installed distributions' entry points do not read: TypeError")
    listed = drill("list")
    assert all(target in listed.stdout for target in CATALOG.drill_ids)


def test_what_a_pack_prints_as_it_loads_goes_to_stderr(make_pack):
    """drill packs --json's standard output is its JSON object, whatever a pack's import prints."""
    make_pack("chattypack", entry="chattypack = chattypack:chatty")
    result = drill("packs", "--json")
    assert [row["name"] for row in json.loads(result.stdout)["packs"]] == ["autograd", "chattypack"]
    assert "hello from a pack" in result.stderr


def test_of_two_packs_of_one_name_the_first_wins(make_pack):
    first = make_pack("twin_a", entry="twin = twin_a:pack", pack_name="twin")
    make_pack("twin_b", entry="twin = twin_b:pack", pack_name="twin")
    rows = packs_json(warned=("twin",))
    assert [(r["name"], r["loaded"]) for r in rows] == [("autograd", True), ("twin", True), ("twin", False)]
    assert rows[1]["root"] == str(first.resolve())
    assert rows[2]["reason"] == f"a pack named twin is already loaded, from {first.resolve()}"


def test_the_packs_are_found_once_per_process(make_pack, monkeypatch):
    """installed() is cached: a second command reads no entry point again."""
    make_pack("goodpack")
    assert [p.name for p in packs.installed()] == ["autograd", "goodpack"]
    monkeypatch.setattr("importlib.metadata.entry_points", lambda **_: pytest.fail("entry points read again"))
    assert [p.name for p in packs.installed()] == ["autograd", "goodpack"] and packs.not_loaded() == ()


def test_docs_packs_md_names_every_key_of_drill_packs_json(make_pack):
    """docs/packs.md's two tables of keys are the object's keys, and a pack's, loaded or not."""
    make_pack("badpack", entry="bad = badpack:broken")
    shown = json.loads(drill("packs", "--json").stdout)
    text = (ROOT / "docs" / "packs.md").read_text(encoding="utf-8")
    top, rows = text.split("`drill packs --json` prints")[1].split("Each pack's object has every key")
    keys = lambda part: re.findall(r"^\| `(\w+)` \|", part, re.MULTILINE)  # noqa: E731
    assert keys(top) == list(shown)
    assert all(keys(rows.split("## To come")[0]) == list(row) for row in shown["packs"]), shown["packs"]


def test_drill_packs_fits_a_narrow_terminal(make_pack, monkeypatch):
    """At 60 columns, a long title and a long folder wrap below their row, the rows stay whole."""
    make_pack("goodpack")
    make_pack("badpack", entry="bad = badpack:broken")
    use_consoles(monkeypatch, width=60)
    shown = drill("packs").stdout
    assert max(map(len, shown.splitlines())) <= 60, shown
    assert [line.split()[0] for line in shown.splitlines() if not line.startswith(" ")] == [
        "pack",
        "autograd",
        "goodpack",
        "bad",
    ], shown


def test_a_path_that_cannot_be_read_is_a_warning(make_pack, monkeypatch):
    """Path.is_file raises where a folder on the way may not be searched (not as root: simulated)."""
    package = make_pack("goodpack")
    real = Path.is_file

    def is_file(path: Path) -> bool:
        if path == package / "reviews.toml":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(Path, "is_file", is_file)
    [_, row] = packs_json(warned=("goodpack",))
    assert row["reason"] == f"its reviews {package / 'reviews.toml'} cannot be read: Permission denied"
