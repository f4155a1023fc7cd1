"""Regenerate the tables of the README and docs/contract.md that the drill catalog (grader/catalog.toml) decides.

    python docs/make_tables.py            # rewrites them
    python docs/make_tables.py --check    # rewrites nothing: exit 1 naming each table out of date

A generated table sits between ``<!-- catalog: NAME ... -->`` and ``<!-- /catalog -->``; each NAME has a
function below that draws it from the catalog. The README's rung times (``python -m autograd_drill.loop.ladder
--readme``) are regenerated and checked here too, so that one command follows a change to the catalog.
tests/test_catalog.py runs ``--check``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograd_drill.grader.catalog import FULL, Catalog, Target, format_time, load_catalog  # noqa: E402
from autograd_drill.loop.ladder import readme_with_table  # noqa: E402

README = ROOT / "README.md"
CONTRACT = ROOT / "docs" / "contract.md"
BLOCK = re.compile(r"(?P<head><!-- catalog: (?P<name>[\w-]+)[^>]*-->\n)(?P<body>.*?)(?=<!-- /catalog -->)", re.S)
"""A generated table: its marker, then its body up to the closing marker."""
HEADER = "| id | {} | target time |\n|---|---|---|\n"


def short(symbols: tuple[str, ...]) -> str:
    """Symbols as the README writes them: a method after another of its class without the class
    (``Tensor.__add__``, ``__mul__``)."""
    names, before = [], ""
    for symbol in symbols:
        cls, _, name = symbol.rpartition(".")
        names.append(f"`{name}`" if cls and cls == before else f"`{symbol}`")
        before = cls
    return ", ".join(names)


def spelled(symbols: tuple[str, ...]) -> str:
    return ", ".join(f"`{s}`" for s in symbols)


def rows(targets: tuple[Target, ...], you_write: Callable[[Target], str]) -> str:
    return "".join(f"| `{t.id}` | {you_write(t)} | {format_time(t.target_time)} |\n" for t in targets)


def full_row(catalog: Catalog) -> str:
    return f"| `{FULL}` | {catalog.full_summary} | {format_time(catalog.full_time)} |\n"


def readme_core(catalog: Catalog) -> str:
    return HEADER.format("you write") + rows(catalog.targets, lambda t: short(t.symbols)) + full_row(catalog)


def readme_follow_ups(catalog: Catalog) -> str:
    return HEADER.format("you write") + rows(catalog.extensions, lambda t: f"{short(t.symbols)}: {t.summary}")


def contract_core(catalog: Catalog) -> str:
    table = rows(catalog.targets, lambda t: spelled(t.symbols)) + full_row(catalog)
    return HEADER.format("symbols blanked in its stub") + table


TABLES: dict[Path, dict[str, Callable[[Catalog], str]]] = {
    README: {"core-targets": readme_core, "follow-ups": readme_follow_ups},
    CONTRACT: {"core-targets": contract_core},
}


def regenerated(text: str, tables: dict[str, Callable[[Catalog], str]], catalog: Catalog) -> str:
    """``text`` with the body of each of its catalog tables drawn again; a table of ``tables`` without
    its markers is an error (add them where it belongs)."""
    missing = set(tables) - {m["name"] for m in BLOCK.finditer(text)}
    if missing:
        raise KeyError(f"no <!-- catalog: NAME --> ... <!-- /catalog --> for {sorted(missing)}")
    return BLOCK.sub(lambda m: m["head"] + tables[m["name"]](catalog), text)


def current(path: Path, catalog: Catalog) -> str:
    """What ``path`` should hold: its catalog tables (and, for the README, its rung times) regenerated."""
    text = regenerated(path.read_text(encoding="utf-8"), TABLES[path], catalog)
    return readme_with_table(text) if path == README else text


def main(argv: list[str]) -> int:
    catalog, stale = load_catalog(), []
    for path in TABLES:
        text = current(path, catalog)
        if text == path.read_text(encoding="utf-8"):
            continue
        stale.append(path.relative_to(ROOT))
        if "--check" not in argv:
            path.write_text(text, encoding="utf-8")
    for name in stale:
        print(f"{name}: {'out of date' if '--check' in argv else 'rewritten'}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
