"""``drill status``: the attempt in progress, or (with none) what to start. A module of its own, so
that the answer without an attempt, typed bare (drills/commands/quick.py), loads what ``drill list``
does and none of the drill loop's commands (drills/commands/drill.py: its session, its reports)."""

from __future__ import annotations

from autograd_drill.commands.common import Terminal, history, rung_target
from autograd_drill.views import lines, render


def status(term: Terminal, as_json: bool = False) -> None:
    """The attempt in progress; with none, that is an answer too (and what to start)."""
    if as_json:
        from autograd_drill.commands import as_json as body

        return body.status(term)
    with history(term) as store:
        attempt = store.active()
        if attempt is None:
            from autograd_drill.loop.standing import queue, standings

            now = term.clock()
            told = standings(store, now)
            chosen = queue(told)[0]
            why = render.reason(chosen, now, told[chosen.target].rung)
            term.out.print(lines.no_attempt_view(chosen.target, why))
            return
        from autograd_drill.loop import session

        states = session.target_states(attempt, session.latest_result(store, attempt))
    from autograd_drill.views import report

    term.out.print(report.status_view(attempt, states, term.clock(), rung_target(attempt)))
