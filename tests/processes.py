"""User code that misbehaves on purpose (``in_unbroadcast``, ``hangs``), and the processes of a
grading: found (``processes``, ``descendants``, ``naming``), waited for (``wait_until``, ``Lines``) and
ended (``end_and_check``), with the bounds a loaded machine needs. Shared by the tests of how drill
starts, stops and cleans up after a grading."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import REFERENCE_SOURCE, drill

# ---------------------------------------------------------------------------- solutions that misbehave

UNBROADCAST_BODY = "    grad = np.asarray(grad, dtype=np.float64)\n"
"""The first line of the reference's unbroadcast: code put after it runs at every call."""


def in_unbroadcast(code: str) -> str:
    """The reference, with ``code`` run at the start of every call of unbroadcast."""
    assert REFERENCE_SOURCE.count(UNBROADCAST_BODY) == 1
    return REFERENCE_SOURCE.replace(
        UNBROADCAST_BODY, UNBROADCAST_BODY + "".join(f"    {line}\n" for line in code.splitlines())
    )


def hangs(started: Path) -> str:
    """An unbroadcast that starts a child process of its own, says it is running, and loops for good."""
    return in_unbroadcast(
        "import subprocess, sys, pathlib\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {str(started)!r}])\n"
        f"pathlib.Path({str(started)!r}).write_text('running')\n"
        "while True:\n"
        "    pass"
    )


HANGS_FOR_GOOD = {"DRILL_TEST_TIMEOUT": "600", "DRILL_CHECK_TIMEOUT": "600"}
"""Limits that never stop the hang: only the end of the command can."""


def start_drill(tmp_path: Path, source: str) -> Path:
    """``drill start unbroadcast`` (user state under tmp_path, tests/conftest.py), then a save of ``source``.

    In process: a start grades nothing, and the commands under test (check, watch) run in real children
    after it, on the real clock as it does. A successful start in a real child is tested by
    test_robustness's test_corrupt_history_is_moved_aside_and_the_user_told."""
    drill("start", "unbroadcast")
    path = tmp_path / "solutions" / "unbroadcast.py"
    path.write_text(source)
    return path


# ---------------------------------------------------------------------------- the processes of a grading

GONE_WITHIN = 30.0
"""Seconds for every process of a grading to be gone after its command is: on an idle machine it takes
well under a second, but a machine running other suites at once was seen to need more than 10."""
STARTED_WITHIN = 120.0
"""Seconds for the user's code to start running (a cold interpreter, the warm worker's imports)."""


class Lines(list[str]):
    """The lines ``proc`` prints, as they come, read by a thread: a wait on them never blocks on a
    read (a watch that hangs prints nothing, and the wait must still end)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        super().__init__()
        assert proc.stdout is not None
        self.reader = threading.Thread(target=lambda: self.extend(iter(proc.stdout.readline, "")), daemon=True)
        self.reader.start()

    def text(self) -> str:
        """All it printed, once it has ended."""
        self.reader.join(timeout=GONE_WITHIN)
        return "".join(self)


def processes() -> dict[int, tuple[int, str, str]]:
    """Every live process: pid -> (parent pid, state, command line). Zombies are dead: left out."""
    listing = subprocess.run(
        ["ps", "-ww", "-A", "-o", "pid=,ppid=,stat=,command="], capture_output=True, text=True, check=True
    ).stdout
    table = {}
    for line in listing.splitlines():
        fields = line.split(None, 3)
        if len(fields) >= 3 and not fields[2].startswith("Z"):
            table[int(fields[0])] = (int(fields[1]), fields[2], fields[3] if len(fields) > 3 else "")
    return table


def descendants(root: int) -> set[int]:
    table = processes()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, (ppid, _, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def naming(text: str) -> set[int]:
    """The processes whose command line contains ``text``."""
    return {pid for pid, (_, _, command) in processes().items() if text in command}


def own_temp(tmp_path: Path) -> Path:
    """The test's own temporary folder, every process's ``TMPDIR`` that the test starts (tests/conftest.py's
    ``drill_home`` makes it, empty): what drill leaves there is the test's to see."""
    return tmp_path / "temp"


def wait_until(condition: Callable[[], object], seconds: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail the test with ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {seconds:g} s")
        time.sleep(0.05)


def end_and_check(proc: subprocess.Popen[str], how: signal.Signals, started: Path, at_least: int) -> str:
    """Once the user's code runs, end ``proc`` with ``how``; then every process of the grading must go.
    A test that fails here kills what is left (``reap``): a grading left looping would load the machine
    for the other tests, for as long as its limits (HANGS_FOR_GOOD: 10 minutes)."""
    family: set[int] = set()
    try:
        wait_until(started.exists, STARTED_WITHIN, "the user's code did not start")
        family = descendants(proc.pid) | naming(str(started))
        assert len(family) >= at_least, f"expected the grading's processes, found {family}"
        os.kill(proc.pid, how)
        output, errors = proc.communicate(timeout=GONE_WITHIN)
        wait_until(
            lambda: not (family | naming(str(started))) & set(processes()),
            GONE_WITHIN,
            f"processes of the grading outlived drill ({how.name}): {sorted(family & set(processes()))}",
        )
    except BaseException:
        reap(proc, family | naming(str(started)))
        raise
    assert "Traceback" not in errors, errors
    return output


def reap(proc: subprocess.Popen[str], others: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    """Kill ``proc`` (its process group, when it leads one), its descendants and ``others``, if alive."""
    for pid in {proc.pid} | descendants(proc.pid) | set(others):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if proc.poll() is None:
        proc.wait()
