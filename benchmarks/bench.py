"""The fast-feedback figures of issue 4, measured side by side in one run (machines here are noisy).

    python benchmarks/bench.py            # all figures
    python benchmarks/bench.py --quick    # fewer repetitions

(a) a one-shot `drill check` of one target, against `python -m pytest grader -m TARGET` with live torch
(b) `drill watch`: from a file save to the verdict shown, p50 and p95 over 20 saves
(c) `drill list`, against `python -c "import typer, rich"`
(d) the full grader run on the reference: wall time
(e) the free-memory drill's peak-memory ratio, when that drill exists
(f) one grading per save by each runner: the fork worker (Linux), interpreters started ahead of time
    (macOS, Windows), and a fresh interpreter per grading (drill check, drill grade)
(g) `drill watch` in a full drill against a drill of one target, side by side: save to verdict p50 when
    one function of a nearly correct engine changes (issue 13: only the targets whose code changed
    are graded again)

    python benchmarks/bench.py --only f   # just (f); --only g just (g)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from reference import ENGINE

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ENGINE
PY = sys.executable


def timed(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start


def interleaved(runs: int, **commands: Callable[[], float]) -> dict[str, list[float]]:
    """Run each measurement in turn, ``runs`` times, so that noise hits all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, measure in commands.items():
            times[name].append(measure())
    return times


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, round(q * (len(xs) - 1))))
    return xs[k]


def env_for(tmp: Path) -> dict[str, str]:
    return {**os.environ, "DRILL_HOME": str(tmp / "home"), "DRILL_WORKSPACE": str(tmp / "ws"), "PYTHONUNBUFFERED": "1"}


def bench_check(runs: int, tmp: Path, target: str) -> tuple[float, float]:
    env = env_for(tmp)
    drill = [PY, "-m", "drills"]

    def one_check() -> float:
        subprocess.run([*drill, "abandon"], env=env, capture_output=True)
        subprocess.run([*drill, "start", target], env=env, capture_output=True, check=True)
        shutil.copy(REFERENCE, tmp / "ws" / f"{target}.py")
        return timed([*drill, "check"], env)

    marker = target.replace("-", "_")
    live = [PY, "-m", "pytest", "grader", "-q", "-p", "no:cacheprovider", "-m", marker, "--oracle", "live"]
    times = interleaved(runs, check=one_check, pytest=lambda: timed(live, dict(os.environ)))
    return median(times["check"]), median(times["pytest"])


