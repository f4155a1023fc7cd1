"""``--json`` of ``drill status``, ``list``, ``next``, ``stats`` and ``check``: one JSON object on stdout
and nothing else there (no rich markup, no wrapping), its keys documented in docs/json.md
(tests/test_json_output.py checks that the documented keys are exactly those written). A refusal is
what it is without --json: one line on stderr, a non-zero exit status, nothing on stdout.

Every object carries ``"version"`` (that of ``drill grade --json``, drills/commands/grade.py): it grows
by one when a key changes meaning or goes; keys may be added. Times are seconds (floats), dates epoch
seconds, paths absolute. ``drill check --json`` is the ``drill grade --json`` object of the grading
(/shared SPEC section 3, docs/contract.md), with the attempt's state beside it."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from autograd_drill.commands.common import Terminal, history, rung_target
from autograd_drill.commands.grade import JSON_VERSION
from autograd_drill.grader.catalog import FULL
from autograd_drill.store.states import Rung
from autograd_drill.targets import catalog as merged

if TYPE_CHECKING:
    from autograd_drill.grader.verdict import GradeResult
    from autograd_drill.loop.session import Checked
    from autograd_drill.loop.standing import Standing
    from autograd_drill.store.attempt import Attempt
    from autograd_drill.store.records import TargetStats
    from autograd_drill.store.schedule import TargetCard


def emit(data: dict[str, Any]) -> None:
    """``data`` as one line of JSON on stdout, after its version."""
    print(json.dumps({"version": JSON_VERSION, **data}))


def seconds(value: float | None) -> float | None:
    return None if value is None else round(float(value), 3)


def attempt_object(attempt: Attempt, now: float, latest: GradeResult | None) -> dict[str, Any]:
    """An attempt's state: its clock, its rung and target time, and each target's state by ``latest``."""
    from autograd_drill.loop.session import target_states

    return {
        "id": attempt.id,
        "target": attempt.target,
        "rung": str(attempt.rung),
        "file": os.path.abspath(attempt.file),
        "started_at": seconds(attempt.started_at),
        "elapsed": seconds(attempt.elapsed(now)),
        "target_seconds": rung_target(attempt),
        "paused": attempt.paused,
        "assisted": attempt.assisted,
        "outcome": None if attempt.outcome is None else str(attempt.outcome),
        "targets": {s.target: {"state": s.state, "split": seconds(s.split)} for s in target_states(attempt, latest)},
    }


def card_object(card: TargetCard, now: float, rung: Rung) -> dict[str, Any]:
    """A target's place in the queue: when it is due and why it comes where it does."""
    from autograd_drill.views.render import reason

    return {"target": card.target, "rung": str(rung), "due": seconds(card.due), "reason": reason(card, now, rung)}


def _active(store: Any, now: float) -> dict[str, Any] | None:
    from autograd_drill.loop.session import latest_result

    attempt = store.active()
    return None if attempt is None else attempt_object(attempt, now, latest_result(store, attempt))


def status(term: Terminal) -> None:
    """The attempt in progress (null: none), and the target to drill next."""
    from autograd_drill.loop.standing import queue, standings

    with history(term) as store:
        now = term.clock()
        told = standings(store, now)
        chosen = queue(told)[0]
        emit({"attempt": _active(store, now), "next": card_object(chosen, now, told[chosen.target].rung)})


def standing_object(told: Standing, kind: str) -> dict[str, Any]:
    """A row of ``drill list``: what it is, where it stands, its recall record."""
    from autograd_drill.store.records import finished_on

    target = merged().target_time(told.target)
    recall = finished_on(told.own, Rung.RECALL)
    last = recall[-1] if recall else None
    return {
        "id": told.target,
        "kind": kind,
        "rung": str(told.rung),
        "target_seconds": target,
        "best": seconds(told.best),
        "last": None if last is None else {"outcome": str(last.outcome), "time": seconds(last.time)},
        "attempts": told.attempts,
        "due": seconds(told.due),
    }


def listing(term: Terminal) -> None:
    """The catalog with your record: each target and ``full``, in catalog order; the attempt in progress."""
    from autograd_drill.loop.standing import queue, standings

    catalog = merged()
    core = set(catalog.ids) | {t.id for f in catalog.fulls for t in f.targets}  # each pack's core targets
    follow_ups = {t.id for t in catalog.every if t.id not in core}
    with history(term) as store:
        now = term.clock()
        told = standings(store, now)
        chosen = queue(told)[0]
        kinds = {t: "core" if t in core else "follow-up" if t in follow_ups else FULL for t in told}
        emit(
            {
                "targets": [standing_object(s, kinds[t]) for t, s in told.items()],
                "attempt": _active(store, now),
                "next": card_object(chosen, now, told[chosen.target].rung),
            }
        )


def next_target(term: Terminal) -> None:
    """The queue of spaced repetition, first to drill first; the attempt in progress; the questions due."""
    from autograd_drill.interview import any_answer
    from autograd_drill.loop.standing import queue, standings

    with history(term) as store:
        now = term.clock()
        told = standings(store, now)
        cards = queue(told)
        due = 0
        if any_answer(store.db):
            from autograd_drill.interview.due import due_questions

            due = len(due_questions(store.db, now))
        emit(
            {
                "queue": [card_object(c, now, told[c.target].rung) for c in cards],
                "attempt": _active(store, now),
                "questions_due": due,
            }
        )


def stats_object(row: TargetStats) -> dict[str, Any]:
    return {
        "target": row.target,
        "rung": str(row.rung),
        "target_seconds": row.target_time,
        "attempts": row.attempts,
        "best": seconds(row.best),
        "median_last_five": seconds(row.median_last_five),
        "times": [seconds(t) for t in row.times],
        "share_under": row.share_under,
    }


def stats(term: Terminal, rows: list[TargetStats]) -> None:
    """``drill stats``'s rows: per drill, a row per rung it was drilled on below recall, then its recall row."""
    emit({"rows": [stats_object(r) for r in rows]})


def checked(term: Terminal, done: Checked) -> None:
    """``drill check --json``: the grading as ``drill grade --json`` writes it, the attempt after it
    (ended when it passed), the targets it passed for the first time, and whether it is recorded."""
    emit(
        {
            **done.result.to_json(),
            "attempt": attempt_object(done.attempt, term.clock(), done.result),
            "newly_passed": list(done.newly_passed),
            "recorded": done.unrecorded is None,
        }
    )
