"""Output written to a pipe or a file (``drill list | less``, ``drill review x 2> log``): no line broken
at 80 columns, none padded with spaces at its end (issue 27, point 5); tables keep their columns."""

from __future__ import annotations

import pytest

from autograd_drill import cli
from autograd_drill.commands.common import Unpadded, consoles
from tests.support import drill, run_drill

LONG_ERROR = "error: unknown target 'nope'. Targets: "


def unbroken(text: str) -> list[str]:
    lines = text.splitlines()
    assert lines and not [line for line in lines if line != line.rstrip()], [ln for ln in lines if ln != ln.rstrip()]
    return lines


def test_a_long_line_through_a_real_pipe_is_one_line(tmp_path):
    done = run_drill("review", "nope", env={"DRILL_HOME": str(tmp_path)})
    assert done.returncode == 2 and done.stdout == ""
    (line,) = unbroken(done.stderr)
    assert line.startswith(LONG_ERROR) and line.endswith("forward-mode.") and len(line) > 120, line


def test_a_table_through_a_real_pipe_keeps_its_columns_and_no_padding(tmp_path):
    done = run_drill("list", env={"DRILL_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = unbroken(done.stdout)
    header = next(line for line in lines if line.startswith("target"))
    row = next(line for line in lines if line.startswith("unbroadcast"))
    assert header.index("due") == row.index("now"), (header, row)  # the columns still line up
    assert "follow-ups" in lines  # a row whose other cells are empty: no spaces after it
    assert lines[-1].startswith("Next: drill start unbroadcast") and lines[-1].endswith("(or: drill next --start)")


def test_in_process_the_piped_consoles_do_the_same(monkeypatch, tmp_path):
    monkeypatch.setenv("DRILL_HOME", str(tmp_path))
    out, err = consoles()
    assert out.soft_wrap and err.soft_wrap and isinstance(out.file, Unpadded)
    monkeypatch.setattr(cli, "out", out)
    monkeypatch.setattr(cli, "err", err)
    (line,) = unbroken(drill("review", "nope", code=2).output)
    assert line.startswith(LONG_ERROR) and len(line) > 120


@pytest.mark.parametrize(
    ("writes", "seen"),
    [
        (["a   \n", "b\n"], "a\nb\n"),
        (["a   ", "\nb"], "a\nb"),  # the spaces held until the newline came
        (["a   ", "b\n"], "a   b\n"),  # they were inside the line
        (["Answer: "], "Answer: "),  # a prompt's: written at the flush
    ],
)
def test_padding_is_dropped_only_at_a_lines_end(writes, seen, capsys):
    file = Unpadded(stderr=False)
    for text in writes:
        file.write(text)
    file.flush()
    assert capsys.readouterr().out == seen
