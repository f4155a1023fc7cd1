"""One checkout's grader, as ``drill watch`` runs it, serving gradings to benchmarks/bench.py.

    python benchmarks/server.py        # cwd and PYTHONPATH: the checkout whose grader to measure

Started by ``Side`` in the checkout under test (this file may be another checkout's: it imports only
that checkout's grader), so that two checkouts are measured side by side, interleaved, on the same
saves. One request per stdin line, ``{"engine": path, "targets": [ids], "runner": "fork"}``, one reply
line each, ``{"first": s, "verdict": s, "failed": bool}``: seconds from the request to the grading's
first failure (grade_file's ``on_failure``, what a watch shows at once; None: none) and to its verdict
(None with ``"stop_at_first": true``, a failing grading being cancelled at its first failure). An
older grader may lack ``on_failure``: its first failure is told with its verdict; or a runner: the
reply is ``{"missing": "..."}``.

Runners: ``fork`` the warm worker of ``drill watch`` on Linux (WarmRunner), ``spawn`` the
interpreters started ahead of time of macOS and Windows (SpawnRunner), ``fresh`` a fresh interpreter
(``drill check``, ``drill grade``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PY = sys.executable


def serve() -> None:
    from autograd_drill.grader.catalog import load_catalog
    from autograd_drill.grader.process import Cancelled, run_in_subprocess
    from autograd_drill.grader.run import grade_file
    from autograd_drill.grader.worker import SpawnRunner, WarmRunner

    catalog = load_catalog()
    made: dict[str, Any] = {"fresh": run_in_subprocess}
    kinds: dict[str, Callable[[], Any]] = {"fork": WarmRunner, "spawn": SpawnRunner}
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        kind = request.get("runner", "fork")
        if kind not in made:
            made[kind] = kinds[kind]()
        runner = made[kind]
        try:
            targets = [catalog.get(t) for t in request["targets"]]
        except KeyError as exc:  # an older catalog
            print(json.dumps({"missing": f"no target {exc}"}), flush=True)
            continue
        first: list[float] = []
        stop = bool(request.get("stop_at_first")) and hasattr(runner, "cancel")
        start = time.perf_counter()

        def on_failure(_: object, first: list[float] = first, stop: bool = stop, runner: Any = runner) -> None:
            first.append(time.perf_counter() - start)  # noqa: B023 - called within this iteration only
            if stop:
                runner.cancel()

        verdict: float | None = None
        failed = True
        try:
            try:  # a grader with grade_file's on_failure (issue 25); an older one: the verdict only
                result = grade_file(Path(request["engine"]), targets, runner=runner, on_failure=on_failure)
            except TypeError:
                result = grade_file(Path(request["engine"]), targets, runner=runner)
                if not result.passed:
                    first.append(time.perf_counter() - start)
            verdict, failed = time.perf_counter() - start, not result.passed
        except Cancelled:
            pass
        print(json.dumps({"first": first[0] if first else None, "verdict": verdict, "failed": failed}), flush=True)
    for runner in made.values():
        getattr(runner, "close", lambda: None)()


class Side:
    """A checkout under measure: its grader's server (``serve``) and its ``drill`` commands."""

    def __init__(self, name: str, root: Path) -> None:
        self.name, self.root = name, root.resolve()
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.farm: Path | None = None
        if self.root != Path(__file__).resolve().parents[1]:
            # Another checkout: its package first on the path (an editable install maps the package's
            # folders by name, so the checkout itself on PYTHONPATH would import this one's again).
            import tempfile

            from benchmarks.commands import farm

            self.farm = farm(self.root, Path(tempfile.mkdtemp(prefix=f"drill-bench-{name}-")))
            self.env["PYTHONPATH"] = str(self.farm)
        where = self.run_text(
            "-c", "import autograd_drill, pathlib; print(pathlib.Path(autograd_drill.__file__).resolve())"
        )
        if Path(where).parents[1] != self.root:  # drills/__init__.py of the checkout
            raise SystemExit(f"the {name} side imports the tool from {where}, not from {self.root}")
        self.proc: subprocess.Popen[str] | None = None
        self.failed: set[str] = set()

    def grade(self, engine: Path, targets: list[str], runner: str = "fork", stop_at_first: bool = False) -> dict:
        """A grading by this checkout's grader, timed in its server (started at the first)."""
        if self.proc is None:
            self.proc = subprocess.Popen(
                [PY, str(Path(__file__).resolve())],
                cwd=self.root,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready"
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = {"engine": str(engine), "targets": targets, "runner": runner, "stop_at_first": stop_at_first}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError(f"the {self.name} grader's server ended")
        return json.loads(reply)

    def run_text(self, *args: str) -> str:
        """What ``python ARGS`` prints, run as ``run`` runs it (an error if it fails)."""
        done = subprocess.run([PY, *args], cwd=self.root, env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the {self.name} side ({self.root}) fails: {done.stderr.strip()[-500:]}")
        return done.stdout.strip()

    def run(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, ok: int = 1) -> float | None:
        """Seconds of ``python ARGS`` run in this checkout (its ``drill``: ``-m autograd_drill ...``); None (no
        figure) when it exits with a status above ``ok`` (1: a failed verdict, a refusal): a checkout
        without that command or option, said once on stderr."""
        start = time.perf_counter()
        done = subprocess.run([PY, *args], cwd=cwd or self.root, env={**self.env, **(env or {})}, capture_output=True)
        seconds = time.perf_counter() - start
        if 0 <= done.returncode <= ok:
            return seconds
        said = " ".join(args)
        if said not in self.failed:
            self.failed.add(said)
            lines = [line.strip(" │") for line in done.stderr.decode("utf-8", "replace").splitlines()]
            why = next((line for line in reversed(lines) if any(c.isalpha() for c in line)), "")
            print(f"({self.name}: python {said} exited {done.returncode}: {why}: no figure)", file=sys.stderr)
        return None

    def close(self) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self.proc = None
        if self.farm is not None:
            import shutil

            shutil.rmtree(self.farm, ignore_errors=True)  # links only: the checkout is untouched
            self.farm = None


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())  # the checkout under measure, before this file's own folder
    serve()