class Watch:
    """``drill watch`` on a new attempt at ``target`` (its own DRILL_HOME under ``tmp``), the file
    saved as ``source`` (None: the stub) before it starts; ``save`` times a save to the verdict shown."""

    def __init__(self, tmp: Path, target: str, source: str | None = None) -> None:
        env = env_for(tmp)
        drill = [PY, "-m", "drills"]
        subprocess.run([*drill, "abandon"], env=env, capture_output=True)
        subprocess.run([*drill, "start", target], env=env, capture_output=True, check=True)
        self.path = tmp / "ws" / f"{target}.py"
        self.stub = self.path.read_text()
        if source is not None:
            self.path.write_text(source)
        self.proc = subprocess.Popen(
            [*drill, "watch"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.verdicts: list[float] = []
        self.event = threading.Event()
        threading.Thread(target=self.read, daemon=True).start()
        if not self.event.wait(120):  # the first grading, at start
            self.close()  # no watcher left behind
            raise RuntimeError(f"drill watch {target} gave no first verdict within 120 s")

    def read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if "graded" in line and "after the save" in line:  # the footer of each verdict (views/report.py)
                self.verdicts.append(time.perf_counter())
                self.event.set()

    def save(self, text: str) -> float:
        self.event.clear()
        time.sleep(0.3)  # a user does not save twice within the debounce window
        saved = time.perf_counter()
        self.path.write_text(text)
        if not self.event.wait(60):
            raise RuntimeError("drill watch gave no verdict within 60 s")
        return self.verdicts[-1] - saved

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def bench_watch(saves: int, tmp: Path, target: str) -> list[float]:
    """Save a failing file ``saves`` times; time each save to the verdict printed by drill watch."""
    watch = Watch(tmp, target)
    try:
        return [watch.save(watch.stub + f"\n# save {i}\n") for i in range(saves)]
    finally:
        watch.close()


TANH_VJP = "            self.grad += (1.0 - out.data**2) * out.grad\n"


def nearly_correct(save: int) -> str:
    """The reference with one function wrong, differently at each save: tanh's gradient off by a factor."""
    source = REFERENCE.read_text()
    assert source.count(TANH_VJP) == 1
    return source.replace(TANH_VJP, TANH_VJP.replace("* out.grad", f"* out.grad * {2 + save % 3}"))


def bench_incremental(saves: int, tmp: Path, target: str = "unary") -> dict[str, list[float]]:
    """Save to verdict of drill watch in a full drill and in a drill of ``target`` alone, side by side
    (a save to one, then to the other): the same nearly correct engine, whose one wrong function (of
    ``target``) changes at every save."""
    full = Watch(tmp / "full", "full", nearly_correct(0))
    try:
        single = Watch(tmp / "single", target, nearly_correct(0))
        try:
            n = iter(range(1, 2 * saves + 1))
            return interleaved(
                saves,
                full=lambda: full.save(nearly_correct(next(n))),
                single=lambda: single.save(nearly_correct(next(n))),
            )
        finally:
            single.close()
    finally:
        full.close()


def bench_list(runs: int, tmp: Path, bytecode: bool = False) -> tuple[float, float]:
    """``bytecode``: let Python cache compiled modules, as it does by default (this machine sets
    PYTHONDONTWRITEBYTECODE=1, so our modules compile on every run while site-packages ship compiled)."""
    env = env_for(tmp)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        timed([PY, "-m", "drills", "list"], env)  # writes the cache
    times = interleaved(
        runs,
        drill=lambda: timed([PY, "-m", "drills", "list"], env),
        baseline=lambda: timed([PY, "-c", "import typer, rich"], env),
    )
    return median(times["drill"]), median(times["baseline"])


def bench_full(runs: int) -> float:
    command = [PY, "-m", "pytest", "grader", "-q", "-p", "no:cacheprovider"]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return median([timed(command, env) for _ in range(runs)])


def bench_runners(saves: int, pause: float = 1.5) -> dict[str, list[float]]:
    """Seconds per grading of the reference's unbroadcast, each runner in turn (interleaved). A save
    comes ``pause`` seconds after the last verdict, as a user's would: time the interpreters started
    ahead of time have to warm up (the fork worker needs none)."""
    sys.path.insert(0, str(ROOT))
    from grader.catalog import load_catalog
    from grader.process import run_in_subprocess
    from grader.run import grade_file
    from grader.worker import SpawnRunner, WarmRunner

    targets = [load_catalog().get("unbroadcast")]
    fork, spawn = WarmRunner(), SpawnRunner()

    def measure(runner: Callable[..., tuple[int, str]]) -> Callable[[], float]:
        def once() -> float:
            time.sleep(pause)
            start = time.perf_counter()
            result = grade_file(REFERENCE, targets, runner=runner)
            assert result.passed
            return time.perf_counter() - start

        return once

    try:
        grade_file(REFERENCE, targets, runner=fork)  # both warm before the first measure
        grade_file(REFERENCE, targets, runner=spawn)
        return interleaved(saves, fork=measure(fork), spawn=measure(spawn), fresh=measure(run_in_subprocess))
    finally:
        fork.close()
        spawn.close()


def row(name: str, figure: str, goal: str, ok: bool | None, detail: str) -> None:
    """One figure; ``ok`` None: a figure to know, with no goal."""
    verdict = "" if ok is None else "met" if ok else "MISSED"
    print(f"{name:<44} {figure:>10}   goal {goal:<10} {verdict:<7} {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--target", default="unbroadcast", help="the target for (a) and (b)")
    parser.add_argument("--only", choices=["f", "g"], help="only this figure")
    args = parser.parse_args()
    runs = 3 if args.quick else 7
    saves = 8 if args.quick else 20
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; medians of {runs} interleaved runs\n")
    if args.only == "f":
        runners(saves)
        return
    if args.only == "g":
        incremental(saves)
        return
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        check, pytest_live = bench_check(runs, tmp, args.target)
        row(
            f"(a) drill check {args.target} / pytest live",
            f"{check / pytest_live:.2f}",
            "<= 0.2",
            check / pytest_live <= 0.2,
            f"{check * 1000:.0f} ms vs {pytest_live * 1000:.0f} ms",
        )
        lat = bench_watch(saves, tmp, args.target)
        p50, p95 = percentile(lat, 0.5), percentile(lat, 0.95)
        row(
            f"(b) drill watch save->verdict p50 ({len(lat)} saves)",
            f"{p50 * 1000:.0f} ms",
            "<= 150 ms",
            p50 <= 0.150,
            f"min {min(lat) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms",
        )
        row("(b) drill watch save->verdict p95", f"{p95 * 1000:.0f} ms", "<= 300 ms", p95 <= 0.300, "")
        drill_list, baseline = bench_list(runs * 2, tmp)
        row(
            "(c) drill list / import typer, rich",
            f"{drill_list / baseline:.2f}",
            "<= 2.0",
            drill_list / baseline <= 2.0,
            f"{drill_list * 1000:.0f} ms vs {baseline * 1000:.0f} ms (this machine: no bytecode cache)",
        )
        drill_list, baseline = bench_list(runs * 2, tmp, bytecode=True)
        row(
            "(c) the same, with Python's bytecode cache",
            f"{drill_list / baseline:.2f}",
            "<= 2.0",
            drill_list / baseline <= 2.0,
            f"{drill_list * 1000:.0f} ms vs {baseline * 1000:.0f} ms",
        )
        full = bench_full(max(2, runs // 2))
        row(
            "(d) full grader run on the reference",
            f"{full:.2f} s",
            "<= 10 s",
            full <= 10.0,
            f"python -m pytest grader, recorded oracle, {os.cpu_count()} cores",
        )
    runners(saves)
    incremental(saves)
    memory = ROOT / "benchmarks" / "memory.py"
    if memory.exists():
        subprocess.run([PY, str(memory)], cwd=ROOT, check=False)


def runners(saves: int) -> None:
    times = bench_runners(saves)
    fork, spawn, fresh = (median(times[k]) for k in ("fork", "spawn", "fresh"))
    row(f"(f) grading per save, fork worker ({saves} saves)", f"{fork * 1000:.0f} ms", "-", None, "Linux")
    row(
        "(f) pre-spawned interpreter / fork worker",
        f"{spawn / fork:.2f}",
        "-",
        None,
        f"{spawn * 1000:.0f} ms: macOS, Windows (drill watch)",
    )
    row(
        "(f) fresh interpreter / fork worker",
        f"{fresh / fork:.2f}",
        "-",
        None,
        f"{fresh * 1000:.0f} ms: drill check and drill grade, every platform",
    )


def incremental(saves: int) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        times = bench_incremental(saves, Path(tmp_name))
    full, single = percentile(times["full"], 0.5), percentile(times["single"], 0.5)
    row(
        f"(g) full drill save->verdict p50 ({saves} saves)",
        f"{full * 1000:.0f} ms",
        "-",
        None,
        "one function of a nearly correct engine changed at each save",
    )
    row(
        "(g) drill of its target alone, p50", f"{single * 1000:.0f} ms", "-", None, "unary, the same saves, interleaved"
    )
    row(
        "(g) full drill / its target alone",
        f"{full / single:.2f}",
        "<= 2.0",
        full / single <= 2.0,
        f"p95 {percentile(times['full'], 0.95) * 1000:.0f} ms vs {percentile(times['single'], 0.95) * 1000:.0f} ms",
    )


if __name__ == "__main__":
    main()
