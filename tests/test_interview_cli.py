"""``drill interview`` in process (typer's CliRunner, the MockClock, the stand-in grader): the plan
(``--plan``, ``--json``), the refusals, whole sessions (passed, out of time, stopped by Ctrl-C or by the
end of the input, an answer written in $EDITOR), ``--list``, ``drill next``'s due questions, and the
interviews in ``drill export`` and ``drill import``. The session in a real terminal is
tests/test_interview_terminal.py's."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pytest
from rich.console import Console

from autograd_drill import cli
from autograd_drill.commands import interview as command
from autograd_drill.commands import keys as terminal_keys
from autograd_drill.grader.catalog import format_time
from autograd_drill.interview import interviewer as steps
from autograd_drill.interview.bank import load_bank
from autograd_drill.interview.store import InterviewRecord, ensure_tables, interviews
from tests.loop import FakeGrader, write
from tests.support import CATALOG, DAY, active, drill, open_store, said

pytestmark = pytest.mark.usefixtures("wide_terminal")

SHORT = ("interview", "--minutes", "20", "--target", "unbroadcast")
"""unbroadcast (6:30), its follow-up gradcheck (7:00), two questions."""
ANSWERS = "A sum over the batch.\n.\n1 2\nCentral differences.\nIn float64.\n.\nall\n"


def solved_on_first_grading(grader: FakeGrader) -> None:
    """The user writes the reference while the stub is graded: the next grading passes."""

    def during() -> None:
        attempt = active()
        if attempt is not None and "NotImplementedError" in attempt.file.read_text(encoding="utf-8"):
            write(attempt.file, [])

    grader.during = during


def held() -> list[InterviewRecord]:
    store = open_store()
    try:
        ensure_tables(store.db)
        return interviews(store.db)
    finally:
        store.close()


def test_the_plan_is_printed_and_nothing_is_started(clock):
    text = said(drill("interview", "--plan", "--minutes", "20", "--target", "unbroadcast"))
    assert "coding" in text and "unbroadcast" in text and "gradcheck" in text and "20 minutes: 20:00 planned" in text
    data = json.loads(drill("interview", "--plan", "--json", "--minutes", "20", "--target", "unbroadcast").output)
    assert [p["kind"] for p in data["parts"]] == ["coding", "follow-up", "question", "question"]
    assert sum(p["budget"] for p in data["parts"]) == 20 * 60 and data["minutes"] == 20
    bank = load_bank()
    assert all(p["prompt"] == bank.get(p["id"]).prompt for p in data["parts"] if p["kind"] == "question")
    assert active() is None and held() == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--json",), "--json goes with --plan or --list"),
        (("--plan", "--list"), "--plan and --list: one at a time"),
        (("--minutes", "5"), "an interview lasts 10 to 180 minutes, not 5"),
        (("--target", "full"), f"full is a {format_time(CATALOG.full_time)} drill of its own"),
        (("--target", "unbroadcst"), "Did you mean 'unbroadcast'?"),
    ],
)
def test_refusals_are_one_line(clock, args, message):
    result = drill("interview", *args, code=2)
    assert message in said(result) and "Traceback" not in result.output
    assert held() == []


def test_an_attempt_in_progress_is_finished_first(clock):
    drill("start", "arith")
    text = said(drill(*SHORT, code=2))
    assert "an attempt at arith is in progress" in text and "drill abandon" in text
    assert held() == [] and active().target == "arith"


def test_a_whole_session_in_process(clock, fake_grading, tmp_path):
    solved_on_first_grading(fake_grading)
    result = drill(*SHORT, input=ANSWERS)
    text = said(result)
    assert "Interviewer: that passes: unbroadcast passed in" in text and "A follow-up, then: gradcheck" in text
    assert "Question 1 of 2" in text and "Question 2 of 2" in text and "Interview over." in text
    (record,) = held()
    assert record.finished and [p.outcome for p in record.parts] == ["passed", "passed"]
    assert [a.answer for a in record.answers] == ["A sum over the batch.", "Central differences.\nIn float64."]
    assert record.answers[0].covered == (0, 1) and record.answers[1].share == 1.0
    assert record.report is not None and record.report in result.output
    report = Path(record.report).read_text(encoding="utf-8")
    assert "> A sum over the batch." in report and "**passed in" in report
    assert Path(record.report).parent == tmp_path / "drill-home" / "interviews"
    assert (
        steps.answer_path(record.id, record.answers[0].question)
        .read_text(encoding="utf-8")
        .endswith("A sum over the batch.\n")
    )

    listed = said(drill("interview", "--list"))
    assert "unbroadcast: passed in" in listed and "gradcheck: passed in" in listed and "2 of 2 answered" in listed
    as_json = json.loads(drill("interview", "--list", "--json").output)
    assert as_json == [record.to_json()]

    # the questions answered come due: drill next names them beside the targets
    clock.advance(90 * DAY)
    shown = said(drill("next"))
    assert "Drill now:" in shown and "2 questions due:" in shown
    assert all(a.question in shown for a in record.answers)


def test_out_of_time_the_task_is_given_up_and_the_follow_up_left_out(clock, fake_grading):
    fake_grading.seconds = 7 * 60  # the first grading takes the clock past the task's 6:30
    result = drill(*SHORT, input=ANSWERS)
    assert "time is up: unbroadcast out of time at" in said(result)
    assert "No follow-up (gradcheck): it comes once the task passes" in said(result)
    (record,) = held()
    assert [(p.target, p.outcome) for p in record.parts] == [("unbroadcast", "out-of-time"), ("gradcheck", "skipped")]
    assert record.finished and len(record.answers) == 2
    store = open_store()
    try:
        assert [a.outcome for a in store.attempts()] == ["gave-up"]
    finally:
        store.close()
    report = Path(record.report or "").read_text(encoding="utf-8")
    assert "**out of time at" in report and "## Follow-up: gradcheck" in report and "not reached" in report
    assert "raise NotImplementedError" in report, "the code as graded: the stub, untouched"


def test_ctrl_c_at_the_second_question_keeps_what_was_done(clock, fake_grading, monkeypatch):
    solved_on_first_grading(fake_grading)
    read = command.Session._line
    typed = []

    def line(self, prompt: str = "") -> str | None:
        if len(typed) == 3:  # the first answer (two lines) and its ticks given
            raise KeyboardInterrupt
        typed.append(got := read(self, prompt))
        return got

    monkeypatch.setattr(command.Session, "_line", line)
    result = drill(*SHORT, input=ANSWERS, code=1)
    assert "Interview stopped" in said(result) and "Traceback" not in result.output
    (record,) = held()
    assert (
        not record.finished and len(record.answers) == 1 and [p.outcome for p in record.parts] == ["passed", "passed"]
    )
    report = Path(record.report or "").read_text(encoding="utf-8")
    assert "(not finished)" in report and "was asked but not answered: it stays new" in report
    assert "2. `" in report and "asked, not answered (the interview stopped)" in report
    assert "1. `" in report and "self-checked (2 of" in report
    assert active() is None


def test_ctrl_c_during_the_task_gives_it_up_and_writes_the_transcript(clock, fake_grading, monkeypatch):
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(steps, "part_outcome", interrupted)
    result = drill(*SHORT, input=ANSWERS, code=1)
    assert "Interview stopped" in said(result) and "Traceback" not in result.output
    (record,) = held()
    assert [p.outcome for p in record.parts] == ["gave-up"] and record.answers == ()
    assert active() is None and Path(record.report or "").exists()


def test_the_end_of_the_input_stops_the_interview(clock, fake_grading):
    solved_on_first_grading(fake_grading)
    drill(*SHORT, input="Only one answer.\n.\n1\n", code=1)
    (record,) = held()
    assert not record.finished and [a.answer for a in record.answers] == ["Only one answer."]


def test_an_answer_written_in_the_editor(clock, fake_grading, monkeypatch):
    solved_on_first_grading(fake_grading)
    script = "import sys; f = open(sys.argv[-1], 'a'); f.write('Written in my editor.\\n')"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f'{sys.executable} -c "{script}"')
    result = drill(*SHORT, input="e\n[/b]\n1\nTyped.\n.\nnone\n")
    assert "'[/b]' is not one" in said(result), "asked again, what was typed shown as typed"
    (record,) = held()
    assert [a.answer for a in record.answers] == ["Written in my editor.", "Typed."]
    kept = steps.answer_path(record.id, record.answers[0].question).read_text(encoding="utf-8")
    assert kept.endswith("Written in my editor.\n") and "# Time box:" in kept


def test_without_an_editor_the_answer_is_typed(clock, fake_grading, monkeypatch):
    solved_on_first_grading(fake_grading)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    result = drill(*SHORT, input="e\nTyped after all.\n.\n1\nTwo.\n.\n1\n")
    assert "Cannot open an editor" in said(result)
    assert [a.answer for a in held()[0].answers] == ["Typed after all.", "Two."]


def test_export_holds_the_interviews_and_import_restores_them(clock, fake_grading, tmp_path, monkeypatch):
    solved_on_first_grading(fake_grading)
    drill(*SHORT, input=ANSWERS)
    (record,) = held()
    out = tmp_path / "history.json"
    assert "and 1 interview" in said(drill("export", "-f", "json", "-o", str(out)))
    assert json.loads(out.read_text(encoding="utf-8"))["interviews"] == [record.to_json()]
    assert "interview" not in drill("export", "-f", "csv").output.split("\n")[0], "CSV: attempts only"

    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "new-home"))
    assert "Interviews: 1 added, 0 already there" in said(drill("import", str(out)))
    assert [r.to_json() for r in held()] == [record.to_json()]
    assert "Interviews: 0 added, 1 already there" in said(drill("import", str(out)))

    data = json.loads(out.read_text(encoding="utf-8"))
    data["interviews"][0]["answers"][0]["covered"] = [99]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "third-home"))
    assert "covered key points [99] are not among" in said(drill("import", str(bad), code=2))
    store = open_store()
    try:
        assert held() == [] and store.attempts() == [], "nothing written"
    finally:
        store.close()


def in_a_terminal(
    monkeypatch: pytest.MonkeyPatch, pressed: list[str], each: Callable[[], object] = lambda: None
) -> None:
    """drill prints to a console that is a terminal, and reads ``pressed`` from a stand-in keyboard, one
    key a read (``each`` called at every read), then none."""

    class Keys:
        def read(self, timeout: float) -> str | None:
            each()
            return pressed.pop(0) if pressed else None

    @contextmanager
    def keyboard():
        yield Keys()

    monkeypatch.setattr(cli, "out", Console(force_terminal=True, color_system=None, width=200, highlight=False))
    monkeypatch.setattr(terminal_keys, "keyboard", keyboard)


def test_keys_h_is_a_nudge_and_q_gives_the_task_up(clock, fake_grading, monkeypatch):
    """In a terminal (a console that is one, keys from a stand-in): h, then q."""
    in_a_terminal(monkeypatch, ["h", "q"])
    result = drill(*SHORT, input=ANSWERS)
    hint = CATALOG.get("unbroadcast").hints[0]
    assert f"Interviewer: {hint}" in said(result) and "let us leave it there: unbroadcast gave up at" in said(result)
    (record,) = held()
    assert [(p.outcome, p.nudges) for p in record.parts] == [("gave-up", 1), ("skipped", 0)]
    assert f"1. {hint}" in Path(record.report or "").read_text(encoding="utf-8")


def test_ctrl_c_while_answering_keeps_the_lines_already_typed(clock, fake_grading, monkeypatch):
    """Each line of a typed answer is in its answer file as soon as it is typed: a Ctrl-C before the
    closing dot loses none of them."""
    solved_on_first_grading(fake_grading)
    read = command.Session._line
    typed = []

    def line(self, prompt: str = "") -> str | None:
        if len(typed) == 2:  # two lines of the first answer typed, no dot yet
            raise KeyboardInterrupt
        typed.append(got := read(self, prompt))
        return got

    monkeypatch.setattr(command.Session, "_line", line)
    result = drill(*SHORT, input="First line.\nSecond line.\nThird.\n.\n1\n", code=1)
    assert "Interview stopped" in said(result) and "Traceback" not in result.output
    (record,) = held()
    first = record.plan.questions[0].id
    kept = steps.answer_path(record.id, first).read_text(encoding="utf-8")
    assert kept.endswith("First line.\nSecond line.\n") and "# Time box:" in kept
    assert record.answers == (), "not self-checked: not rated"


def test_p_does_not_pause_an_interview_and_the_key_bar_shows_its_own_keys(clock, fake_grading, monkeypatch):
    """An interview's clock runs as a real one does: p is refused (said on the screen), the attempt is
    never paused; the key bar is the interview's (no "p pause", no "q quit")."""
    seen: list[bool] = []

    def look() -> None:
        attempt = active()
        if attempt is not None:
            seen.append(attempt.paused or attempt.paused_total > 0)

    in_a_terminal(monkeypatch, ["p", "q"], look)
    result = drill(*SHORT, input=ANSWERS)
    text = said(result)
    assert "no pause in an interview" in text and "let us leave it there: unbroadcast gave up at" in text
    assert seen and not any(seen), "the clock never paused"
    assert "q gives the task up" in text and "p pause" not in text and "q quit" not in text
    store = open_store()
    try:
        (attempt,) = store.attempts()
    finally:
        store.close()
    assert attempt.paused_total == 0 and attempt.outcome == "gave-up"


def test_a_question_rated_in_one_interview_is_not_asked_in_the_next_before_it_is_due(clock, fake_grading):
    solved_on_first_grading(fake_grading)
    drill(*SHORT, input=ANSWERS)
    clock.advance(3600)
    solved_on_first_grading(fake_grading)
    drill(*SHORT, input=ANSWERS)
    first, second = held()
    assert len(first.answers) == len(second.answers) == 2
    assert not {a.question for a in first.answers} & {q.id for q in second.plan.questions}


def test_drill_pause_elsewhere_is_refused_during_an_interview_part(clock, workspace):
    store = open_store()
    try:
        ensure_tables(store.db)
        plan = command.make_plan(store, 20, "unbroadcast", clock())
        number = steps.begin(store, plan, clock)
        steps.start_part(store, number, plan, 0, plan.coding.budget, workspace, clock)
    finally:
        store.close()
    text = said(drill("pause", code=2))
    assert "an interview's clock cannot be paused" in text and f"interview {number} runs unbroadcast" in text
    assert not active().paused
    drill("abandon")
    drill("start", "arith")
    drill("pause")
    assert active().paused, "outside an interview, pause works as before"
