"""Where each target stands: its rung, best, last, attempts and due date, computed once from the
history, so that every view (``drill list``, ``stats``, ``review``, ``ladder``, ``next``, the
scoreboard and its next step) tells the same story of it. A full drill's split of a core target
counts the same everywhere: a recall pass for the ladder (drills/loop/ladder.py ``place``), a review
for the schedule (drills/store/schedule.py ``card``), and a drill of the target (``splits``)."""

from __future__ import annotations

from dataclasses import dataclass

from autograd_drill.grader.catalog import FULL, format_time
from autograd_drill.loop.ladder import Place, place
from autograd_drill.store import records
from autograd_drill.store.history import Attempt, History
from autograd_drill.store.records import DrillRecord, Scoreboard, TargetStats, finished
from autograd_drill.store.schedule import TargetCard, deck, in_order
from autograd_drill.store.states import Rung
from autograd_drill.targets import catalog as merged
from autograd_drill.targets import full_drill_of, is_full


@dataclass(frozen=True)
class Standing:
    """One target (or ``full``): its place on the ladder, its record from memory and its card."""

    target: str
    place: Place
    splits: int
    """The finished full drills in which it passed (a core target; 0 for the others)."""
    card: TargetCard
    own: tuple[Attempt, ...] = ()
    """Every attempt of its own, on every rung (for ``full``: its runs), as the history keeps them."""

    @property
    def best(self) -> float | None:
        """Its best unassisted recall time alone (a full drill's segment is a best of the full drill)."""
        return records.personal_best(self.own, Rung.RECALL)

    @property
    def last(self) -> str:
        """Its last finished recall attempt alone: its time, "gave up", or "-"."""
        recall = records.finished_on(self.own, Rung.RECALL)
        return "-" if not recall else "gave up" if recall[-1].time is None else format_time(recall[-1].time)

    @property
    def attempts(self) -> int:
        """Its finished recall attempts alone."""
        return len(records.finished_on(self.own, Rung.RECALL))

    @property
    def rung(self) -> Rung:
        return self.place.rung

    @property
    def due(self) -> float:
        return self.card.due

    @property
    def drilled(self) -> bool:
        """It has a finished attempt of its own or a split of a full drill."""
        return self.place.attempted or self.attempts > 0 or self.splits > 0

    @property
    def record(self) -> DrillRecord:
        """As ``drill list`` draws it."""
        return DrillRecord(self.best, self.last, self.attempts)

    def drilled_on(self, rung: Rung) -> bool:
        """It has a finished attempt of its own on ``rung``."""
        return bool(records.finished_on(self.own, rung))

    def stats(self, rung: Rung = Rung.RECALL, target_time: int | None = None) -> TargetStats:
        """Its row of ``drill stats`` on ``rung`` (the recall row's best and attempts are this standing's)."""
        return records.stats(self.own, self.target, rung, target_time)

    def scoreboard(self, attempt: Attempt, target_time: int | None = None) -> Scoreboard:
        """The board of one of its attempts that passed (on a recall row, its best is this standing's)."""
        return records.scoreboard(self.own, attempt, target_time)


def standings(history: History, now: float) -> dict[str, Standing]:
    """Every drill's standing, in catalog order, from one read of the history."""
    attempts = history.attempts()
    catalog = merged()
    runs = {f: [a for a in attempts if a.target == f] for f in (FULL, *(f.id for f in catalog.fulls))}
    cards = {c.target: c for c in deck(history, now, attempts)}
    out = {}
    for drill_id in catalog.drill_ids:
        own = [a for a in attempts if a.target == drill_id]
        full = None if is_full(drill_id) else full_drill_of(catalog.get(drill_id))
        ran = runs[full] if full is not None else []  # the full drills that blank it: their splits count
        splits = sum(1 for r in finished(ran) if drill_id in r.splits)
        out[drill_id] = Standing(drill_id, place(drill_id, [*own, *ran]), splits, cards[drill_id], tuple(own))
    return out


def queue(told: dict[str, Standing]) -> list[TargetCard]:
    """The cards of these standings in the order to drill them (drills/store/schedule.py ``in_order``)."""
    return in_order(s.card for s in told.values())
