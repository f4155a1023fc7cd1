"""The long description works on an index page (issue 27): PyPI renders it without the repository, so
the README's relative links and its picture (.github/scoreboard.svg) were dead there. The long description
is docs/pypi.md, the README with repository links as paths in code and sections by name, without the
picture (docs/make_pypi.py); the README keeps them for GitHub readers."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
_spec = importlib.util.spec_from_file_location("make_pypi", ROOT / "docs" / "make_pypi.py")
assert _spec is not None and _spec.loader is not None
make_pypi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_pypi)

ABSOLUTE = re.compile(r"^(?:https?:|mailto:)")
TARGETS = (
    re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]*)"),  # [text](target), ![alt](target)
    re.compile(r"<(?:img|a|source)\b[^>]*?\b(?:src|href|srcset)\s*=\s*[\"']?(?P<target>[^\"'\s>]*)", re.I),
    re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(?P<target>[^>\s]+)", re.M),  # [label]: target
)


def relative_links(markdown: str) -> list[str]:
    """The targets of the links and images of ``markdown`` (outside code blocks and code spans) that are
    not absolute: dead on a page that has no repository beside it."""
    prose, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            prose.append(re.sub(r"`[^`]*`", "", line))
    text = "\n".join(prose)
    return [m["target"] for pattern in TARGETS for m in pattern.finditer(text) if not ABSOLUTE.match(m["target"])]


def test_the_long_description_is_the_readme_made_for_an_index_page():
    assert PROJECT["readme"] == "docs/pypi.md"
    assert make_pypi.main(["--check"]) == 0, "docs/pypi.md is out of date: python docs/make_pypi.py"


def test_the_long_description_has_no_relative_link_or_image():
    text = (ROOT / PROJECT["readme"]).read_text(encoding="utf-8")
    assert relative_links(text) == []
    assert "scoreboard.svg" not in text
    assert "## Quickstart" in text and "pip install -e . && drill start unbroadcast" in text


def test_the_check_finds_the_readmes_relative_links():
    """What the long description was: the README, whose links and picture an index page cannot follow."""
    found = relative_links((ROOT / "README.md").read_text(encoding="utf-8"))
    for wanted in ("docs/contract.md", ".github/scoreboard.svg", "#the-ladder"):
        assert wanted in found
    html = '<img src="shot.png"> <a href="docs/x.md">x</a> <img src="https://example.org/a.png">\n[ref]: docs/y.md\n'
    assert relative_links(html) == ["shot.png", "docs/x.md", "docs/y.md"]
    assert relative_links("```\n[a](b.md)\n```\n`[c](d.md)` [e](https://example.org)\n") == []


def test_links_become_paths_and_section_names_and_the_picture_goes():
    readme = (
        "See [The ladder](#the-ladder) and [docs/contract.md](docs/contract.md#keys), "
        "[`notes.md`](docs/notes.md), [the key](reference/engine.py), [a site](https://example.org).\n"
        "\n![A picture](.github/scoreboard.svg)\n\n```\n[kept](as/is.md)\n```\n"
    )
    written = make_pypi.long_description(readme).removeprefix(make_pypi.HEADER)
    assert written == (
        "See *The ladder* and `docs/contract.md`, `docs/notes.md`, the key (`reference/engine.py`), "
        "[a site](https://example.org).\n\n\n```\n[kept](as/is.md)\n```\n"
    )
