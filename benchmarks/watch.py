"""A real ``drill watch``, saved to and timed from outside (benchmarks/bench.py), and the engines saved.

``Watch`` runs ``drill watch`` of a checkout (its own DRILL_HOME under a temporary folder) on a new
attempt, and ``save`` times a save to the verdict it prints (the footer of each verdict,
drills/views/report.py: "graded ... after the save").
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from autograd_drill.reference import ENGINE

PAUSE = 0.3
"""Seconds between a verdict and the next save: a user does not save twice within the debounce window."""

TANH_VJP = "            self.grad += (1.0 - out.data**2) * out.grad\n"
UNBROADCAST_FIRST = "    grad = np.asarray(grad, dtype=np.float64)\n"
SAME_FIRST = (
    UNBROADCAST_FIRST,
    '    grad = np.asarray(grad, dtype="float64")\n',
    "    grad = np.asarray(grad, np.float64)\n",
)
"""The first line of the reference's unbroadcast, and two others that do the same."""


def changed_unbroadcast(save: int) -> str:
    """The reference with tanh wrong (so that a full drill goes on), and ``unbroadcast`` changed at
    every save, still right, on the same lines: every target that may call it is graded again."""
    source = ENGINE.read_text(encoding="utf-8").replace(TANH_VJP, TANH_VJP.replace("* out.grad", "* out.grad * 2"))
    assert source.count(UNBROADCAST_FIRST) == 1
    return source.replace(UNBROADCAST_FIRST, SAME_FIRST[save % len(SAME_FIRST)])


class Watch:
    """``drill watch`` on a new attempt at ``target``, the file saved as ``source`` (None: the stub)
    before it starts; ``save`` times a save to the verdict shown."""

    def __init__(self, home: Path, target: str, env: dict[str, str], cwd: Path, source: str | None = None) -> None:
        env = {**env, "DRILL_HOME": str(home / "home"), "DRILL_WORKSPACE": str(home / "ws"), "COLUMNS": "400"}
        drill = [sys.executable, "-m", "autograd_drill"]
        subprocess.run([*drill, "abandon"], env=env, cwd=cwd, capture_output=True)
        subprocess.run([*drill, "start", target], env=env, cwd=cwd, capture_output=True, check=True)
        self.path = home / "ws" / f"{target}.py"
        self.stub = self.path.read_text(encoding="utf-8")
        if source is not None:
            self.path.write_text(source, encoding="utf-8")
        self.proc = subprocess.Popen(
            [*drill, "watch"], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.verdicts: list[float] = []
        self.event = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.event.wait(180):  # the first grading, at start
            self.close()  # no watcher left behind
            raise RuntimeError(f"drill watch {target} gave no first verdict within 180 s")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if "graded" in line and "after the save" in line:
                self.verdicts.append(time.perf_counter())
                self.event.set()
            elif "graded in" in line:  # the first verdict, at the start: no save asked for it
                self.event.set()

    def save(self, text: str) -> float:
        """Seconds from writing ``text`` to the verdict shown (a pause first, as a user's)."""
        self.event.clear()
        time.sleep(PAUSE)
        saved = time.perf_counter()
        self.path.write_text(text, encoding="utf-8")
        if not self.event.wait(120):
            raise RuntimeError("drill watch gave no verdict within 120 s")
        return self.verdicts[-1] - saved

    def close(self) -> None:
        """End the watch (SIGTERM: it ends its grading first), killed if it has not ended 10 s later."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
