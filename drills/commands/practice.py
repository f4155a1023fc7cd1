"""The commands about your practice: the catalog with your times, what to drill next, review cards,
stats and charts."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from drills.commands.common import Terminal, history
from drills.loop.session import describe_active
from drills.store import records
from drills.store.schedule import deck, queue
from drills.views import render
from grader.catalog import FULL, load_catalog

TITLE = " autograd-drill: re-implement a tensor autograd engine from memory, against the clock\n"


def overview(term: Terminal, title: bool = True) -> None:
    """``drill`` alone (with a title) and ``drill list``: the catalog with your times, and what to do next."""
    if title:
        term.out.print(Text(TITLE, style="bold"))
    with history(term) as store:
        now = term.clock()
        cards = queue(store, now)  # spaced repetition: the first is the one to drill now
        due = {c.target: render.due_in(c.due - now) for c in cards}
        term.out.print(render.catalog_table(load_catalog(), records.drill_records(store), due))
        term.out.print()
        active = store.active()
    if active is not None:
        said = describe_active(active, now)
        term.out.print(Text(f" {said[0].upper()}{said[1:]}."))
        term.out.print(render.next_step("drill watch", "(or drill status, drill check)"))
    else:
        chosen = cards[0]
        why = f"{render.reason(chosen, now)}   (or: drill next --start)"
        term.out.print(render.next_step(f"drill start {chosen.target}", why))


def next_target(term: Terminal) -> str | None:
    """``drill next``: the queue. Returns the chosen target (for ``--start``)."""
    with history(term) as store:
        now = term.clock()
        cards = queue(store, now)
        active = store.active()
    if active is not None:
        term.out.print(Text(f" Meanwhile, {describe_active(active, now)}: drill watch", style="yellow"))
    term.out.print(render.next_view(cards, now))
    return cards[0].target


def chosen_target(term: Terminal) -> str:
    """``drill next --start``: the target spaced repetition chooses, said before it starts."""
    with history(term) as store:
        now = term.clock()
        chosen = queue(store, now)[0]
    term.out.print(f" drill next chose [bold]{chosen.target}[/]: {escape(render.reason(chosen, now))}.")
    return chosen.target


def review(term: Terminal, target: str) -> None:
    from drills.views.lines import yours_line
    from drills.views.reviews import review_for

    card = review_for(target)
    if card is None:
        term.out.print(f" No card yet for {target}. Its hints:  drill hint {target}")
        return
    term.out.print(render.review_card(card))
    with history(term) as store:
        now = term.clock()
        best, done = records.personal_best(store, target), len(records.finished_attempts(store, target))
        slot = next(c for c in deck(store, now) if c.target == target)
    term.out.print(yours_line(target, done, best, slot.due - now))


def stats(term: Terminal, target: str | None) -> None:
    ids = [target] if target else list(load_catalog().drill_ids)
    with history(term) as store:
        term.out.print(render.stats_table([records.stats(store, i) for i in ids]))


def chart(term: Terminal, target: str | None) -> None:
    from drills.store.progress import progress
    from drills.views.chart import draw

    out = term.out
    with history(term) as store:
        data = progress(store, term.clock(), term.tz)
    has = data.full if target == FULL else [s for s in data.series if target in (None, s.target)]
    if not has:
        what = "anything" if target is None else target
        out.print(f" Nothing to chart yet: you have not finished {what} (a pass or a give-up).")
        out.print(render.next_step(f"drill start {target}" if target else "drill next --start"))
        return
    width = max(40, min(out.size.width, 120))
    height = max(12, min(out.size.height - 4, 30)) * (2 if target == FULL else 1)
    out.print(Text.from_ansi(draw(data, target, width, height)), no_wrap=True, crop=False)
    if target == FULL:
        out.print(render.sum_of_best_line(data.sum_of_best))
    out.print(render.streak_line(data.streak))
