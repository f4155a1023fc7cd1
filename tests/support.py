"""What the tests of the tool share, in one place: plain constants and functions, no fixtures.

- where things are: ROOT, REFERENCE (and its source), CATALOG, BANK, the MockClock's T0;
- ``drill`` in process (typer's CliRunner: ``drill``, ``refused``, ``said``) and in a child process, as a user
  runs it (``run_drill``, ``spawn_drill``); the grader in a child (``run_grader``, ``collect_tests``);
- rich consoles of a known size for autograd_drill.cli to print to (``console``, ``use_consoles``), views as
  text (``drawn``, ``shown``), the human report of a --json verdict (``human_report``), a one-line
  refusal (``one_line_error``);
- the correct engines of tests/alternatives/ (``ALTERNATIVES``, ``load``, ``by_stem``);
- the history, from a test (``opened``, ``seed``, ``record_attempt``, ``sources``), a real small disk
  (``small_tmpfs``); what is made once per run of the suite and shared (``once_per_run``).

Beside it, by concept: tests/loop.py (the drill loop with a stand-in grader), tests/processes.py
(user code that misbehaves on purpose, and the processes of a grading), tests/terminal.py (drill in a
pseudo-terminal), tests/platforms.py (other platforms, simulated), tests/mutants.py (the classic bugs). Fixtures (DRILL_HOME isolation, the clock, the
history, the warm grading runner, the grading limits) are in tests/conftest.py.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import pytest
import typer.testing
from rich.console import Console
from typer.testing import CliRunner, Result

from autograd_drill import cli
from autograd_drill.commands.common import Uncropped
from autograd_drill.grader.catalog import load_catalog
from autograd_drill.grader.verdict import GradeResult
from autograd_drill.interview.bank import Question, load_bank
from autograd_drill.reference import ENGINE
from autograd_drill.store.history import History
from autograd_drill.store.paths import history_path
from autograd_drill.views.report import grade_report

# ---------------------------------------------------------------------------- where things are

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ENGINE
REFERENCE_SOURCE = REFERENCE.read_text(encoding="utf-8")
CATALOG = load_catalog()
BANK = load_bank()
"""The interview's question bank (drills/interview/questions.toml)."""
T0 = 1_800_000_000.0
"""Fri 2027-01-15 08:00 UTC: where the tests' MockClock starts."""
DAY = 86_400.0


def about(target_ids: set[str]) -> tuple[Question, ...]:
    """The questions of the bank that go with any of these targets."""
    return tuple(q for q in BANK.questions if q.target in target_ids)


# ---------------------------------------------------------------------------- drill, in process

SHELL_DETECTION_OFF = "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"
"""typer's setting that makes the completion options take the shell they name instead of detecting
it, read as it builds the command."""
_build_command = typer.testing._get_command


@functools.cache
def _built(app: typer.Typer, shell_detection_off: bool) -> Any:
    return _build_command(app)


def _command(app: typer.Typer) -> Any:
    return _built(app, bool(os.environ.get(SHELL_DETECTION_OFF)))


typer.testing._get_command = _command
"""typer's CliRunner builds drill's click command from the app at every invoke, reading each of its
commands' signatures (some 10 ms a call, a third of a quick command's time in process); built once per
process here (once for each value of SHELL_DETECTION_OFF, the one setting the build reads). The same
command each time: what it holds is fixed when cli.py is imported (the functions, options and
defaults), and what a test changes (the environment, the clock, the consoles, the grader) is read when
a command runs."""
RUNNER = CliRunner()


def drill(*args: str, code: int | None = 0, input: str | None = None, env: Mapping[str, str] | None = None) -> Result:
    """``drill ARGS`` in process, through typer's CliRunner; asserts the exit status (None: any)."""
    result = RUNNER.invoke(cli.app, list(args), input=input, env=env)
    if code is not None:
        assert result.exit_code == code, (
            f"drill {' '.join(args)} exited {result.exit_code}:\n{result.output}\n{result.exception!r}"
        )
    return result


def refused(*args: str, code: int = 2) -> Result:
    """``drill ARGS`` in process, refused with exit status ``code``: no exception but the exit's (a
    traceback in a user's terminal), and none printed. For a refusal that comes before any grading or
    process of drill's own, where the real process is not what the test is about."""
    result = drill(*args, code=code)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    return result


def said(result: Result) -> str:
    """Everything printed (stdout and stderr), whitespace collapsed."""
    return " ".join(result.output.split())


