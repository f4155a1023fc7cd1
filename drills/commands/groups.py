"""The panels ``drill --help`` groups its commands in, in one table (``GROUPS``): each command's group,
the groups in the order the help draws them. drills/cli.py sets each registered command's
``rich_help_panel`` from it (``group_commands``) and drills/commands/plain_help.py lists the commands
group by group; drills/commands/help_text.py (the fast ``drill -h``) is written from the app, so keeps
the same groups. A command missing here is drawn in typer's own "Commands" panel, first, and
tests/test_conventions.py fails until it is given a group."""

from __future__ import annotations

from typing import Any

GROUPS: dict[str, tuple[str, ...]] = {
    "Drilling": (
        "start",
        "full",
        "check",
        "watch",
        "status",
        "pause",
        "resume",
        "abandon",
        "give-up",
        "hint",
        "diff",
        "restore",
    ),
    "Practice": ("list", "next", "ladder", "review", "show", "stats", "chart", "interview"),
    "Grading": ("grade",),
    "Data": ("export", "import", "where", "packs"),
}
"""Drilling: an attempt, from its start to its end and what follows it (its diff, a file restored).
Practice: what to drill and how you are doing, and study outside an attempt (review cards, the
reference, mock interviews). Grading: any engine file, outside a drill. Data: your history, where it is
kept, and the drill packs installed."""

GROUP_OF: dict[str, str] = {name: group for group, names in GROUPS.items() for name in names}
"""Each command's group."""


def rank(name: str) -> tuple[int, int]:
    """Where command ``name`` comes in the help: its group's place, then its place in the group."""
    group = GROUP_OF[name]
    return list(GROUPS).index(group), GROUPS[group].index(name)


def group_commands(app: Any) -> list[str]:
    """Give every command registered on the typer ``app`` its group's panel; the names of those that
    have no group (left in typer's default panel: the tool still runs, a test says it)."""
    ungrouped = []
    for info in app.registered_commands:
        name = info.name or info.callback.__name__.replace("_", "-")
        if name in GROUP_OF:
            info.rich_help_panel = GROUP_OF[name]
        else:
            ungrouped.append(name)
    return ungrouped
