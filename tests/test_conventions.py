"""The conventions of a command-line tool: ``-h`` beside ``--help`` on every command, ``-V`` beside
``--version``, and the version on a fast path that loads none of the app."""

from __future__ import annotations

import subprocess
import sys

import pytest

from drills import __version__
from tests.support import drill, said


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_loads_none_of_the_app(flag):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "drills", flag], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout == f"autograd-drill {__version__}\n", done
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not loaded & {"typer", "rich", "numpy", "drills.cli"}, sorted(loaded & {"typer", "rich", "numpy"})


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_in_process_says_the_same(flag):
    assert said(drill(flag)) == f"autograd-drill {__version__}"


@pytest.mark.parametrize("argv", [["-h"], ["start", "-h"], ["grade", "-h"]])
def test_dash_h_is_help(argv):
    assert said(drill(*argv)) == said(drill(*argv[:-1], "--help"))
    assert "Usage: " in said(drill(*argv)) and "-h" in said(drill(*argv))
