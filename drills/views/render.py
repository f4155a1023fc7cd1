"""Renderers of the catalog and your records: functions from data to rich renderables (tables,
scoreboards, stats, hints, the queue, the streak; review cards are drills/views/card.py). No logic,
no I/O. A grading's report and the live watch are drawn by drills/views/report.py."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from autograd_drill.grader.catalog import FULL, Catalog, Target, format_time
from autograd_drill.store.states import Rung

if TYPE_CHECKING:
    from autograd_drill.loop.session import Hints
    from autograd_drill.store.progress import Streak
    from autograd_drill.store.records import DrillRecord, Scoreboard, ScoreRow, TargetStats
    from autograd_drill.store.schedule import TargetCard

SPARKS = "▁▂▃▄▅▆▇█"


def t(seconds: float | None) -> str:
    return "-" if seconds is None else format_time(seconds)


def counted(n: int, noun: str) -> str:
    """``1 split``, ``2 splits``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def delta(seconds: float | None) -> Text:
    if seconds is None:
        return Text("-")
    text = format_time(seconds).replace("-", "−")
    return Text(text if seconds < 0 else f"+{text}", style="green" if seconds <= 0 else "red")


def next_step(command: str, why: str = "") -> Text:
    line = Text("Next: ", style="bold")
    line.append(command, style="bold cyan")
    if why:
        line.append(f"   {why}", style="dim")
    return line


class ByWidth:
    """One renderable or another by the width it is drawn at: ``wide`` from ``at`` columns on, else ``narrow``."""

    def __init__(self, narrow: RenderableType, wide: RenderableType, at: int) -> None:
        self.narrow, self.wide, self.at = narrow, wide, at

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.wide if options.max_width >= self.at else self.narrow


def grid(narrow: bool, caption: str | None = None) -> Table:
    """A table of records: boxed where there is room; in a narrow terminal, columns apart and no box."""
    if narrow:
        return Table(box=None, header_style="bold", padding=(0, 1, 0, 0), caption=caption, caption_style="dim")
    return Table(header_style="bold", caption=caption, caption_style="dim")


def id_column(table: Table, ids: Sequence[str], header: str = "target") -> None:
    """The column of target ids: never wrapped nor cut, however narrow the terminal, since they are typed."""
    table.add_column(as_text(header), no_wrap=True, min_width=max(map(len, ids), default=len(header)))


def as_text(cell: RenderableType) -> RenderableType:
    """A str cell as the Text rich makes of it as it draws it, made now: a str is parsed for markup and
    emoji codes on every draw (and the emoji table loaded, a fortieth of ``drill list``); an id, a
    rung, a time or a count holds neither."""
    return Text(cell) if isinstance(cell, str) else cell


# ---------------------------------------------------------------------------- catalog


def catalog_table(
    catalog: Catalog,
    records: dict[str, DrillRecord],
    due: dict[str, str] | None = None,
    rungs: dict[str, str] | None = None,
) -> RenderableType:
    """``records``: per drill id, your best, last and attempts (from memory: the recall rung); ``due``:
    when each is due next; ``rungs``: the rung of the ladder each is on."""
    return ByWidth(
        _catalog_table(catalog, records, due, rungs, narrow=True), _catalog_table(catalog, records, due, rungs), at=100
    )


