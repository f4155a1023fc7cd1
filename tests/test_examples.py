"""The README's examples and docs/interview-example.md are what ``drill`` prints today: the script
that regenerates them from real runs (docs/make_examples.py) finds none out of date, and finds one
that is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT, once_per_run

pytest.importorskip("pexpect")
pytest.importorskip("pyte")
pytestmark = pytest.mark.skipif(os.name != "posix", reason="the interview runs in a POSIX pseudo-terminal")

SCRIPT = ROOT / "docs" / "make_examples.py"


CHECK_BOTH = """
import contextlib, functools, importlib.util, io, json, sys
spec = importlib.util.spec_from_file_location("make_examples", sys.argv[1])
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)
for name, make in list(script.README_EXAMPLES.items()):  # each example made once, compared twice
    script.README_EXAMPLES[name] = functools.cache(make)
script.interview = functools.cache(script.interview)
said = {}
for run, argv in (("current", ["--check"]), ("stale", ["--check", "--readme", sys.argv[2], "--transcript", sys.argv[3]])):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = script.main(argv)
    said[run] = {"returncode": code, "stdout": out.getvalue()}
print(json.dumps(said))
"""
"""``python docs/make_examples.py --check`` twice in one child, the examples made once: against the
clone's README and transcript, then against stale copies of them (``--readme R --transcript T``)."""


def stale_copies(folder: Path) -> tuple[Path, Path]:
    """The README with its verdict example changed, the transcript with a heading changed."""
    folder.mkdir(parents=True, exist_ok=True)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "15 of 18 tests failed" in readme or "tests failed" in readme
    stale = folder / "README.md"
    stale.write_text(readme.replace("tests failed", "tests went wrong", 1), encoding="utf-8")
    transcript = folder / "interview.md"
    text = (ROOT / "docs" / "interview-example.md").read_text(encoding="utf-8")
    transcript.write_text(text.replace("## What to practise next", "## Next"), encoding="utf-8")
    return stale, transcript


@pytest.fixture
def checked(run_folder: Path) -> dict[str, object]:
    """What both checks said (CHECK_BOTH), once per run of the suite."""

    def make() -> dict[str, object]:
        folder = run_folder / "examples"
        stale, transcript = stale_copies(folder)
        env = {**os.environ, "DRILL_HOME": str(folder / "unused")}  # the script isolates each run itself
        done = subprocess.run(
            [sys.executable, "-c", CHECK_BOTH, str(SCRIPT), str(stale), str(transcript)],
            capture_output=True, text=True, timeout=600, env=env, cwd=folder,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.splitlines()[-1])

    return once_per_run(run_folder, "examples", make)


def test_every_example_is_current(checked):
    done = checked["current"]
    assert done["returncode"] == 0, done["stdout"]
    assert "out of date" not in done["stdout"]


def test_a_stale_example_is_named(checked):
    done = checked["stale"]
    assert done["returncode"] == 1, done["stdout"]
    assert "out of date: README.md: verdict" in done["stdout"]
    assert "out of date: interview.md: the interview" in done["stdout"]
    assert "README.md: plan" not in done["stdout"]  # the current ones are not named
