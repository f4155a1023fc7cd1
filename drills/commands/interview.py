"""``drill interview``: a mock interview in the terminal; ``--plan`` the session it would run, ``--list``
the interviews in the history. The steps are drills/interview/interviewer.py's; this module does the
terminal's part: the watch screen of each coding part (drills/loop/watch.py, with its keys), the
interviewer's nudges, the answers typed (or written in $EDITOR) and the key points ticked."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from typing import TYPE_CHECKING

from autograd_drill.commands.common import Terminal, history, oracle_mode, rung_target
from autograd_drill.errors import DrillError
from autograd_drill.interview import interviewer as steps
from autograd_drill.interview.answering import MARKER, TickError, answer_from_file, answer_template, parse_ticks
from autograd_drill.interview.bank import BankError, Question, load_bank
from autograd_drill.interview.due import question_deck, rate_answer
from autograd_drill.interview.plan import Plan
from autograd_drill.interview.planner import PlanError, plan_interview
from autograd_drill.interview.store import PartRecord, interviews
from autograd_drill.loop.session import Hints
from autograd_drill.store.paths import atomic_write, default_workspace, display
from autograd_drill.store.schedule import queue
from autograd_drill.store.states import PartOutcome
from autograd_drill.targets import catalog as merged
from autograd_drill.views import interview as views

if TYPE_CHECKING:
    from rich.console import Console

    from autograd_drill.store.history import History


def interview(
    term: Terminal, minutes: int, target: str | None, plan_only: bool, as_json: bool, listed: bool, oracle: str = "auto"
) -> int | None:
    """The command's body; the exit status: 0 the interview ran to its end, 1 it was stopped."""
    oracle = oracle_mode(oracle)
    if plan_only and listed:
        raise DrillError("--plan and --list: one at a time")
    if as_json and not (plan_only or listed):
        raise DrillError("--json goes with --plan or --list")
    with history(term) as store:
        if listed:
            records = interviews(store.db)
            if as_json:
                sys.stdout.write(json.dumps([r.to_json() for r in records], indent=1) + "\n")
            else:
                term.out.print(views.interviews_view(records, term.tz or steps.local_zone()))
            return None
        plan = make_plan(store, minutes, target, term.clock())
        if plan_only:
            if as_json:
                sys.stdout.write(json.dumps(plan_json(plan), indent=1) + "\n")
            else:
                term.out.print(views.plan_view(plan, load_bank()))
            return None
        return Session(term, store, plan, oracle).run()


def make_plan(store: History, minutes: int, target: str | None, now: float) -> Plan:
    """The session to run, from the schedule of drills and of questions."""
    try:
        bank = load_bank()
        drills = [c.target for c in queue(store, now)]
        return plan_interview(merged(), bank, minutes, target, drills, question_deck(store.db, now, bank), now)
    except (PlanError, BankError) as exc:
        raise DrillError(str(exc)) from None


def plan_json(plan: Plan) -> dict[str, object]:
    """``--plan --json``: the plan as the history keeps it, each question with its prompt."""
    data = plan.to_json()
    bank = load_bank()
    for part in data["parts"]:
        if part["kind"] == "question":
            part["prompt"] = bank.get(part["id"]).prompt
    return data


class Stopped(Exception):
    """The input ended before the interview did: it stops, as at a Ctrl-C."""


