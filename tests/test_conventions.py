"""The conventions of a command-line tool: ``-h`` beside ``--help`` on every command, ``-V`` beside
``--version``, and the version on a fast path that loads none of the app; the commands grouped in the
help (drills/commands/groups.py); shell completion that completes target ids."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer import _click

from autograd_drill import __version__, cli
from autograd_drill.commands.groups import GROUP_OF, GROUPS, group_commands, rank
from tests.support import CATALOG, ROOT, RUNNER, SHELL_DETECTION_OFF, drill, drill_imports, said


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_loads_none_of_the_app(flag):
    done, loaded = drill_imports(flag)
    assert done.stdout == f"autograd-drill {__version__}\n", done
    assert not loaded & {"typer", "rich", "numpy", "autograd_drill.cli"}, sorted(loaded & {"typer", "rich", "numpy"})


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_in_process_says_the_same(flag):
    assert said(drill(flag)) == f"autograd-drill {__version__}"


@pytest.mark.parametrize("argv", [["-h"], ["start", "-h"], ["grade", "-h"]])
def test_dash_h_is_help(argv):
    assert said(drill(*argv)) == said(drill(*argv[:-1], "--help"))
    assert "Usage: " in said(drill(*argv)) and "-h" in said(drill(*argv))


# ---------------------------------------------------------------------------- every command, its help and its group


def commands() -> list[str]:
    """Every command of the app, as its help lists them."""
    group = typer.main.get_command(cli.app)
    return group.list_commands(_click.Context(group, info_name="drill"))


@pytest.mark.parametrize("name", commands())
def test_every_command_takes_dash_h(name):
    short, long = drill(name, "-h"), drill(name, "--help")
    assert short.output == long.output and f" {name} [OPTIONS]" in said(short), said(short)
    assert "-h, --help" in said(short) or "--help -h" in said(short), said(short)


def test_no_help_text_is_broken_mid_sentence():
    """typer's rich help keeps a docstring's line breaks: a paragraph is one line (show and restore
    broke theirs mid-sentence: "It marks nothing,\\nunless ...")."""
    group = typer.main.get_command(cli.app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        broken = [p for p in inspect.cleandoc(command.help or "").split("\n\n") if "\n" in p.strip("\b\n")]
        assert not broken, (name, broken)
    assert "It marks nothing, unless an attempt at TARGET is in progress" in group.commands["show"].help


def test_every_command_has_a_group_and_the_help_draws_them_in_order():
    assert set(commands()) <= set(GROUP_OF), set(commands()) - set(GROUP_OF)
    assert sorted(commands(), key=rank) == commands()
    text = drill("--help").output
    titles = [line.split("─ ", 1)[1].split(" ─", 1)[0] for line in text.splitlines() if line.startswith("╭─ ")]
    assert titles == ["Options", *(g for g in GROUPS if set(GROUPS[g]) & set(commands()))], titles
    assert "Commands" not in titles


def test_a_command_with_no_group_is_named_and_left_in_typers_panel():
    stray = typer.Typer()
    stray.command("frobnicate")(lambda: None)
    stray.command("list")(lambda: None)
    assert group_commands(stray) == ["frobnicate"]
    assert [info.rich_help_panel for info in stray.registered_commands][1] == "Practice"
    assert group_commands(cli.app) == []


# ---------------------------------------------------------------------------- shell completion

IDS = [t.id for t in CATALOG.every] + ["full"]
TARGETED = [
    *(f"{name} " for name in ("start", "review", "show", "stats", "chart", "diff", "restore")),
    "grade engine.py --target ",
    "grade engine.py -t ",
]
ONE_TARGET = ["hint ", "interview --target "]
"""Where ``full`` is refused: one target."""


def completed(line: str) -> list[str]:
    """What bash completes at the end of ``drill LINE``, as typer's completion script asks drill."""
    words = f"drill {line}"
    env = {"_DRILL_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split(" ")) - 1)}
    return RUNNER.invoke(cli.app, [], prog_name="drill", env=env).output.split()


@pytest.mark.parametrize("line", TARGETED)
def test_a_target_completes_as_the_catalogs_ids(line):
    assert completed(line) == IDS
    assert completed(line + "c") == [i for i in IDS if i.startswith("c")] == ["cross-entropy", "cotangent"]
    assert completed(line + "fu") == ["full"]


@pytest.mark.parametrize("line", ONE_TARGET)
def test_where_full_is_refused_it_is_not_offered(line):
    assert completed(line) == IDS[:-1] and completed(line + "f") == ["free-memory", "forward-mode"]


@pytest.fixture
def shell_named(monkeypatch) -> None:
    """typer's shell detection off (SHELL_DETECTION_OFF), so that drill's completion options take the
    shell they name, as the tests below name bash. With it on, they take none and typer asks shellingham
    for the shell among the suite's parents, which a suite started by a script or in the background may
    not have ("Shell  is not supported.")."""
    monkeypatch.setenv(SHELL_DETECTION_OFF, "1")


def test_commands_complete_too_and_the_script_is_shown(shell_named):
    assert completed("st") == ["start", "status", "stats"]
    script = RUNNER.invoke(cli.app, ["--show-completion", "bash"], prog_name="drill").output
    assert "_DRILL_COMPLETE=complete_bash" in script and "complete -o default -F _drill_completion drill" in script


COMPLETE = """
import sys
from pathlib import Path
sys.argv = ["/usr/local/bin/drill"]
from autograd_drill.entry import main
main()
"""


def test_the_console_script_answers_the_shell_not_its_fast_path(tmp_path):
    """``drill`` typed bare is answered without typer (drills/commands/quick.py); asked by the shell's
    completion script, with the same bare argv, it is the app that answers."""
    env = {**os.environ, "DRILL_HOME": str(tmp_path), "_DRILL_COMPLETE": "complete_bash"}
    env.update(COMP_WORDS="drill start cro", COMP_CWORD="2")
    done = subprocess.run(
        [sys.executable, "-c", COMPLETE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "cross-entropy\n", "")


def test_the_installed_completion_completes_a_target_in_a_real_bash(tmp_path, shell_named):
    """``drill --install-completion bash`` writes its script under HOME; bash, sourcing it, asks the
    console script (found on PATH beside this interpreter) and offers the target ids."""
    script = Path(sys.executable).parent / "drill"
    if os.name == "nt" or not script.exists() or shutil.which("bash") is None:
        pytest.skip("bash and the console script, installed beside this interpreter")
    done = RUNNER.invoke(cli.app, ["--install-completion", "bash"], prog_name="drill", env={"HOME": str(tmp_path)})
    installed = tmp_path / ".bash_completions" / "drill.sh"
    assert done.exit_code == 0 and installed.exists() and str(installed) in (tmp_path / ".bashrc").read_text()
    asked = f'source {installed}; COMP_WORDS=(drill start cr); COMP_CWORD=2; _drill_completion drill; echo "${{COMPREPLY[@]}}"'
    env = {**os.environ, "PATH": f"{script.parent}{os.pathsep}{os.environ['PATH']}", "DRILL_HOME": str(tmp_path)}
    shell = subprocess.run(["bash", "--norc", "-c", asked], env=env, capture_output=True, text=True, timeout=120)
    assert (shell.returncode, shell.stdout.split(), shell.stderr) == (0, ["cross-entropy"], "")
