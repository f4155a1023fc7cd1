"""``drill packs`` drawn: one row per installed pack (grader/packs.py), and one per pack that did not
load, marked so. Data in, rich out."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from drills.views.render import as_text, id_column
from grader.catalog import format_time, load_catalog
from grader.packs import Pack


def packs_table(packs: tuple[Pack, ...], not_loaded: tuple[str, ...]) -> RenderableType:
    """Name, title, version, number of targets (core + follow-ups), the full drill's time, and where it
    is; a pack that did not load: its name, marked so (why: the line its command printed on stderr)."""
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1))
    id_column(table, [p.name for p in packs] + list(not_loaded), header="pack")
    table.add_column(as_text("title"), overflow="fold", ratio=2)
    for header in ("version", "targets", "full"):
        table.add_column(as_text(header), justify="right", no_wrap=True)
    table.add_column(as_text("where"), overflow="fold", ratio=1)
    for pack in packs:
        catalog = load_catalog(pack.catalog)
        targets = (
            f"{len(catalog.targets)} + {len(catalog.extensions)}" if catalog.extensions else str(len(catalog.targets))
        )
        table.add_row(
            Text(pack.name),
            Text(pack.title),
            Text(pack.version),
            Text(targets),
            Text(format_time(catalog.full_time)),
            Text(str(pack.root)),
        )
    for name in not_loaded:
        table.add_row(Text(name), Text("not loaded", style="red"), *(Text("-") for _ in range(4)))
    return table


def not_loaded_line(name: str, reason: str) -> Text:
    """The one line on stderr of a pack that did not load."""
    return Text(f"drill: pack {name} not loaded: {reason}")
