"""Issue 27 points 3 and 6: CI where users are, and the maintainers' scripts.

The hosted workflow (.github/workflows/ci.yml) cannot run here: it is read back as data (a small
reader of the YAML it is written in: no YAML dependency) and must run ``.ci/run`` on Linux, macOS and
Windows with Python 3.11 and 3.13. ``.ci/run`` runs the README's test command verbatim, then
``.ci/smoke_wheel`` (both distributions built, the wheel used from a fresh virtualenv through the
``drill`` console script alone; it takes a minute, so CI runs it, not this suite). The week
simulation runs here with its stand-in grader (the README picture's script: tests/test_cli.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest

from tests.support import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
RUN = ROOT / ".ci" / "run"
SMOKE = ROOT / ".ci" / "smoke_wheel"


def scalar(text: str) -> Any:
    """A YAML scalar or flow sequence, as the workflow writes them (plain or double-quoted)."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [scalar(item) for item in text[1:-1].split(",") if item.strip()]
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def read_yaml(lines: list[tuple[int, str]]) -> Any:
    """Block mappings and sequences by indentation (``lines``: (indent, text), comments gone)."""
    if not lines:
        return None
    indent = lines[0][0]
    if lines[0][1].startswith("- "):
        items, current = [], []
        for depth, text in lines:
            if depth == indent and text.startswith("- "):
                if current:
                    items.append(read_yaml(current))
                current = [(depth + 2, text[2:])]
            else:
                current.append((depth, text))
        items.append(read_yaml(current))
        return items
    mapping: dict[str, Any] = {}
    key = None
    body: list[tuple[int, str]] = []
    for depth, text in [*lines, (indent, "")]:
        if depth == indent:
            if key is not None:
                mapping[key] = read_yaml(body) if body else mapping[key]
            if not text:
                break
            key, _, value = text.partition(":")
            assert key and _, f"not a mapping line: {text!r}"
            mapping[key], body = (scalar(value) if value.strip() else None), []
        else:
            assert depth > indent, f"bad indentation: {text!r}"
            body.append((depth, text))
    return mapping


def workflow() -> dict[str, Any]:
    raw = WORKFLOW.read_text(encoding="utf-8")
    assert "\t" not in raw, "YAML takes no tabs"
    lines = []
    for line in raw.splitlines():
        text = re.sub(r"\s+#.*$|^\s*#.*$", "", line)  # comments (the workflow has no # inside values)
        if text.strip():
            lines.append((len(text) - len(text.lstrip()), text.strip()))
    return read_yaml(lines)


def test_the_workflow_runs_ci_run_on_three_systems_and_two_pythons():
    flow = workflow()
    assert set(flow["on"]) >= {"push", "pull_request"}
    (job,) = flow["jobs"].values()
    matrix = job["strategy"]["matrix"]
    assert sorted(matrix["os"]) == ["macos-latest", "ubuntu-latest", "windows-latest"]
    assert matrix["python"] == ["3.11", "3.13"]  # strings: 3.10 written bare would read 3.1
    assert job["runs-on"] == "${{ matrix.os }}"
    steps = job["steps"]
    assert steps[0] == {"uses": "actions/checkout@v4"}
    assert steps[1] == {"uses": "actions/setup-python@v5", "with": {"python-version": "${{ matrix.python }}"}}
    (run,) = [s for s in steps if "run" in s]
    assert run["run"] == "bash .ci/run" and run["shell"] == "bash"  # Git Bash on Windows


def test_the_reader_sees_what_it_reads():
    """The reader above, on a workflow written wrong: a run step outside the steps is not one."""
    text = "jobs:\n  ci:\n    steps:\n      - uses: a@v1\n    run: bash .ci/run\n"
    lines = [(len(x) - len(x.lstrip()), x.strip()) for x in text.splitlines()]
    job = read_yaml(lines)["jobs"]["ci"]
    assert job["steps"] == [{"uses": "a@v1"}] and job["run"] == "bash .ci/run"


