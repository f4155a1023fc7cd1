"""Stubs: generated from the reference, they keep every signature and docstring, and fail their target."""

import ast

import pytest

from drills.grading import grade
from drills.stubs import blank, find_functions, stub_for
from tests.conftest import CATALOG, REFERENCE

REF_FUNCTIONS = find_functions(ast.parse(REFERENCE.read_text()))


@pytest.mark.parametrize("target", CATALOG.targets, ids=lambda t: t.id)
def test_stub_keeps_signature_and_docstring_and_blanks_only_the_target(target):
    stub = ast.parse(stub_for(target.symbols, f"target {target.id}"))
    functions = find_functions(stub)
    assert functions.keys() == REF_FUNCTIONS.keys()
    for name, ref in REF_FUNCTIONS.items():
        ours = functions[name]
        assert ast.dump(ours.args) == ast.dump(ref.args) and ast.dump(ours.returns) == ast.dump(ref.returns)
        if name in target.symbols:
            assert ast.get_docstring(ours) == ast.get_docstring(ref)
            assert len(ours.body) == 2 and isinstance(ours.body[1], ast.Raise), name
            assert ast.unparse(ours.body[1]) == f"raise NotImplementedError('{name}')"
        else:
            assert ast.dump(ours) == ast.dump(ref), f"{name} should be left as the reference wrote it"


def test_stub_tells_the_user_what_to_write():
    text = stub_for(["unbroadcast"], "target unbroadcast")
    assert text.startswith("# autograd-drill: target unbroadcast.")
    assert "# TODO: write unbroadcast from memory" in text


def test_blank_refuses_unknown_or_undocumented_symbols():
    with pytest.raises(KeyError, match="Tensor.nope"):
        blank(REFERENCE.read_text(), ["Tensor.nope"])
    with pytest.raises(ValueError, match="docstring"):
        blank("def f():\n    return 1\n", ["f"])


@pytest.mark.parametrize("target", CATALOG.targets, ids=lambda t: t.id)
def test_fresh_stub_fails_its_target_and_blames_it_elsewhere(target, tmp_path):
    path = tmp_path / f"{target.id}.py"
    path.write_text(stub_for(target.symbols, f"target {target.id}"))
    result = grade(path, CATALOG.targets)
    own = result.get(target.id)
    assert not own.passed
    assert "not written yet" in own.failures[0]
    for other in result.targets:
        if other.target == target.id or other.passed:
            continue
        # Another target fails only because of this stub: every message names the blank symbol and its target.
        for message in other.failures:
            assert f"(target {target.id})" in message, message
            assert any(symbol in message for symbol in target.symbols), message


def test_full_stub_fails_every_target(tmp_path):
    symbols = [s for t in CATALOG.targets for s in t.symbols]
    path = tmp_path / "full.py"
    path.write_text(stub_for(symbols, "full"))
    result = grade(path, CATALOG.targets)
    assert not any(t.passed for t in result.targets)


@pytest.mark.parametrize("target", CATALOG.extensions, ids=lambda t: t.id)
def test_fresh_stub_of_a_follow_up_fails_it(target, tmp_path):
    path = tmp_path / f"{target.id}.py"
    path.write_text(stub_for(target.symbols, f"target {target.id}"))
    result = grade(path, [target]).get(target.id)
    assert not result.passed
    assert "not written yet" in result.failures[0]
