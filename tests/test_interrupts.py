"""Ctrl-C anywhere (issue 24, point 3): whatever the command and the moment, imports included, a
SIGINT ends ``drill`` with one line ("interrupted"), exit status 130, no traceback; the grading it
started goes with it, and the history and the solution file are as they were.

Real children, as a user runs them. The delays are counted from the moment the interpreter reaches
drill's own code (``-X importtime`` names ``autograd_drill.entry`` once it is imported): before that, a
SIGINT lands in Python's own start-up (site, about 15 ms), out of reach of any program, where
Python prints a traceback of its own. From there on the assertion holds at any delay: in the
imports (NumPy, typer, the grader: the first half-second), while grading, while printing.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import psutil
import pytest

from autograd_drill.store.attempt import Attempt
from autograd_drill.store.history import History
from tests.processes import (
    GONE_WITHIN,
    HANGS_FOR_GOOD,
    STARTED_WITHIN,
    descendants,
    in_unbroadcast,
    naming,
    processes,
    wait_until,
)
from tests.support import ROOT, drill, home_in

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX signals sent to a child")

DELAYS = (0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5)
"""Seconds after the interpreter reached drill's code: the imports, then the command's work."""
REACHED = "| autograd_drill.entry"
"""The ``-X importtime`` line printed once drills/entry.py is imported (main runs next)."""


class Interrupted(NamedTuple):
    code: int
    """The exit status."""
    errors: list[str]
    """The lines of its stderr, the import timings left out."""
    output: str
    """Its stdout."""
    sent: bool
    """Whether a SIGINT was sent: False when it had ended before the delay was up."""


def interrupt(args: list[str], delay: float, env: dict[str, str] | None = None, times: int = 1) -> Interrupted:
    """``drill ARGS`` in a child, sent SIGINT ``delay`` s after it reached drill's code (``times``
    SIGINTs, 2 ms apart), unless it has ended by then. Every wait on it is bounded: a child that
    neither ends nor closes its output fails the test (its process group killed), never hangs it."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "autograd_drill", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )
    reached = threading.Event()
    errors: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("import time:"):
                if REACHED in line:
                    reached.set()
                continue
            errors.append(line.rstrip("\n"))
        reached.set()  # the child ended before: the assertions below say how

    output: list[str] = []

    def read_stdout() -> None:
        assert proc.stdout is not None
        output.append(proc.stdout.read())

    readers = [threading.Thread(target=read, daemon=True) for read in (read_stderr, read_stdout)]
    for reader in readers:
        reader.start()
    sent = False
    try:
        assert reached.wait(STARTED_WITHIN), "drill never reached its own code"
        time.sleep(delay)
        for _ in range(times):
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGINT)
                sent = True
                time.sleep(0.002)
        try:
            proc.wait(GONE_WITHIN)
        except subprocess.TimeoutExpired:  # what it said meanwhile ("Exception ignored in", say), and where it waits
            raise AssertionError(
                f"drill {' '.join(args)} ran on after its SIGINT, in {waiting(proc.pid)}:\n" + "\n".join(errors)
            ) from None
        for reader in readers:
            reader.join(GONE_WITHIN)
        assert not any(r.is_alive() for r in readers), "drill ended but its output stayed open (a child kept it?)"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return Interrupted(proc.returncode, errors, "".join(output), sent)


def waiting(pid: int) -> str:
    """Where a process and its descendants wait (their states and kernel wait channels), for a failure's message."""
    table = processes()
    said = []
    for member in sorted(({pid} | descendants(pid)) & set(table)):
        _, state, command = table[member]
        try:
            wchan = Path(f"/proc/{member}/wchan").read_text(encoding="utf-8")
        except OSError:  # gone meanwhile, or no /proc
            wchan = "?"
        said.append(f"{member} {state} {wchan} {command[:120]}")
    return "; ".join(said) or "(gone)"


def assert_interrupted(code: int, errors: list[str], output: str, sent: bool = True, finishes: bool = False) -> None:
    """One line and 130. A command that ``finishes`` this fast may have ended first: then its own
    status and no word; or, when the signal came in the interpreter's very last step, which gives
    SIGINT back its default action, a death by SIGINT, its output complete (a shell shows 130). One
    that does not finish was ``sent`` its SIGINT."""
    assert not any("Traceback" in line for line in errors), "\n".join(errors)
    assert sent or finishes, f"drill ended before its SIGINT was due: exit {code}\n" + "\n".join(errors)
    if finishes and code in (0, -signal.SIGINT) and not errors:
        return
    assert (code, errors) == (130, ["interrupted"]), f"exit {code}\n" + "\n".join(errors) + "\n" + output[-2000:]


