"""Which targets' code changed between two versions of a file (drills/loop/incremental.py): what a
full drill grades again, and which verdicts it keeps."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograd_drill.grader.run import grade_file, test_files
from autograd_drill.grader.verdict import Failure, GradeResult, TargetResult
from autograd_drill.loop import incremental
from tests.loop import IDS
from tests.support import CATALOG, REFERENCE_SOURCE

TARGETS = CATALOG.targets

ENGINE = textwrap.dedent(
    """
    import numpy as np


    def unbroadcast(grad, shape):
        return grad.reshape(shape)


    def _as_tensor(x):
        return x if isinstance(x, Tensor) else Tensor(x)


    class Tensor:
        def __init__(self, data, _children=(), _op=""):
            self.data = np.array(data, dtype=np.float64)

        def __add__(self, other):
            return Tensor(self.data + _as_tensor(other).data)

        def __mul__(self, other):
            return Tensor(self.data * _as_tensor(other).data)

        def __neg__(self):
            return self * -1.0

        def __sub__(self, other):
            return self + (-other)

        def sum(self, axis=None):
            return Tensor(self.data.sum(axis))

        def exp(self):
            return Tensor(np.exp(self.data))

        def relu(self):
            return Tensor(np.maximum(self.data, 0.0))

        def tanh(self):
            return Tensor(np.tanh(self.data))

        def softmax(self, axis=-1):
            e = self.exp()
            return e

        def log_softmax(self, axis=-1):
            return Tensor(self.data)

        def reshape(self, *shape):
            return Tensor(self.data.reshape(shape))


    def cross_entropy(logits, y):
        return logits.log_softmax().sum()
    """
)


def changed(before: str, after: str) -> list[str]:
    """The targets whose code differs between the two sources."""
    was, now = incremental.fingerprints(before, TARGETS), incremental.fingerprints(after, TARGETS)
    assert was is not None and now is not None
    return [t for t in IDS if was[t] != now[t]]


def edit(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)


def test_a_function_changed_changes_its_target_and_the_targets_that_need_it():
    after = edit(
        REFERENCE_SOURCE, "self.grad += (1.0 - out.data**2) * out.grad", "self.grad += (1.0 - out.data) * out.grad"
    )
    assert changed(REFERENCE_SOURCE, after) == ["unary", "cross-entropy"]  # cross-entropy needs unary
    after = edit(ENGINE, "return logits.log_softmax().sum()", "return logits.log_softmax().sum(0)")
    assert changed(ENGINE, after) == ["cross-entropy"]


def test_whitespace_and_comments_change_no_code():
    spaced = edit(ENGINE, "        e = self.exp()\n", "        e   =   self.exp( )   # the numerators\n\n")
    assert changed(ENGINE, spaced) == []
    assert changed(REFERENCE_SOURCE, "# my engine\n" + REFERENCE_SOURCE.replace("\n\n\n", "\n\n")) == []


def test_composed_ops_are_followed_by_name():
    # softmax calls self.exp(): a change to exp changes softmax's code; one to relu does not
    exp = edit(ENGINE, "return Tensor(np.exp(self.data))", "return Tensor(np.exp(self.data) + 0.0)")
    assert "softmax" in changed(ENGINE, exp)
    relu = edit(ENGINE, "np.maximum(self.data, 0.0)", "np.maximum(self.data, 0.5)")
    assert changed(ENGINE, relu) == ["unary", "cross-entropy"]
    # np.exp is NumPy's: a softmax that calls it does not reach Tensor.exp
    own = edit(ENGINE, "e = self.exp()", "e = Tensor(np.exp(self.data))")
    assert "softmax" not in changed(own, edit(own, "return Tensor(np.exp(self.data))", "return Tensor(0 * self.data)"))
    # an operator reaches its dunders, through the user's own helpers: softmax's a - b is a + (-b)
    minus = edit(ENGINE, "return Tensor(self.data)\n", "return self - self\n")
    mul = edit(
        minus, "return Tensor(self.data * _as_tensor(other).data)", "return Tensor(_as_tensor(other).data * self.data)"
    )
    assert "softmax" in changed(minus, mul)
    assert "softmax" not in changed(
        ENGINE, edit(ENGINE, "return Tensor(self.data * _as_tensor(other).data)", "return 0")
    )
    # a name in a string may be looked up (getattr(self, "relu")); a computed one may be anything
    named = edit(ENGINE, "e = self.exp()", 'e = getattr(self, "relu")()')
    assert "softmax" in changed(named, edit(named, "np.maximum(self.data, 0.0)", "np.maximum(self.data, 0.5)"))
    computed = edit(ENGINE, "e = self.exp()", "e = getattr(self, axis)()")
    assert changed(computed, edit(computed, "return grad.reshape(shape)", "return grad")) == [
        "unbroadcast",
        "arith",  # needs unbroadcast
        "softmax",  # reaches every function
        "cross-entropy",
    ]


def test_the_rest_of_the_file_is_everyones_code():
    helper = edit(ENGINE, "return x if isinstance(x, Tensor) else Tensor(x)", "return Tensor(x)")
    assert changed(ENGINE, helper) == IDS
    imports = edit(ENGINE, "import numpy as np\n", "import numpy as np\nimport math\n")
    assert changed(ENGINE, imports) == IDS
    header = edit(ENGINE, "def softmax(self, axis=-1):", "def softmax(self, axis=1):")  # runs at import
    assert changed(ENGINE, header) == IDS
    init = edit(ENGINE, "self.data = np.array(data, dtype=np.float64)", "self.data = np.array(data)")
    assert changed(ENGINE, init) == IDS  # Tensor.__init__: every target's tests build tensors


def test_a_file_that_does_not_parse_has_no_fingerprints_and_keeps_no_verdict():
    broken = ENGINE.replace("def exp(self):", "def exp(self)")
    assert incremental.fingerprints(broken, TARGETS) is None
    verdict = passing(IDS)
    assert incremental.reused_verdicts(ENGINE, verdict, broken, TARGETS) == {}
    assert incremental.reused_verdicts(broken, verdict, ENGINE, TARGETS) == {}
    assert set(incremental.reused_verdicts(ENGINE, verdict, ENGINE, TARGETS)) == set(IDS)


def passing(ids: list[str]) -> GradeResult:
    return GradeResult("full.py", tuple(TargetResult(t, 10, 0) for t in ids), 1.0)


TANH_LINE = "return Tensor(np.tanh(self.data))"
TANH_AT = ENGINE.splitlines().index(f"        {TANH_LINE}") + 1


def failing(where: int = TANH_AT, symbol: str | None = "Tensor.tanh", not_run: int = 0) -> TargetResult:
    """unary failed, its failure naming the line ``where`` as the line of tanh."""
    location = (f"full.py:{where} in Tensor.tanh: {TANH_LINE}",)
    return TargetResult(
        "unary", 10, 1, (Failure("test_x", "wrong", symbol=symbol, location=location),), not_run=not_run
    )


MOVED = "# a comment above everything\n" + ENGINE
"""No code changed, but every line moved down one."""


@pytest.mark.parametrize(
    ("verdict", "now", "kept"),
    [
        pytest.param(TargetResult("unary", 10, 0), MOVED, True, id="passed"),
        pytest.param(
            failing(), ENGINE.replace("\n\n\ndef cross", "\n\ndef cross"), True, id="failed-lines-below-moved"
        ),
        pytest.param(failing(), MOVED, False, id="failed-and-its-line-moved"),
        pytest.param(failing(TANH_AT + 1), MOVED, True, id="failed-and-its-line-moved-there"),
        pytest.param(
            failing(), ENGINE.replace(TANH_LINE, TANH_LINE + "  # tanh"), False, id="failed-its-line-reads-otherwise"
        ),
        pytest.param(failing(10_000), ENGINE, False, id="failed-on-a-line-past-the-end"),
        pytest.param(failing(symbol=None), ENGINE, False, id="file-failed-to-import"),
        pytest.param(TargetResult("unary", 10, 0, not_run=3), ENGINE, False, id="tests-not-run"),
        pytest.param(TargetResult("unary", 0, 0), ENGINE, False, id="no-tests"),
    ],
)
def test_which_verdicts_on_unchanged_code_are_kept(verdict, now, kept):
    assert changed(ENGINE, now) == []
    before = GradeResult("full.py", (verdict,), 1.0)
    assert ("unary" in incremental.reused_verdicts(ENGINE, before, now, TARGETS)) is kept


def test_no_verdict_is_kept_for_code_that_changed():
    after = edit(ENGINE, TANH_LINE, "return Tensor(np.tanh(self.data) * 2)")
    before = GradeResult("full.py", (TargetResult("unary", 10, 0), TargetResult("softmax", 10, 0)), 1.0)
    assert set(incremental.reused_verdicts(ENGINE, before, after, TARGETS)) == {"softmax"}
    assert incremental.reused_verdicts(ENGINE, None, ENGINE, TARGETS) == {}


def test_merge_keeps_the_catalog_order_and_says_which_verdicts_it_kept():
    fresh = GradeResult("full.py", (failing(), TargetResult("cross-entropy", 4, 0)), 0.5, ("a note",))
    kept = {t: TargetResult(t, 10, 0) for t in IDS if t not in ("unary", "cross-entropy")}
    merged = incremental.merge(fresh, kept, TARGETS)
    assert [t.target for t in merged.targets] == IDS
    assert merged.get("unary") == fresh.get("unary") and merged.get("arith") == kept["arith"]
    assert merged.seconds == 0.5 and merged.notes[0] == "a note"
    assert merged.notes[1].endswith(": " + ", ".join(kept))
    assert incremental.merge(passing(IDS), {}, TARGETS).notes == ()


def test_the_lines_a_real_failure_names_are_checked(tmp_path, warm_runner):
    """The grader's own failure (grader/check.py, Blame): kept while its line stays, not once it moves."""
    source = edit(REFERENCE_SOURCE, "out = Tensor(np.tanh(self.data),", "out = Tensor(np.tanh(self.dta),")
    path = tmp_path / "full.py"
    path.write_text(source, encoding="utf-8")
    result = grade_file(path, [CATALOG.get("unary")], runner=warm_runner)
    [failure, *_] = result.get("unary").failures
    assert failure.symbol == "Tensor.tanh" and any("self.dta" in where for where in failure.location)
    assert "unary" in incremental.reused_verdicts(source, result, source + "\n# the end\n", TARGETS)
    assert "unary" not in incremental.reused_verdicts(source, result, "# the start\n" + source, TARGETS)


