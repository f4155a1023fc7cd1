"""No dead code: every function, class, method and module-level name that drills/, grader/ and
reference/ define is used by the product itself (read somewhere else than where it is defined: the
grader's own tests count, as the product's, tests/ and benchmarks/ do not), and every helper of
tests/support.py and fixture of tests/conftest.py is used by a test.

Read from the source (ast), by name: a name read anywhere counts as a use of every definition of that
name, so this finds what nothing reads at all, not each unused homonym. What only the tests (or the
machinery) use on purpose is listed in KEPT, with the reason."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from tests import sources

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = [p for package in ("drills", "grader", "reference") for p in sorted((ROOT / package).rglob("*.py"))]
TESTS = sorted((ROOT / "tests").rglob("*.py"))
BENCHMARKS = sorted((ROOT / "benchmarks").rglob("*.py"))

KEPT = {
    "drills/loop/clock.py:MockClock": "the clock the tests inject into autograd_drill.cli (CLOCK), beside the real one",
    "drills/loop/clock.py:MockClock.set_wall": "MockClock's: the user setting the wall clock",
    "drills/loop/clock.py:MockClock.suspend": "MockClock's: a laptop suspended",
    "drills/loop/clock.py:MockClock.reboot": "MockClock's: a reboot",
    "grader/collect.py:GraderModule._getobj": "pytest calls it: a Module's object, its test module",
    "grader/sandbox.py:ForbiddenImports.find_spec": "importlib calls it: the finder protocol of sys.meta_path",
    "grader/spare.py:Inbox.find_spec": "importlib calls it: a warm-up held pauses at each import (sys.meta_path)",
    "reference/engine.py:Tensor.zero_grad": "a helper every stub keeps filled in (docs/contract.md)",
    "drills/commands/drill.py:check_bare": "drills/commands/quick.py calls it by its name (COMMANDS): drill check typed bare",
    "drills/interview/store.py:ensure_tables": "the interview tables on a connection no History opened (docs/make_examples.py, tests)",
}
"""Definitions that nothing in the product reads, kept on purpose: where, and why."""


def _reads(paths: list[Path]) -> Counter[str]:
    """How often each name is read (a Name loaded, an attribute, a keyword argument)."""
    counts: Counter[str] = Counter()
    for path in paths:
        for node in sources.nodes(path):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                counts[node.id] += 1
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
                counts[node.attr] += 1
            elif isinstance(node, ast.keyword) and node.arg:
                counts[node.arg] += 1
    return counts


def _registered(node: ast.AST) -> bool:
    """Whether a decorator hands the function to a framework, which calls it by itself (a command of
    typer's app, a pytest hook or fixture)."""
    decorators = getattr(node, "decorator_list", [])
    return any(
        any(word in ast.unparse(d) for word in ("command", "callback", "hookimpl", "fixture")) for d in decorators
    )


def definitions(path: Path) -> list[tuple[str, ast.AST]]:
    """The module-level functions, classes and names of ``path``, and the methods of its classes
    (``Class.method``): all but dunders, pytest's hooks and tests, and what a decorator registers."""
    found: list[tuple[str, ast.AST]] = []
    for node in sources.tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node))
            if isinstance(node, ast.ClassDef):
                found += [
                    (f"{node.name}.{m.name}", m)
                    for m in node.body
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                ]
        elif isinstance(node, ast.Assign):
            names = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            found += [(n.id, node) for n in names if isinstance(n, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, node))
    return [
        (name, node)
        for name, node in found
        if not name.split(".")[-1].startswith(("__", "pytest_", "test_")) and not _registered(node)
    ]


def unread(defined: list[Path], readers: list[Path]) -> list[str]:
    """``file:name`` of each definition in ``defined`` that ``readers`` never read."""
    reads = _reads(readers)
    return [
        f"{path.relative_to(ROOT)}:{name}"
        for path in defined
        for name, _ in definitions(path)
        if not reads[name.split(".")[-1]]
    ]


def test_the_product_uses_everything_it_defines():
    defined = [p for p in PRODUCT if not p.name.startswith("test_") and p.name != "conftest.py"]
    found = unread(defined, PRODUCT)
    dead = [where for where in found if where not in KEPT]
    assert not dead, f"defined in the product, read nowhere in it (remove, or say why in KEPT): {dead}"
    stale = [where for where in KEPT if where not in found]
    assert not stale, f"KEPT lists what the product now reads, or what is gone: {stale}"


def test_the_benchmarks_use_everything_they_define():
    """Read by the benchmarks, or by their own test (tests/test_bench.py: the README's tables)."""
    assert not unread(BENCHMARKS, [*BENCHMARKS, ROOT / "tests" / "test_bench.py"])


def test_every_test_helper_and_fixture_is_used():
    """The helpers of tests/support.py (and its sibling modules) are read by a test module;
    tests/conftest.py's fixtures are asked for
    (a parameter of a test or of another fixture, or ``usefixtures``) or are autouse."""
    helpers = [
        ROOT / "tests" / f"{name}.py"
        for name in ("support", "loop", "processes", "terminal", "platforms", "mutants", "sources")
    ]
    assert not unread(helpers, TESTS)  # their own reads count: a helper of a helper
    conftest = ast.parse((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8"))
    fixtures = [
        node.name
        for node in conftest.body
        if isinstance(node, ast.FunctionDef)
        and any("fixture" in ast.unparse(d) for d in node.decorator_list)
        and not any("autouse=True" in ast.unparse(d) for d in node.decorator_list)
    ]
    asked: Counter[str] = Counter()
    for path in TESTS:
        for node in sources.nodes(path):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                asked.update(a.arg for a in node.args.args)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                asked[node.value] += 1  # pytest.mark.usefixtures("name")
    assert not [f for f in fixtures if not asked[f]], "fixtures of tests/conftest.py no test asks for"


@pytest.mark.parametrize(
    ("source", "dead"),
    [
        ("def used():\n    pass\n\n\ndef unused():\n    pass\n\n\nused()\n", ["unused"]),
        ("LIMIT = 45\n\n\ndef f(x=45):\n    return x\n\n\nf()\n", ["LIMIT"]),  # a constant beside its literal
        ("LOW, HIGH = 1, 2\nprint(HIGH)\n", ["LOW"]),
        ("class C:\n    def m(self):\n        pass\n\n    def n(self):\n        pass\n\n\nC().m()\n", ["C.n"]),
        ("import typer\napp = typer.Typer()\n\n\n@app.command()\ndef cmd():\n    pass\n\n\napp()\n", []),
    ],
    ids=["function", "constant", "unpacked", "method", "registered"],
)
def test_the_check_finds_what_nothing_reads(tmp_path, source, dead):
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    names = {name for name, _ in definitions(path)}
    reads = _reads([path])
    assert sorted(n for n in names if not reads[n.split(".")[-1]]) == dead