@pytest.mark.parametrize("args", [["stats"], ["chart"], ["list"], ["grade", "--help"]], ids=" ".join)
def test_a_ctrl_c_in_a_quick_command_is_one_line(args, tmp_path):
    """Commands that load NumPy, plotext, typer and rich and answer within a second or so: a Ctrl-C
    during their imports or their work is "interrupted"; once they are done, their own status.

    The delays go up until the command ends before its SIGINT is due: a longer delay would only run
    it to its end again (on a busy machine the command runs longer, and more delays land in it)."""
    codes = []
    for delay in DELAYS:
        runs = [interrupt(args, delay) for _ in range(2 if args == ["stats"] else 1)]
        for run in runs:
            assert_interrupted(*run, finishes=True)
            codes.append(run.code)
        if not any(run.sent for run in runs):
            break
    assert 130 in codes, codes  # the first ones came while it was still importing


LANES = 2
"""How many drills a test interrupts at once, each in a lane of its own (a history, a file), its
delays one after another: the lanes' waits overlap. Few, so that a delay still lands where it
did with one drill at a time: each drill's imports meet one other's, not a burst of them."""


def in_lanes(delays: Sequence[float], lanes: int = LANES) -> list[list[float]]:
    """``delays`` dealt to ``lanes`` lanes, the longest first to the lane with the least so far, so that
    the lanes take about as long; each lane's delays in their order in ``delays``."""
    dealt: list[list[float]] = [[] for _ in range(lanes)]
    for delay in sorted(delays, reverse=True):
        min(dealt, key=sum).append(delay)
    return [sorted(lane, key=list(delays).index) for lane in dealt]


def at_once(*calls: Callable[[], object]) -> None:
    """Run ``calls`` at once, each in a thread of its own; the first failure is raised once all have ended."""
    with ThreadPoolExecutor(len(calls)) as pool:
        for done in [pool.submit(call) for call in calls]:
            done.result()


def hanging_attempt(folder: Path) -> tuple[Path, str, dict[str, str]]:
    """An attempt at unbroadcast in progress, its user state under ``folder``, whose unbroadcast never
    returns: any check of it is still grading when the signal comes. Each grading that runs it writes
    its process id under ``folder`` (``gradings``): drill check's interpreter does not name the file on
    its command line. Its file, the file's source, and the environment that has a drill use it."""
    home = home_in(folder)
    drill("start", "unbroadcast", env=home)
    path = folder / "solutions" / "unbroadcast.py"
    pids = str(folder / "gradings")
    source = in_unbroadcast(
        f"import os, time\nopen({pids!r}, 'a').write(f'{{os.getpid()}}\\n')\nwhile True:\n    time.sleep(0.01)"
    )
    path.write_text(source, encoding="utf-8")
    return path, source, {**home, **HANGS_FOR_GOOD}


def attempt_in(home: dict[str, str]) -> Attempt | None:
    """The attempt in progress in the history of ``home``."""
    store = History(Path(home["DRILL_HOME"]) / "history.sqlite3")
    try:
        return store.active()
    finally:
        store.close()


def gradings(path: Path) -> set[int]:
    """The processes of the gradings of ``path`` alive now: those naming it, those that ran it."""
    ran = path.parent.parent / "gradings"
    pids = {int(line) for line in ran.read_text().split()} if ran.exists() else set()
    return naming(str(path)) | {pid for pid in pids if _alive(pid)}


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


CHECK_DELAYS = [d for delay in (*DELAYS, 2.5, 4.0) for d in [delay] * (2 if delay < 1.0 else 1)]
"""The last ones well into the grading's tests; twice each in the imports and the grading's start,
where the moment counts."""


def test_a_ctrl_c_in_drill_check_ends_its_grading_and_loses_nothing(tmp_path):
    """Each of CHECK_DELAYS, in LANES lanes: each lane's history keeps its attempt, its file its source."""
    lanes = [(hanging_attempt(tmp_path / f"lane-{k}"), delays) for k, delays in enumerate(in_lanes(CHECK_DELAYS))]
    before = [attempt_in(env) for (_, _, env), _ in lanes]

    def interrupted(env: dict[str, str], delays: list[float]) -> None:
        for delay in delays:
            assert_interrupted(*interrupt(["check"], delay, env))

    at_once(*(functools.partial(interrupted, env, delays) for (_, _, env), delays in lanes))
    for ((path, source, env), _), then in zip(lanes, before, strict=True):
        wait_until(lambda path=path: not gradings(path), GONE_WITHIN, "a grading outlived drill check")
        after = attempt_in(env)
        assert then is not None and after is not None and after.id == then.id and after.splits == then.splits
        assert path.read_text(encoding="utf-8") == source
        assert drill("status", env=env).exit_code == 0