TRACER = """

# Added by tests/test_incremental.py: every function records, once, each grader test that calls it.
import functools as _functools
import os as _os

_SEEN = set()


def _traced(_name, _function):
    @_functools.wraps(_function)
    def traced(*args, **kwargs):
        test = _os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        if (test, _name) not in _SEEN:
            _SEEN.add((test, _name))
            with open(LOG, "a", encoding="utf-8") as log:
                log.write(f"{test}\\t{_name}\\n")
        return _function(*args, **kwargs)

    return traced


for _name, _value in list(globals().items()):
    if getattr(_value, "__module__", None) != __name__ or _name.startswith("_traced"):
        continue
    if isinstance(_value, type(_traced)):
        globals()[_name] = _traced(_name, _value)
    elif isinstance(_value, type):
        for _attr, _member in list(vars(_value).items()):
            if isinstance(_member, type(_traced)):
                setattr(_value, _attr, _traced(f"{_name}.{_attr}", _member))
"""


def test_each_targets_tests_call_only_symbols_its_code_covers(tmp_path, warm_runner):
    """The reference, each function traced, graded on every core target: every symbol a target's tests
    call (directly, through the grader, or through other symbols) is in that target's code, so that a
    change to it grades the target again. This checks the catalog's ``needs`` and ``runs`` too."""
    log = tmp_path / "calls.tsv"
    path = tmp_path / "full.py"
    path.write_text(f"{REFERENCE_SOURCE}\nLOG = {str(log)!r}\n{TRACER}", encoding="utf-8")
    assert grade_file(path, TARGETS, runner=warm_runner).passed  # tracing changes no verdict
    by_file = {Path(f).name: t.id for t in TARGETS for f in test_files([t])}
    core = {s for t in TARGETS for s in t.symbols}
    called: dict[str, set[str]] = {t: set() for t in IDS}
    for line in log.read_text(encoding="utf-8").splitlines():
        test, _, symbol = line.partition("\t")
        target = by_file.get(test.split("::")[0].rpartition("/")[2])
        if target is not None and symbol in core:
            called[target].add(symbol)
    analysed = incremental.analyse(REFERENCE_SOURCE, TARGETS)
    assert analysed is not None
    covered = analysed[2]
    for target in TARGETS:
        assert set(target.symbols) <= called[target.id], "each target's tests call its symbols (the trace works)"
        missing = called[target.id] - set(covered[target.id])
        assert not missing, f"{target.id}'s tests call {sorted(missing)}: add them to its runs (grader/catalog.toml)"
    # backward's tests build their graphs from the grader's glue ops: of the engine, only its own code runs
    backward = CATALOG.get("backward")
    assert called["backward"] == set(backward.symbols) and not backward.runs
