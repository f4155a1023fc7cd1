"""The learning ladder through the ``drill`` commands: one target walked up (copy, cloze, recall) and
down again on a MockClock, the stubs each rung writes, the rung in the history (an old history reads
as recall), in the schedule, in list, ladder, stats and export (tests/test_ladder.py has the rungs'
stubs and times, drills/loop/ladder.py's rule)."""

from __future__ import annotations

import ast
import json
import re
import sqlite3
from collections import Counter

import pytest

from autograd_drill.grader.catalog import find_functions, format_time
from autograd_drill.loop.ladder import rung_time
from autograd_drill.loop.stubs import reference_for, stub_for
from autograd_drill.store.history import History
from autograd_drill.store.paths import history_path
from tests.support import CATALOG, REFERENCE_SOURCE, T0, active, drill, latest, said, seed

pytestmark = pytest.mark.usefixtures("wide_terminal", "passing_grader")

COPY, CLOZE, RECALL = (rung_time("unbroadcast", r).seconds for r in ("copy", "cloze", "recall"))


def rung_in_list() -> str:
    line = next(line for line in drill("list").output.splitlines() if line.startswith("unbroadcast "))
    return line.split()[1]


def unbroadcast_body(source: str) -> list[str]:
    """The statements of unbroadcast's body in ``source``, as ast dumps, its docstring left out."""
    node = find_functions(ast.parse(source))["unbroadcast"]
    return [ast.dump(s) for s in node.body[1:]]


def passes(clock, workspace, seconds: float, source: str = REFERENCE_SOURCE) -> str:
    """``seconds`` on the clock, then a save of ``source`` and ``drill check`` (which passes it)."""
    clock.advance(seconds)
    (workspace / "unbroadcast.py").write_text(source, encoding="utf-8")
    text = said(drill("check"))
    assert "✓ unbroadcast" in text
    clock.advance(3600)
    return text


def test_a_target_walks_up_the_ladder_and_down_again(clock, workspace):
    path = workspace / "unbroadcast.py"
    assert rung_in_list() == "copy"  # never drilled: the first rung

    # copy: the reference's code in view above the blank; a pass within its time moves it up
    text = said(drill("start", "unbroadcast"))
    assert "Rung: copy" in text and f"Why {CLOCKS[COPY]}: copy: " in text and "characters a minute" in text
    stub = path.read_text(encoding="utf-8")
    assert "#     grad = grad.sum(axis=0)" in stub and 'raise NotImplementedError("unbroadcast")' in stub
    retyped = REFERENCE_SOURCE.replace("grad = grad.sum(axis=0)", "grad = grad.sum(0)")
    text = passes(clock, workspace, COPY - 10, retyped)
    assert f"unbroadcast (copy rung) passed at {CLOCKS[COPY - 10]}" in text
    assert "differs from the reference in 1 place" in text and "grad.sum(axis=0)" in text  # retyping feedback
    assert "Ladder: unbroadcast moves up to cloze" in text
    assert rung_in_list() == "cloze"
    # not a review: still learning, first in line, on its next rung
    assert "Drill now: unbroadcast on the learning ladder, not passed from memory yet; its cloze rung next" in said(
        drill("next")
    )

    # cloze: some, not all, of its lines blank
    drill("start", "unbroadcast")
    assert active().rung == "cloze"
    cloze, reference = unbroadcast_body(path.read_text(encoding="utf-8")), unbroadcast_body(REFERENCE_SOURCE)
    kept = [s for s in cloze if s in reference]
    assert 0 < len(kept) < len(reference) and any("NotImplementedError" in s for s in cloze)
    text = passes(clock, workspace, CLOZE - 10)
    assert "You retyped it exactly as the reference" in text and "Ladder: unbroadcast moves up to recall" in text

    # recall: the body blank, the drill as it always was; its first pass joins the schedule
    drill("start", "unbroadcast")
    assert path.read_text(encoding="utf-8") == stub_for(["unbroadcast"], "target unbroadcast", drills=["unbroadcast"])
    text = passes(clock, workspace, RECALL - 60)
    assert "Ladder" not in text and "differs from the reference" not in text  # recall: neither
    assert rung_in_list() == "recall"
    assert "Drill now: unbroadcast" not in said(drill("next"))  # reviewed: due in days

    # down: giving up on recall moves it to cloze; two cloze passes over its time, to copy
    drill("start", "unbroadcast")
    clock.advance(30)
    assert "Ladder: unbroadcast moves down to cloze" in said(drill("give-up"))
    drill("start", "unbroadcast")
    assert active().rung == "cloze"
    assert "Ladder: unbroadcast stays on cloze" in passes(clock, workspace, CLOZE + 30)
    ladder = said(drill("ladder"))
    assert "over last time: once more, down to copy" in ladder
    drill("start", "unbroadcast")
    assert "Ladder: unbroadcast moves down to copy" in passes(clock, workspace, CLOZE + 30)
    assert rung_in_list() == "copy" and latest().rung == "cloze"


CLOCKS = {s: f"{s // 60}:{s % 60:02d}" for s in range(0, 3600)}


