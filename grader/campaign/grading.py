"""Grading the mutants: each graded like a user's solution, in parallel, through a warm runner where there is one."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from autograd_drill.grader.campaign.mutate import Mutant
from autograd_drill.grader.catalog import Catalog
from autograd_drill.grader.process import GRADER, Runner, grading_env, run_in_subprocess
from autograd_drill.grader.run import Limits, grade_file
from autograd_drill.grader.suite import Suite
from autograd_drill.grader.verdict import GradeError, TargetResult

LIMITS = Limits(test_seconds=2.0, check_seconds=60.0, memory_mb=4096)
"""A mutant that loops forever dies in 2 s a test (and then its target's other tests are not run)."""


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    killed_by: tuple[str, ...]
    """The targets that failed (empty: the mutant survived)."""
    first_failure: str = ""
    """The first line of the first failure message of the first target that failed."""
    seconds: float = 0.0
    timed_out: bool = False
    """Killed only by a time limit, at the default limits too."""

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)


WORKER = (
    "import sys\n"
    "from pathlib import Path\n"
    "try:\n"
    "    import torch  # noqa: F401\n"
    "except ImportError:\n"
    "    pass\n"
    "from autograd_drill.grader.worker import serve\n"
    "serve(sys.stdin, sys.stdout, (Path(sys.argv[1]), Path(sys.argv[2])) if sys.argv[1:] else None)\n"
)
"""autograd_drill.grader.worker with torch imported before it forks: a test the recording does not answer asks live
torch, and importing it in every grading (1-2 s) would eat the 2 s a test may take. Given a pack's tests
and recording (``-c WORKER TESTS RECORDING``), it has imported and read those too."""


def warm_runner(suite: Suite | None = None) -> tuple[Runner, Callable[[], None]]:
    """The warm fork runner where there is one (Linux), else a fresh interpreter per grading; with
    ``suite``, a worker that has imported that pack's tests too."""
    if sys.platform.startswith("linux") and hasattr(os, "fork"):
        from autograd_drill.grader.worker import WarmRunner

        class TorchWarmRunner(WarmRunner):
            def start(self) -> None:
                self.proc = subprocess.Popen(
                    [sys.executable, "-c", WORKER, *([str(suite.tests), str(suite.recording)] if suite else [])],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    cwd=GRADER.parent,
                    env=grading_env(),
                    text=True,
                    start_new_session=True,
                )
                assert self.proc.stdout is not None
                if not self.proc.stdout.readline():
                    raise RuntimeError("the grading worker did not start")

        warm = TorchWarmRunner()
        try:
            warm.start()
        except (OSError, RuntimeError) as exc:
            print(f"campaign: no warm worker ({exc}); a fresh interpreter per grading", file=sys.stderr)
        else:
            return warm, warm.close
    return run_in_subprocess, lambda: None


def grade_mutant(
    mutant: Mutant, runner: Runner, catalog: Catalog, workdir: Path, suite: Suite | None = None
) -> Outcome:
    """Grade ``mutant`` at each of its targets (one grading, by ``suite``'s tests: a pack's; None, the
    grader's); killed if any of them fails. Each mutant is written to a fresh directory, so no
    bytecode cache can stand in for it."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / (suite.reference.name if suite else "engine.py")
        path.write_text(mutant.source, encoding="utf-8")
        targets = [catalog.get(t) for t in mutant.targets]
        try:
            result = grade_file(path, targets, label=mutant.id, runner=runner, limits=LIMITS, suite=suite)
            if any(_timed_out(result.get(t.id)) for t in targets):
                # Killed by the clock alone: make sure it is the mutant that hangs, not a loaded machine.
                result = grade_file(path, targets, label=mutant.id, runner=runner, limits=Limits(), suite=suite)
        except GradeError as exc:  # no verdict at all: the user would be told the file cannot be graded
            return Outcome(mutant, mutant.targets, f"no verdict: {exc}", time.perf_counter() - start)
    killed_by = tuple(t.id for t in targets if not result.get(t.id).passed)
    first = ""
    if killed_by:
        verdict = result.get(killed_by[0])
        first = verdict.failures[0].headline if verdict.failures else verdict.not_run_line or "failed"
    timed_out = bool(killed_by) and all(_timed_out(result.get(t)) for t in killed_by)
    return Outcome(mutant, killed_by, first, time.perf_counter() - start, timed_out)


def _timed_out(result: TargetResult) -> bool:
    """Failed only because a test ran past its time limit (and the others were then not run)."""
    stopped = [m for m in result.messages if "took longer than" in m or "ran past its time limit" in m]
    return not result.passed and len(stopped) == len(result.messages)


def run(
    mutants: Sequence[Mutant],
    catalog: Catalog,
    jobs: int = 2,
    progress: Callable[[int, int, Outcome], None] | None = None,
    suite: Suite | None = None,
) -> list[Outcome]:
    """Grade every mutant, ``jobs`` at a time (one warm worker per thread), by ``suite``'s tests (None:
    the grader's); outcomes in ``mutants``' order."""
    local = threading.local()
    closers: list[Callable[[], None]] = []
    lock = threading.Lock()

    def work(mutant: Mutant, workdir: Path) -> Outcome:
        if not hasattr(local, "runner"):
            local.runner, close = warm_runner(suite)
            with lock:
                closers.append(close)
        return grade_mutant(mutant, local.runner, catalog, workdir, suite)

    outcomes: dict[str, Outcome] = {}
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # inherited by the workers: no stale bytecode
    try:
        with tempfile.TemporaryDirectory(prefix="drill-campaign-") as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
            pending: set[Future[Outcome]] = {pool.submit(work, m, Path(tmp)) for m in mutants}
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        outcome = future.result()
                        outcomes[outcome.mutant.id] = outcome
                        if progress is not None:
                            progress(len(outcomes), len(mutants), outcome)
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    finally:
        for close in closers:
            close()
    return [outcomes[m.id] for m in mutants]
