"""Renderers of the catalog and your records: functions from data to rich renderables (tables,
scoreboards, stats, hints, the side-by-side diff, the queue, review cards, the streak). No logic,
no I/O. A grading's report and the live watch are drawn by drills/views/report.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from grader.catalog import FULL, Catalog, Target, format_time

if TYPE_CHECKING:
    from drills.loop.diff import Comparison
    from drills.loop.session import Hints
    from drills.store.progress import Streak
    from drills.store.records import DrillRecord, Scoreboard, TargetStats
    from drills.store.schedule import TargetCard
    from drills.views.reviews import ReviewCard

SPARKS = "▁▂▃▄▅▆▇█"


def t(seconds: float | None) -> str:
    return "-" if seconds is None else format_time(seconds)


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


# ---------------------------------------------------------------------------- catalog


def catalog_table(catalog: Catalog, records: dict[str, DrillRecord], due: dict[str, str] | None = None) -> Table:
    """``records``: per drill id, your best, last and attempts; ``due``: when each is due next."""
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("target")
    table.add_column("what you write")
    table.add_column("target", justify="right")
    table.add_column("best", justify="right")
    table.add_column("last", justify="right")
    table.add_column("attempts", justify="right")
    if due is not None:
        table.add_column("due", justify="right")

    def add(target_id: str, what: str, target_time: int) -> None:
        record = records.get(target_id)
        best, last, attempts = (record.best, record.last, record.attempts) if record else (None, "-", 0)
        cells: list[RenderableType] = [target_id, what, format_time(target_time), t(best), last, str(attempts)]
        if due is not None:
            when = due.get(target_id, "-")
            cells.append(Text(when, style="bold" if when == "now" or when.endswith("ago") else ""))
        table.add_row(*cells)

    def symbols(target: Target) -> str:
        return ", ".join(s.removeprefix("Tensor.") if i else s for i, s in enumerate(target.symbols))

    for target in catalog.targets:
        add(target.id, symbols(target), target.target_time)
    add(FULL, "everything above, one split per target", catalog.full_time)
    if catalog.extensions:
        table.add_row(Text("follow-ups", style="dim"), Text("what interviewers ask next", style="dim"))
        for target in catalog.extensions:
            add(target.id, symbols(target), target.target_time)
    return table


# ---------------------------------------------------------------------------- scoreboard


def scoreboard(board: Scoreboard) -> RenderableType:
    table = Table(header_style="bold")
    for name, justify in [
        ("target", "left"),
        ("target", "right"),
        ("time", "right"),
        ("Δ", "right"),
        ("best", "right"),
        ("attempts", "right"),
        ("assisted", "left"),
    ]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in board.rows:
        best = Text(t(row.best))
        if row.new_best and board.total is not None:
            best.append(" ★", style="yellow")  # a best split of the full drill
        table.add_row(
            row.target,
            format_time(row.target_time),
            t(row.time),
            delta(row.delta),
            best,
            str(row.attempts),
            "yes" if row.assisted else "no",
        )
    if board.total is not None:
        total = board.total
        table.add_section()
        table.add_row(
            Text("total", style="bold"),
            format_time(total.target_time),
            t(total.time),
            delta(total.delta),
            t(total.best),
            str(total.attempts),
            "yes" if total.assisted else "no",
        )
    parts: list[RenderableType] = [table]
    if board.total is not None:
        parts.append(Text(f"Sum of best splits: {t(board.sum_of_best)}", style="dim"))
    return Group(*parts)


# ---------------------------------------------------------------------------- stats, hints, diff


SPARK_WIDTH = 20
"""How many of the latest times a sparkline shows."""


def sparkline(values: tuple[float, ...]) -> str:
    values = values[-SPARK_WIDTH:]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    if hi == lo:
        return SPARKS[3] * len(values)
    return "".join(SPARKS[round((v - lo) / (hi - lo) * (len(SPARKS) - 1))] for v in values)


def stats_table(rows: list[TargetStats]) -> Table:
    """Median 5: of the last five passed times; trend: passed times, oldest to newest; ≤ target: share of attempts."""
    table = Table(
        header_style="bold",
        caption="median 5: of your last five times · ≤ target: share of attempts",
        caption_style="dim",
    )
    table.add_column("target")
    table.add_column("target", justify="right")
    table.add_column("attempts", justify="right")
    table.add_column("best", justify="right")
    table.add_column("median 5", justify="right")
    table.add_column("trend")
    table.add_column("≤ target", justify="right")
    for s in rows:
        share = "-" if s.share_under is None else f"{s.share_under:.0%}"
        table.add_row(
            s.target,
            format_time(s.target_time),
            str(s.attempts),
            t(s.best),
            t(s.median_last_five),
            sparkline(s.times),
            share,
        )
    return table


def hints_view(h: Hints) -> RenderableType:
    lines: list[RenderableType] = []
    for i, text in enumerate(h.shown, 1):
        style = "bold" if i == len(h.shown) else "dim"
        lines.append(Text(f" hint {i} ({h.target}): {text}", style=style))
    if h.counted:
        if h.remaining:
            lines.append(
                Text(f" {h.remaining} more: drill hint {h.target}   (this attempt is now marked assisted)", style="dim")
            )
        else:
            lines.append(Text(f" That was the last hint. Still stuck? drill diff {h.target} --peek", style="dim"))
    return Group(*lines)


def comparison(c: Comparison) -> RenderableType:
    from rich.syntax import Syntax  # pygments: only when a comparison is drawn

    parts: list[RenderableType] = []
    if c.marked_assisted:
        parts.append(Text(" Peeking before the target passed: this attempt is marked assisted.", style="yellow"))
    elif c.peeked:
        parts.append(Text(" This attempt ended before the target passed.", style="yellow"))
    for symbol, ours, reference in c.pairs:
        table = Table(title=Text(symbol, style="bold"), expand=True, show_lines=False)
        table.add_column(f"yours ({c.source_label})", ratio=1)
        table.add_column("reference", ratio=1)
        mine: RenderableType = (
            Syntax(ours, "python", theme="ansi_dark", word_wrap=True)
            if ours is not None
            else Text("(not found in your file)", style="red")
        )
        table.add_row(mine, Syntax(reference, "python", theme="ansi_dark", word_wrap=True))
        parts.append(table)
    return Group(*parts)


# ---------------------------------------------------------------------------- spaced repetition, review cards, charts

DAY = 86_400


def due_in(seconds: float) -> str:
    """When a card is due, from now: ``now``, ``in 40 min``, ``in 5 h``, ``in 3 days``, ``2 days ago``."""
    if seconds <= 0:
        late = round(-seconds / DAY)
        return "now" if late < 1 else f"{late} day{'s' if late != 1 else ''} ago"
    if seconds < 3600:
        return f"in {max(1, round(seconds / 60))} min"
    if seconds < DAY:
        return f"in {round(seconds / 3600)} h"
    days = round(seconds / DAY)
    return f"in {days} day{'s' if days != 1 else ''}"


def reason(card: TargetCard, now: float) -> str:
    """Why a card is where it is in the queue, in a few words."""
    if card.new:
        return "never drilled"
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


def next_view(queue: list[TargetCard], now: float) -> RenderableType:
    """``drill next``: the chosen target, why, the ones after it, and the command."""
    chosen = queue[0]
    lines: list[RenderableType] = []
    if chosen.due > now:
        lines.append(
            Text(
                f" Nothing is due. The first to come due is {chosen.target} ({due_in(chosen.due - now)}).", style="bold"
            )
        )
    line = Text(" Drill now: ", style="bold")
    line.append(chosen.target, style="bold cyan").append(f"   {reason(chosen, now)}", style="dim")
    lines.append(line)
    if len(queue) > 1:
        after = ", ".join(f"{c.target} ({due_in(c.due - now)})" for c in queue[1 : 1 + QUEUE_SHOWN])
        lines.append(Text(f" Then: {after}", style="dim"))
    lines.append(Text(" A give-up comes back tomorrow, a fast pass much later (drill next --help).", style="dim"))
    lines.append(next_step("drill next --start", f"(or drill start {chosen.target})"))
    return Group(*lines)


def review_card(card: ReviewCard) -> RenderableType:
    """A review card: the key formula, the classic bugs, what an interviewer asks next."""
    from rich.panel import Panel

    def bullets(items: tuple[str, ...]) -> Padding:
        grid = Table.grid(padding=(0, 1, 0, 0))
        grid.add_column(no_wrap=True)
        grid.add_column()
        for item in items:
            grid.add_row("•", Text(item))
        return Padding(grid, (0, 0, 0, 2))

    body = Group(
        Text("Key formula", style="bold"),
        Padding(Text(card.formula, no_wrap=True, overflow="fold"), (0, 0, 0, 2)),
        Text("Classic bugs", style="bold"),
        bullets(card.classic_bugs),
        Text("What an interviewer asks next", style="bold"),
        bullets(card.interviewer_next),
    )
    return Panel(body, title=f"review: {card.target}", title_align="left", border_style="dim")


def sum_of_best_line(seconds: float | None) -> Text:
    return Text(f" Sum of best splits: {t(seconds)}  (every core target's best split of the full drill, added up)")


def streak_line(streak: Streak) -> Text:
    """The streak of practice days, and the last two weeks (■ practised, · not)."""
    line = Text(" Streak: ", style="bold")
    days = f"{streak.days} day{'s' if streak.days != 1 else ''}"
    if streak.days == 0:
        line.append("none")
        if streak.last is not None:
            line.append(f" (last practice {streak.last:%a %d %b}): finish an attempt today to start one")
    elif streak.today:
        line.append(days, style="bold green").append(", today included")
    else:
        line.append(days, style="bold yellow").append(": finish an attempt today to keep it")
    line.append(f"\n Longest: {streak.longest} day{'s' if streak.longest != 1 else ''}.  ")
    line.append(f"Last {len(streak.recent)} days: ")
    line.append("".join("■" if d else "·" for d in streak.recent), style="green")
    line.append(" (today last)", style="dim")
    return line
