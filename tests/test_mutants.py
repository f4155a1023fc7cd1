"""Every catalogued classic bug fails its own target, with a message that names the wrong symbol."""

import pytest

from grader.run import grade_file
from tests.mutants import MUTANTS
from tests.support import CATALOG
from tests.support import REFERENCE_SOURCE as SOURCE

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


def test_catalogue_is_large_and_covers_every_symbol():
    assert len(MUTANTS) >= 36
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    assert set(FIRST_NAMES) <= {m.id for m in MUTANTS}, "FIRST_NAMES lists a mutant that is gone"
    for target in CATALOG.targets:  # the core: at least 4 bugs each, every symbol covered
        mine = [m for m in MUTANTS if m.target == target.id]
        assert len(mine) >= 4, target.id
        # A bug of a symbol that only a later target's tests can see (backward's, through the engine's own
        # ops: cross-entropy's MLP) is that target's, if the target needs the symbol's target.
        needed = {s for t in target.needs for s in CATALOG.get(t).symbols}
        assert set(target.symbols) <= {m.symbol for m in mine} <= set(target.symbols) | needed, target.id
    for target in CATALOG.extensions:  # the follow-ups: at least 3 each
        mine = [m for m in MUTANTS if m.target == target.id]
        assert len(mine) >= 3, target.id
        assert {m.symbol for m in mine} <= set(target.symbols), target.id


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_mutant_fails_its_target(mutant, tmp_path, warm_runner):
    assert SOURCE.count(mutant.find) == 1, f"{mutant.id}: its snippet no longer occurs exactly once in the reference"
    path = tmp_path / "engine.py"
    path.write_text(SOURCE.replace(mutant.find, mutant.replace))
    result = grade_file(path, [CATALOG.get(mutant.target)], runner=warm_runner).get(mutant.target)
    assert not result.passed, f"{mutant.id} ({mutant.bug}) passed {mutant.target}"
    # The message the user reads first says which symbol is wrong, at its start: "SYMBOL [case]: ...".
    first = result.messages[0]
    named, _ = FIRST_NAMES.get(mutant.id, (mutant.symbol, ""))
    assert first.startswith(f"{named} ["), f"{mutant.id}: the first failure does not start with {named!r}:\n{first}"
    if named != mutant.symbol:  # then a later failure starts with the symbol, or the first one's hint names its op
        op = mutant.symbol.split(".")[-1]
        assert any(m.startswith(f"{mutant.symbol} [") for m in result.messages) or f".{op}(" in first, first
