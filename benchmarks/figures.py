"""The bench's sections: each measures its figures on every checkout in turn (interleaved: noise
hits them alike) and returns its table (benchmarks/report.py). ``sides``: this checkout last."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograd_drill.grader.catalog import load_catalog
from autograd_drill.reference import ENGINE
from benchmarks.report import Table, ms, p50, ratio, s
from benchmarks.server import Side
from benchmarks.watch import PAUSE, Watch, changed_unbroadcast

ROOT = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()
CORE = [t.id for t in CATALOG.targets]
GOAL_FIRST, GOAL_PASS, GOAL_CORE, GOAL_FULL = 0.150, 0.200, 1.0, 1.2
GOAL_SPAWN, GOAL_START, GOAL_CHECK = 1.2, 1.5, 0.2


@dataclass(frozen=True)
class Reps:
    rounds: int = 5
    """Gradings of each target (and of each of its classic bugs), per checkout."""
    mutants: int = 2
    """Classic bugs per target, for its first failure."""
    saves: int = 12
    """Saves to a drill watch, and gradings per runner."""
    runs: int = 7
    """Runs of each command."""


def interleaved(times: int, measures: dict[str, Callable[[], float | None]]) -> dict[str, list[float]]:
    """Each measure in turn, ``times`` times over; None (no figure: a checkout lacks it) is left out."""
    found: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(times):
        for name, measure in measures.items():
            value = measure()
            if value is not None:
                found[name].append(value)
    return found


def pause_then(grade: Callable[[], dict], key: str) -> Callable[[], float | None]:
    def measure() -> float | None:
        time.sleep(PAUSE)
        return grade().get(key)

    return measure


def mutant_engines(tmp: Path, per_target: int) -> dict[str, list[Path]]:
    """This checkout's classic bugs (tests/mutants.toml), the first ``per_target`` of each target."""
    from tests.mutants import MUTANTS

    source = ENGINE.read_text(encoding="utf-8")
    engines: dict[str, list[Path]] = {}
    for mutant in MUTANTS:
        chosen = engines.setdefault(mutant.target, [])
        if len(chosen) < per_target:
            path = tmp / f"{mutant.id}.py"
            path.write_text(source.replace(mutant.find, mutant.replace, 1), encoding="utf-8")
            chosen.append(path)
    return engines