def test_the_rung_is_chosen_with_rung_and_the_full_drill_is_recall_only(clock, workspace):
    result = drill("start", "full", "--rung", "copy", code=2)
    assert said(result) == "error: the full drill is recall only: every target from memory at once"
    assert "unknown rung 'dictation'" in said(drill("start", "unbroadcast", "--rung", "dictation", code=2))
    assert active() is None
    drill("start", "unbroadcast", "--rung", "CLOZE")
    assert active().rung == "cloze" and "blank 1" in (workspace / "unbroadcast.py").read_text(encoding="utf-8")


def test_a_lower_rung_by_choice_is_practice_and_a_higher_one_a_climb(clock, workspace):
    drill("start", "unbroadcast", "--rung", "recall")  # on copy, never drilled: choosing recall climbs
    passes(clock, workspace, RECALL - 10)
    assert rung_in_list() == "recall"
    drill("start", "unbroadcast", "--rung", "copy")  # retyping once, for practice
    passes(clock, workspace, COPY - 10)
    drill("start", "unbroadcast", "--rung", "cloze")
    clock.advance(60)
    drill("give-up")  # a give-up on a lower rung does not move it down either
    assert rung_in_list() == "recall"
    assert active() is None and "Rung: recall" in said(drill("start", "unbroadcast"))


def test_bests_stats_and_the_scoreboard_are_per_rung(clock, workspace):
    drill("start", "unbroadcast", "--rung", "copy")
    passes(clock, workspace, 40)
    drill("start", "unbroadcast", "--rung", "recall")
    text = passes(clock, workspace, 200)
    # a first recall pass: a new best of recall, never compared with the faster copy
    assert "passed at 3:20 (target 5:00, −1:40) ★ new personal best" in text
    stats = drill("stats", "unbroadcast")
    cells = [[c.strip() for c in re.split(r"[│┃]", line) if c.strip()] for line in stats.output.splitlines()]
    copy, recall = (c for c in cells if c and c[0] == "unbroadcast")
    assert copy[1:5] == ["copy", CLOCKS[COPY], "1", "0:40"]
    assert recall[1:5] == ["recall", "5:00", "1", "3:20"]
    assert re.search(r"^unbroadcast\s+recall\s.*5:00\s+3:20\s+3:20\s+1\s", drill("list").output, re.M)
    # a chart per rung, each against its own target time
    chart = drill("chart", "unbroadcast").output
    assert "unbroadcast (copy): time per attempt" in chart and "unbroadcast: time per attempt" in chart
    assert f"target {CLOCKS[COPY]}" in chart and "target 5:00" in chart
    assert "unbroadcast (copy)" in drill("chart").output


def test_drill_ladder_shows_each_rung_its_time_and_why(clock):
    seed("softmax", 300, at=T0 - 86_400)  # a history from before the ladder: recall
    text = said(drill("ladder"))
    assert "copy retype the reference" in text and "giving up, or two passes over the time in a row" in text
    for target in ("unbroadcast", "softmax", "forward-mode"):
        times = [CLOCKS[rung_time(target, r).seconds] for r in ("copy", "cloze", "recall")]
        assert re.search(rf"{target} (copy|recall) {' '.join(times)} ", text), target
        assert rung_time(target, "cloze").reasoning in text
    assert (
        "softmax recall" in text
        and "the top: drill next schedules it" in text
        and f"full recall - - {format_time(CATALOG.full_time)} recall only" in text
    )


def test_an_old_history_reads_as_recall(tmp_path, clock):
    """A history made before the ladder (no rung column) gets it on opening: its attempts are recall."""
    path = history_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE attempts (id INTEGER PRIMARY KEY, target TEXT NOT NULL, file TEXT NOT NULL,"
        " started_at REAL NOT NULL, paused_at REAL, paused_total REAL NOT NULL DEFAULT 0, ended_at REAL,"
        " outcome TEXT, assisted INTEGER NOT NULL DEFAULT 0, archive TEXT);"
        "CREATE TABLE splits (attempt_id INTEGER NOT NULL, target TEXT NOT NULL, elapsed REAL NOT NULL,"
        " PRIMARY KEY (attempt_id, target));"
    )
    db.execute(
        "INSERT INTO attempts (target, file, started_at, ended_at, outcome) VALUES (?, ?, ?, ?, ?)",
        ("unbroadcast", "/old/unbroadcast.py", T0 - 86_400, T0 - 86_400 + 200, "passed"),
    )
    db.execute("INSERT INTO splits VALUES (1, 'unbroadcast', 200)")
    db.commit()
    db.close()
    assert rung_in_list() == "recall"  # passed from memory before the ladder: no change
    store = History(path)
    try:
        assert [a.rung for a in store.attempts()] == ["recall"]
    finally:
        store.close()
    assert "Rung: recall" in said(drill("start", "unbroadcast"))


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_and_import_carry_the_rung_and_an_old_export_reads_as_recall(
    fmt, clock, workspace, tmp_path, monkeypatch
):
    drill("start", "unbroadcast")
    passes(clock, workspace, 30)
    drill("start", "unbroadcast", "--rung", "recall")
    passes(clock, workspace, 200)
    out = tmp_path / f"history.{fmt}"
    drill("export", "--format", fmt, "--output", str(out))
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "elsewhere"))
    drill("import", str(out))
    assert [a.rung for a in History(history_path()).attempts()] == ["copy", "recall"]
    assert rung_in_list() == "recall"
    # the same export as written before the ladder: no rung anywhere
    if fmt == "json":
        data = json.loads(out.read_text(encoding="utf-8"))
        data["version"] = 1
        for attempt in data["attempts"]:
            del attempt["rung"]
        old = json.dumps(data)
    else:
        old = "\n".join(line.rsplit(",", 1)[0] for line in out.read_text(encoding="utf-8").splitlines()) + "\n"
    assert "rung" not in old
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "old"))
    (tmp_path / f"old.{fmt}").write_text(old, encoding="utf-8")
    assert "Imported 2 attempts" in said(drill("import", str(tmp_path / f"old.{fmt}")))
    assert [a.rung for a in History(history_path()).attempts()] == ["recall", "recall"]


