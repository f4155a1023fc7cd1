"""What each test file costs, from the log tests/conftest.py writes under DRILL_TEST_CPU_LOG=PATH:
``python tests/cpu_report.py PATH [N]`` prints the files by CPU seconds (children included), then the
N dearest tests, then what each xdist worker paid before its first test (start-up and collection).

By process kind: ``python tests/cpu_report.py --install`` first (tests/cpu_accounting.py: each Python
process of this interpreter then writes its own CPU under ``PATH.procs/`` when the log is on), and the
report adds a table of the suite's processes by kind (a ``drill`` command, a grading interpreter, a
spare, a fork of the warm worker, ...): how many, their own CPU seconds, how many imported torch,
the seconds of it their cycle collections took.
``--uninstall`` removes the hook."""

from __future__ import annotations

import json
import sys
import sysconfig
from collections import defaultdict
from pathlib import Path

HOOK = Path(sysconfig.get_paths()["purelib"]) / "drill_cpu_accounting.pth"
ACCOUNTING = Path(__file__).with_name("cpu_accounting.py")


def install() -> None:
    line = f"import os; os.environ.get('DRILL_TEST_CPU_LOG') and __import__('runpy').run_path({str(ACCOUNTING)!r})\n"
    HOOK.write_text(line, encoding="utf-8")
    print(f"wrote {HOOK}")


def kind(proc: dict, by_pid: dict[int, dict]) -> str:
    """What a process was, from its argv (and its parent's, for a fork: a fork of a fork is named by
    the process first forked from, "fork of a fork of warm worker")."""
    if proc["fork_of"] is not None:
        parent = by_pid.get(proc["fork_of"])
        if parent is not None and parent["fork_of"] is not None:
            return f"fork of a {kind(parent, by_pid)}"
        return f"fork of {kind(parent, by_pid) if parent else 'an unrecorded process'}"
    argv = proc["argv"][1:]
    while argv and argv[0].startswith("-") and argv[0] not in ("-m", "-c"):  # -u, -X importtime, -B
        argv = argv[2:] if argv[0] in ("-X", "-W") else argv[1:]
    if proc["argv"][0].endswith("/drill"):
        return f"drill {argv[0] if argv else '(bare)'} (console script)"
    if argv[:2] == ["-m", "autograd_drill"]:
        return f"drill {argv[2] if len(argv) > 2 else '(bare)'}"
    if argv[:2] == ["-m", "autograd_drill.grader.worker"]:
        return "spare (worker --once)" if "--once" in argv else "warm worker"
    if argv[:2] == ["-m", "pytest"]:
        grading = any(a.startswith(("--impl", "--report-json")) for a in argv)
        return "grading interpreter (pytest)" if grading else "pytest (the run, or a child: a collection, plain pytest)"
    if argv[:1] == ["-c"] and proc["xdist"] and "exec(eval(sys.stdin.readline()))" in " ".join(argv):
        return "xdist worker"
    if argv[:1] == ["-c"]:
        return "python -c (a test's own script)"
    if argv[:1] == ["-m"]:
        return f"python -m {argv[1]}"
    return f"other: {Path(argv[0]).name if argv else '?'}"


def _one_per_process(folder: Path) -> list[dict]:
    """Each process's line: the last one it wrote at its end (a process can write two, at exit and at
    ``os._exit``; a file cut short by a kill is skipped), or, for one killed by a signal, its start line
    with the CPU its parent's ``wait4`` counted, less that of its children recorded as its own
    (``killed``: True). Lines are taken in time order: a pid used again later is another process."""
    lines = []
    for f in folder.glob("*.json"):
        try:
            lines.append(json.loads(f.read_text(encoding="utf-8")))
        except ValueError:
            continue
    lines.sort(key=lambda line: line.get("t", 0.0))
    live: dict[int, dict] = {}
    done: list[dict] = []
    for line in lines:
        pid, how = line["pid"], line["how"]
        if how == "start":
            if pid in live:
                done.append(live.pop(pid))
            live[pid] = {**line, "ended": False, "killed": False}
        elif how == "killed":
            proc = live.pop(pid, None)
            if proc is not None and not proc["ended"]:
                done.append({**proc, "cpu": line["cpu"], "killed": True, "reaped": line["cpu"]})
            elif proc is not None:
                done.append(proc)
        else:
            proc = live.get(pid)
            if proc is None or not proc["ended"] or line["cpu"] >= proc["cpu"]:
                live[pid] = {**(proc or {}), **line, "ended": True, "killed": False}
    done.extend(live.values())
    procs = [p for p in done if p["ended"] or p["killed"]]
    children: dict[int, list[dict]] = defaultdict(list)
    for proc in procs:
        children[proc["ppid"]].append(proc)
    owned = {id(proc): proc["cpu"] for proc in procs if not proc["killed"]}

    def own(proc: dict) -> float:
        """A killed process's own CPU: what wait4 counted, less the own CPU of all its recorded descendants
        (what a child reaped was counted in the child's, and a subreaper, a zygote, reaps its orphans)."""
        if id(proc) not in owned:
            owned[id(proc)] = 0.0  # while its tree is walked: a cycle of pids used again ends here
            below = _below(proc["pid"], children, {id(proc)})
            owned[id(proc)] = max(0.0, proc["cpu"] - sum(own(child) for child in below))
        return owned[id(proc)]

    for proc in procs:
        proc["cpu"] = own(proc)
    return procs


