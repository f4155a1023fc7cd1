"""The merged catalog of every installed pack (drills/targets.py, issue 28): canonical ids (the built-in
pack's bare, another pack's ``P/ID``), what users may type, the refusals (one line each), each id's
pack, suite and reference; and the guard that drills/ reads the catalog through it alone."""

from __future__ import annotations

import ast
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from autograd_drill import targets
from autograd_drill.grader import packs
from autograd_drill.grader.catalog import FULL, AmbiguousTarget, Full, NotOneTarget, UnknownTarget, load_catalog
from autograd_drill.grader.packs import builtin
from autograd_drill.grader.suite import Suite
from tests.support import ROOT, drill
from tests.test_pack_installed import IDS, PACK, PACKAGE, installed_site
from tests.test_packs import make_pack  # noqa: F401  (a fixture)

LAYERS = tuple(f"layers/{i}" for i in IDS)


@pytest.fixture
def layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The layers pack installed in this process (its throwaway dist-info on sys.path), DRILL_HOME ours."""
    monkeypatch.syspath_prepend(str(PACK))
    monkeypatch.syspath_prepend(str(installed_site(tmp_path / "site")))
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "home"))
    targets.clear()
    yield
    targets.clear()


@pytest.fixture
def alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No pack but the built-in one (whatever this process found before), DRILL_HOME ours."""
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(targets, "_installed", lambda: (builtin(),))
    targets.clear()
    yield
    targets.clear()


def test_the_builtin_pack_is_unchanged_alone(alone):
    merged, own = targets.catalog(), load_catalog()
    assert merged == own  # no other pack: the very catalog of before
    assert merged.drill_ids == own.drill_ids and all(t.pack == "autograd" for t in merged.every)


@pytest.mark.parametrize("typed", ["cross_entropi", "unbroadcst", "ful", "forward_mod", "layernorm"])
def test_alone_an_unknown_id_is_refused_as_before_packs(alone, typed):
    """Byte for byte the refusal of before (Catalog.resolve was ``get(typed.replace("_", "-"))``)."""
    own = load_catalog()
    with pytest.raises(UnknownTarget) as caught:
        targets.resolve(typed)
    assert str(caught.value) == str(UnknownTarget(typed.replace("_", "-"), own.drill_ids))


def test_another_packs_ids_are_canonical_and_the_builtin_ones_stay_bare(layers):
    merged, own = targets.catalog(), load_catalog()
    assert merged.targets == own.targets and merged.ids == own.ids and merged.extensions == own.extensions
    assert merged.drill_ids == (*own.drill_ids, *LAYERS, "layers/full")
    norm = merged.get("layers/layernorm")
    assert (norm.pack, norm.marker, norm.symbols) == (
        "layers",
        "layernorm",
        ("layernorm_forward", "layernorm_backward"),
    )
    assert norm.target_time == 8 * 60 and merged.get("layers/conv2d").marker == "conv"
    assert all(n.startswith("layers/") for t in merged.others for n in t.needs)
    assert [t.id for t in merged.drilled("layers/full")] == list(LAYERS)
    assert merged.target_time("layers/full") == 50 * 60 and merged.drilled(FULL) == own.targets
    assert merged.is_full("layers/full") and merged.is_full(FULL) and not merged.is_full("layers/adam")
    with pytest.raises(NotOneTarget, match="layers/full is the drill of every core target"):
        merged.get("layers/full")


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("layernorm", "layers/layernorm"),
        ("layers/layernorm", "layers/layernorm"),
        ("layers/full", "layers/full"),
        ("full", FULL),
        ("autograd/full", FULL),
        ("autograd/max", "max"),
        ("cross_entropy", "cross-entropy"),
        ("autograd/forward_mode", "forward-mode"),
        ("max", "max"),
        ("maxpool2d", "layers/maxpool2d"),
    ],
)
def test_what_users_may_type(layers, typed, canonical):
    assert targets.resolve(typed) == canonical


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("layernrm", "unknown target 'layernrm'. Did you mean 'layers/layernorm'?"),
        ("autograd/layernorm", "unknown target 'autograd/layernorm'."),  # not the built-in pack's
        ("layers/max", "unknown target 'layers/max'."),  # the built-in id is not the layers pack's
    ],
)
def test_an_unknown_id_is_one_line_with_did_you_mean_over_every_canonical_id(layers, typed, message):
    with pytest.raises(UnknownTarget) as caught:
        targets.resolve(typed)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
    assert "layers/full" in str(caught.value) and "unbroadcast" in str(caught.value)


def test_a_bare_id_two_other_packs_have_names_the_qualified_ids(layers):
    merged = targets.catalog()
    twin = replace(merged.get("layers/layernorm"), id="norms/layernorm", pack="norms")
    full = Full("norms/full", "norms", (twin,), 60)
    clash = replace(merged, others=(*merged.others, twin), fulls=(*merged.fulls, full))
    with pytest.raises(AmbiguousTarget) as caught:
        clash.resolve("layernorm")
    assert str(caught.value) == "target 'layernorm' is in several packs: name one of layers/layernorm, norms/layernorm."
    assert clash.resolve("norms/layernorm") == "norms/layernorm"


