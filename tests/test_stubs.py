"""Stubs: generated from the reference, they keep every signature and docstring, and fail their target."""

import ast
import re

import pytest

from autograd_drill.grader.catalog import Target, find_functions
from autograd_drill.grader.run import grade_file
from autograd_drill.loop.stubs import blank, left_out, reference_for, stub_for, tagged_code
from tests.mutants import code_only
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
    shown = find_functions(ast.parse(reference_for(REFERENCE.read_text(), [target.id])))
    followed = {s for t in CATALOG.extensions if t.id != target.id for s in t.symbols}
    core = {s for t in CATALOG.targets for s in t.symbols}
    assert functions.keys() == REF_FUNCTIONS.keys()
    for name, ref in REF_FUNCTIONS.items():
        ours = functions[name]
        assert ast.dump(ours.args) == ast.dump(ref.args) and ast.dump(ours.returns) == ast.dump(ref.returns)
        if name in target.symbols or (name in followed and name not in core):  # its own, or another drill's
            assert ast.get_docstring(ours) == _for_drill(ast.get_docstring(ref), target.id)
            assert len(ours.body) == 2 and isinstance(ours.body[1], ast.Raise), name
            assert ast.unparse(ours.body[1]) == f"raise NotImplementedError('{name}')"
        else:
            assert ast.dump(ours) == ast.dump(shown[name]), f"{name} should be left as the reference wrote it"


# What each follow-up adds to the reference, by a line of its code: no other drill's stub may show it.
FOLLOW_UP_CODE = {
    "max": ["np.argmax(x, axis=ax)"],
    "cotangent": ["seed = np.array(gradient, dtype=np.float64)", "self.grad = seed"],
    "gradcheck": ["x[i] = original", "worst = "],
    "free-memory": ["node._prev = ()", "node.grad = np.zeros_like(node.data)", "if not retain_graph"],
    "forward-mode": ["Dual(e, e * self.tangent)", "return grad.tangent", "return out.primal, out.tangent"],
}


def follow_up_code(target: Target) -> list[str]:
    """A follow-up's lines of code: FOLLOW_UP_CODE's, or for one it does not list, the longest line of
    code of each of its own functions (those no core target blanks)."""
    if target.id in FOLLOW_UP_CODE:
        return FOLLOW_UP_CODE[target.id]
    core = {s for t in CATALOG.targets for s in t.symbols}
    source = REFERENCE.read_text().splitlines(keepends=True)
    lines = []
    for symbol in (s for s in target.symbols if s not in core):
        node = REF_FUNCTIONS[symbol]
        code, _ = code_only("".join(source[node.body[1].lineno - 1 : node.end_lineno]))
        lines.append(max((line.strip() for line in code.splitlines()), key=len))
    return lines


def test_the_follow_up_code_named_is_the_references():
    source = REFERENCE.read_text()
    assert FOLLOW_UP_CODE.keys() <= {t.id for t in CATALOG.extensions}, "FOLLOW_UP_CODE: a follow-up that is gone"
    for target in CATALOG.extensions:
        codes = follow_up_code(target)
        assert codes, (
            f"tests/test_stubs.py, FOLLOW_UP_CODE: a line of {target.id}'s code (it has no function of its own)"
        )
        assert all(code in source for code in codes), target.id


@pytest.mark.parametrize(
    ("drill", "rung"),
    [(t.id, rung) for t in CATALOG.every for rung in ("recall", "copy", "cloze")] + [("full", "recall")],
)
def test_no_stub_shows_the_code_of_another_drill(drill, rung):
    targets = CATALOG.drilled(drill)
    text = stub_for([s for t in targets for s in t.symbols], drill, drills=[t.id for t in targets], rung=rung)
    for other, codes in ((t.id, follow_up_code(t)) for t in CATALOG.extensions):
        for code in codes:
            if other != drill:
                assert code not in text, f"the {drill} stub ({rung}) shows {other}'s {code!r}"
            elif rung == "copy":
                assert code in text, f"the {drill} copy stub should show {code!r}"
    assert not re.search(r"#\s*\([a-z, -]+ drills?\)", text)  # no code tag left in view
    ast.parse(text)


def test_the_full_stub_says_what_it_leaves_out():
    targets = CATALOG.drilled("full")
    text = stub_for([s for t in targets for s in t.symbols], "full", drills=[t.id for t in targets])
    absent = left_out([t.id for t in targets], REFERENCE.read_text())
    assert {"Tensor.max", "numerical_grad", "gradcheck", "jvp", "hvp", "Dual.__add__"} <= set(absent)
    assert f"# Left out, for the follow-up drills: {', '.join(absent)}" in text
    assert "# Not part of this drill: Tensor.max is drilled by  drill start max." in text
    assert "# Tensor.backward here is without the code of the cotangent, free-memory drills.\n" in text
    cotangent = stub_for(["Tensor.backward"], "cotangent", drills=["cotangent"])
    assert "# Tensor.backward here is without the code of the free-memory drill.\n" in cotangent
    freeing = stub_for(["Tensor.backward"], "free-memory", drills=["free-memory"])
    assert "# Tensor.backward here is without the code of the cotangent drill.\n" in freeing
    assert "without the code" not in stub_for(["Tensor.backward"], "everything")  # no drill named: all of it


def test_code_tags_take_a_statement_or_an_else_block():
    source = (
        "def f(g=None, keep=False):\n"
        '    """Doc."""\n'
        "    if g is None:\n"
        "        x = 1\n"
        "    else:  # (a drill)\n"
        "        x = g\n"
        "        x = x + 0\n"
        "    for i in range(2):  # (b, c drills)\n"
        "        x += i\n"
        "    return x\n"
    )
    assert tagged_code(source) == ((frozenset("a"), 5, 7), (frozenset("bc"), 8, 9))
    assert reference_for(source, None) == source
    kept_a = reference_for(source, ["a"])
    assert "    else:\n        x = g\n" in kept_a and "range" not in kept_a and "drill" not in kept_a
    assert reference_for(source, ["z"]).splitlines()[2:] == ["    if g is None:", "        x = 1", "    return x"]
    with pytest.raises(ValueError, match="leaves"):  # a block left empty
        reference_for("if x:\n    y = 1  # (a drill)\nz = 2\n", ["z"])
    with pytest.raises(ValueError, match="no statement"):
        tagged_code("x = [\n    1,  # (a drill)\n]\n")


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


def test_the_full_stub_written_with_the_core_only_passes_every_core_target(tmp_path, warm_runner):
    """The full drill asks for the core only: its stub with each blank written as the reference's core
    (the follow-ups' code left out, their functions still raising) passes every core target."""
    drills = [t.id for t in CATALOG.targets]
    shown = reference_for(REFERENCE.read_text(), drills)
    assert "seed = np.array(gradient" not in shown and "node._prev = ()" not in shown
    path = tmp_path / "full.py"
    path.write_text(blank(shown, [], drills=drills, absent=left_out(drills, shown)))
    result = grade_file(path, CATALOG.targets, runner=warm_runner)
    assert all(t.passed for t in result.targets), [t.target for t in result.targets if not t.passed]
