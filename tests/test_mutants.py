"""Every catalogued classic bug fails its own target, with a message that names the wrong symbol."""

import pytest

from grader.run import grade
from tests.mutants import MUTANTS
from tests.support import CATALOG
from tests.support import REFERENCE_SOURCE as SOURCE


def test_catalogue_is_large_and_covers_every_symbol():
    assert len(MUTANTS) >= 36
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    for target in CATALOG.targets:  # the core: at least 4 bugs each, every symbol covered
        mine = [m for m in MUTANTS if m.target == target.id]
        assert len(mine) >= 4, target.id
        assert {m.symbol for m in mine} == set(target.symbols), target.id
    for target in CATALOG.extensions:  # the follow-ups: at least 3 each
        mine = [m for m in MUTANTS if m.target == target.id]
        assert len(mine) >= 3, target.id
        assert {m.symbol for m in mine} <= set(target.symbols), target.id


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_mutant_fails_its_target(mutant, tmp_path):
    assert SOURCE.count(mutant.find) == 1, f"{mutant.id}: its snippet no longer occurs exactly once in the reference"
    path = tmp_path / "engine.py"
    path.write_text(SOURCE.replace(mutant.find, mutant.replace))
    result = grade(path, [CATALOG.get(mutant.target)]).get(mutant.target)
    assert not result.passed, f"{mutant.id} ({mutant.bug}) passed {mutant.target}"
    # The message says which symbol is wrong: the first failure names it or the op it runs in.
    assert any(mutant.symbol in message or mutant.symbol.split(".")[-1] in message for message in result.failures)
