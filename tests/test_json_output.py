"""``--json`` on ``drill status``, ``list``, ``next``, ``stats`` and ``check`` (issue 27, point 5): one
JSON object on stdout and nothing else there; its keys exactly those docs/json.md documents; ``drill
check --json`` the ``drill grade --json`` object (docs/contract.md, /shared SPEC section 3) with the
attempt beside it; a refusal one line on stderr, nothing on stdout, a non-zero exit status."""

from __future__ import annotations

import json
import re

import pytest

from tests.loop import write
from tests.support import CATALOG, DAY, ROOT, T0, active, drill, one_line_error, run_drill, seed

IDS = {t.id for t in CATALOG.every} | {"full"}
COMMANDS = ("status", "list", "next", "stats", "check")
DOC = ROOT / "docs" / "json.md"


def keys(value: object, prefix: str = "") -> set[str]:
    """Every key of a JSON value, dotted: ``ID`` for the key of an object keyed by target id, ``[]``
    for the entries of a list of objects (as docs/json.md and docs/contract.md write them)."""
    found: set[str] = set()
    if isinstance(value, dict):
        by_target = bool(value) and set(value) <= IDS
        for key, item in value.items():
            path = ".".join(filter(None, [prefix, "ID" if by_target else key]))
            found |= keys(item, path) if by_target else {path, *keys(item, path)}  # an ID: its keys
    elif isinstance(value, list):
        for item in value:
            found |= keys(item, f"{prefix}[]")
    return found


def documented(text: str, heading: str) -> set[str]:
    """The keys of the table under ``heading`` (up to the next heading)."""
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", section, flags=re.M))


def emitted(*args: str, code: int = 0) -> dict:
    result = drill(*args, "--json", code=code)
    assert result.stdout.count("\n") == 1 and result.stdout.endswith("}\n"), result.stdout  # one line, alone
    return json.loads(result.stdout)


@pytest.fixture
def drilled(clock, fake_grading):
    """A history with something in every key: a recall pass and a give-up, a copy-rung pass (a row of
    its own in stats), and an attempt in progress, failing, at backward."""
    seed("unbroadcast", 200, at=T0 - 3 * DAY)
    seed("unbroadcast", 0, at=T0 - 2 * DAY, outcome="gave-up")
    seed("arith", 100, at=T0 - DAY, rung="copy")
    drill("start", "backward", "--rung", "recall")
    clock.advance(42)
    return fake_grading


def test_each_commands_keys_are_exactly_the_documented_ones(drilled):
    text = DOC.read_text(encoding="utf-8")
    objects = {"check": emitted("check", code=1), **{c: emitted(c) for c in COMMANDS if c != "check"}}
    for command, data in objects.items():
        assert keys(data) == documented(text, f"## `drill {command} --json`"), command
        assert data["version"] == 1
    status = objects["status"]["attempt"]
    assert (status["target"], status["rung"], status["elapsed"] >= 42, status["outcome"]) == (
        "backward",
        "recall",
        True,
        None,
    )
    assert status["targets"] == {"backward": {"state": "failing", "split": None}}
    assert objects["list"]["targets"][0]["last"] == {"outcome": "gave-up", "time": None}
    assert [(r["target"], r["rung"]) for r in objects["stats"]["rows"][:3]] == [
        ("unbroadcast", "recall"),
        ("backward", "recall"),
        ("arith", "copy"),
    ]
    assert objects["stats"]["rows"][0]["times"] == [200.0]
    assert [c["target"] for c in objects["next"]["queue"]][0] == objects["status"]["next"]["target"]


def test_check_is_the_grade_object_and_the_attempt(drilled):
    contract = documented((ROOT / "docs" / "contract.md").read_text(encoding="utf-8"), "## `drill grade`, for tools")
    failing = emitted("check", code=1)
    grading = {k for k in keys(failing) if not k.startswith(("attempt", "newly_passed", "recorded"))}
    assert {k for k in grading if "[]" not in k} == contract  # the parts of a failure: the contract's prose
    assert not failing["passed"] and failing["targets"]["backward"]["failures"][0]["symbol"]
    assert (failing["recorded"], failing["newly_passed"]) == (True, [])

    write(active().file, [])
    passed = emitted("check", code=0)
    assert passed["passed"] and passed["newly_passed"] == ["backward"]
    assert passed["attempt"]["outcome"] == "passed" and passed["attempt"]["targets"]["backward"]["state"] == "passed"


@pytest.mark.parametrize("args", [("check",), ("stats", "nope"), ("next", "--start"), ("stats", "--plot")])
def test_a_refusal_is_one_line_on_stderr_and_nothing_on_stdout(args, clock):
    result = drill(*args, "--json", code=2)
    assert result.stdout == ""
    one_line_error(result.stderr, "error:")


def test_through_a_real_pipe_the_object_is_alone_on_stdout(tmp_path):
    done = run_drill("status", "--json", env={"DRILL_HOME": str(tmp_path), "COLUMNS": "40"})
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) == 1, done
    assert json.loads(done.stdout)["attempt"] is None and "\033" not in done.stdout
    refused = run_drill("stats", "nope", "--json", env={"DRILL_HOME": str(tmp_path)})
    assert (refused.returncode, refused.stdout) == (2, "") and refused.stderr.startswith("error: unknown target")