def test_an_id_of_a_pack_no_longer_installed_says_so(alone, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "history.sqlite3") as db:
        db.execute("CREATE TABLE attempts (id INTEGER PRIMARY KEY, target TEXT NOT NULL)")
        db.execute("CREATE TABLE splits (attempt_id INTEGER, target TEXT NOT NULL)")
        db.execute("INSERT INTO attempts (target) VALUES ('layers/layernorm')")
    history = home / "history.sqlite3"
    for typed in ("layers/layernorm", "layernorm"):
        with pytest.raises(targets.PackNotInstalled, match="pack layers is not installed \\(pip install"):
            targets.resolve(typed, history)
    with pytest.raises(UnknownTarget, match="unknown target 'batchnorm'"):  # not in the history: unknown
        targets.resolve("batchnorm", history)
    with pytest.raises(targets.PackNotInstalled):
        targets.pack_of("layers/layernorm")


def test_each_id_names_its_pack_suite_and_reference(layers):
    assert targets.pack_of("max") == builtin() and targets.pack_of(FULL) == builtin()
    assert targets.suite_of("max") is None and targets.suite_of(FULL) is None
    assert targets.reference_of("unbroadcast") == builtin().reference
    assert targets.pack_of("layers/adam").name == "layers"
    suite = targets.suite_of("layers/full")
    assert suite == Suite(PACKAGE / "tests", PACKAGE / "catalog.toml", PACKAGE / "reference.py", suite.recording)
    assert targets.reference_of("layers/layernorm") == PACKAGE / "reference.py"
    assert (targets.local_id("layers/full"), targets.local_id("max")) == ("full", "max")


def calls_load_catalog_bare(path: Path) -> bool:
    """Whether ``path`` calls ``load_catalog()`` with no argument (the built-in pack's catalog alone)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "load_catalog"
        and not node.args
        and not node.keywords
        for node in ast.walk(tree)
    )


def test_drills_reads_the_catalog_through_the_merged_view_alone():
    bare = {str(p.relative_to(ROOT)) for p in sorted((ROOT / "drills").rglob("*.py")) if calls_load_catalog_bare(p)}
    assert bare == {"drills/targets.py"}


TAGGED = '''"""A throwaway pack's reference: a core function whose docstring has a paragraph of its follow-up's."""


def double(x):
    """Twice x.

    (double, triple drills) x may be any number, or an array.

    (triple drill) Also what triple builds on: three times x is double(x) + x.
    """
    return 2 * x


def triple(x):
    """Three times x."""
    return double(x) + x
'''


def test_a_packs_own_tags_and_follow_ups_shape_its_stubs(make_pack, workspace):  # noqa: F811 (the fixture)
    """A pack's reference tags paragraphs with its own ids (``(triple drill)``), and its follow-ups'
    symbols are left out of its other drills' stubs, as the built-in pack's are."""
    package = make_pack("tagpack")
    (package / "reference.py").write_text(TAGGED, encoding="utf-8")
    targets.clear()
    drill("start", "tagpack/double", "--rung", "recall")
    stub = (workspace / "tagpack" / "double.py").read_text(encoding="utf-8")
    assert "Also what triple builds on" not in stub and "(triple drill)" not in stub
    assert "\n    x may be any number, or an array." in stub  # its own paragraph, its tag gone
    assert "triple is drilled by  drill start tagpack/triple" in stub
    assert "# Left out, for the follow-up drills: triple" in stub
    drill("abandon")
    drill("start", "triple", "--rung", "recall")  # bare: one pack alone has it
    stub = (workspace / "tagpack" / "triple.py").read_text(encoding="utf-8")
    assert "(triple drill) Also what triple builds on" in stub  # double is not blanked: the reference as it is
    assert 'raise NotImplementedError("triple")' in stub and "return 2 * x" in stub
    targets.clear()


@pytest.mark.parametrize("bad", ["../escape", "layers/twice", "Double", "full"])
def test_a_pack_whose_target_id_could_leave_the_workspace_does_not_load(make_pack, bad):  # noqa: F811 (the fixture)
    """A drill's file is <workspace>/<pack>/<id>.py: an id with a slash (or dots, capitals, or full, the
    full drill's) would write elsewhere, or be no target: the pack is one line in not_loaded()."""
    from tests.test_packs import CATALOG_TOML

    make_pack("badids", catalog_text=CATALOG_TOML.replace('id = "double"', f"id = {bad!r}"))
    (reason,) = [why for name, why in packs.not_loaded() if name == "badids"]
    assert f"its target id {bad!r} is not lowercase letters" in reason
    targets.clear()
    assert not any(t.pack == "badids" for t in targets.catalog().every)
