"""What a campaign mutates and grades: a pack's reference, catalog and oracle tests, and where its
report and its argued equivalents live.

The autograd pack (the default, ``--pack autograd``) is the grader's own: reference/engine.py graded
by grader/test_*.py, its report grader/campaign-report.md, its equivalents grader/campaign.toml.
Another pack's mutants are graded by its own oracle tests (grader/suite.py), and its report and
equivalents sit in its folder, next to its catalog: ``campaign-report.md`` and ``campaign.toml``.

``--pack`` names a pack (an installed one, autograd_drill.grader.packs ``installed()``; or, from a
clone where it is not installed, the folder ``packs/NAME/`` holds) or gives its folder as a path
(``packs/layers/autograd_drill_layers``): the folder of its ``catalog.toml``, ``reference.py``,
``tests/`` and ``recorded/oracle.npz``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograd_drill.grader.catalog import CATALOG_FILE, Catalog, load_catalog
from autograd_drill.grader.suite import Suite
from autograd_drill.reference import ENGINE

ROOT = Path(__file__).resolve().parents[2]
"""The clone (or the installed package) the grader sits in."""
AUTOGRAD = "autograd"


class NoSuchPack(LookupError):
    """``--pack`` names no installed pack and no pack folder."""


@dataclass(frozen=True)
class Subject:
    name: str
    reference: Path
    catalog_file: Path
    report: Path
    equivalents: Path
    suite: Suite | None = None
    """None: the grader's own tests (the autograd pack)."""

    def catalog(self) -> Catalog:
        return load_catalog(self.catalog_file) if self.suite is not None else load_catalog()

    def shown(self, path: Path) -> str:
        """``path`` relative to the clone where it is in it (``packs/layers/.../reference.py``)."""
        try:
            return str(path.resolve().relative_to(ROOT))
        except ValueError:
            return str(path)


def autograd() -> Subject:
    grader = ROOT / "grader"
    return Subject(AUTOGRAD, ENGINE, CATALOG_FILE, grader / "campaign-report.md", grader / "campaign.toml")


def of_folder(folder: Path, name: str | None = None) -> Subject:
    """The pack whose files are in ``folder`` (its package directory), named ``name``, else by its
    distribution's source folder (the one above, with a pyproject.toml: ``packs/layers``), else by itself."""
    folder = folder.resolve()
    name = name or (folder.parent.name if (folder.parent / "pyproject.toml").is_file() else folder.name)
    suite = Suite(
        folder / "tests", folder / "catalog.toml", folder / "reference.py", folder / "recorded" / "oracle.npz"
    )
    missing = [p for p in (suite.catalog, suite.reference, suite.recording) if not p.is_file()]
    if missing or not suite.tests.is_dir():
        raise NoSuchPack(f"{folder} is not a pack's folder: no {(missing or [suite.tests])[0].name} there")
    return Subject(
        name,
        suite.reference,
        suite.catalog,
        folder / "campaign-report.md",
        folder / "campaign.toml",
        suite,
    )


def find(spec: str | None) -> Subject:
    """The pack ``spec`` names or points at (module docstring); the autograd pack for None."""
    if spec is None or spec == AUTOGRAD:
        return autograd()
    if "/" in spec or spec.startswith(".") or Path(spec).is_dir():
        return of_folder(Path(spec))
    from autograd_drill.grader.packs import installed

    for pack in installed():
        if pack.name == spec:
            suite = Suite.of(pack)
            report, equivalents = pack.root / "campaign-report.md", pack.root / "campaign.toml"
            return Subject(pack.name, suite.reference, suite.catalog, report, equivalents, suite)
    in_clone = sorted((ROOT / "packs" / spec).glob("*/catalog.toml"))
    if in_clone:
        return of_folder(in_clone[0].parent, spec)
    names = ", ".join(p.name for p in installed())
    raise NoSuchPack(f"no pack named {spec} (installed: {names}; a pack's folder may be given as a path)")
