"""Issue 26, points 2 and 3. The states the tool keeps are typed, each defined once: an attempt's outcome,
its rung and an interview part's outcome (drills/store/states.py), how a watch ends and its keys
(drills/loop/watch_state.py, drills/loop/watch_keys.py); the history and its exports hold exactly the
strings they always held. And a concept has one home: DrillError, an attempt's clock at its end, one
attempt at a time, a failure's headline, the schema; a view draws and never writes."""

from __future__ import annotations

import ast
import csv
import io
import itertools
import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from rich.text import Text

from autograd_drill import errors
from autograd_drill.grader.check import GradeFailure
from autograd_drill.grader.verdict import Failure
from autograd_drill.interview import interviewer
from autograd_drill.interview import store as kept
from autograd_drill.interview.plan import Part, Plan
from autograd_drill.loop import session
from autograd_drill.loop.clock import MockClock
from autograd_drill.loop.session import TargetState
from autograd_drill.loop.watch import WatchState
from autograd_drill.loop.watch_keys import KEYS, WATCH_KEYS, Action, Bar, key_bar, key_help
from autograd_drill.loop.watch_state import End
from autograd_drill.store import export, restore
from autograd_drill.store.attempt import AttemptInProgress
from autograd_drill.store.history import History, HistoryError
from autograd_drill.store.schema import SCHEMA
from autograd_drill.store.states import RUNGS, Outcome, PartKind, PartOutcome, Rung
from autograd_drill.views import interview as interview_views
from autograd_drill.views import report
from tests import sources
from tests.support import ROOT, T0, drill, said
from tests.test_layers import imports, modules

PLAN = Plan(45, T0, (Part(PartKind.CODING, "unbroadcast", 1800, "asked for"),))
BOTH = list(itertools.product(Outcome, RUNGS))
"""Every outcome on every rung."""


def fill(store: History) -> None:
    """An attempt at unbroadcast for each outcome on each rung, 60 s on the clock."""
    for n, (outcome, rung) in enumerate(BOTH):
        attempt = store.start("unbroadcast", Path(f"/nowhere/{n}.py"), T0 + 1000 * n, rung)
        if outcome is Outcome.PASSED:
            store.add_split(attempt, "unbroadcast", 60.0)
        store.finish(attempt, outcome, T0 + 1000 * n + 60)


def drawn(view: RenderableType) -> str:
    out = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
    out.print(view)
    return out.file.getvalue()  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- typed states


def test_every_outcome_on_every_rung_reads_back_as_its_member_and_is_stored_as_its_string(store):
    fill(store)
    back = store.attempts()
    assert [(a.outcome, a.rung) for a in back] == BOTH
    assert all(type(a.outcome) is Outcome and type(a.rung) is Rung for a in back)
    rows = store.db.execute("SELECT outcome, typeof(outcome), rung, typeof(rung) FROM attempts ORDER BY id")
    assert [tuple(r) for r in rows] == [(o.value, "text", r.value, "text") for o, r in BOTH]
    assert [o.value for o in Outcome] == ["passed", "gave-up", "abandoned"]  # the strings histories hold
    assert [r.value for r in RUNGS] == ["copy", "cloze", "recall"]  # bottom up


def test_exports_write_the_same_strings_and_import_back_as_members(store, tmp_path):
    fill(store)
    records = export.records(store)
    as_json = json.loads(export.to_json(records))
    assert [(a["outcome"], a["rung"]) for a in as_json["attempts"]] == [(o.value, r.value) for o, r in BOTH]
    rows = [r for r in csv.DictReader(io.StringIO(export.to_csv(records))) if r["kind"] == "attempt"]
    assert [(r["outcome"], r["rung"]) for r in rows] == [(o.value, r.value) for o, r in BOTH]
    for text in (export.to_json(records), export.to_csv(records)):
        other = History(tmp_path / f"other-{len(text)}.sqlite3")
        try:
            restore.restore(other, restore.parse(text)[0])
            assert [(a.outcome, a.rung) for a in other.attempts()] == BOTH
            assert all(type(a.outcome) is Outcome and type(a.rung) is Rung for a in other.attempts())
        finally:
            other.close()


def test_an_import_names_the_outcomes_and_rungs_it_accepts():
    records = [{"target": "unbroadcast", "started_at": "2027-01-15T08:00:00+00:00"}]
    for field, value, choices in (("outcome", "won", "passed, gave-up, abandoned"), ("rung", "dictation", None)):
        attempt = records[0] | {"outcome": "gave-up", "ended_at": "2027-01-15T08:05:00+00:00", field: value}
        with pytest.raises(export.ExportError) as info:
            restore.parse(json.dumps({"version": 2, "attempts": [attempt]}))
        assert f"{field} must be one of {choices or 'copy, cloze, recall'}, got {value!r}" in str(info.value)


