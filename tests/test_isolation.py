"""``backward`` is graded in isolation: its tests build their graphs from the grader's glue ops, so
a correct ``backward`` passes whatever the engine's ops are (missing, blank, or wrong), and the one
check of ``backward`` through the engine's own ops (cross-entropy's MLP) says which is at fault."""

from __future__ import annotations

import ast

from autograd_drill.grader.run import grade_file
from autograd_drill.loop.stubs import stub_for
from tests.support import CATALOG, REFERENCE_SOURCE

BACKWARD, UNARY, CROSS_ENTROPY = (CATALOG.get(t) for t in ("backward", "unary", "cross-entropy"))


def without_method(source: str, cls: str, name: str) -> str:
    """``source`` with the method ``cls.name`` deleted, decorators and docstring included."""
    tree = ast.parse(source)
    (node,) = [
        f
        for c in tree.body
        if isinstance(c, ast.ClassDef) and c.name == cls
        for f in c.body
        if isinstance(f, ast.FunctionDef) and f.name == name
    ]
    lines = source.splitlines(keepends=True)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    assert node.end_lineno is not None
    return "".join(lines[:first] + lines[node.end_lineno :])


def test_backward_passes_with_tensor_sum_missing(tmp_path, warm_runner):
    path = tmp_path / "engine.py"
    path.write_text(without_method(REFERENCE_SOURCE, "Tensor", "sum"), encoding="utf-8")
    result = grade_file(path, [BACKWARD, UNARY], runner=warm_runner)
    assert result.get("backward").passed, result.get("backward").messages[:1]
    unary = result.get("unary")
    assert not unary.passed and "sum" in unary.messages[0]  # it really is missing


def test_backward_passes_with_every_op_blank(tmp_path, warm_runner):
    """The stub of a full drill with only backward's symbols written: every op raises NotImplementedError."""
    blank = [s for t in CATALOG.targets if t.id != "backward" for s in t.symbols]
    path = tmp_path / "engine.py"
    path.write_text(stub_for(blank, "all but backward", drills=CATALOG.ids), encoding="utf-8")
    result = grade_file(path, CATALOG.targets, runner=warm_runner)
    assert [t.target for t in result.targets if t.passed] == ["backward"]


def test_a_backward_that_skips_op_outputs_fails_cross_entropy_naming_backward(tmp_path, warm_runner):
    """A backward that runs only the closures of tensors built with requires_grad=True: right on the
    grader's glue graphs (each glue node is), wrong on the engine's own ops, whose outputs the
    reference builds without it. Cross-entropy's MLP finds it, and names Tensor.backward."""
    old = "            node._backward()\n"
    assert REFERENCE_SOURCE.count(old) == 1
    path = tmp_path / "engine.py"
    new = "            if node.requires_grad:\n                node._backward()\n"
    path.write_text(REFERENCE_SOURCE.replace(old, new), encoding="utf-8")
    result = grade_file(path, [BACKWARD, CROSS_ENTROPY], runner=warm_runner)
    assert result.get("backward").passed
    ce = result.get("cross-entropy")
    assert not ce.passed
    (mlp,) = [f for f in ce.failures if "test_mlp_cross_entropy" in f.test]
    assert mlp.symbol == "Tensor.backward" and "running the same closures once each" in mlp.text, mlp.message
