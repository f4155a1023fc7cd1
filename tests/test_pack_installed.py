"""The ``layers`` pack found as an installed pack (issue 28): ``packs/layers`` on the path with a
throwaway ``autograd_drill_layers-VERSION.dist-info`` beside it (METADATA and entry_points.txt, as
tests/test_packs.py makes its packs), importlib.metadata finds it as it finds a pack pip installed.
``drill packs`` lists it after the autograd pack; ``drill grade FILE --pack layers --json`` grades a
file against its targets (its catalog, reference, oracle tests and recording), from the recording with
torch made unimportable; an unknown pack, a pack that did not load, or a target of another pack is one
line and exit status 2; ``--pack`` and its targets complete in the shell.

The entry point is the package's own ``autograd_drill_layers:pack`` (ENTRY), so the real function is
the one tested: it builds the tool's ``Pack`` (``autograd_drill.grader.packs``) from its ``description()``."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import Result

from autograd_drill.grader import packs
from autograd_drill.grader.packs import Pack
from tests.support import ROOT, load, refused, without_torch
from tests.test_conventions import completed

PACK = ROOT / "packs" / "layers"
PACKAGE = PACK / "autograd_drill_layers"
REFERENCE = PACKAGE / "reference.py"
IDS = ["layernorm", "batchnorm", "attention", "conv2d", "maxpool2d", "adam"]
ENTRY = "autograd_drill_layers:pack"
OWN_VERSION = tomllib.loads((PACK / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
"""The throwaway dist-info's version: the pack's own, so that it agrees with any other metadata of the
pack that a child may find on packs/layers (the egg-info a build of the pack leaves there)."""
VERSION = OWN_VERSION
"""What drill packs says of it: read from that dist-info (the suite runs where no pack is really
installed: tests/conftest.py refuses to run otherwise)."""
BUG = ("var = x.var(axis=axes, keepdims=True)", "var = x.var(axis=axes, keepdims=True, ddof=1)")
"""batchnorm_forward normalising with the unbiased variance, where torch's training mode uses the biased."""


def installed_site(site: Path, broken: bool = False) -> Path:
    """``site``: the layers pack's throwaway dist-info; with ``broken``, a second pack whose entry point
    does not import."""
    site.mkdir(parents=True, exist_ok=True)
    dists = [("autograd_drill_layers", f"layers = {ENTRY}")]
    if broken:
        dists.append(("autograd_drill_broken", "broken = no_such_pack_module:pack"))
    for name, line in dists:
        info = site / f"{name}-{OWN_VERSION}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {OWN_VERSION}\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(f"[{packs.GROUP}]\n{line}\n", encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A child's environment: the pack installed, a broken pack beside it, torch unimportable, our own
    DRILL_HOME."""
    folder = tmp_path_factory.mktemp("installed")
    site = installed_site(folder / "site", broken=True)
    base = without_torch(folder / "no-torch")
    path = [str(PACK), str(site), base["PYTHONPATH"]]
    return {**base, "PYTHONPATH": ":".join(path), "DRILL_HOME": str(folder / "home")}


def child(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` in a real child process, as a user runs it."""
    command = [sys.executable, "-m", "autograd_drill", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def graded(env: dict[str, str], file: Path, *args: str, code: int) -> dict[str, object]:
    """``drill grade FILE --pack layers --json --oracle replay ARGS``'s object; its exit status ``code``."""
    done = child(env, "grade", str(file), "--pack", "layers", "--json", "--oracle", "replay", *args)
    assert done.returncode == code, (done.returncode, done.stdout[-800:], done.stderr[-800:])
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def refusal(*args: str, words: tuple[str, ...]) -> tuple[str, Result]:
    """``drill ARGS`` in process (the packs found here: ``found_here``), refused: the one line of the
    refusal on stderr, exit status 2, holding ``words``; and what drill printed."""
    done = refused(*args)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0], done


# ---------------------------------------------------------------------------- the pack() it declares


