"""Stubs: generated from the reference, they keep every signature and docstring, and fail their target."""

import ast
import re

import pytest

from drills.loop.stubs import blank, stub_for
from grader.catalog import find_functions
from grader.run import grade_file
from tests.support import CATALOG, REFERENCE

REF_FUNCTIONS = find_functions(ast.parse(REFERENCE.read_text()))


def _for_drill(docstring, drill):
    """The reference docstring as the stub of ``drill`` should show it: paragraphs tagged for other drills
    dropped, the tag of its own removed."""
    kept = []
    for paragraph in docstring.split("\n\n"):
        tag = re.match(r"\(([a-z, -]+) drills?\) ", paragraph)
        if tag is None:
            kept.append(paragraph)
        elif drill in tag.group(1).split(", "):
            kept.append(paragraph[tag.end() :])
    return "\n\n".join(kept)


@pytest.mark.parametrize("target", CATALOG.every, ids=lambda t: t.id)
def test_stub_keeps_signature_and_docstring_and_blanks_only_the_target(target):
    stub = ast.parse(stub_for(target.symbols, f"target {target.id}", drills=[target.id]))
    functions = find_functions(stub)
    assert functions.keys() == REF_FUNCTIONS.keys()
    for name, ref in REF_FUNCTIONS.items():
        ours = functions[name]
        assert ast.dump(ours.args) == ast.dump(ref.args) and ast.dump(ours.returns) == ast.dump(ref.returns)
        if name in target.symbols:
            assert ast.get_docstring(ours) == _for_drill(ast.get_docstring(ref), target.id)
            assert len(ours.body) == 2 and isinstance(ours.body[1], ast.Raise), name
            assert ast.unparse(ours.body[1]) == f"raise NotImplementedError('{name}')"
        else:
            assert ast.dump(ours) == ast.dump(ref), f"{name} should be left as the reference wrote it"


def test_stub_tells_the_user_what_to_write():
    text = stub_for(["unbroadcast"], "target unbroadcast")
    assert text.startswith("# autograd-drill: target unbroadcast.")
    assert "# TODO: write unbroadcast from memory" in text


def test_tagged_paragraphs_go_only_to_their_drills():
    source = 'def f():\n    """Core.\n\n    (a drill) For a.\n\n    (b, c drills) For b and c.\n    """\n    return 1\n'
    docs = {d: ast.get_docstring(find_functions(ast.parse(blank(source, ["f"], drills=[d])))["f"]) for d in "abz"}
    assert docs == {"a": "Core.\n\nFor a.", "b": "Core.\n\nFor b and c.", "z": "Core."}
    last = (
        'def f():\n    """Core.\n\n    (a drill) For a."""\n    return 1\n'  # the closing quotes on a dropped paragraph
    )
    assert ast.get_docstring(find_functions(ast.parse(blank(last, ["f"], drills=["z"])))["f"]) == "Core."
    assert "(a drill) For a." in blank(source, ["f"])  # no drill named: every paragraph kept


def test_blank_refuses_unknown_or_undocumented_symbols():
    with pytest.raises(KeyError, match="Tensor.nope"):
        blank(REFERENCE.read_text(), ["Tensor.nope"])
    with pytest.raises(ValueError, match="docstring"):
        blank("def f():\n    return 1\n", ["f"])


@pytest.mark.parametrize("target", CATALOG.targets, ids=lambda t: t.id)
def test_fresh_stub_fails_its_target_and_blames_it_elsewhere(target, tmp_path, warm_runner):
    path = tmp_path / f"{target.id}.py"
    path.write_text(stub_for(target.symbols, f"target {target.id}"))
    result = grade_file(path, CATALOG.targets, runner=warm_runner)
    own = result.get(target.id)
    assert not own.passed
    assert "not written yet" in own.messages[0]
    for other in result.targets:
        if other.target == target.id or other.passed:
            continue
        # Another target fails only because of this stub: every message names the blank symbol and its target.
        for message in other.messages:
            assert f"(target {target.id})" in message, message
            assert any(symbol in message for symbol in target.symbols), message


def test_full_stub_fails_every_target(tmp_path, warm_runner):
    symbols = [s for t in CATALOG.targets for s in t.symbols]
    path = tmp_path / "full.py"
    path.write_text(stub_for(symbols, "full"))
    result = grade_file(path, CATALOG.targets, runner=warm_runner)
    assert not any(t.passed for t in result.targets)


@pytest.mark.parametrize("target", CATALOG.extensions, ids=lambda t: t.id)
def test_fresh_stub_of_a_follow_up_fails_it(target, tmp_path, warm_runner):
    path = tmp_path / f"{target.id}.py"
    path.write_text(stub_for(target.symbols, f"target {target.id}"))
    result = grade_file(path, [target], runner=warm_runner).get(target.id)
    assert not result.passed
    assert "not written yet" in result.messages[0]
