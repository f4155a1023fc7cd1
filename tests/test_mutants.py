"""Every catalogued classic bug of every pack fails its own target, with a message that names the wrong
symbol: the autograd pack's (tests/mutants.toml) and the layers pack's (packs/layers/mutants.toml),
the same proofs for both (``PACKS``)."""

import io
import tokenize
from dataclasses import dataclass

import pytest

from autograd_drill.grader.catalog import Catalog
from autograd_drill.grader.run import grade_file
from autograd_drill.grader.suite import Suite
from autograd_drill.grader.verdict import TargetResult
from tests import layers_pack
from tests.mutants import LAYERS_FILE, LAYERS_MUTANTS, MUTANTS, Mutant, code_only
from tests.support import CATALOG, ROOT
from tests.support import REFERENCE_SOURCE as SOURCE


@dataclass(frozen=True)
class Pack:
    """A pack's classic bugs and what grades them."""

    name: str
    file: str
    """Its mutants file, as the messages name it."""
    mutants: tuple[Mutant, ...]
    catalog: Catalog
    source: str
    """Its reference's text, which each mutant changes."""
    suite: Suite | None
    """Its oracle tests (None: the grader's own)."""
    least: int
    """How many bugs it lists at least, in all."""
    filename: str = "engine.py"


PACKS = (
    Pack("autograd", "tests/mutants.toml", MUTANTS, CATALOG, SOURCE, None, 36),
    Pack(
        "layers",
        str(LAYERS_FILE.relative_to(ROOT)),
        LAYERS_MUTANTS,
        layers_pack.CATALOG,
        layers_pack.REFERENCE.read_text(encoding="utf-8"),
        layers_pack.SUITE,
        24,
        "reference.py",
    ),
)
EACH = [
    pytest.param(pack, mutant, id=f"{'' if pack.name == 'autograd' else pack.name + '/'}{mutant.id}")
    for pack in PACKS
    for mutant in pack.mutants
]

FIRST_NAMES = {
    # mutant id: what its first failure names instead of the mutant's symbol, and why that is right
    "mul-assigns-instead-of-accumulating": (
        "Tensor.__pow__",
        "the first arith test that catches it is a division, x / (y * y + 1.0): its y * y uses y twice, and the"
        " division tests are the tests of Tensor.__pow__ (a / b is a * b ** -1); test_op_shared_input names"
        " Tensor.__mul__ after it",
    ),
}
"""Mutants whose first failure legitimately starts with another name than their symbol."""
SHOWN_IN = {
    "maxpool-gradient-to-every-tied-element": (
        "maxpool2d_backward",
        "the forward's out is right and only its cache is wrong: the cache is opaque to the grader (the"
        " pack's contract), so the backward, whose dx is wrong, is the function the verdict names",
    ),
}
"""Mutants of a forward that shows in its backward only: the first failure names that backward alone."""
FIRST_MET_ELSEWHERE = {
    "mul-assigns-instead-of-accumulating",
}
"""Mutants whose first failure met, in the order the grader runs its tests, is the test of another
symbol (a division is a power's test): the verdict's first failure, in file order, is the one that
names the symbol. ``drill watch`` shows such a failure first. (A test that mixes ops names the one
that is wrong alone: grader/localize.py for random graphs, the probes for a jvp.)"""


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.name)
def test_catalogue_is_large_and_covers_every_symbol(pack):
    mutants, catalog = pack.mutants, pack.catalog
    assert len(mutants) >= pack.least
    assert len({m.id for m in mutants}) == len(mutants)
    every = {m.id for p in PACKS for m in p.mutants}
    assert set(FIRST_NAMES) | FIRST_MET_ELSEWHERE | set(SHOWN_IN) <= every, "a mutant that is gone is listed"
    for target in catalog.every:  # the core: at least 4 bugs each, every symbol covered; the follow-ups: 3
        mine = [m for m in mutants if m.target == target.id]
        least = 3 if target.extension else 4
        assert len(mine) >= least, (
            f"{pack.file}: {len(mine)} classic bugs of {target.id}, a {'follow-up' if target.extension else 'core'}"
            f" target needs at least {least} (README, Adding a drill)"
        )
        # A bug of a symbol that only a later target's tests can see (backward's, through the engine's own
        # ops: cross-entropy's MLP) is that target's, if the target needs the symbol's target.
        needed = {s for t in target.needs for s in catalog.get(t).symbols}
        bugged = {m.symbol for m in mine}
        if not target.extension:
            missing = [s for s in target.symbols if s not in bugged]
            assert not missing, f"{pack.file}: no classic bug of {', '.join(missing)} (target {target.id})"
        assert bugged <= set(target.symbols) | needed, f"{target.id}: bugs of {bugged - set(target.symbols) - needed}"


