"""Retyping feedback: your code against the reference's, token by token, layout, comments and
docstrings aside (autograd_drill.loop.retype), and how it is shown (autograd_drill.views.retype)."""

from __future__ import annotations

from autograd_drill.loop.retype import retyped, spaced, typed_characters
from autograd_drill.views.retype import retype_view
from tests.support import REFERENCE_SOURCE, drawn

SYMBOLS = ["unbroadcast", "Tensor.log", "_topological_order"]


def joined(tokens: list[str]) -> str:
    """Tokens as code reads (drills/loop/retype.py ``spaced``, as the retype view draws them)."""
    return "".join(spaced(tokens))


def _line(source: str, text: str) -> int:
    """The 1-based line of ``source`` that holds ``text``."""
    return next(i for i, line in enumerate(source.splitlines(), start=1) if text in line)


def _drawn(results: object) -> str:
    return drawn(retype_view(results), width=200)  # type: ignore[arg-type]


def test_the_reference_retyped_has_no_differences():
    assert all(r.found and not r.differences for r in retyped(REFERENCE_SOURCE, REFERENCE_SOURCE, SYMBOLS))
    assert "exactly as the reference" in _drawn(retyped(REFERENCE_SOURCE, REFERENCE_SOURCE, SYMBOLS))


def test_layout_comments_docstrings_and_quotes_are_not_differences():
    yours = (
        REFERENCE_SOURCE.replace(
            "return grad.reshape(shape)", "return grad.reshape(  # the shape asked\n        shape,\n    )"
        )
        .replace('"""Sum ``grad`` down to ``shape``', '"""My own words. ``grad`` down to ``shape``')
        .replace("    # Leading axes that broadcasting prepended: (2, 3, 4) -> (3, 4).\n", "\n\n")
        .replace('_op="log"', "_op='log'")
        .replace("grad = grad.sum(axis=0)", "grad = grad.sum(axis = 0)    # more spaces")
    )
    assert yours != REFERENCE_SOURCE
    assert all(r.found and not r.differences for r in retyped(yours, REFERENCE_SOURCE, SYMBOLS))


def test_a_token_retyped_differently_is_shown_with_your_line():
    yours = REFERENCE_SOURCE.replace("self.grad += out.grad / self.data", "self.grad += out.grad * self.data ** -1")
    (log,) = [r for r in retyped(yours, REFERENCE_SOURCE, SYMBOLS) if r.differences]
    line = _line(yours, "self.data ** -1")
    assert log.symbol == "Tensor.log"
    assert [(d.reference, d.yours, d.lines) for d in log.differences] == [
        (("/",), ("*",), (line, line)),
        ((), ("**", "-", "1"), (line, line)),
    ]
    assert joined(list(log.differences[0].before)) == "self.grad += out.grad"
    drawn = " ".join(_drawn(retyped(yours, REFERENCE_SOURCE, SYMBOLS)).split())
    assert "differs from the reference in 2 places" in drawn
    assert f"Tensor.log line {line} reference self.grad += out.grad / self.data yours self.grad += out.grad *" in drawn
    assert f"line {line} reference self.data ∅ yours self.data ** -1" in drawn


def test_a_statement_moved_out_of_its_block_is_a_difference():
    inner = "            grad = grad.sum(axis=axis, keepdims=True)\n"
    yours = REFERENCE_SOURCE.replace(inner, "            pass\n        " + inner.lstrip())
    (result,) = retyped(yours, REFERENCE_SOURCE, ["unbroadcast"])
    assert result.differences
    assert any("⇤" in d.yours or "⇤" in d.reference for d in result.differences)


def test_a_missing_symbol_or_a_file_that_does_not_parse():
    yours = REFERENCE_SOURCE.replace("def unbroadcast(", "def unbroadcast_(")
    found = {r.symbol: r.found for r in retyped(yours, REFERENCE_SOURCE, SYMBOLS)}
    assert found == {"unbroadcast": False, "Tensor.log": True, "_topological_order": True}
    assert not any(r.found for r in retyped("def f(:\n", REFERENCE_SOURCE, SYMBOLS))
    drawn = _drawn(retyped("def f(:\n", REFERENCE_SOURCE, ["unbroadcast"]))
    assert "unbroadcast: not found in your file." in drawn and "differs" not in drawn


def test_typed_characters_count_code_not_layout():
    assert typed_characters("x = f(a,   b)  # why\n") == len("x = f(a, b)") + 1
    assert typed_characters("\n\n    y = [\n        1,\n        2,\n    ]\n".replace("    y", "y")) == typed_characters(
        "y = [\n1,\n2\n]\n"
    )
    assert joined(["x", "=", "-", "1", "+", "f", "(", "a", "=", "-", "y", ")", "[", "0", "]"]) == "x = -1 + f(a=-y)[0]"
