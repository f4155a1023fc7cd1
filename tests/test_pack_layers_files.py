"""The ``layers`` pack's files (packs/layers/): its catalog loads with the tool's own loader and names
functions the reference and every alternative define, its review cards and interview questions pass
the checks the autograd pack's pass, and its pyproject declares the entry point the tool reads."""

from __future__ import annotations

import ast
import re
import tomllib

import pytest
from rich.cells import cell_len
from rich.console import Console

from autograd_drill.grader.catalog import find_functions, load_catalog
from autograd_drill.interview.bank import parse_bank
from autograd_drill.views.card import review_card
from autograd_drill.views.render import hint_text
from autograd_drill.views.reviews import ReviewCard
from tests.pack_layers_cases import ALTERNATIVES, LAYERS, PACK, PACKAGE, REFERENCE, load
from tests.support import BANK, CATALOG

LAYERS_CATALOG = load_catalog(PACKAGE / "catalog.toml")
TARGETS = ("layernorm", "batchnorm", "attention", "conv2d", "maxpool2d", "adam")


def _cards() -> dict[str, ReviewCard]:
    """The cards as autograd_drill.views.reviews.load_reviews reads its file (which takes no path)."""
    raw = tomllib.loads((PACKAGE / "reviews.toml").read_text(encoding="utf-8"))
    return {
        c["id"]: ReviewCard(c["id"], c["formula"].strip("\n"), tuple(c["classic_bugs"]), tuple(c["interviewer_next"]))
        for c in raw["card"]
    }


CARDS = _cards()
QUESTIONS = parse_bank((PACKAGE / "questions.toml").read_text(encoding="utf-8"), "questions.toml", LAYERS_CATALOG)


# ---------------------------------------------------------------------------- the catalog


def test_the_catalog_loads_with_the_tools_loader_and_holds_the_six_layers():
    assert LAYERS_CATALOG.ids == TARGETS and not LAYERS_CATALOG.extensions
    assert LAYERS_CATALOG.full_time == sum(t.target_time for t in LAYERS_CATALOG.targets) - 6 * 60
    full = tomllib.loads((PACKAGE / "catalog.toml").read_text(encoding="utf-8"))["full"]
    assert full["id"] == "full" and len(full["time_reasoning"]) > 40


def test_ids_markers_needs_hints_and_reasons_are_as_the_autograd_packs():
    markers = [t.marker for t in LAYERS_CATALOG.targets]
    assert len(set(markers)) == len(markers) and all(re.fullmatch(r"[a-z][a-z_]*", m) for m in markers)
    assert not set(LAYERS_CATALOG.ids) & set(CATALOG.all_ids), "an id the autograd pack has: it would need qualifying"
    for target in LAYERS_CATALOG.targets:
        assert target.needs == () and target.summary and 4 <= len(target.hints) <= 5, target.id
        assert len(target.time_reasoning) > 40, f"{target.id}: say how its time was set"


@pytest.mark.parametrize("path", [REFERENCE, *ALTERNATIVES], ids=lambda p: p.stem)
def test_every_symbol_is_a_function_of_the_reference_and_of_every_alternative(path):
    functions = find_functions(ast.parse(path.read_text(encoding="utf-8")))
    symbols = [s for t in LAYERS_CATALOG.targets for s in t.symbols]
    assert len(symbols) == len(set(symbols)), "a symbol belongs to one target"
    assert set(symbols) == {n for spec in LAYERS.values() for n in (spec.forward, spec.backward) if n}
    missing = [s for s in symbols if s not in functions]
    assert not missing, f"{path.name} lacks {missing}"
    if path == REFERENCE:  # the stub keeps the reference's docstrings: every behaviour graded is stated there
        assert all(ast.get_docstring(functions[s]) for s in symbols)