def test_copy_and_cloze_times_are_kept_while_the_reference_is_the_same():
    """Replaying a history needs a rung time per rung drilled: ``drill list`` reads them from the data
    folder instead of cutting the reference again, unless the reference or the catalog changed."""
    from autograd_drill.loop import ladder

    kept = history_path().parent / "rung-times.json"
    try:
        ladder._kept_times.cache_clear()
        assert ladder.target_seconds("max", "cloze") == rung_time("max", "cloze").seconds
        assert json.loads(kept.read_text(encoding="utf-8"))["times"] == {"max cloze": rung_time("max", "cloze").seconds}
        kept.write_text(json.dumps({"for": "another reference", "times": {"max cloze": 7}}), encoding="utf-8")
        ladder._kept_times.cache_clear()
        assert ladder.target_seconds("max", "cloze") == rung_time("max", "cloze").seconds  # not of this reference
        kept.write_text(json.dumps({"for": ladder._fingerprint(), "times": {"max cloze": 7}}), encoding="utf-8")
        ladder._kept_times.cache_clear()
        assert ladder.target_seconds("max", "cloze") == 7  # read, not computed
    finally:
        kept.unlink()
        ladder._kept_times.cache_clear()


def test_the_core_backward_copy_rung_asks_for_the_core_and_compares_with_it(clock, workspace):
    """drill start backward (copy): the cotangent and retain_graph code is not in view, and a file with
    the core alone retyped is exactly the reference as the stub showed it."""
    text = said(drill("start", "backward", "--rung", "copy"))
    assert f"Why {CLOCKS[rung_time('backward', 'copy').seconds]}: copy: 807 characters" in text
    stub = (workspace / "backward.py").read_text(encoding="utf-8")
    assert "#     self.grad = np.ones_like(self.data)" in stub  # the core, in view
    for follow_up in ("seed = np.array(gradient", "if not retain_graph", "node.grad = np.zeros_like(node.data)"):
        assert follow_up not in stub
    core = reference_for(REFERENCE_SOURCE, ["backward"])
    (workspace / "backward.py").write_text(core, encoding="utf-8")
    clock.advance(60)
    text = said(drill("check"))
    assert "✓ backward" in text and "You retyped it exactly as the reference" in text


def test_drill_ladder_parses_each_source_once(clock, monkeypatch):
    """Every rung time of every drill reads the reference: parsed once (and each stub's view of it
    once), not once per target and rung (34 parses before)."""
    parsed = _parses(monkeypatch)
    drill("ladder")
    assert parsed, "the ladder read no source: the count is not measuring it"
    assert max(parsed.values()) == 1, sorted(parsed.values())
    assert len(parsed) <= 5, len(parsed)  # the reference, and the few views of it the stubs show


def test_drill_ladder_then_reads_what_it_counted_from_the_data_folder(clock, monkeypatch):
    """The characters and blanks each rung time comes from are kept with the times (rung-times.json):
    the next ``drill ladder``, in a process of its own (this one's caches cleared), cuts and parses
    nothing and says the same."""
    _parses(monkeypatch)
    first = said(drill("ladder"))
    parsed = _parses(monkeypatch)
    assert said(drill("ladder")) == first and not parsed, sorted(parsed.values())


def _parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The whole files ``ast.parse`` reads from now on, counted, with every cache that spares a parse
    (and the rung times and counts read from the data folder) cleared, as in a new process."""
    from autograd_drill.loop import cloze, ladder, stubs

    parsing = (cloze.functions_in, stubs.tagged_code, stubs._reference_for, ladder._characters, ladder._blanked)
    for cached in (*parsing, ladder._kept_times, ladder._kept_counts):
        cached.cache_clear()
    parsed: Counter[str] = Counter()
    parse = ast.parse

    def counted(source, *args, **kwargs):
        if isinstance(source, str) and len(source) > 5000:  # a whole file, not a token's literal
            parsed[source] += 1
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    return parsed