def test_ci_run_keeps_the_readme_command_first_then_the_wheel():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "pip install -e '.[dev]' && python -m pytest -n auto"
    assert f"\n{command}\n" in readme
    script = RUN.read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    tests = lines.index(f"({command})")
    assert lines.index("bash .ci/smoke_wheel") > tests
    assert "venv/bin/activate" in script and "venv/Scripts/activate" in script  # Windows' virtualenv layout


def test_the_smoke_test_uses_the_console_script_only():
    """It holds before and after the package rename (issue 27 point 2): no module names."""
    script = SMOKE.read_text(encoding="utf-8")
    assert not re.search(r"-m (drills|grader|reference|autograd_drill)\b|(import|from) (drills|grader)\b", script)
    for command in ('"$drill" start unbroadcast', '"$drill" check', '"$drill" grade "$file" --json'):
        assert command in script, command
    assert "--no-build-isolation" in script and "build_sdist" in script


def test_the_smoke_test_installs_the_layers_pack_from_its_wheel_and_grades_with_it():
    """Issue 28: the pack's wheel, built from its sdist as the tool's is, installed beside the tool's in
    the fresh virtualenv (no torch there), listed by ``drill packs --json`` and graded with."""
    script = SMOKE.read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    pack_sdist = next(i for i, line in enumerate(lines) if "cd packs/layers" in line and "build_sdist" in line)
    pack_wheel = next(
        i for i, line in enumerate(lines) if line.startswith('python -m pip wheel "$work/unpacked/${pack_sdist')
    )
    install = lines.index('"$bin/python" -m pip install -q "$dist"/*.whl')
    packs = lines.index('"$drill" packs --json >"$work/packs.json"')
    graded = next(
        i for i, line in enumerate(lines) if line.startswith('"$drill" grade "$reference" --pack layers --json')
    )
    assert pack_sdist < pack_wheel < install < packs < graded
    assert "--no-build-isolation" in lines[pack_wheel] and '-w "$dist"' in lines[pack_wheel]  # beside the tool's
    no_torch = 'find_spec("torch") is not None'
    assert any(no_torch in line for line in lines[packs:graded]), "it checks that the venv has no torch"
    checks = script[script.index('"$drill" packs --json') :]
    for check in ('"layers"', "site-packages", 'verdict["passed"] is True', 'len(verdict["targets"]) == 6'):
        assert check in checks, check


def test_the_readmes_install_the_tool_with_the_layers_pack():
    """The README and the pack's own install both distributions in one command: the pack alone would
    make pip fetch autograd-drill, its dependency, from an index."""
    for readme in (ROOT / "README.md", ROOT / "packs" / "layers" / "README.md"):
        text = readme.read_text(encoding="utf-8")
        blocks = re.findall(r"^```(?:bash|console)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
        commands = [line.strip() for block in blocks for line in block.splitlines()]
        assert "pip install -e . -e packs/layers" in commands, readme
        assert "drill packs" in commands and "drill start layernorm" in commands, readme
        assert "pip install -e packs/layers" not in commands, readme
        assert "docs/packs.md" in text, readme


@pytest.mark.skipif(
    shutil.which("bash") is None or os.name == "nt", reason="no bash (on Windows: CI runs them in Git Bash)"
)
def test_the_ci_scripts_parse():
    for script in (RUN, SMOKE):
        done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_the_week_simulation_runs(tmp_path):
    """.github/simulate_week.py, with its stand-in grader, through the CLI: every drill next --start
    and check works (it asserted a verdict line the ladder had changed, and stopped at the first pass)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / ".github" / "simulate_week.py"), "--days", "2"],
        capture_output=True, text=True, encoding="utf-8", timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},  # it prints ✓ and →, piped (Windows: cp1252)
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if re.match(r" (Mon|Tue) \d\d:\d\d ", line)]
    assert len(rows) == 6 and all(re.search(r"passed in \d+:\d\d of \d+:\d\d|gave up at", r) for r in rows), rows
    assert "The order: unbroadcast" in done.stdout and "$ drill chart" in done.stdout
