"""The conventions of a command-line tool: ``-h`` beside ``--help`` on every command, ``-V`` beside
``--version``, and the version on a fast path that loads none of the app."""

from __future__ import annotations

import pytest

from drills import __version__
from tests.support import drill, drill_imports, said


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_loads_none_of_the_app(flag):
    done, loaded = drill_imports(flag)
    assert done.stdout == f"autograd-drill {__version__}\n", done
    assert not loaded & {"typer", "rich", "numpy", "drills.cli"}, sorted(loaded & {"typer", "rich", "numpy"})


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_in_process_says_the_same(flag):
    assert said(drill(flag)) == f"autograd-drill {__version__}"


@pytest.mark.parametrize("argv", [["-h"], ["start", "-h"], ["grade", "-h"]])
def test_dash_h_is_help(argv):
    assert said(drill(*argv)) == said(drill(*argv[:-1], "--help"))
    assert "Usage: " in said(drill(*argv)) and "-h" in said(drill(*argv))