def named_first(mutant: Mutant, result: TargetResult) -> bool:
    """Whether the message the user reads first says which symbol is wrong, at its start:
    "SYMBOL [case]: ..." (for a mutant of FIRST_NAMES, that name; then a later failure starts with the
    symbol, or the first one's hint names its op)."""
    first = result.messages[0]
    if mutant.id in SHOWN_IN:
        return first.startswith(f"{SHOWN_IN[mutant.id][0]} [")
    named, _ = FIRST_NAMES.get(mutant.id, (mutant.symbol, ""))
    if not first.startswith(f"{named} ["):
        return False
    op = mutant.symbol.split(".")[-1]
    return (
        named == mutant.symbol or any(m.startswith(f"{mutant.symbol} [") for m in result.messages) or f".{op}(" in first
    )


@pytest.mark.parametrize(("pack", "mutant"), EACH)
def test_mutant_fails_its_target(pack, mutant, tmp_path, warm_runner):
    """Graded until its first failure, in the order the grader runs its tests (one case of each test
    function first): the failure ``drill watch`` shows first. Where that one does not name the symbol
    (a test that mixes ops failed first: FIRST_MET_ELSEWHERE), the whole target is graded, and the
    verdict's first failure (in file order, as ``drill grade`` lists them) must name it."""
    path = tmp_path / pack.filename
    path.write_text(mutant.apply(pack.source))
    target = [pack.catalog.get(mutant.target)]
    suite = pack.suite
    result = grade_file(path, target, runner=warm_runner, first_failure_only=True, suite=suite).get(mutant.target)
    assert not result.passed, f"{mutant.id} ({mutant.bug}) passed {mutant.target}"
    met_first = named_first(mutant, result)
    assert met_first == (mutant.id not in FIRST_MET_ELSEWHERE), (
        f"{mutant.id}: update FIRST_MET_ELSEWHERE:\n{result.messages[0]}"
    )
    if not met_first:
        result = grade_file(path, target, runner=warm_runner, suite=suite).get(mutant.target)
    assert named_first(mutant, result), (
        f"{mutant.id}: the first failure does not name {mutant.symbol}:\n{result.messages[0]}"
    )


def _comments_changed(source: str) -> str:
    """``source`` with every comment reworded, a comment line added above each ``def`` and each
    trailing comment moved to a line of its own: what a reader's edit of the comments may do."""
    lines = source.splitlines(keepends=True)
    for token in reversed(
        [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    ):
        row, col = token.start
        line = lines[row - 1]
        code = line[:col].rstrip()
        indent = line[: len(line) - len(line.lstrip())]
        lines[row - 1] = f"{indent}# reworded\n" if not code else f"{indent}# moved\n{code}\n"
    return "".join(
        f"{line[: len(line) - len(line.lstrip())]}# added\n{line}" if line.lstrip().startswith("def ") else line
        for line in lines
    )


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.name)
def test_mutants_are_matched_on_code_not_comments(pack):
    """A comment of the reference may change, move or be added without breaking a mutant: each still
    finds its code exactly once, and makes the same code of it. (Before, 18 of them held a comment
    of the reference in their snippet and no longer applied.)"""
    changed = _comments_changed(pack.source)
    assert changed.count("# added") > 10 and "# moved" in changed and "# reworded" in changed
    broken = []
    for mutant in pack.mutants:
        try:
            mutated = mutant.apply(changed)
        except AssertionError as exc:
            broken.append(str(exc))
            continue
        assert code_only(mutated)[0] == code_only(mutant.apply(pack.source))[0], mutant.id
    assert not broken, broken
    with pytest.raises(AssertionError, match="has no code"):  # a comment alone matches nothing
        Mutant("m", "unbroadcast", "unbroadcast", "a comment", "# Leading axes that broadcasting prepended", "").apply(
            SOURCE
        )


def test_a_grading_to_its_first_failure_stops_there(tmp_path, warm_runner):
    """grade_file's first_failure_only: one failure in the verdict, the tests not reached not run (and
    said so); graded whole, the same file fails more tests and leaves none unrun."""
    mutant = next(m for m in MUTANTS if m.id == "unbroadcast-if-instead-of-while")
    path = tmp_path / "engine.py"
    path.write_text(mutant.apply(SOURCE))
    target = [CATALOG.get(mutant.target)]
    first = grade_file(path, target, runner=warm_runner, first_failure_only=True).get(mutant.target)
    assert first.failed == len(first.failures) == 1
    assert first.not_run > 0 and first.not_run_reason == "the check stopped before them"
    whole = grade_file(path, target, runner=warm_runner).get(mutant.target)
    assert whole.failed > 1 and whole.not_run == 0 and whole.tests == first.tests