def _catalog_table(
    catalog: Catalog,
    records: dict[str, DrillRecord],
    due: dict[str, str] | None,
    rungs: dict[str, str] | None,
    narrow: bool = False,
) -> RenderableType:
    """Narrow: one space between columns, and what you write on lines of its own under each row,
    wrapped between symbols (a symbol is typed: it is never cut in two)."""
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1, 0, 0) if narrow else (0, 1))
    id_column(table, catalog.drill_ids)
    column = rungs is not None
    if column:
        table.add_column(as_text("rung"), no_wrap=True)
    if not narrow:
        table.add_column(as_text("what you write"), overflow="fold")
    for header in ("target", "best", "last", "attempts", *(["due"] if due is not None else [])):
        table.add_column(as_text(header), justify="right", no_wrap=True)
    below: list[Text | None] = []

    def add(target_id: str, what: str | Text, target_time: int) -> None:
        record = records.get(target_id)
        best, last, attempts = (record.best, record.last, record.attempts) if record else (None, "-", 0)
        rung = rungs.get(target_id, "-") if rungs is not None else Rung.RECALL
        cells: list[RenderableType] = [target_id, *([rung] if column else []), *([] if narrow else [what])]
        cells += [format_time(target_time), t(best), last, str(attempts)]
        if due is not None:
            when = due.get(target_id, "-")
            cells.append(Text(when, style="bold" if when == "now" or when.endswith("ago") else ""))
        table.add_row(*map(as_text, cells))
        below.append(Text(what) if isinstance(what, str) else what)

    def symbols(target: Target) -> str:
        return ", ".join(s.removeprefix("Tensor.") if i else s for i, s in enumerate(target.symbols))

    for target in catalog.targets:
        add(target.id, symbols(target), target.target_time)
    add(FULL, catalog.full_summary, catalog.full_time)

    def group(label: str, text: str) -> None:
        heading = Text(text, style="dim")
        first: list[RenderableType] = [Text(label, style="dim")]
        if not narrow:
            first += [*([as_text("")] if column else []), heading]
        table.add_row(*first, *(as_text("") for _ in table.columns[len(first) :]))  # the rest empty
        if narrow:
            below.append(heading)

    if catalog.extensions:
        group("follow-ups", "what interviewers ask next")
        for target in catalog.extensions:
            add(target.id, symbols(target), target.target_time)
    for full in catalog.fulls:  # each other installed pack's drills (drills/targets.py), under its name
        group(f"{full.pack} pack", f"drill start {full.pack}/ID, or the bare ID where no other pack has it")
        mine = [t for t in catalog.others if t.pack == full.pack]
        for target in [t for t in mine if not t.extension]:
            add(target.id, symbols(target), target.target_time)
        add(full.id, full.summary, full.target_time)
        for target in [t for t in mine if t.extension]:
            add(target.id, symbols(target), target.target_time)
    return RowsThenLines(table, below, indent=2) if narrow else table


class RowsThenLines:
    """A table whose every row fits on one line, each row followed by its own text (``below``, one per
    row; None: nothing), indented and wrapped at spaces only: a word is never cut in two."""

    def __init__(self, table: Table, below: Sequence[Text | None], indent: int) -> None:
        self.table, self.below, self.indent = table, below, indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        lines = console.render_lines(self.table, options, pad=False)
        head = len(lines) - len(self.below)
        rest = max(1, options.max_width - self.indent)
        for i, line in enumerate(lines):
            yield from line
            yield Segment.line()
            extra = self.below[i - head] if i >= head else None
            if extra is not None:
                for wrapped in extra.wrap(console, rest, overflow="fold"):
                    wrapped.rstrip()
                    yield Segment(" " * self.indent)
                    yield from wrapped.render(console, end="")
                    yield Segment.line()


# ---------------------------------------------------------------------------- scoreboard


def scoreboard(board: Scoreboard) -> RenderableType:
    """Each row's time against its target time and against your best before it (Δ best), and your best now."""
    return ByWidth(_scoreboard(board, narrow=True), _scoreboard(board, narrow=False), at=80)


def segment_name(row: ScoreRow, width: int = 15) -> str:
    """A row's first cell: its target, or a shared segment's joined by ``+`` on lines of ``width`` at most
    as they fit (``arith + unary +`` / ``softmax``): never cut mid-word, however narrow the terminal."""
    lines = [row.targets[0] if row.targets else row.target]
    for target in row.targets[1:]:
        fits = len(lines[-1]) + len(target) + 3 <= width
        lines[-1:] = [f"{lines[-1]} + {target}"] if fits else [f"{lines[-1]} +", target]
    return "\n".join(lines)


