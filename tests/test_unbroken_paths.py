"""Paths are never cut by rich in a terminal (issue 27, point 1): in a narrow one, rich folded a long
path at the console's width (``.../autogra`` then ``d-drill/...``), and an editor's terminal linked
neither half. Every path and ``path:LINE`` location the commands print (start's "Wrote", the
verdict's file and locations, status, restore, abandon's archive, export, a refusal) comes out whole
on one line, past the width if it must (the terminal soft-wraps it); the words around it still wrap
at spaces, and nothing is cropped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.text import Text

from autograd_drill import cli
from autograd_drill.commands.common import Uncropped, consoles
from autograd_drill.views.whole import Whole
from tests.support import drill

WIDTH = 40
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def terminal(narrow: Path, warm_grading) -> Path:
    return narrow


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The tool's own consoles as a terminal 40 columns wide gets them (FORCE_COLOR: rich takes the
    output for a terminal), and a workspace whose solution file's path is more than 70 characters
    (the data folder's paths too)."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    out, err = consoles()
    assert out.is_terminal and out.width == WIDTH
    monkeypatch.setattr(cli, "out", out)
    monkeypatch.setattr(cli, "err", err)
    deep = tmp_path / "a-folder-with-a-rather-long-name" / "and-another-one-under-it" / "solutions"
    monkeypatch.setenv("DRILL_WORKSPACE", str(deep))
    monkeypatch.setenv("DRILL_HOME", str(deep.parent / "and-the-data-folder-of-the-tool-beside-it"))
    monkeypatch.chdir(tmp_path.parent)  # the paths are shown relative to it, and stay long
    return deep


def lines_of(result) -> list[str]:
    return [ANSI.sub("", line) for line in result.output.splitlines()]


def whole_in(result, path: str, after: str = "") -> str:
    """The line of ``result`` that holds ``path`` (followed by ``after``) whole; asserted to be there."""
    lines = lines_of(result)
    found = [line for line in lines if path + after in line]
    assert found, "\n".join(lines)
    return found[0]


def shown(path: Path) -> str:
    return str(path.relative_to(Path.cwd()))


def test_start_check_status_restore_and_abandon_print_the_path_whole(terminal):
    file = terminal / "unbroadcast.py"
    assert len(shown(file)) >= 70, shown(file)
    started = drill("start", "unbroadcast")
    whole_in(started, shown(file), ":")  # Wrote PATH: ...
    words = lines_of(started)
    assert max(len(line) for line in words if shown(file) not in line) <= WIDTH, words  # the rest still wraps
    checked = drill("check", code=1)
    assert whole_in(checked, shown(file)).strip() == shown(file)  # the report's file
    location = whole_in(checked, shown(file), ":")
    assert re.search(re.escape(shown(file)) + r":\d+", location), location  # path:LINE, in one piece
    whole_in(drill("status"), shown(file))
    file.unlink()
    whole_in(drill("restore"), shown(file))
    abandoned = drill("abandon")
    assert "archived at" in " ".join(lines_of(abandoned)), lines_of(abandoned)
    whole_in(abandoned, shown(terminal / ".archive"))


def test_export_and_a_refusal_print_the_path_whole(terminal):
    output = terminal.parent / "history-exported-to-a-file-with-a-long-name.json"
    whole_in(drill("export", "--output", str(output)), shown(output))
    missing = terminal.parent / "no-such-engine-file-anywhere-in-this-folder.py"
    refused = drill("grade", str(missing), code=2)
    assert any(str(missing) in line or shown(missing) in line for line in lines_of(refused)), lines_of(refused)


def test_an_interview_names_the_file_and_the_transcript_whole(narrow, fake_grading):
    fake_grading.seconds = 7 * 60  # out of time at the first grading (tests/test_interview_cli.py)
    answers = "A sum over the batch.\n.\n1 2\nCentral differences.\nIn float64.\n.\nall\n"
    result = drill("interview", "--minutes", "20", "--target", "unbroadcast", input=answers)
    whole_in(result, shown(narrow / "unbroadcast.py"))  # Write it in PATH
    (transcript,) = (narrow.parent / "and-the-data-folder-of-the-tool-beside-it" / "interviews").glob("*.md")
    assert len(shown(transcript)) > WIDTH
    whole_in(result, shown(transcript))


def test_a_whole_text_wraps_at_spaces_and_keeps_a_long_word():
    path = "/" + "/".join(["folder-of-twenty-ch"] * 4)  # 80 characters, no space
    narrow = Uncropped(width=WIDTH, highlight=False)
    with narrow.capture() as seen:
        narrow.print(Whole(Text(f"see {path}: then some more words"), 2))
    drawn = seen.get().splitlines()
    assert drawn[0] == "  see" and drawn[1] == f"  {path}:" and drawn[2] == "  then some more words", drawn