class Session:
    """One interview, run in the terminal."""

    def __init__(self, term: Terminal, store: History, plan: Plan, oracle: str) -> None:
        self.term, self.store, self.plan, self.oracle = term, store, plan, oracle
        self.out = term.out
        self.bank = load_bank()
        self.number = 0
        self.coding: steps.Coding | None = None
        """The coding part under way, to give up if the interview stops."""

    def run(self) -> int:
        self.number = steps.begin(self.store, self.plan, self.term.clock)
        self.out.print(views.intro_view(self.number, self.plan, self.bank))
        stopped = False
        try:
            self._coding_parts()
            self._questions()
        except (KeyboardInterrupt, Stopped):
            stopped = True
            if self.coding is not None:
                steps.end_part(self.store, self.number, self.coding, PartOutcome.GAVE_UP, self.term.clock)
        record, path = steps.close(self.store, self.number, self.term.clock, self.term.tz, finished=not stopped)
        self.out.print(views.closing_view(record, display(path), stopped))
        return 1 if stopped else 0

    # ------------------------------------------------------------------ coding

    def _coding_parts(self) -> None:
        plan = self.plan
        part = self._part(plan.parts.index(plan.coding), plan.coding.budget)
        follow = plan.follow_up
        budget = steps.follow_up_budget(plan, part)
        self.out.print(views.part_end_view(part, follow.id if follow else None, budget))
        if follow is None:
            return
        position = plan.parts.index(follow)
        if budget is None:
            steps.skip_part(self.store, self.number, plan, position)
            return
        self.out.print(views.part_end_view(self._part(position, budget), None, None))

    def _part(self, position: int, budget: int) -> PartRecord:
        clock = self.term.clock
        self.coding = coding = steps.start_part(
            self.store, self.number, self.plan, position, budget, default_workspace(), clock
        )
        target = merged().get(coding.part.target)
        self.out.print(
            views.task_view(coding.part.kind, target.id, target.summary, display(coding.started.path), budget)
        )
        outcome = self._watch(coding, budget)
        part = steps.end_part(self.store, self.number, coding, outcome, clock)
        self.coding = None
        return part

    def _watch(self, coding: steps.Coding, budget: int) -> PartOutcome:
        """Watch the part's file (drill watch's loop, its keys) until it passes, is given up (q, or
        elsewhere) or its budget runs out; how it ended."""
        from rich.live import Live

        from autograd_drill.commands.keys import keyboard
        from autograd_drill.loop.watch import watch_saves
        from autograd_drill.loop.watch_state import End
        from autograd_drill.views.report import shown_view, watch_screen

        out, clock = self.out, self.term.clock
        with keyboard() if out.is_terminal else nullcontext() as keys:
            live = Live(console=out, auto_refresh=False, transient=False) if out.is_terminal else None
            states = watch_saves(self.store, clock, oracle=self.oracle, keys=keys, pausable=False)
            try:
                if live is not None:
                    live.start()
                for state in states:
                    now = clock()
                    if state.shown is not None:  # printed above the live screen
                        out.print(
                            views.nudge_view(state.shown) if isinstance(state.shown, Hints) else shown_view(state.shown)
                        )
                    given_up = state.ended is End.QUIT
                    outcome = PartOutcome.GAVE_UP if given_up else steps.part_outcome(state.attempt, budget, now)
                    screen = watch_screen(state, now, rung_target(state.attempt), footer=False)  # its own key bar
                    if live is not None:
                        live.update(
                            views.part_screen(screen, coding.part.target, budget, state.attempt.elapsed(now)),
                            refresh=True,
                        )
                    elif state.graded:
                        out.print(screen)
                    if outcome is not None:
                        return outcome
            finally:
                states.close()
                if live is not None:
                    live.stop()
        return steps.part_outcome(self.store.get(coding.attempt.id), budget, clock()) or PartOutcome.GAVE_UP

    # ------------------------------------------------------------------ questions

    def _questions(self) -> None:
        clock = self.term.clock
        asked = self.plan.questions
        for n, planned in enumerate(asked, 1):
            question = self.bank.get(planned.id)
            self.out.print(views.question_view(n, len(asked), question))
            asked_at = clock()
            steps.asked(self.number, question)
            text = self._answer(question)
            answered_at = clock()
            self.out.print(views.answered_line(answered_at - asked_at, question.time_box))
            self.out.print(views.self_check_view(question))
            covered = self._ticks(question)
            answer = steps.answered(self.store, self.number, question, asked_at, answered_at, text, covered)
            due = steps.due_after(self.store, question, clock())
            self.out.print(views.rated_line(answer, rate_answer(answer).name, due))

    def _line(self, prompt: str = "") -> str | None:
        """A line typed, without its end; None at the end of the input."""
        return read_line(self.out, prompt)

    def _answer(self, question: Question) -> str:
        """The answer typed (until a line with only a dot, or the end of the input), or written in $EDITOR
        (e alone on the first line); kept in its answer file either way, each typed line as soon as it
        is typed (a Ctrl-C before the dot loses none of them)."""
        lines: list[str] = []
        while (line := self._line()) is not None and line.strip() != ".":
            if not lines and line.strip() == "e":
                written = self._edit(question)
                if written is not None:
                    return written
                continue
            lines.append(line)
            steps.keep_answer(self.number, question, "\n".join(lines))
        text = "\n".join(lines).strip("\n").rstrip()
        if line is None and not text:
            raise Stopped
        steps.keep_answer(self.number, question, text)
        return text

    def _edit(self, question: Question) -> str | None:
        """The answer written in $EDITOR, in the question's answer file; None when no editor runs."""
        import subprocess

        from autograd_drill.loop.editor import EditorProblem, editor_command

        path = steps.answer_path(self.number, question.id)
        if not path.exists():
            atomic_write(path, answer_template(question))
        lines = path.read_text(encoding="utf-8").splitlines()
        line = next((n + 1 for n, text in enumerate(lines, 1) if text == MARKER), None)
        try:
            subprocess.call(editor_command(path, line, wait=True))  # the answer is read back once it is closed
        except (OSError, EditorProblem) as exc:
            self.out.print(
                views.said_line(
                    f"Cannot open an editor ({exc}): type your answer here, or write it in {display(path)} and type e."
                )
            )
            return None
        return answer_from_file(path.read_text(encoding="utf-8"))

    def _ticks(self, question: Question) -> tuple[int, ...]:
        """The key points covered, asked again until they can be read."""
        while True:
            typed = self._line(" Covered: ")
            if typed is None:
                raise Stopped
            try:
                return parse_ticks(typed, len(question.points))
            except TickError as exc:
                self.out.print(views.said_line(str(exc)))


def read_line(out: Console, prompt: str = "") -> str | None:
    """A line typed, without its end; None at the end of the input. In a terminal, read by ``input``
    with the ``readline`` module loaded where the platform has one (POSIX; Windows has none, and its
    console edits the line itself): the arrow keys move in the line, up and down recall the lines typed
    before, as in a shell. From a pipe or a file: read as it comes."""
    try:
        interactive = sys.stdin.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if not interactive:
        if prompt:
            out.print(prompt, end="")
        line = sys.stdin.readline()
        return None if line == "" else line.rstrip("\r\n")
    try:
        import readline  # noqa: F401 - loading it is what gives input() its line editing
    except ImportError:  # Windows, or a Python built without it
        pass
    try:
        return input(prompt)
    except EOFError:
        return None
