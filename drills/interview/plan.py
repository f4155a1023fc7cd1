"""The plan of a mock interview: the coding task, the follow-up paired with it, and two or three
questions, each with its share of the time (``autograd_drill.interview.planner`` chooses them). A plan is data:
the history keeps it as JSON, so ``drill interview --plan`` shows exactly the session ``drill interview`` runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograd_drill.store.states import PartKind

DEFAULT_MINUTES = 45
MIN_MINUTES, MAX_MINUTES = 10, 180


@dataclass(frozen=True)
class Part:
    kind: PartKind
    id: str
    """A catalog target id (coding, follow-up) or a question id."""
    budget: int
    """Seconds: for the follow-up, the least it needs (its target time)."""
    why: str
    """Why it was chosen, for the plan's table."""


@dataclass(frozen=True)
class Plan:
    minutes: int
    planned_at: float
    parts: tuple[Part, ...]
    notes: tuple[str, ...] = ()
    """What was left out, and why."""

    @property
    def coding(self) -> Part:
        return next(p for p in self.parts if p.kind is PartKind.CODING)

    @property
    def follow_up(self) -> Part | None:
        return next((p for p in self.parts if p.kind is PartKind.FOLLOW_UP), None)

    @property
    def questions(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.kind is PartKind.QUESTION)

    @property
    def total(self) -> int:
        """The seconds the parts are given, all of them run."""
        return sum(p.budget for p in self.parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "minutes": self.minutes,
            "planned_at": self.planned_at,
            "parts": [{"kind": p.kind, "id": p.id, "budget": p.budget, "why": p.why} for p in self.parts],
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        parts = tuple(Part(PartKind(p["kind"]), p["id"], int(p["budget"]), p.get("why", "")) for p in data["parts"])
        return cls(int(data["minutes"]), float(data["planned_at"]), parts, tuple(data.get("notes", ())))


def follow_up_window(plan: Plan, coding_seconds: float) -> int | None:
    """The seconds the follow-up gets once the coding task passed at ``coding_seconds`` on its clock:
    what is left of the coding window, when that still holds the follow-up's target time; else None."""
    follow_up = plan.follow_up
    if follow_up is None:
        return None
    left = plan.coding.budget + follow_up.budget - int(coding_seconds)
    return left if left >= follow_up.budget else None