def test_the_package_describes_a_valid_pack():
    """Every field of the Pack: the name its entry point gives, every path absolute and there, its
    catalog loading (packs.check), the version pyproject.toml's when no distribution is installed."""
    package = load(PACKAGE / "__init__.py")
    pack = Pack(**package.description())
    packs.check(pack, "layers")
    project = tomllib.loads((PACK / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert pack.version == package.__version__ == project["version"]
    assert (pack.root, pack.tests, pack.reference) == (PACKAGE, PACKAGE / "tests", REFERENCE)
    assert pack.recording == PACKAGE / "recorded" / "oracle.npz"
    assert (pack.reviews, pack.questions) == (PACKAGE / "reviews.toml", PACKAGE / "questions.toml")
    assert package.pack() == pack


# ---------------------------------------------------------------------------- drill packs, drill grade


def test_drill_packs_lists_autograd_and_layers_and_warns_of_the_broken_one(env):
    done = child(env, "packs", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("drill: pack broken not loaded: ") and done.stderr.count("\n") == 1
    rows = json.loads(done.stdout)["packs"]
    assert [(r["name"], r["loaded"]) for r in rows] == [("autograd", True), ("layers", True), ("broken", False)]
    layers = rows[1]
    assert layers["targets"] == IDS and layers["root"] == str(PACKAGE)
    assert layers["version"] == VERSION  # read from the installed distribution's metadata


def test_the_reference_passes_every_layers_target_from_the_recording(env):
    verdict = graded(env, REFERENCE, code=0)
    assert set(verdict) >= {"version", "file", "passed", "targets"} and verdict["file"] == str(REFERENCE)
    assert verdict["passed"] is True and list(verdict["targets"]) == IDS
    for target, result in verdict["targets"].items():
        assert result["passed"] and result["failed"] == 0 and result["not_run"] == 0, target
        assert result["tests"] >= 48, (target, result["tests"])


def test_a_copy_with_one_bug_fails_its_target_naming_the_symbol(env, tmp_path):
    source = REFERENCE.read_text(encoding="utf-8")
    assert source.count(BUG[0]) == 1
    mutant = tmp_path / "layers.py"
    mutant.write_text(source.replace(*BUG), encoding="utf-8")
    verdict = graded(env, mutant, code=1)
    failed = {t: r for t, r in verdict["targets"].items() if not r["passed"]}
    assert verdict["passed"] is False and list(failed) == ["batchnorm"]
    failures = failed["batchnorm"]["failures"]
    assert failures and failures[0]["symbol"] == "batchnorm_forward", failures  # its backward, fed its cache, too
    assert failures[0]["message"].startswith("batchnorm_forward ["), failures[0]["message"]
    assert all(f["test"].startswith("test_batchnorm.py::test_") for f in failures), failures  # as SPEC's "test"


def test_targets_may_be_chosen_bare_or_qualified(env):
    verdict = graded(env, REFERENCE, "-t", "layers/adam", "--target", "conv2d", code=0)
    assert list(verdict["targets"]) == ["conv2d", "adam"]  # in the catalog's order


# ---------------------------------------------------------------------------- refusals
# In process, the packs found here as a child finds them (``found_here``: the same dist-infos, on
# sys.path): a refusal comes before any grading, from the packs' lookup; the gradings above, and drill
# packs, run in a real child, as users run them.


def test_an_unknown_pack_is_one_line_listing_the_packs(found_here):
    line, _ = refusal("grade", str(REFERENCE), "--pack", "layer", words=("--pack layer", "autograd, layers"))
    assert "broken" not in line
    line, done = refusal("grade", str(REFERENCE), "--pack", "layer", "--json", words=())
    assert json.loads(done.stdout)["error"] in line


def test_a_pack_that_did_not_load_says_why(found_here):
    refusal("grade", str(REFERENCE), "--pack", "broken", words=("broken did not load", "no_such_pack_module"))


@pytest.mark.parametrize(
    ("pack", "target", "named"),
    [
        ("layers", "unbroadcast", "is in the pack autograd, not in layers"),
        ("layers", "autograd/backward", "is in the pack autograd, not in layers"),
        ("autograd", "layernorm", "is in the pack layers, not in autograd"),
        (None, "layers/conv2d", "is in the pack layers, not in autograd"),
    ],
)
def test_a_target_of_another_pack_is_refused_naming_its_pack(found_here, pack, target, named):
    chosen = ("--pack", pack) if pack else ()
    refusal("grade", str(REFERENCE), *chosen, "-t", target, words=(named, f"--target {target.split('/')[-1]}"))


# ---------------------------------------------------------------------------- completion


def installed_here(site: Path, monkeypatch: pytest.MonkeyPatch, broken: bool = False) -> Iterator[None]:
    """The pack installed in this process (sys.path; with ``broken``, the broken pack beside it), found
    afresh; forgotten afterwards."""
    monkeypatch.setattr(sys, "path", [*sys.path, str(PACK), str(installed_site(site, broken=broken))])
    packs._scan.cache_clear()
    yield
    sys.modules.pop("autograd_drill_layers", None)
    packs._scan.cache_clear()


@pytest.fixture
def in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from installed_here(tmp_path / "site", monkeypatch)


@pytest.fixture
def found_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As the children's environment has them (``env``): the pack and the broken one."""
    yield from installed_here(tmp_path / "site", monkeypatch, broken=True)


def test_pack_and_its_targets_complete(in_process, tmp_path):
    assert completed("grade engine.py --pack ") == ["autograd", "layers"]
    assert completed("grade engine.py --pack l") == ["layers"]
    assert completed("grade engine.py --pack layers -t ") == [*IDS, "full"]
    assert completed("grade engine.py --pack layers --target a") == ["attention", "adam"]
    assert "unbroadcast" in completed("grade engine.py -t ")  # no --pack: the built-in pack's