def test_the_reference_states_the_shared_contract_and_each_torch_counterpart():
    tree = ast.parse(REFERENCE.read_text(encoding="utf-8"))
    contract = " ".join((ast.get_docstring(tree) or "").split())
    for phrase in ("float64", "never modified in place", "opaque to the grader", "of that input's shape"):
        assert phrase in contract, f"reference.py's docstring: state {phrase!r}"
    functions = find_functions(tree)
    for spec in LAYERS.values():
        said = " ".join((ast.get_docstring(functions[spec.forward]) or "").split())
        assert "As ``torch." in said or "As one ``torch.optim" in said, f"{spec.forward}: name the torch expression"
    attention = " ".join((ast.get_docstring(functions["attention_forward"]) or "").split())
    assert "top left" in attention and "Lq != Lk" in attention
    assert "first maximal element" in (ast.get_docstring(functions["maxpool2d_backward"]) or "")


def test_the_reference_uses_numpy_and_nothing_else():
    tree = ast.parse(REFERENCE.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"numpy", "typing", "__future__"}, imported


# ---------------------------------------------------------------------------- review cards


@pytest.mark.parametrize("target", [*TARGETS, "full"])
def test_every_target_and_full_has_a_card(target):
    card = CARDS.get(target)
    assert card is not None, f"packs/layers reviews.toml has no card for {target}"
    assert card.formula.strip() and len(card.classic_bugs) >= 3 and len(card.interviewer_next) >= 3
    assert all(item.strip() for item in (*card.classic_bugs, *card.interviewer_next))
    for line in card.formula.splitlines():  # never wrapped: it must fit the card
        assert cell_len(line) <= 74, f"{target}: {line!r}"


def test_cards_are_for_the_packs_targets_only_and_draw_their_marks():
    text = (PACKAGE / "reviews.toml").read_text(encoding="utf-8")
    ids = re.findall(r'^id = "(.+)"$', text, re.M)
    assert len(ids) == len(set(ids)) and set(CARDS) == {*TARGETS, "full"}
    for card in CARDS.values():
        console = Console(width=100, record=True, force_terminal=True, color_system="standard")
        console.print(review_card(card))
        drawn = " ".join(console.export_text().split()).replace(" │ ", " ").replace("│", "")
        for item in (*card.classic_bugs, *card.interviewer_next):
            plain = hint_text(item).plain
            assert "`" not in plain and " ".join(plain.split())[:50] in drawn, item


# ---------------------------------------------------------------------------- interview questions


def test_the_questions_load_with_the_tools_loader_and_cover_every_target():
    assert len(QUESTIONS.questions) >= 10 and len(set(QUESTIONS.ids)) == len(QUESTIONS.ids)
    assert {q.target for q in QUESTIONS.questions} == set(TARGETS)
    assert {q.difficulty for q in QUESTIONS.questions} == {1, 2, 3}
    assert not QUESTIONS.follow_ups, "the pack has no follow-up targets to pair"
    assert not set(QUESTIONS.ids) & set(BANK.ids), "a question id the autograd pack's bank has"
    for q in QUESTIONS.questions:
        assert 3 <= len(q.points) <= 6 and all(len(p) <= 120 for p in q.points), q.id
        assert len(q.answer.split()) >= 60 and 60 <= q.time_box <= 900, q.id


# ---------------------------------------------------------------------------- the package


def test_the_pyproject_declares_the_package_and_its_entry_point():
    project = tomllib.loads((PACK / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (project["name"], project["version"], project["license"]) == ("autograd-drill-layers", "0.1.0", "MIT")
    assert project["requires-python"] == ">=3.11"
    assert {re.split(r"[<>=!~ ]", d)[0] for d in project["dependencies"]} == {"autograd-drill", "numpy"}
    assert project["entry-points"]["autograd_drill.packs"] == {"layers": "autograd_drill_layers:pack"}


def test_the_package_names_its_folder_and_a_pack_function_without_importing_the_tool():
    """``pack()`` is not called: the Pack it builds comes with the pack machinery (issue 28, point 1)."""
    package = load(PACKAGE / "__init__.py")
    assert package.ROOT == PACKAGE and callable(package.pack)
    named = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for path in ("catalog.toml", "reference.py", "reviews.toml", "questions.toml"):
        assert any(isinstance(n, ast.Constant) and n.value == path for n in ast.walk(named)), path
        assert (PACKAGE / path).is_file(), path