def console(width: int = 500, height: int | None = None, stderr: bool = False) -> Console:
    """A rich Console of a fixed size, without highlighting, drawing as the tool's own in a terminal
    (drills/commands/common.py ``Uncropped``: a path too long for the line is not cropped): what it
    draws does not depend on the terminal the tests run in."""
    return Uncropped(stderr=stderr, highlight=False, width=width, height=height)


def drawn(renderable: object, width: int = 500) -> str:
    """What rich draws of ``renderable`` (a view) on a console ``width`` wide, line by line."""
    out = console(width=width)
    with out.capture() as seen:
        out.print(renderable)
    return seen.get()


def shown(renderable: object, width: int = 500) -> str:
    """``drawn``, whitespace collapsed: what a test looks for in a view whatever its wrapping."""
    return " ".join(drawn(renderable, width).split())


def human_report(verdict: dict[str, object], width: int = 100) -> str:
    """The report ``drill grade`` prints for ``verdict`` (its --json object), drawn in process from that
    object as ``drill status`` draws it from the history; whitespace collapsed. For a test that checks
    a real grading's JSON and its human report from one grading, not two."""
    return shown(grade_report(GradeResult.from_json(verdict)), width)


def one_line_error(text: str, *words: str) -> None:
    """A refusal in one line, the last, that holds each of ``words``, and no traceback (nor the name
    of an exception class drill catches)."""
    assert not re.search(r"Traceback|HistoryError|OverflowError|sqlite3\.[A-Z]", text), text  # sqlite3.Error
    assert text.count("error:") == 1 and "error:" in text.strip().splitlines()[-1], text
    for word in words:
        assert word in text, (word, text)


def use_consoles(monkeypatch: pytest.MonkeyPatch, width: int = 500, height: int | None = None) -> None:
    """autograd_drill.cli prints to fresh consoles: ``out`` of ``width`` x ``height``, ``err`` of ``width``.

    The consoles are replaced, not just COLUMNS set: a console created while COLUMNS was set (as
    under pytest-xdist) keeps that width for good."""
    monkeypatch.setattr(cli, "out", console(width, height))
    monkeypatch.setattr(cli, "err", console(width, stderr=True))


# ---------------------------------------------------------------------------- drill and the grader, in a child


def _env(env: Mapping[str, str] | None) -> dict[str, str] | None:
    """This process's environment with ``env`` on top (None: inherit it as it is)."""
    return None if env is None else {**os.environ, **env}


def run_drill(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path = ROOT, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``drill ARGS`` in a real child process, as a user would run it; ``env`` is added to ours."""
    return subprocess.run(
        [sys.executable, "-m", "autograd_drill", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(env),
    )


def drill_imports(*args: str, ok: tuple[int, ...] = (0,)) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``python -X importtime -m autograd_drill ARGS`` in a child, as a user runs it (its exit status one of
    ``ok``): what it did, and the modules it imported (their full names)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograd_drill", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in ok, done.stdout + done.stderr[-3000:]
    return done, {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def spawn_drill(
    *args: str,
    env: Mapping[str, str] | None = None,
    stdout: int | IO[str] | None = subprocess.PIPE,
    stderr: int | IO[str] | None = subprocess.PIPE,
    new_session: bool = True,
) -> subprocess.Popen[str]:
    """``drill ARGS`` started in a child and left running; by default in a session of its own, as a
    terminal would run it (its signals are for it alone, and its process group can be killed whole)."""
    return subprocess.Popen(
        [sys.executable, "-m", "autograd_drill", *args],
        cwd=ROOT,
        env=_env(env),
        stdout=stdout,
        stderr=stderr,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=new_session,
    )


GRADER_TEST_LIMIT = "--test-timeout=60"
"""The grader's limit per test where a test runs it directly (its own default is the product's 5 s):
one a loaded machine cannot reach (tests/conftest.py, GRADING_LIMITS)."""


def run_grader(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m pytest grader ARGS`` in a child process, with GRADER_TEST_LIMIT."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "grader", "-p", "no:cacheprovider", GRADER_TEST_LIMIT, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(env),
    )


@functools.cache
def collect_tests(marker: str) -> tuple[str, ...]:
    """The grader tests of a target (``-m MARKER``) as the oracle names them (``test_x.py::test_y[case]``),
    collected once per process."""
    proc = run_grader("--collect-only", "-q", "-m", marker)
    return tuple(line.removeprefix("grader/") for line in proc.stdout.splitlines() if "::" in line)


# ---------------------------------------------------------------------------- correct engines in other styles

ALTERNATIVES = sorted((ROOT / "tests" / "alternatives").glob("*.py"))
"""The correct engines of tests/alternatives/ (tests/test_alternatives.py)."""


def load(path: Path) -> ModuleType:
    """The engine in ``path``, imported under a name of its own."""
    spec = importlib.util.spec_from_file_location(f"alternative_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def by_stem(stem: str) -> Path:
    """The alternative engine of that style (``book_habits``)."""
    return next(p for p in ALTERNATIVES if p.stem == stem)


TORCH_AT_COLLECTION = pytest.StashKey[bool]()
"""Whether this test process had imported torch by the end of its collection (tests/conftest.py sets
it, tests/test_suite_cost.py reads it)."""


def once_per_run(folder: Path, name: str, make: Callable[[], dict[str, object]]) -> dict[str, object]:
    """``make()``'s result (JSON), made once per run of the suite and kept in ``folder`` (shared by
    pytest-xdist's workers: tests/conftest.py, ``run_folder``): the first process to ask makes it
    while the others wait on a lock, then read it. Where there is no ``fcntl`` (Windows), each
    process makes its own."""
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        except ImportError:  # pragma: no cover - Windows
            pass
        if not done.exists():
            partial = done.with_suffix(".partial")
            partial.write_text(json.dumps(make()), encoding="utf-8")
            partial.replace(done)
        return json.loads(done.read_text(encoding="utf-8"))


def without_torch(folder: Path) -> dict[str, str]:
    """An environment (ours, and a PYTHONPATH) in which ``import torch`` fails: to prove a run never imports it."""
    fake = folder / "torch"
    fake.mkdir(parents=True, exist_ok=True)
    (fake / "__init__.py").write_text("raise ImportError('torch imported during a replayed check')\n")
    return {**os.environ, "PYTHONPATH": str(folder)}


def digest_of(path: Path) -> str:
    """The SHA-256 of a file's bytes: to tell that a test left it exactly as it was."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextmanager
