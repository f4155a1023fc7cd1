"""Where the ``layers`` pack's files are in this clone (packs/layers/), and its suite and catalog: what
the tests that grade it share (test_mutants, test_alternatives, test_pack_grading, test_campaign).
Imports no torch (tests/pack_layers_cases.py, which computes torch's answers, does)."""

from __future__ import annotations

from pathlib import Path

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.suite import Suite

ROOT = Path(__file__).resolve().parents[1]
PACK = ROOT / "packs" / "layers"
PACKAGE = PACK / "autograd_drill_layers"
REFERENCE = PACKAGE / "reference.py"
ALTERNATIVES = sorted(p for p in (PACK / "alternatives").glob("*.py") if not p.name.startswith("_"))
SUITE = Suite(PACKAGE / "tests", PACKAGE / "catalog.toml", REFERENCE, PACKAGE / "recorded" / "oracle.npz")
CATALOG = load_catalog(SUITE.catalog)