def test_a_ctrl_c_in_drill_grade_ends_its_grading(tmp_path):
    """A busy loop up to a second in, then a loop that sleeps (the grading ends alike; a busy one
    would burn the 3 s a core, beside the suite's other tests); in LANES lanes, a file each."""
    busy, sleeping = (
        in_unbroadcast("while True:\n    pass"),
        in_unbroadcast("import time\nwhile True:\n    time.sleep(0.01)"),
    )
    sources = {0.0: busy, 0.3: busy, 1.0: busy, 3.0: sleeping}

    def interrupted(solution: Path, delays: list[float]) -> None:
        for delay in delays:
            solution.write_text(sources[delay], encoding="utf-8")
            assert_interrupted(*interrupt(["grade", str(solution), "-t", "unbroadcast"], delay, HANGS_FOR_GOOD))
            wait_until(lambda: not naming(str(solution)), GONE_WITHIN, "a grading outlived drill grade")

    lanes = in_lanes(list(sources))
    at_once(*(functools.partial(interrupted, tmp_path / f"solution-{k}.py", d) for k, d in enumerate(lanes)))


def test_a_second_ctrl_c_while_leaving_changes_nothing(tmp_path):
    """Two SIGINTs in a row (an impatient user): still one line and 130; in LANES lanes."""
    lanes = [
        (hanging_attempt(tmp_path / f"lane-{k}"), delays) for k, delays in enumerate(in_lanes([0.0, 0.2, 0.5, 2.0]))
    ]

    def interrupted(path: Path, env: dict[str, str], delays: list[float]) -> None:
        for delay in delays:
            assert_interrupted(*interrupt(["check"], delay, env, times=2))
        wait_until(lambda: not gradings(path), GONE_WITHIN, "a grading outlived drill check")

    at_once(*(functools.partial(interrupted, path, env, delays) for (path, _, env), delays in lanes))


def test_a_sigint_ignored_by_whoever_started_drill_stays_ignored(tmp_path):
    """``nohup drill ...``, a background job of a script: SIGINT ignored at start-up is not taken over."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograd_drill", "stats"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # noqa: PLW1509 - a test's child
    )
    for _ in range(5):
        time.sleep(0.1)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGINT)
    output, errors = proc.communicate(timeout=GONE_WITHIN)
    assert proc.returncode == 0 and "interrupted" not in errors and "unbroadcast" in output, errors


INTERRUPTED_IMPORT = """
import sys
from autograd_drill import cli, entry


def chart() -> None:  # what an import cut by a Ctrl-C in a class's creation raised (rich.table's, in drill chart)
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        raise RuntimeError("Error calling __set_name__ on 'Field' instance '_cells'") from exc


cli.main = chart
sys.argv = ["drill", "chart"]
entry.main()
"""


def drill_as_scripted(script: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``script`` (drill's entry point, its command replaced) in a real child, its user state under ``home``."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, **home_in(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_ctrl_c_that_surfaced_as_another_error_is_one_line_too(tmp_path):
    """The Ctrl-C of test_a_ctrl_c_in_a_quick_command_is_one_line, made to come when it did once:
    inside an import's class creation, which re-raises it as a RuntimeError. Another error than a
    Ctrl-C's still gets its traceback (entry.from_interrupt)."""
    done = drill_as_scripted(INTERRUPTED_IMPORT, tmp_path)
    assert (done.returncode, done.stderr) == (130, "interrupted\n"), done.stderr
    from autograd_drill.entry import from_interrupt

    try:
        raise RuntimeError("not a Ctrl-C") from ValueError("its cause")
    except RuntimeError as plain:
        assert not from_interrupt(plain)


SWALLOWED_INTERRUPT = """
import sys
import weakref
from autograd_drill import cli, entry


class Lock:
    pass


def stats() -> None:  # a Ctrl-C in a callback Python runs for itself (an import's module lock, in drill stats)
    def callback(_: object) -> None:
        raise KeyboardInterrupt

    lock = Lock()
    ref = weakref.ref(lock, callback)
    del lock
    for _ in range(10**6):  # what the command would go on doing
        pass
    print("the command went on to its end", ref)


cli.main = stats
sys.argv = ["drill", "stats"]
entry.main()
"""


def test_a_ctrl_c_python_would_print_and_forget_is_one_line_too(tmp_path):
    """The Ctrl-C of test_a_ctrl_c_in_a_quick_command_is_one_line, made to come when it did once: in
    an import's module lock's callback, where Python prints "Exception ignored in", a traceback, and
    goes on (drill stats then ended 0). It is a Ctrl-C all the same (entry._unraisable)."""
    done = drill_as_scripted(SWALLOWED_INTERRUPT, tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (130, "interrupted\n", ""), done.stderr