def test_a_state_this_version_does_not_know_is_one_line_naming_it(store):
    """A history written by another program or version, with an outcome this one has no member for:
    every command that reads it says so in one line (before: a rung it did not know was a traceback)."""
    fill(store)
    store.db.execute("UPDATE attempts SET outcome = 'won' WHERE id = 2")
    with pytest.raises(
        HistoryError, match="attempt 2: its outcome must be one of passed, gave-up, abandoned, got 'won'"
    ):
        store.attempts()
    store.db.execute("UPDATE attempts SET outcome = 'passed', rung = 'dictation' WHERE id = 2")
    result = drill("list", code=2)
    assert "its rung must be one of copy, cloze, recall, got 'dictation'" in said(result)
    assert "upgrade" in said(result) and "Traceback" not in said(result)


def test_an_interview_part_reads_back_as_its_outcome(store):
    interview = kept.start_interview(store.db, PLAN, T0)
    for position, outcome in enumerate(PartOutcome):
        kept.record_part(store.db, interview, kept.PartRecord(position, "coding", "unbroadcast", 60, outcome=outcome))
    parts = kept.get_interview(store.db, interview).parts
    assert [p.outcome for p in parts] == list(PartOutcome) and all(type(p.outcome) is PartOutcome for p in parts)
    stored = store.db.execute("SELECT outcome FROM interview_parts ORDER BY position").fetchall()
    assert [r[0] for r in stored] == ["passed", "gave-up", "out-of-time", "skipped"]


def test_an_interview_part_and_a_plan_read_back_as_their_kinds(store):
    interview = kept.start_interview(store.db, PLAN, T0)
    for position, kind in enumerate((PartKind.CODING, PartKind.FOLLOW_UP)):
        kept.record_part(store.db, interview, kept.PartRecord(position, kind, "unbroadcast", 60))
    read = kept.get_interview(store.db, interview)
    assert [type(p.kind) for p in read.parts] == [PartKind, PartKind]
    assert all(type(p.kind) is PartKind for p in read.plan.parts)
    assert [r[0] for r in store.db.execute("SELECT kind FROM interview_parts ORDER BY position")] == [
        "coding",
        "follow-up",
    ]
    with pytest.raises(kept.InterviewStoreError, match="a part is coding or follow-up, not 'question'"):
        kept.record_part(store.db, interview, kept.PartRecord(2, PartKind.QUESTION, "q", 60))


# ---------------------------------------------------------------------------- the watch's keys, one table


def test_the_watch_key_table_drives_the_help_the_key_bars_and_the_handling():
    help_text = " ".join(said(drill("watch", "--help")).split())
    assert f"keys: {key_help()}." in help_text and key_help() == (
        "h hint, p pause/resume, r grade, d diff, n next drill (once the attempt ended), q quit"
    )
    assert key_bar(Bar.RUNNING) == " · ".join(f"{k.key} {k.running}" for k in WATCH_KEYS if k.running)
    assert set(KEYS) == {k.key for k in WATCH_KEYS} and set(KEYS.values()) == set(Action)
    handled = {a.attr for a in ast.walk(ast.parse((ROOT / "drills/loop/watch.py").read_text(encoding="utf-8")))
               if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "Action"}  # fmt: skip
    assert handled == {a.name for a in Action}, "the watch acts on every action of the table"


def test_each_key_bar_names_the_keys_the_table_offers_in_that_state(store):
    attempt = store.start("unbroadcast", Path("/nowhere/unbroadcast.py"), T0)
    targets = (TargetState("unbroadcast", None, None),)
    bars = {
        Bar.RUNNING: WatchState(attempt, targets, keys=True),
        Bar.PAUSED: WatchState(store.pause(attempt, T0 + 30), targets, keys=True),
        Bar.ENDED: WatchState(attempt, targets, finished=End.PASSED, keys=True),
    }
    for bar, state in bars.items():
        shown = drawn(report.watch_screen(state, T0 + 61, 300))
        offered = [k for k in WATCH_KEYS if k.label(bar) is not None]
        assert key_bar(bar) in shown and all(f"{k.key} {k.label(bar)}" in shown for k in offered), shown
    assert (
        key_bar(Bar.PAUSED) == "p resume · h hint · q quit"
        and key_bar(Bar.ENDED) == "d diff · h hints · n next drill · q quit"
    )
    interview = drawn(interview_views.part_screen(Text("the watch"), "unbroadcast", 1800, 61))
    assert f" {key_bar(Bar.INTERVIEW)} · Ctrl-C stops the interview" in interview
    assert key_bar(Bar.INTERVIEW) == "h nudge · r grade · q gives the task up"  # no pause in an interview


def test_the_watch_ends_in_words_from_its_end_and_the_attempt(store):
    attempt = store.start("unbroadcast", Path("/nowhere/unbroadcast.py"), T0)
    ended = store.finish(attempt, Outcome.ABANDONED, T0 + 10)
    state = WatchState(ended, (), finished=End.ELSEWHERE, ended=End.ELSEWHERE)
    assert [state.said(end) for end in End] == ["passed", "ended elsewhere (abandoned)", "quit"]


