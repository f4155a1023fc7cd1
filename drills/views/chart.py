"""Progress charts: each attempt's time over the days with the target time as a line, and the full
drill's splits with the sum of best (its segments as the scoreboard has them: targets passed on one
save as one point, and the time lost to regressions).

``draw`` turns a Progress (drills/store/progress.py gathers it from the history) into text with
plotext (imported here, when drawing: it costs a third of a second). Every installed pack's drills
are charted by their canonical ids (``layers/layernorm``); a drill's colour and marker follow its
place in the merged catalog (drills/targets.py), the built-in drills' as before packs, and no two
drills share both. ``draw_full`` draws any pack's full drill (``layers/full``) from the Progress
``full_progress`` gathers of it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from autograd_drill.grader.catalog import FULL, format_time
from autograd_drill.store.progress import FullRun, Progress, Series, day_of, midnight
from autograd_drill.targets import catalog as merged
from autograd_drill.targets import is_full

if TYPE_CHECKING:
    from collections.abc import Callable

    from autograd_drill.store.history import History
    from autograd_drill.store.states import Rung

COLORS = (12, 10, 9, 14, 13, 3, 5, 6, 4, 2, 1, 11)
"""256-colour codes, one per target in catalog order (the same target, the same colour, in every chart)."""
MARKERS = ("●", "◆", "■", "▲", "▼", "○", "◇", "□", "△", "▽", "◎", "◈")
GAVE_UP = "✗"
ASSISTED = "○"
REGRESSED = "!"
"""The time a run lost to regressions, after its last split."""
REGRESSED_COLOR = 1  # dark red
TARGET_LINE = 8  # grey
BEST_LINE = 10  # green


# ---------------------------------------------------------------------------- drawing


def style(index: int) -> tuple[int, str]:
    """The colour and marker of the drill at ``index`` in the merged catalog's order: the first twelve
    (the built-in drills) as before packs; past them the marker shifts with each round of the colours,
    so no two drills of up to 144 share both."""
    return COLORS[index % len(COLORS)], MARKERS[(index + index // len(COLORS)) % len(MARKERS)]


def _paint(text: str, color: int | None) -> str:
    return text if color is None else f"\x1b[38;5;{color}m{text}\x1b[0m"


def _legend(items: list[tuple[str, int | None, str]], width: int, color: bool) -> str:
    """One line (or more) under the chart: symbol, then label; wrapped to the width."""
    lines, line, used = [], " ", 1
    for symbol, code, label in items:
        cell = f"{symbol} {label}   "
        if used + len(cell) > width and used > 1:
            lines.append(line.rstrip())
            line, used = " ", 1
        line += _paint(symbol, code if color else None) + f" {label}   "
        used += len(cell)
    lines.append(line.rstrip())
    return "\n".join(lines)


def _nice_step(span: float, ticks: int, steps: tuple[float, ...]) -> float:
    return next((s for s in steps if span / s <= ticks), steps[-1] * math.ceil(span / steps[-1] / ticks))


def _figure(width: int, height: int, title: str) -> Any:
    import plotext as plt  # a third of a second to import: only when a chart is drawn

    plt.terminal.limit(False, False)  # the size is ours (from the console), not plotext's guess
    figure = plt.figure
    figure.clear()
    figure.plot_size(width, height)
    figure.theme("simple")
    figure.title(title)
    return figure


def _marker(symbol: str, color: int) -> Any:
    import plotext as plt

    return plt.marker(symbol, pixel=plt.pixel(foreground=color))


def _day_axis(figure: Any, p: Progress, width: int) -> None:
    assert p.first_day is not None
    days = max(1, (p.today - p.first_day).days + 1)  # at least today (a clock set back: the first day)
    step = max(1, math.ceil(days / max(1, (width - 10) // 9)))
    form = "%a %d" if days <= 14 else "%d %b"
    positions = list(range(0, days, step))
    labels = [(p.first_day + timedelta(days=k)).strftime(form) for k in positions]
    figure.ruler("x").ticks([k + 0.5 for k in positions], labels)
    figure.ruler("x").lim(0, days)


def _x(p: Progress, at: float) -> float:
    """Days since the first day's midnight, as a float."""
    assert p.first_day is not None
    day = day_of(at, p.tz)
    start = midnight(day, p.tz)
    return (day - p.first_day).days + (at - start) / max(midnight(day + timedelta(days=1), p.tz) - start, 1.0)