def _scoreboard(board: Scoreboard, narrow: bool) -> RenderableType:
    """Narrow: the attempts and assisted columns, the same on every row, become a line under the table.
    A full drill's rows are its segments (a shared one names its targets), then the time lost to
    regressions when there was any: they add up to the total."""
    table = grid(narrow)
    names = [line for r in board.rows for line in segment_name(r).splitlines()]
    id_column(table, [*names, "total", "regressions" if board.regressions else ""])
    for name in ("target", "time", "Δ", "Δ best", "best", *([] if narrow else ["attempts"])):
        table.add_column(name, justify="right", no_wrap=True)
    if not narrow:
        table.add_column("assisted", no_wrap=True)

    def cells(row: ScoreRow) -> list[RenderableType]:
        best = Text(t(row.best))
        if row.new_best and board.total is not None and row is not board.total:
            best.append(" ★", style="yellow")  # a best segment of the full drill
        times = [format_time(row.target_time), t(row.time), delta(row.delta), delta(row.best_delta), best]
        return times if narrow else [*times, str(row.attempts), "yes" if row.assisted else "no"]

    for row in board.rows:
        table.add_row(segment_name(row), *cells(row))
    if board.regressions:
        gap = ["-", t(board.regressions), "-", "-", "-", *([] if narrow else ["", ""])]
        table.add_row(Text("regressions", style="red"), *gap)  # the time after the last split
    if board.total is not None:
        table.add_section()
        table.add_row(Text("total", style="bold"), *cells(board.total))
    parts: list[RenderableType] = [table]
    if narrow:
        main = board.total or board.rows[0]
        parts.append(Text(f"{counted(main.attempts, 'attempt')}; {'assisted' if main.assisted else 'unassisted'}"))
    if board.regressions:
        said = f"Regressions: {t(board.regressions)} after the last split, fixing targets that had passed and failed again."
        parts.append(Text(said, style="dim"))
    if any(len(r.targets) > 1 for r in board.rows):
        parts.append(Text("Targets passed on one save share one segment (and its target time).", style="dim"))
    if board.attempt.reason:
        parts.append(Text(f"Assisted: {board.attempt.reason}: no best, split or rung move.", style="yellow"))
    if board.total is not None:
        parts.append(Text(f"Sum of best splits: {t(board.sum_of_best)}", style="dim"))
    return Group(*parts)


# ---------------------------------------------------------------------------- stats, hints, diff


SPARK_WIDTH = 20
"""How many of the latest times a sparkline shows."""
NARROW_SPARKS = 8
"""How many of them the stats show in a narrow terminal."""


def sparkline(values: tuple[float, ...]) -> str:
    values = values[-SPARK_WIDTH:]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    if hi == lo:
        return SPARKS[3] * len(values)
    return "".join(SPARKS[round((v - lo) / (hi - lo) * (len(SPARKS) - 1))] for v in values)


def stats_table(rows: list[TargetStats]) -> RenderableType:
    """Median 5: of the last five passed times; trend: passed times, oldest to newest; ≤ target: share of attempts."""
    return ByWidth(_stats_table(rows, narrow=True), _stats_table(rows, narrow=False), at=80)