def targets(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """Per target: the first failure of its classic bugs, and a pass, each a warm grading as drill
    watch runs it on Linux (its fork worker, a pause before each), plus the watch's own time. The pass
    follows the target's failing saves, as it does in a drill watch (the fork worker sets the next
    grading of the same target up ahead of it: grader/forks.py)."""
    engines = mutant_engines(tmp, reps.mutants)
    for side in sides:  # each worker warm
        side.grade(ENGINE, ["unbroadcast"])
    measures: dict[str, Callable[[], float | None]] = {}
    for target in [t.id for t in CATALOG.every]:
        for side in sides:  # the pass after the target's failing saves, as in a drill watch of that target
            for i, engine in enumerate(engines.get(target, [])):
                measures[f"{target}|{side.name}|first{i}"] = pause_then(
                    lambda t=target, d=side, e=engine: d.grade(e, [t], stop_at_first=True), "first"
                )
            measures[f"{target}|{side.name}|pass"] = pause_then(
                lambda t=target, d=side: d.grade(ENGINE, [t]), "verdict"
            )
    times = interleaved(reps.rounds, measures)
    watched = {side.name: watch_overhead(side, reps, tmp) for side in sides}
    overhead = {n: None if w is None else max(0.0, w[0] - w[1]) for n, w in watched.items()}
    columns = [f"1st failure {n}" for n in (*(d.name for d in sides[:-1]), "")] + [
        f"pass {n}" for n in (*(d.name for d in sides[:-1]), "")
    ]
    table = Table(
        "targets",
        "Per target: save to first failure, and to a pass in drill watch, p50",
        [c.strip() for c in columns],
        head=["target"],
    )
    for target in [t.id for t in CATALOG.every]:
        first = {
            d.name: p50([x for k, v in times.items() if k.startswith(f"{target}|{d.name}|first") for x in v])
            for d in sides
        }
        passed = {d.name: p50(times[f"{target}|{d.name}|pass"]) for d in sides}
        shown = {n: None if p is None or overhead[n] is None else p + overhead[n] for n, p in passed.items()}
        mine = sides[-1].name
        ok_first = first[mine] is not None and first[mine] <= GOAL_FIRST
        ok_pass = shown[mine] is not None and shown[mine] <= GOAL_PASS
        table.add(
            [target],
            [*(ms(first[d.name]) for d in sides), *(ms(shown[d.name]) for d in sides)],
            f"1st <= {GOAL_FIRST * 1000:.0f} ms, pass <= {GOAL_PASS * 1000:.0f} ms",
            ok_first and ok_pass,
        )
    table.notes.append(
        f"First failure: request to the first failed test reported, over the first {reps.mutants} classic bugs of each "
        f"target (tests/mutants.toml), {reps.rounds} rounds; pass: the reference's warm grading (the fork worker, "
        f"{PAUSE} s after the last verdict) plus drill watch's own time, "
        + ", ".join(
            f"{ms(overhead[n])} {n} ({ms(w[0] if w else None)} less {ms(w[1] if w else None)})"
            for n, w in watched.items()
        )
        + " (save to verdict on screen, less the same grading: a stub of unbroadcast saved again)."
    )
    return table


def watch_overhead(side: Side, reps: Reps, tmp: Path) -> tuple[float, float] | None:
    """drill watch's save-to-verdict p50, and the same file's warm grading p50: the difference is
    the watch's own time (watchfiles, the history's writes, the screen). A failing save (the stub of unbroadcast), so that the watch goes on."""
    home = tmp / f"watch-{side.name}"
    watch = Watch(home, "unbroadcast", side.env, side.root)
    try:
        copy = tmp / f"stub-{side.name}.py"
        n = iter(range(10**6))
        times = interleaved(
            reps.saves,
            {
                # code that changes at each save (a comment would not: its verdict would be reused)
                "watch": lambda: watch.save(watch.stub + f"\n_SAVE = {next(n)}\n"),
                "grading": pause_then(lambda: side.grade(_write(copy, watch.stub), ["unbroadcast"]), "verdict"),
            },
        )
    finally:
        watch.close()
    shown, graded = p50(times["watch"]), p50(times["grading"])
    return None if shown is None or graded is None else (shown, graded)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def drill(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """The six core targets in one warm grading; a full drill's save that changes unbroadcast."""
    table = Table("drill", "A full drill, p50", [d.name for d in sides])
    core = interleaved(reps.rounds, {d.name: pause_then(lambda d=d: d.grade(ENGINE, CORE), "verdict") for d in sides})
    watches: dict[str, Watch] = {}
    try:  # each watch closed, those started before one that failed to start included
        for d in sides:
            watches[d.name] = Watch(tmp / f"full-{d.name}", "full", d.env, d.root, changed_unbroadcast(0))
        n = iter(range(1, 10**6))
        full = interleaved(
            reps.saves, {name: lambda w=w: w.save(changed_unbroadcast(next(n))) for name, w in watches.items()}
        )
    finally:
        for watch in watches.values():
            watch.close()
    mine = sides[-1].name
    table.add(
        ["the six core targets in one warm grading"],
        [s(p50(core[d.name])) for d in sides],
        f"<= {GOAL_CORE:.1f} s",
        (p50(core[mine]) or 99) <= GOAL_CORE,
    )
    table.add(
        ["drill watch in a full drill: a save that changes unbroadcast"],
        [s(p50(full[d.name])) for d in sides],
        f"<= {GOAL_FULL:.1f} s",
        (p50(full[mine]) or 99) <= GOAL_FULL,
    )
    table.notes.append(
        f"The core six: the reference, {reps.rounds} warm gradings (fork worker). The full drill: save to verdict on "
        f"screen, {reps.saves} saves of a nearly correct engine (tanh wrong) whose unbroadcast changes at each save, "
        "still right (every target that may call it is graded again)."
    )
    return table


BURST = 3
"""Saves in a row to one runner, each a pause after the last verdict, before the next runner's turn;
one more comes first, not counted: it follows the other runners' turns, a longer pause."""


def runners(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """One grading per save by each runner, on the same saves (the reference's unbroadcast, a
    pause after the last verdict), in bursts: each runner in turn."""
    kinds = ("fork", "spawn", "fresh")
    for side in sides:  # each warm
        for kind in kinds[:2]:
            side.grade(ENGINE, ["unbroadcast"], runner=kind)
    times: dict[str, list[float]] = {f"{d.name}|{k}": [] for d in sides for k in kinds}
    for _ in range(max(1, reps.saves // BURST)):
        for side in sides:
            for kind in kinds:
                for save in range(BURST + 1):
                    time.sleep(PAUSE)
                    seconds = side.grade(ENGINE, ["unbroadcast"], runner=kind)["verdict"]
                    if save and seconds is not None:
                        times[f"{side.name}|{kind}"].append(seconds)
    table = Table(
        "runners", f"Runners: a grading per save, {PAUSE} s after the last verdict, p50", [d.name for d in sides]
    )
    fork = {d.name: p50(times[f"{d.name}|fork"]) for d in sides}
    mine = sides[-1].name
    table.add(["warm worker, a fork per save (drill watch, Linux)"], [ms(fork[d.name]) for d in sides])
    for kind, label, goal in (
        ("spawn", "interpreter started ahead of time (drill watch, macOS and Windows)", GOAL_SPAWN),
        ("fresh", "fresh interpreter (drill check, drill grade)", None),
    ):
        value = {d.name: p50(times[f"{d.name}|{kind}"]) for d in sides}
        rel = {n: None if v is None or not fork[n] else v / fork[n] for n, v in value.items()}
        table.add(
            [label],
            [f"{ms(value[d.name])} ({ratio(rel[d.name])} of the fork)" for d in sides],
            "" if goal is None else f"<= {goal} of the fork",
            None if goal is None else (rel[mine] or 99) <= goal,
        )
    table.notes.append(
        f"The reference's unbroadcast, {max(1, reps.saves // BURST) * BURST} saves per runner, {BURST} in a row "
        "(after one more, not counted), the runners in turn."
    )
    return table


STARTS = {"drill list": ["list"], "drill status": ["status"], "drill next": ["next"], "drill -h": ["-h"]}
STARTS["drill --version"] = ["--version"]


def startup(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """Commands that start fast, against ``import typer, rich``, with Python's bytecode cache."""
    env = {"DRILL_HOME": str(tmp / "start-home"), "DRILL_WORKSPACE": str(tmp / "start-ws")}
    measures: dict[str, Callable[[], float | None]] = {}
    # with the bytecode cache, as a user's Python has it (this machine sets PYTHONDONTWRITEBYTECODE):
    # compiled once, then cached ("": unset)
    env["PYTHONDONTWRITEBYTECODE"] = ""
    for side in sides:
        for name, args in STARTS.items():
            side.run("-m", "autograd_drill", *args, env=env)  # writes the cache
            measures[f"{side.name}|{name}"] = lambda d=side, a=args: d.run("-m", "autograd_drill", *a, env=env)
        measures[f"{side.name}|base"] = lambda d=side: d.run("-c", "import typer, rich", env=env)
    times = interleaved(reps.runs, measures)
    table = Table(
        "startup", "Start-up, p50 (in brackets: times `python -c 'import typer, rich'`)", [d.name for d in sides]
    )
    base = {d.name: p50(times[f"{d.name}|base"]) for d in sides}
    mine = sides[-1].name
    table.add(["python -c 'import typer, rich'"], [ms(base[d.name]) for d in sides])
    for name in STARTS:
        value = {d.name: p50(times[f"{d.name}|{name}"]) for d in sides}
        rel = {n: v / base[n] if v and base[n] else None for n, v in value.items()}
        goal = name in ("drill list", "drill status", "drill next")
        table.add(
            [name],
            [f"{ms(value[d.name])} ({ratio(rel[d.name])})" for d in sides],
            f"<= {GOAL_START}x" if goal else "",
            (rel[mine] or 99) <= GOAL_START if goal else None,
        )
    table.notes.append(f"{reps.runs} runs each, in turn; an empty data folder.")
    return table


def check(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """A one-shot ``drill check`` of unbroadcast, against the naive ``python -m pytest grader -m unbroadcast``."""
    measures: dict[str, Callable[[], float | None]] = {}
    for side in sides:
        env = {
            "DRILL_HOME": str(tmp / f"check-{side.name}/home"),
            "DRILL_WORKSPACE": str(tmp / f"check-{side.name}/ws"),
        }

        def one_check(side: Side = side, env: dict[str, str] = env) -> float | None:
            """A new attempt, the reference saved (a pass ends it: the next check needs another), checked."""
            side.run("-m", "autograd_drill", "abandon", env=env, ok=2)  # 2: none in progress
            side.run("-m", "autograd_drill", "start", "unbroadcast", env=env)
            shutil.copy(ENGINE, Path(env["DRILL_WORKSPACE"]) / "unbroadcast.py")
            return side.run("-m", "autograd_drill", "check", env=env)

        measures[f"{side.name}|check"] = one_check
        naive = ["-m", "pytest", "grader", "-q", "-p", "no:cacheprovider", "-m", "unbroadcast", "--oracle", "live"]
        measures[f"{side.name}|pytest"] = lambda d=side, a=naive: d.run(*a)
    times = interleaved(reps.runs, measures)
    table = Table("check", "drill check against naive pytest with live torch, p50", [d.name for d in sides])
    rel = {}
    for side in sides:
        checked, naive_s = p50(times[f"{side.name}|check"]), p50(times[f"{side.name}|pytest"])
        rel[side.name] = (checked / naive_s if checked and naive_s else None, checked, naive_s)
    table.add(
        ["drill check unbroadcast / python -m pytest grader -m unbroadcast --oracle live"],
        [f"{ratio(r)} ({ms(c)} vs {ms(n)})" for r, c, n in rel.values()],
        f"<= {GOAL_CHECK}",
        (rel[sides[-1].name][0] or 99) <= GOAL_CHECK,
    )
    return table


def grader(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """The whole grader on the reference (recorded oracle), as CI runs it."""
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    command = ["-m", "pytest", "grader", "-q", "-p", "no:cacheprovider"]
    times = interleaved(max(1, reps.runs // 3), {d.name: lambda d=d: d.run(*command, env=env) for d in sides})
    table = Table("grader", "The full grader run on the reference", [d.name for d in sides])
    table.add(
        ["python -m pytest grader"],
        [s(p50(times[d.name])) for d in sides],
        "<= 10 s",
        (p50(times[sides[-1].name]) or 99) <= 10,
    )
    return table


def memory(sides: list[Side], reps: Reps, tmp: Path) -> Table:
    """The free-memory drill's peak memory against keeping every graph (benchmarks/memory.py), here."""
    from benchmarks.memory import peak, reference

    engine, layers, size, steps = reference(), 200, 512, 5
    keep, _ = peak(engine, False, layers, size, steps)
    free, _ = peak(engine, True, layers, size, steps)
    table = Table(
        "memory", "The free-memory drill: peak memory of a training loop that keeps its losses", ["this checkout"]
    )
    table.add(
        [f"default backward / backward(retain_graph=True), {layers} layers of {size}x{size}, {steps} steps"],
        [f"{free / keep:.3f} ({free / 2**20:,.0f} vs {keep / 2**20:,.0f} MiB)"],
        "<= 0.25",
        free / keep <= 0.25,
    )
    return table


SECTIONS: dict[str, Callable[[list[Side], Reps, Path], Table]] = {
    "targets": targets,
    "drill": drill,
    "runners": runners,
    "startup": startup,
    "check": check,
    "grader": grader,
    "memory": memory,
}