def _y_axis(figure: Any, top: float, unit: str, height: int, mark: float | None = None) -> None:
    """Ticks from 0 to ``top``: percentages, or minutes written m:ss; ``mark`` (the target) always has one."""
    ticks = max(2, min(6, height // 3))
    if unit == "%":
        step = _nice_step(top, ticks, (10, 25, 50, 100, 200, 500))
        labels = lambda v: f"{v:g}%"  # noqa: E731
    else:
        step = _nice_step(top, ticks, (0.5, 1, 2, 5, 10, 15, 30, 60))
        labels = lambda v: format_time(v * 60)  # noqa: E731
    positions = [k * step for k in range(int(top // step) + 1)]
    if mark is not None:
        positions = sorted([p for p in positions if abs(p - mark) >= step / 2] + [mark])
    figure.ruler("y").ticks(positions, [labels(v) for v in positions])
    figure.ruler("y").lim(0, top)


def _draw_series(figure: Any, xs: list[float], ys: list[float], symbol: str, color: int, lines: bool) -> None:
    if not xs:
        return
    if lines and len(xs) > 1:
        figure.draw(figure.signal(xs, ys, marker=_marker("braille", color)).lines())
    figure.draw(figure.signal(xs, ys, marker=_marker(symbol, color)))


def draw_overview(p: Progress, width: int, height: int, color: bool = True) -> str:
    """Every target on one chart, each attempt's time as a share of its target time (100% = on target)."""
    figure = _figure(width, height, "time per attempt, as a share of the target time")
    tops = [100.0]
    legend: list[tuple[str, int | None, str]] = []
    for s in p.series:
        code, symbol = style(s.index)
        passed = [(_x(p, q.at), 100 * q.seconds / s.target_time) for q in s.points if q.passed]
        gave_up = [(_x(p, q.at), 100 * q.seconds / s.target_time) for q in s.points if not q.passed]
        _draw_series(figure, [x for x, _ in passed], [y for _, y in passed], symbol, code, lines=True)
        _draw_series(figure, [x for x, _ in gave_up], [y for _, y in gave_up], GAVE_UP, code, lines=False)
        tops += [y for _, y in passed + gave_up]
        legend.append((symbol, code, s.label))
    figure.line(100, pixel=_pixel(TARGET_LINE))
    _day_axis(figure, p, width)
    _y_axis(figure, max(tops) * 1.1, "%", height, mark=100)
    if any(not q.passed for s in p.series for q in s.points):
        legend.append((GAVE_UP, None, "gave up"))
    legend.append(("─", TARGET_LINE, "target time (100%)"))
    return figure.build().string(colorless=not color).rstrip() + "\n" + _legend(legend, width, color)


def draw_target(p: Progress, target: str, width: int, height: int, color: bool = True) -> str:
    """One target: a chart per rung of the ladder it was drilled on (a copy time is never drawn against
    a recall time), each attempt's time in minutes, with the rung's target time as a line."""
    series = [s for s in p.series if s.target == target]
    each = max(12, height // len(series))
    return "\n\n".join(_draw_series_chart(p, s, width, each, color) for s in series)


def _draw_series_chart(p: Progress, s: Series, width: int, height: int, color: bool) -> str:
    code, symbol = style(s.index)
    figure = _figure(width, height, f"{s.label}: time per attempt")
    plain = [(_x(p, q.at), q.seconds / 60) for q in s.points if q.passed and not q.assisted]
    helped = [(_x(p, q.at), q.seconds / 60) for q in s.points if q.passed and q.assisted]
    gave_up = [(_x(p, q.at), q.seconds / 60) for q in s.points if not q.passed]
    passed = sorted(plain + helped)
    if len(passed) > 1:
        figure.draw(
            figure.signal([x for x, _ in passed], [y for _, y in passed], marker=_marker("braille", code)).lines()
        )
    _draw_series(figure, [x for x, _ in plain], [y for _, y in plain], symbol, code, lines=False)
    _draw_series(figure, [x for x, _ in helped], [y for _, y in helped], ASSISTED, code, lines=False)
    _draw_series(figure, [x for x, _ in gave_up], [y for _, y in gave_up], GAVE_UP, code, lines=False)
    figure.line(s.target_time / 60, pixel=_pixel(TARGET_LINE))
    _day_axis(figure, p, width)
    top = max([s.target_time / 60] + [q.seconds / 60 for q in s.points]) * 1.15
    _y_axis(figure, top, "min", height, mark=s.target_time / 60)
    legend: list[tuple[str, int | None, str]] = [(symbol, code, "passed")]
    if helped:
        legend.append((ASSISTED, code, "assisted"))
    if gave_up:
        legend.append((GAVE_UP, code, "gave up"))
    legend.append(("─", TARGET_LINE, f"target {format_time(s.target_time)}"))
    return figure.build().string(colorless=not color).rstrip() + "\n" + _legend(legend, width, color)


def draw_full(p: Progress, width: int, height: int, color: bool = True, drill: str = FULL) -> str:
    """A full drill (``full``, or a pack's: ``layers/full``, ``p`` then from ``full_progress``): each run's
    total against its target time and the sum of best, then each of its targets' split per run."""
    catalog = merged()
    order = catalog.drill_ids
    full_time, drilled = catalog.target_time(drill), catalog.drilled(drill)
    runs = p.full
    half = max(8, height // 2)
    numbers = [r.number for r in runs]
    step = max(1, math.ceil(len(runs) / max(1, (width - 10) // 6)))

    def run_axis(figure: Any) -> None:
        shown = numbers[::step]
        figure.ruler("x").ticks(shown, [f"#{n}" for n in shown])
        figure.ruler("x").lim(0.5, len(runs) + 0.5)

    figure = _figure(width, half, f"{drill}: each run's total")
    code = style(order.index(drill))[0]
    passed = [(r.number, r.seconds / 60) for r in runs if r.passed]
    gave_up = [(r.number, r.seconds / 60) for r in runs if not r.passed]
    _draw_series(figure, [x for x, _ in passed], [y for _, y in passed], MARKERS[0], code, lines=True)
    _draw_series(figure, [x for x, _ in gave_up], [y for _, y in gave_up], GAVE_UP, code, lines=False)
    figure.line(full_time / 60, pixel=_pixel(TARGET_LINE))
    legend: list[tuple[str, int | None, str]] = [(MARKERS[0], code, "passed")]
    if gave_up:
        legend.append((GAVE_UP, code, "gave up"))
    legend.append(("─", TARGET_LINE, f"target {format_time(full_time)}"))
    if p.sum_of_best is not None:
        figure.line(p.sum_of_best / 60, pixel=_pixel(BEST_LINE))
        legend.append(("─", BEST_LINE, f"sum of best {format_time(p.sum_of_best)}"))
    top = max([full_time / 60] + [y for _, y in passed + gave_up]) * 1.15
    run_axis(figure)
    _y_axis(figure, top, "min", half, mark=full_time / 60)
    totals = figure.build().string(colorless=not color).rstrip() + "\n" + _legend(legend, width, color)

    figure = _figure(width, half, f"{drill}: each target's split per run")
    legend = []
    tops = [1.0]
    for target in drilled:  # a target's own segments
        points = [(r.number, s.seconds / 60) for r in runs for s in r.segments if s.targets == (target.id,)]
        code, symbol = style(order.index(target.id))
        _draw_series(figure, [x for x, _ in points], [y for _, y in points], symbol, code, lines=True)
        tops += [y for _, y in points]
        if points:  # a target only ever passed with others has its points under their segment
            legend.append((symbol, code, target.id))
    groups = list(dict.fromkeys(s.targets for r in runs for s in r.segments if s.shared))
    for k, group in enumerate(groups):  # targets passed on one save: one point for them together
        code, symbol = style(order.index(drill) + 1 + k)
        points = [(r.number, s.seconds / 60) for r in runs for s in r.segments if s.targets == group]
        _draw_series(figure, [x for x, _ in points], [y for _, y in points], symbol, code, lines=False)
        tops += [y for _, y in points]
        legend.append((symbol, code, " + ".join(group)))
    lost = [(r.number, r.regressions / 60) for r in runs if r.regressions]
    if lost:  # the scoreboard's regressions line
        _draw_series(figure, [x for x, _ in lost], [y for _, y in lost], REGRESSED, REGRESSED_COLOR, lines=False)
        tops += [y for _, y in lost]
        legend.append((REGRESSED, REGRESSED_COLOR, "regressions"))
    run_axis(figure)
    _y_axis(figure, max(tops) * 1.15, "min", half)
    splits = figure.build().string(colorless=not color).rstrip() + "\n" + _legend(legend, width, color)
    return totals + "\n\n" + splits


def _pixel(color: int) -> Any:
    import plotext as plt

    return plt.pixel(foreground=color)


def full_progress(
    history: History,
    now: float,
    drill: str,
    tz: tzinfo | None = None,
    rung_time: Callable[[str, Rung], int] | None = None,
) -> Progress:
    """drills/store/progress.py's Progress with the runs and the sum of best of the full drill ``drill``
    (``layers/full``; ``full`` as ``progress`` has it): what ``draw_full(..., drill=drill)`` draws."""
    from autograd_drill.store.progress import progress
    from autograd_drill.store.records import best_segments, finished, regressions, segments, sum_of_best
    from autograd_drill.store.states import Outcome

    p = progress(history, now, tz, rung_time)
    if drill == FULL:
        return p
    mine = [a for a in history.attempts() if a.target == drill]
    runs = tuple(
        FullRun(n, a.ended_at or now, a.clock_at_end, a.outcome is Outcome.PASSED, tuple(segments(a)), regressions(a))
        for n, a in enumerate(finished(mine), 1)
    )
    ids = [t.id for t in merged().drilled(drill)]
    return replace(p, full=runs, sum_of_best=sum_of_best(best_segments(mine), ids))


def draw(p: Progress, target: str | None, width: int, height: int, color: bool = True) -> str:
    """The chart for ``drill chart [TARGET]``, as text (ANSI colours unless ``color`` is False)."""
    if target is not None and is_full(target):  # full, or a pack's (``p`` from ``full_progress``)
        return draw_full(p, width, height, color, target)
    if target is not None:
        return draw_target(p, target, width, height, color)
    return draw_overview(p, width, height, color)
