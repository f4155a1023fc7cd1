"""The commands about your practice: the catalog with your times, what to drill next, review cards,
stats and charts."""

from __future__ import annotations

from rich.text import Text

from autograd_drill.commands.common import Terminal, history
from autograd_drill.grader.catalog import FULL
from autograd_drill.loop.active import describe_active
from autograd_drill.loop.standing import queue, standings
from autograd_drill.store.states import Rung
from autograd_drill.targets import catalog as merged
from autograd_drill.views import lines, render


def overview(term: Terminal, title: bool = True, as_json: bool = False) -> None:
    """``drill`` alone (with a title) and ``drill list``: the catalog with your times, and what to do next;
    first, on stderr, a line per pack that did not load (drills/commands/packs.py)."""
    from autograd_drill.commands.packs import warn_not_loaded

    warn_not_loaded(term)
    if as_json:
        from autograd_drill.commands import as_json as body

        return body.listing(term)
    if title:
        term.out.print(lines.title())
    with history(term) as store:
        now = term.clock()
        told = standings(store, now)  # one story per target: rung, best, last, due
        cards = queue(told)  # spaced repetition: the first is the one to drill now
        due = {t: render.due_in(s.due - now) for t, s in told.items()}
        rungs = {t: s.rung for t, s in told.items()}
        term.out.print(render.catalog_table(merged(), {t: s.record for t, s in told.items()}, due, rungs))
        term.out.print()
        active = store.active()
    if active is not None:
        term.out.print(lines.in_progress_view(describe_active(active, now), meanwhile=False))
    else:
        chosen = cards[0]
        why = f"{render.reason(chosen, now, rungs[chosen.target])}   (or: drill next --start)"
        term.out.print(render.next_step(f"drill start {chosen.target}", why))


def next_target(term: Terminal, as_json: bool = False) -> None:
    """``drill next``: the queue, the attempt in progress if there is one, and the questions due (none
    before a question was answered: then neither the bank nor their schedule is read)."""
    if as_json:
        from autograd_drill.commands import as_json as body

        return body.next_target(term)
    from autograd_drill.interview import any_answer

    with history(term) as store:
        now = term.clock()
        told = standings(store, now)
        cards = queue(told)
        active = store.active()
        rung = told[cards[0].target].rung
        if any_answer(store.db):
            from autograd_drill.interview.due import due_questions

            questions = due_questions(store.db, now)
        else:
            questions = []
    if active is not None:
        term.out.print(lines.in_progress_view(describe_active(active, now), meanwhile=True))
    term.out.print(render.next_view(cards, now, rung))
    if questions:
        from autograd_drill.interview.bank import load_bank
        from autograd_drill.views.interview import due_questions_view

        term.out.print(due_questions_view(questions, load_bank(), now))


def chosen_target(term: Terminal, as_json: bool = False) -> str:
    """``drill next --start``: the target spaced repetition chooses, said before it starts."""
    if as_json:
        from autograd_drill.errors import DrillError

        raise DrillError("--json is for the queue: drill next --json, or drill next --start without it")
    with history(term) as store:
        now = term.clock()
        told = standings(store, now)
        chosen = queue(told)[0]
        rung = told[chosen.target].rung
    term.out.print(lines.chosen_line(chosen.target, render.reason(chosen, now, rung)))
    return chosen.target


def review(term: Terminal, target: str) -> None:
    from autograd_drill.views.reviews import review_for

    card = review_for(target)
    if card is None:
        term.out.print(lines.no_card_line(target))
        return
    from autograd_drill.views.card import review_card

    term.out.print(review_card(card))
    with history(term) as store:
        now = term.clock()
        told = standings(store, now)[target]
    term.out.print(
        lines.yours_line(
            target, told.attempts, told.best, told.due - now, told.splits, told.rung if told.drilled else Rung.RECALL
        )
    )


def stats(term: Terminal, target: str | None, plot: bool = False, as_json: bool = False) -> None:
    """Per drill, its recall row, and a row per rung below recall it was drilled on (never mixed);
    with ``plot``, the chart (as ``drill chart``)."""
    from autograd_drill.loop.ladder import target_seconds

    if plot and as_json:
        from autograd_drill.errors import DrillError

        raise DrillError("--plot draws a chart: no JSON of it (drill stats --json writes the table's)")
    if plot:
        return chart(term, target)

    ids = [target] if target else list(merged().drill_ids)
    with history(term) as store:
        told = standings(store, term.clock())  # one story per target: its recall row is its standing's
    rows = []
    for drill_id in ids:
        for rung in (Rung.COPY, Rung.CLOZE):
            if told[drill_id].drilled_on(rung):
                rows.append(told[drill_id].stats(rung, target_seconds(drill_id, rung)))
        rows.append(told[drill_id].stats())
    if as_json:
        from autograd_drill.commands import as_json as body

        return body.stats(term, rows)
    term.out.print(render.stats_table(rows))


def chart(term: Terminal, target: str | None) -> None:
    from autograd_drill.loop.ladder import target_seconds
    from autograd_drill.store.progress import progress
    from autograd_drill.targets import is_full
    from autograd_drill.views.chart import draw, full_progress

    out = term.out
    full = target is not None and is_full(target)  # full, or a pack's: layers/full
    with history(term) as store:
        if full and target != FULL:
            data = full_progress(store, term.clock(), target, term.tz, target_seconds)
        else:
            data = progress(store, term.clock(), term.tz, target_seconds)
    has = data.full if full else [s for s in data.series if target in (None, s.target)]
    if not has:
        out.print(lines.nothing_to_chart(target))
        return
    width = max(40, min(out.size.width, 120))
    height = max(12, min(out.size.height - 4, 30)) * (2 if full else 1)
    out.print(Text.from_ansi(draw(data, target, width, height)), no_wrap=True, crop=False)
    if full:
        out.print(render.sum_of_best_line(data.sum_of_best))
    out.print(render.streak_line(data.streak))
