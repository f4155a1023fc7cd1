"""``drill packs`` drawn: one row per installed pack (grader/packs.py), its title and folder on lines of
their own below it, and a row per pack that did not load, its reason below. Data in, rich out."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from autograd_drill.grader.catalog import format_time, load_catalog
from autograd_drill.grader.packs import Pack
from autograd_drill.views.render import RowsThenLines, as_text, id_column


def packs_table(packs: tuple[Pack, ...], not_loaded: tuple[tuple[str, str], ...]) -> RenderableType:
    """Name, version, number of targets (``6 + 5``: core and follow-ups), the full drill's time; below,
    the title and where it is. A pack that did not load: its name, and below, why."""
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1, 0, 0))
    id_column(table, [p.name for p in packs] + [name for name, _ in not_loaded], header="pack")
    for header in ("version", "targets", "full"):
        table.add_column(as_text(header), justify="right", no_wrap=True)
    below: list[Text | None] = []
    for pack in packs:
        catalog = load_catalog(pack.catalog)
        core, follow_ups = len(catalog.targets), len(catalog.extensions)
        targets = f"{core} + {follow_ups}" if follow_ups else str(core)
        table.add_row(Text(pack.name), Text(pack.version), Text(targets), Text(format_time(catalog.full_time)))
        below.append(Text(pack.title) + Text(f"\n{pack.root}", style="dim"))
    for name, reason in not_loaded:
        table.add_row(Text(name), Text("-"), Text("-"), Text("-"))
        below.append(Text(f"not loaded: {reason}", style="red"))
    return RowsThenLines(table, below, indent=2)


def not_loaded_line(name: str, reason: str) -> Text:
    """The one line on stderr of a pack that did not load."""
    return Text(f"drill: pack {name} not loaded: {reason}")