def small_tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of ``size`` (``256k``) mounted at ``mount`` (made here), unmounted after; the
    test is skipped where it cannot be mounted (root on Linux only)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux")
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def record_attempt(
    store: History,
    target: str,
    seconds: float,
    at: float,
    outcome: str = "passed",
    assisted: bool = False,
    rung: str = "recall",
    splits: Sequence[str] = (),
):
    """A finished attempt in the history, as if drilled at ``at`` on ``rung``: passed in ``seconds`` (a
    split of ``seconds`` for each of ``splits``, by default its target), or given up after them; the
    attempt, as it ended."""
    attempt = store.start(target, Path("/nowhere") / f"{target}.py", at, rung)
    if outcome == "passed":
        for split in splits or [target]:
            store.add_split(attempt, split, seconds)
    if assisted:
        store.mark_assisted(attempt)
    return store.finish(attempt, outcome, at + seconds)


# ---------------------------------------------------------------------------- the history, from a test


def home_in(folder: Path) -> dict[str, str]:
    """DRILL_HOME and DRILL_WORKSPACE under ``folder``: each test's under its tmp_path (tests/conftest.py,
    ``drill_home``), and, for a test that drives several histories at once, each drill's (in process or
    in a child) under a folder of its own."""
    return {"DRILL_HOME": str(folder / "drill-home"), "DRILL_WORKSPACE": str(folder / "solutions")}


def row(result: Result, first: str) -> list[str]:
    """The cells of the table row that starts with ``first``, as rich drew it."""
    for line in result.output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{result.output}")


def open_store() -> History:
    return History(history_path())


@contextmanager
def opened() -> Iterator[History]:
    """The history under DRILL_HOME, opened for the block and closed after it."""
    store = open_store()
    try:
        yield store
    finally:
        store.close()


def the_interview() -> tuple[Any, list[Any]]:
    """The one interview of the history under DRILL_HOME (its record), and the history's attempts."""
    from autograd_drill.interview.store import ensure_tables, interviews

    with opened() as store:
        ensure_tables(store.db)
        (record,) = interviews(store.db)
        return record, store.attempts()


def active():
    with opened() as store:
        return store.active()


def latest():
    with opened() as store:
        return store.attempts()[-1]


def sources(attempt=None) -> list[str]:
    """The sources graded of ``attempt`` (by default the one in progress; none: no source), as the
    history has them."""
    with opened() as store:
        attempt = store.active() if attempt is None else attempt
        return [s.source for s in store.submissions(attempt)] if attempt is not None else []


def seed(
    target: str, seconds: float, *, at: float, outcome: str = "passed", assisted: bool = False, rung: str = "recall"
) -> None:
    """A finished attempt in the history, as if drilled long ago."""
    store = open_store()
    try:
        record_attempt(store, target, seconds, at, outcome, assisted, rung)
    finally:
        store.close()
