"""What each test file costs, from the log tests/conftest.py writes under DRILL_TEST_CPU_LOG=PATH:
``python tests/cpu_report.py PATH [N]`` prints the files by CPU seconds (children included), then the
N dearest tests."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def main(log: str, top: int = 30) -> None:
    lines = [
        json.loads(line)
        for f in Path(log).parent.glob(Path(log).name + ".*")
        if f.suffix == ".main" or f.suffix.startswith(".gw")
        for line in f.open()
    ]
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for line in lines:
        entry = files[line["test"].split("::")[0]]
        entry[0] += line["cpu"]
        entry[1] += line["wall"]
        entry[2] += 1
    print(
        f"{sum(v[0] for v in files.values()):8.1f} CPU-s {sum(v[1] for v in files.values()):8.1f} s in tests, {len(lines)} tests"
    )
    for name, (cpu, wall, n) in sorted(files.items(), key=lambda kv: -kv[1][0]):
        print(f"{cpu:8.1f} CPU-s {wall:8.1f} s {n:5d}  {name}")
    print()
    for line in sorted(lines, key=lambda x: -x["cpu"])[:top]:
        print(f"{line['cpu']:8.2f} CPU-s {line['wall']:8.2f} s  {line['test']}")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