def _stats_table(rows: list[TargetStats], narrow: bool) -> Table:
    table = grid(narrow, caption="median 5: of your last five times · ≤ target: share of attempts")
    id_column(table, [s.target for s in rows])
    rungs = any(s.rung != Rung.RECALL for s in rows)  # a row per rung drilled: each against its own time
    if rungs:
        table.add_column("rung", no_wrap=True)
    tries = "tries" if narrow and rungs else "attempts"  # room for the rung in 60 columns
    for header in ("target", tries, "best", "median\n5" if narrow else "median 5"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("trend", no_wrap=True)
    table.add_column("≤\ntarget" if narrow else "≤ target", justify="right", no_wrap=True)
    for s in rows:
        share = "-" if s.share_under is None else f"{s.share_under:.0%}"
        trend = sparkline(s.times)[-NARROW_SPARKS:] if narrow else sparkline(s.times)
        table.add_row(
            s.target,
            *([s.rung] if rungs else []),
            format_time(s.target_time),
            str(s.attempts),
            t(s.best),
            t(s.median_last_five),
            trend,
            share,
        )
    return table


_MARKUP = re.compile(r"(?<![\w*`])(?:\*(?P<em>[^\s*](?:[^*]*[^\s*])?)\*|`(?P<code>[^`]+)`)(?![\w*`])")
"""The markdown a hint may carry (grader/catalog.toml): *emphasis* and `code`; a lone * stays."""


def hint_text(text: str, style: str = "") -> Text:
    """A hint as the terminal shows it: its *emphasis* in italic, its `code` in bold, the marks gone
    (in drill hint, the watch's h and the interview's nudges alike)."""
    out = Text(style=style)
    at = 0
    for match in _MARKUP.finditer(text):
        out.append(text[at : match.start()])
        out.append(match["em"], style="italic") if match["em"] else out.append(match["code"], style="bold")
        at = match.end()
    out.append(text[at:])
    return out


def hints_view(h: Hints) -> RenderableType:
    lines: list[RenderableType] = []
    for i, text in enumerate(h.shown, 1):
        style = "bold" if i == len(h.shown) else "dim"
        lines.append(Text(f" hint {i} ({h.target}): ", style=style).append_text(hint_text(text, style)))
    if h.counted:
        if h.remaining:
            lines.append(
                Text(f" {h.remaining} more: drill hint {h.target}   (this attempt is now marked assisted)", style="dim")
            )
        else:
            lines.append(Text(f" That was the last hint. Still stuck? drill diff {h.target} --peek", style="dim"))
    return Group(*lines)


# ---------------------------------------------------------------------------- spaced repetition, review cards, charts

DAY = 86_400


def due_in(seconds: float) -> str:
    """When a card is due, from now: ``now``, ``in 40 min``, ``in 5 h``, ``in 3 days``, ``2 days ago``."""
    if seconds <= 0:
        late = round(-seconds / DAY)
        return "now" if late < 1 else f"{counted(late, 'day')} ago"
    if seconds < 3600:
        return f"in {max(1, round(seconds / 60))} min"
    if seconds < DAY:
        return f"in {round(seconds / 3600)} h"
    return f"in {counted(round(seconds / DAY), 'day')}"


def reason(card: TargetCard, now: float, rung: Rung = Rung.RECALL) -> str:
    """Why a card is where it is in the queue, in a few words; ``rung``: the one ``drill start`` starts
    (a target never drilled: copy, said by drill start)."""
    on = "" if rung == Rung.RECALL else f"; its {rung} rung next"
    if card.new:
        return "never drilled"
    if card.learning:
        return f"on the learning ladder, not passed from memory yet{on}"
    return _reviewed(card, now) + on


def _reviewed(card: TargetCard, now: float) -> str:
    last = card.last
    assert last is not None
    did = "you gave up" if last.time is None else f"passed in {format_time(last.time)}"
    if last.full:
        did += " in a full drill"
    if last.time is not None and last.assisted:
        did += " with help"
    when = due_in(card.due - now)
    due = "due now" if when == "now" else f"due {when}"
    return f"{due}: last time {did} ({last.rating})"


QUEUE_SHOWN = 4
"""How many targets after the chosen one `drill next` names."""


def next_view(queue: list[TargetCard], now: float, rung: Rung = Rung.RECALL) -> RenderableType:
    """``drill next``: the chosen target, why (``rung``: the one it starts on), the ones after it, and the command."""
    chosen = queue[0]
    lines: list[RenderableType] = []
    if chosen.due > now:
        lines.append(
            Text(
                f" Nothing is due. The first to come due is {chosen.target} ({due_in(chosen.due - now)}).", style="bold"
            )
        )
    line = Text(" Drill now: ", style="bold")
    line.append(chosen.target, style="bold cyan").append(f"   {reason(chosen, now, rung)}", style="dim")
    lines.append(line)
    if len(queue) > 1:
        after = ", ".join(f"{c.target} ({due_in(c.due - now)})" for c in queue[1 : 1 + QUEUE_SHOWN])
        lines.append(Text(f" Then: {after}", style="dim"))
    lines.append(Text(" A give-up comes back tomorrow, a fast pass much later (drill next --help).", style="dim"))
    lines.append(next_step("drill next --start", f"(or drill start {chosen.target})"))
    return Group(*lines)


def sum_of_best_line(seconds: float | None) -> Text:
    return Text(
        f" Sum of best splits: {t(seconds)}  (the full drill's best segments, every core target in one of them, "
        "added up)"
    )


def streak_line(streak: Streak) -> Text:
    """The streak of practice days, and the last two weeks (■ practised, · not)."""
    line = Text(" Streak: ", style="bold")
    days = counted(streak.days, "day")
    if streak.days == 0:
        line.append("none")
        if streak.last is not None:
            line.append(f" (last practice {streak.last:%a %d %b}): finish an attempt today to start one")
    elif streak.today:
        line.append(days, style="bold green").append(", today included")
    else:
        line.append(days, style="bold yellow").append(": finish an attempt today to keep it")
    line.append(f"\n Longest: {counted(streak.longest, 'day')}.  ")
    line.append(f"Last {len(streak.recent)} days: ")
    line.append("".join("■" if d else "·" for d in streak.recent), style="green")
    line.append(" (today last)", style="dim")
    return line