def _below(pid: int, children: dict[int, list[dict]], seen: set[int]) -> list[dict]:
    """The recorded descendants of ``pid`` (each once: a pid used again is not walked twice)."""
    found = []
    for child in children.get(pid, ()):
        if id(child) not in seen:
            seen.add(id(child))
            found.append(child)
            found.extend(_below(child["pid"], children, seen))
    return found


def by_kind(folder: Path) -> None:
    procs = _one_per_process(folder)
    by_pid = {p["pid"]: p for p in procs}
    kinds: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0.0])
    for proc in procs:
        entry = kinds[kind(proc, by_pid) + (" [killed]" if proc["killed"] else "")]
        entry[0] += 1
        entry[1] += proc["cpu"]
        entry[2] += proc.get("torch", False)
        entry[3] += proc.get("gc", 0.0)
    killed = [p for p in procs if p["killed"]]
    print(
        f"{sum(p['cpu'] for p in procs):8.1f} CPU-s own, {len(procs)} processes recorded"
        f" ({len(killed)} killed by a signal: {sum(p['cpu'] for p in killed):.1f} CPU-s, counted by their parent)"
    )
    for name, (n, cpu, torch, gc) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"{cpu:8.1f} CPU-s {n:5d} processes {cpu / n:6.2f} each  torch in {torch:4d}  gc {gc:5.1f}  {name}")


def main(log: str, top: int = 30) -> None:
    lines = [
        json.loads(line)
        for f in Path(log).parent.glob(Path(log).name + ".*")
        if f.suffix == ".main" or f.suffix.startswith(".gw")
        for line in f.open()
    ]
    collected = [line for line in lines if "collected" in line]
    lines = [line for line in lines if "test" in line]
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0, 0.0])
    for line in lines:
        entry = files[line["test"].split("::")[0]]
        entry[0] += line["cpu"]
        entry[1] += line["wall"]
        entry[2] += 1
        entry[3] += line.get("own", 0.0)
    print(
        f"{sum(v[0] for v in files.values()):8.1f} CPU-s {sum(v[1] for v in files.values()):8.1f} s in tests, {len(lines)} tests"
    )
    print("(CPU-s: the tests' and their children's; own: in the test process alone; s: wall seconds)")
    for name, (cpu, wall, n, own) in sorted(files.items(), key=lambda kv: -kv[1][0]):
        print(f"{cpu:8.1f} CPU-s {own:6.1f} own {wall:8.1f} s {n:5d}  {name}")
    print()
    for line in sorted(lines, key=lambda x: -x["cpu"])[:top]:
        print(f"{line['cpu']:8.2f} CPU-s {line.get('own', 0.0):6.2f} own {line['wall']:8.2f} s  {line['test']}")
    print()
    for line in collected:
        print(
            f"{line['collected']:8.2f} CPU-s by the end of collection ({line['items']} tests, torch imported: {line['torch']})"
        )
    procs = Path(f"{log}.procs")
    if procs.is_dir():
        print()
        by_kind(procs)


if __name__ == "__main__":
    if sys.argv[1:] == ["--install"]:
        install()
    elif sys.argv[1:] == ["--uninstall"]:
        HOOK.unlink(missing_ok=True)
    else:
        main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