# ---------------------------------------------------------------------------- one home per concept


def defined(name: str) -> list[str]:
    """The project modules that define the class or function ``name`` (at any depth)."""
    found = []
    for module, path in modules().items():
        kinds = (ast.ClassDef, ast.FunctionDef)
        if any(isinstance(n, kinds) and n.name == name for n in sources.nodes(path)):
            found.append(module)
    return found


def test_drill_error_has_its_own_module_which_every_layer_raises():
    assert defined("DrillError") == ["autograd_drill.errors"]
    assert session.DrillError is errors.DrillError  # the loop raises it; the CLI prints it in one line


def test_one_attempt_at_a_time_is_checked_in_one_place(store, workspace, monkeypatch):
    clock = MockClock(T0)
    first = session.start(store, "unbroadcast", workspace, clock).attempt
    with pytest.raises(AttemptInProgress) as info:
        store.require_free()
    assert info.value.attempt == first and str(info.value) == "an attempt is already in progress"
    for refused in (
        lambda: session.start(store, "backward", workspace, clock),
        lambda: interviewer.begin(store, PLAN, clock),
    ):
        with pytest.raises(errors.DrillError, match="an attempt at unbroadcast is in progress"):
            refused()
    monkeypatch.setattr(History, "require_free", lambda self: None)  # the one check, lifted
    assert session.start(store, "backward", workspace, clock).attempt.target == "backward"
    assert interviewer.begin(store, PLAN, clock) > 0


def test_an_attempts_clock_at_its_end_has_one_reading(store):
    attempt = store.start("unbroadcast", Path("/nowhere/unbroadcast.py"), T0)
    store.pause(attempt, T0 + 40)
    store.resume(attempt, T0 + 100)
    given_up = store.finish(attempt, Outcome.GAVE_UP, T0 + 130)
    assert given_up.time is None and given_up.clock_at_end == 70  # 40 s, paused 60 s, then 30 s
    assert export.records(store)[0].seconds == pytest.approx(given_up.clock_at_end)
    assert defined("clock_at_end") == ["autograd_drill.store.attempt"]


def test_a_failures_headline_is_written_in_one_place():
    cases = [("Tensor.exp", "x", "wrong"), ("unbroadcast", "to-0d", "a.grad has shape (3,)"), (None, None, "no file")]
    for symbol, case, text in cases:
        raised = GradeFailure(text, symbol, case, hint="a hint", location=("engine.py:3 in f",))
        told = Failure.from_json({"test": "t", "message": raised.message, **raised.record()})
        assert raised.message.partition("\n")[0] == told.headline
    formatting = [  # an f-string ``{symbol} [{case}]: {text}``, where it is written
        module
        for module, path in modules().items()
        for node in sources.nodes(path)
        if isinstance(node, ast.JoinedStr) and "} [{" in (code := ast.unparse(node)) and "}]: {" in code
    ]
    assert formatting == ["autograd_drill.grader.verdict"]


def test_the_schema_has_one_module_and_a_history_makes_every_table(tmp_path):
    assert [m for m, p in modules().items() if "CREATE TABLE" in p.read_text(encoding="utf-8")] == [
        "autograd_drill.store.schema"
    ]
    history = History(tmp_path / "fresh.sqlite3")
    try:
        tables = {r[0] for r in history.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        history.close()
    assert {
        "attempts",
        "splits",
        "submissions",
        "hints",
        "interviews",
        "interview_parts",
        "interview_answers",
    } <= tables
    made = sqlite3.connect(":memory:")
    made.executescript(SCHEMA)
    assert {r[0] for r in made.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} == tables


WRITERS = (
    "autograd_drill.loop.ladder",
    "autograd_drill.store.paths.atomic_write",
    "autograd_drill.store.pending",
    "autograd_drill.store.history",
)
"""What a view must not import at run time: the ladder keeps the rung times it computes in the data
folder; the others write files or the history."""


def test_views_draw_and_never_write(drill_home):
    wrong = {
        module: sorted(n for n in imports(path) if n.startswith(WRITERS))
        for module, path in modules().items()
        if module.startswith("autograd_drill.views")
    }
    assert not {m: names for m, names in wrong.items() if names}, "a view imports what writes"
    before = sorted(p.name for p in drill_home.rglob("*")) if drill_home.exists() else []
    store = History(drill_home / "views.sqlite3")
    try:
        copy = store.start("backward", Path("/nowhere/backward.py"), T0, Rung.COPY)
        status = drawn(report.status_view(copy, (TargetState("backward", None, None),), T0 + 5, 90))
        screen = drawn(report.watch_screen(WatchState(copy, (), keys=True), T0 + 5, 90))
        assert "target 1:30" in status and "target 1:30" in screen
    finally:
        store.close()
    after = sorted(p.name for p in drill_home.rglob("*") if not p.name.startswith("views.sqlite3"))
    assert after == before, "drawing wrote a file"
