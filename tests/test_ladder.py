"""The rungs of the learning ladder: copy and cloze stubs cut from the reference (recall's are
tests/test_stubs.py's), their target times and the reasoning given for them, and how attempts move
a target between rungs."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest

from autograd_drill.grader.catalog import FULL, find_functions
from autograd_drill.grader.run import grade_file
from autograd_drill.loop.cloze import body_of, note_lines, simple_statements
from autograd_drill.loop.ladder import STEP, TYPING_SPEED, Outcome, moved, readme_with_table, rung_table, rung_time
from autograd_drill.loop.stubs import RUNGS, blank, cut, left_out, reference_for, stub_for
from tests.support import CATALOG, REFERENCE_SOURCE, ROOT

REF_FUNCTIONS = find_functions(ast.parse(REFERENCE_SOURCE))


def _shown(drills: list[str]) -> str:
    """The reference as the stub of ``drills`` shows it: less the code tagged for other drills."""
    return reference_for(REFERENCE_SOURCE, drills)


def _statements(node: ast.FunctionDef) -> list[str]:
    return [ast.dump(s) for s in simple_statements(body_of(node))]


def _placeholder(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Raise) and "NotImplementedError" in ast.unparse(stmt)


# ---------------------------------------------------------------------------- copy


@pytest.mark.parametrize("target", CATALOG.every, ids=lambda t: t.id)
def test_copy_stub_shows_the_reference_above_a_blank_that_fails_like_recall(target):
    copy = stub_for(target.symbols, f"target {target.id}", drills=[target.id], rung="copy")
    recall = stub_for(target.symbols, f"target {target.id}", drills=[target.id])
    # Comments aside, the very module of the recall stub: its blanks fail the target as recall's do
    # (tests/test_stubs.py grades those).
    assert ast.dump(ast.parse(copy)) == ast.dump(ast.parse(recall))
    lines = copy.splitlines()
    view = _shown([target.id])
    functions = find_functions(ast.parse(view))
    for symbol in target.symbols:
        node = functions[symbol]
        assert node.end_lineno is not None and node.body[0].end_lineno is not None
        body = textwrap.dedent("\n".join(view.splitlines()[node.body[0].end_lineno : node.end_lineno]))
        todo = lines.index(
            next(line for line in lines if line.strip() == f"# TODO: retype {symbol} from the reference above.")
        )
        block = lines[todo - len(body.splitlines()) : todo]
        indent = len(block[0]) - len(block[0].lstrip())
        shown = "\n".join(line[indent + 2 :] for line in block)  # less the indentation and "# "
        assert shown.rstrip() == body.rstrip(), symbol
        assert lines[todo + 1].strip() == f'raise NotImplementedError("{symbol}")'


def test_copy_stub_says_it_is_the_copy_rung():
    text = stub_for(["unbroadcast"], "target unbroadcast", rung="copy")
    assert text.startswith("# autograd-drill: target unbroadcast, copy rung.")
    assert "#     grad = grad.sum(axis=0)" in text  # the reference's line, in view, inside the function


# ---------------------------------------------------------------------------- cloze


@pytest.mark.parametrize("target", CATALOG.every, ids=lambda t: t.id)
def test_cloze_blanks_some_but_not_all_of_every_symbol_and_keeps_the_rest(target):
    shown = _shown([target.id])
    cloze = cut(shown, target.symbols, [target.id], "cloze")
    stub = find_functions(ast.parse(cloze.text))
    assert stub.keys() == REF_FUNCTIONS.keys()
    for name, ref in find_functions(ast.parse(shown)).items():
        ours = stub[name]
        assert ast.dump(ours.args) == ast.dump(ref.args)
        if name not in target.symbols:
            assert ast.dump(ours) == ast.dump(ref), f"{name} should be left as the reference wrote it"
            continue
        gaps = [g for g in cloze.gaps if g.symbol == name]
        given = [s for s in simple_statements(body_of(ours)) if not _placeholder(s)]
        assert gaps, f"{name}: nothing blank"
        assert given, f"{name}: everything blank"
        assert len([s for s in simple_statements(body_of(ours)) if _placeholder(s)]) == len(gaps)
        for gap in gaps:
            assert gap.placeholder in cloze.text and "# TODO" in gap.placeholder


@pytest.mark.parametrize("target", CATALOG.every, ids=lambda t: t.id)
def test_cloze_blanks_the_gradient_lines_and_the_traps(target):
    shown = _shown([target.id])
    cloze = cut(shown, target.symbols, [target.id], "cloze")
    stub = find_functions(ast.parse(cloze.text))
    functions = find_functions(ast.parse(shown))
    for symbol in target.symbols:
        ref = functions[symbol]
        left = set(_statements(stub[symbol]))
        closures = [n for n in ast.walk(ref) if isinstance(n, ast.FunctionDef) and n.name == "_backward"]
        grads = [
            s
            for c in closures
            for s in ast.walk(c)
            if isinstance(s, ast.AugAssign) and ast.unparse(s.target).endswith(".grad")
        ]
        for stmt in grads:
            assert ast.dump(stmt) not in left, f"{symbol}: {ast.unparse(stmt)} should be blank"
        statements = simple_statements(body_of(ref))
        for line in note_lines(shown):
            if ref.lineno <= line <= (ref.end_lineno or 0) and len(statements) > 1:
                marked = next(s for s in statements if (s.end_lineno or 0) >= line)
                assert ast.dump(marked) not in left, f"{symbol}: the trap of line {line} should be blank"


def test_a_follow_up_cloze_blanks_what_its_paragraph_adds():
    stubs = {
        drill: find_functions(ast.parse(cut(REFERENCE_SOURCE, ["Tensor.backward"], [drill], "cloze").text))
        for drill in ("free-memory", "cotangent")
    }
    freeing = "node._prev = ()"
    assert freeing not in ast.unparse(stubs["free-memory"]["Tensor.backward"])
    assert freeing in ast.unparse(stubs["cotangent"]["Tensor.backward"])


def _without_docstrings(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


@pytest.mark.parametrize("target", CATALOG.every, ids=lambda t: t.id)
def test_cloze_fails_its_target_and_is_the_reference_with_the_blanks_filled(target, tmp_path, warm_runner):
    shown = _shown([target.id])
    cloze = cut(shown, target.symbols, [target.id], "cloze", left_out([target.id], shown))
    path = tmp_path / f"{target.id}.py"
    path.write_text(cloze.text)
    result = grade_file(path, [target], runner=warm_runner).get(target.id)
    assert not result.passed
    assert "not written yet" in result.messages[0]
    # Its blanks filled: the reference as its stub shows it, docstrings aside, which passes the target
    # though the other drills' code is left out (the whole reference passes: tests/test_grade_cli.py).
    filled = cloze.text
    for gap in cloze.gaps:  # the reference's code put back in every blank
        filled = filled.replace(gap.placeholder, gap.answer, 1)
    absent = left_out([target.id], shown)
    assert _without_docstrings(filled) == _without_docstrings(cut(shown, [], [target.id], absent=absent).text)
    path.write_text(filled)
    assert grade_file(path, [target], runner=warm_runner).get(target.id).passed, target.id


def test_a_one_statement_body_gets_an_argument_blanked():
    text = stub_for(["Dual.log"], "target x", rung="cloze")
    node = find_functions(ast.parse(text))["Dual.log"]
    raise_, statement = body_of(node)
    assert _placeholder(raise_)
    assert ast.unparse(statement) == "return Dual(np.log(self.primal), ...)"
    assert "replace the ... below" in text
    only = 'def f(x):\n    """Doc."""\n    return x\n'  # nothing to take an argument from: the statement goes
    assert "return x" not in blank(only, ["f"], rung="cloze")


@pytest.mark.parametrize("rung", RUNGS)
def test_every_rung_keeps_the_drills_docstring_paragraphs_only(rung):
    source = (
        'def f(y):\n    """Core.\n\n    (a drill) For a.\n\n    (b drill) For b.\n    """\n    x = g(y)\n    return x\n'
    )
    docs = {
        d: ast.get_docstring(find_functions(ast.parse(blank(source, ["f"], drills=[d], rung=rung)))["f"]) for d in "ab"
    }
    assert docs == {"a": "Core.\n\nFor a.", "b": "Core.\n\nFor b."}


def test_the_stubs_of_the_issue():
    """drill start unbroadcast --rung copy / cloze / recall: the code in view and a blank; some but not
    all lines blank; the body blank."""
    body = [line.strip() for line in ast.unparse(body_of(REF_FUNCTIONS["unbroadcast"])[0]).splitlines()]
    copy = stub_for(["unbroadcast"], "target unbroadcast", rung="copy")
    assert all(f"# {line}" in copy for line in body) and 'raise NotImplementedError("unbroadcast")' in copy
    cloze = find_functions(ast.parse(stub_for(["unbroadcast"], "target unbroadcast", rung="cloze")))["unbroadcast"]
    statements = simple_statements(body_of(cloze))
    assert any(map(_placeholder, statements)) and not all(map(_placeholder, statements))
    recall = find_functions(ast.parse(stub_for(["unbroadcast"], "target unbroadcast")))["unbroadcast"]
    assert [ast.unparse(s) for s in body_of(recall)] == ["raise NotImplementedError('unbroadcast')"]


def test_an_unknown_rung_is_refused():
    with pytest.raises(ValueError, match="unknown rung 'copyy'"):
        stub_for(["unbroadcast"], "x", rung="copyy")


# ---------------------------------------------------------------------------- target times


def _numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", text)]


@pytest.mark.parametrize("target", CATALOG.every, ids=lambda t: t.id)
def test_rung_times_follow_their_stated_reasoning(target):
    recall = rung_time(target.id, "recall")
    assert recall.seconds == target.target_time and recall.reasoning.startswith("recall: ")
    copy = rung_time(target.id, "copy")
    characters, speed = _numbers(copy.reasoning)[:2]
    assert speed == TYPING_SPEED
    assert copy.seconds % STEP == 0 and copy.seconds - STEP < characters / speed * 60 <= copy.seconds
    cloze = rung_time(target.id, "cloze")
    gaps, blanked, whole = _numbers(cloze.reasoning)[:3]
    assert whole == characters and 0 < blanked < whole
    assert gaps == len(cut(_shown([target.id]), target.symbols, [target.id], "cloze").gaps)
    share = target.target_time * blanked / whole
    assert cloze.seconds % STEP == 0 and max(0, cloze.seconds - STEP) < share <= cloze.seconds
    assert cloze.seconds < recall.seconds


def test_copy_time_grows_with_the_code_to_retype(tmp_path):
    longer = tmp_path / "engine.py"
    extra = "    grad = grad + 0.0 * grad.sum() * grad.mean() * grad.max() * grad.min()\n" * 6
    longer.write_text(
        REFERENCE_SOURCE.replace("    return grad.reshape(shape)\n", extra + "    return grad.reshape(shape)\n")
    )
    assert rung_time("unbroadcast", "copy", longer).seconds > rung_time("unbroadcast", "copy").seconds


def test_a_reference_is_cut_once_for_its_rung_times(tmp_path, monkeypatch):
    """The copy and cloze times are a pure function of the reference's text and the target's symbols:
    asked again (another view, another rung: a reference not shipped keeps no time on disk), the stub
    is not cut again (another text is: test_copy_time_grows_with_the_code_to_retype)."""
    from autograd_drill.loop import stubs

    cuts = []
    real = stubs.cut
    monkeypatch.setattr(stubs, "cut", lambda *args, **kw: cuts.append(args[1]) or real(*args, **kw))
    engine = tmp_path / "engine.py"
    engine.write_text(REFERENCE_SOURCE + "\n# this test's own copy\n")
    first = [rung_time("max", rung, engine) for rung in ("copy", "cloze", "copy", "cloze")]
    assert first[:2] == first[2:] and len(cuts) == 1


def test_full_is_recall_only_and_unknown_rungs_are_refused():
    assert rung_time(FULL, "recall").seconds == CATALOG.full_time
    for rung in ("copy", "cloze"):
        with pytest.raises(ValueError, match="recall only"):
            rung_time(FULL, rung)
    with pytest.raises(ValueError, match="unknown rung"):
        rung_time("unbroadcast", "dictation")


# ---------------------------------------------------------------------------- moving up and down

PASS = Outcome(passed=True, seconds=60)
LATE = Outcome(passed=True, seconds=200)
FAIL_LATE = Outcome(passed=False, seconds=200)


@pytest.mark.parametrize(
    ("rung", "outcomes", "expected"),
    [
        ("copy", [PASS], "cloze"),
        ("cloze", [PASS], "recall"),
        ("recall", [PASS], "recall"),
        ("cloze", [Outcome(passed=True, seconds=60, assisted=True)], "cloze"),
        ("cloze", [LATE], "cloze"),
        ("cloze", [LATE, LATE], "copy"),
        ("recall", [PASS, FAIL_LATE, LATE], "cloze"),
        ("recall", [LATE, PASS, LATE], "recall"),
        ("recall", [Outcome(passed=False, seconds=None, gave_up=True)], "cloze"),
        ("copy", [Outcome(passed=False, seconds=30, gave_up=True)], "copy"),
        ("copy", [], "copy"),
    ],
)
def test_a_pass_within_time_moves_up_giving_up_or_two_overs_move_down(rung, outcomes, expected):
    assert moved(rung, outcomes, target_seconds=120) == expected


def test_the_readme_table_of_rung_times_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_with_table(readme) == readme, "README: regenerate with  python -m autograd_drill.loop.ladder --readme"
    assert "| `backward` | 4:30 (807 characters)" in rung_table()  # the core only: no cotangent, no retain_graph


def test_the_core_backward_cloze_blanks_only_the_core():
    """Its blanks were 12, the cotangent and retain_graph code among them; now 7, all core."""
    gaps = cut(_shown(["backward"]), CATALOG.get("backward").symbols, ["backward"], "cloze").gaps
    answers = "".join(g.answer for g in gaps)
    assert len(gaps) == 7 and "self.grad = np.ones_like(self.data)" in answers
    for follow_up in ("seed", "retain_graph", "np.zeros_like(node.data)", "node._prev = ()"):
        assert follow_up not in answers
    cotangent = cut(_shown(["cotangent"]), ["Tensor.backward"], ["cotangent"], "cloze").gaps
    assert any("self.grad = seed" in g.answer for g in cotangent)
