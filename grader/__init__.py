"""The oracle suite: pytest tests that grade an engine file against torch.autograd in float64.

python -m pytest grader --impl solutions/unbroadcast.py -m unbroadcast
"""

import gc
import os

ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The threads of NumPy's (and torch's) linear algebra in drill and its gradings, where the user has set
none: a grading's arrays are a few numbers each, and a pool of BLAS threads costs more than it saves. Its
start is half of what importing NumPy costs (0.06 of 0.12 CPU-s), and its threads spin for a while after
every product, on the cores the user's editor and the next grading need (grader/process.py grading_env;
drills/entry.py, for drill's own process and what it starts). One thread also sums in one order."""


def one_blas_thread() -> None:
    """ONE_BLAS_THREAD for this process (before it imports NumPy) and every process it starts, where the
    user has set no count: drill's entry point, and the test suite's processes (tests/conftest.py)."""
    for name, value in ONE_BLAS_THREAD.items():
        os.environ.setdefault(name, value)


COMMAND_COLLECTOR = (50_000, 20, 10)
"""The cycle collector's thresholds in drill's own process (Python's are 700, 10, 10): a command imports
tens of thousands of objects that live as long as it does (typer, rich, the tool), and with Python's
thresholds the collector walked them about 30 times as they came, 5 of a command's 60 ms of imports
(benchmarks/startup.py); a command that runs for long (drill watch) still collects, every 50,000
allocations. The gradings collect rarer still (grader/conftest.py)."""


def collect_rarely() -> None:
    """COMMAND_COLLECTOR for this process: drill's entry point, before its imports."""
    gc.set_threshold(*COMMAND_COLLECTOR)


def collect_after_warm_up() -> None:
    """No cycle collection while a grading process warms up (NumPy, pytest, the grader, the recording:
    about 80 collections, 10 of its 160 ms of imports, for objects that all live as long as it does);
    the grading's configure (grader/conftest.py) freezes what was made by then and turns the collector
    back on, with its own thresholds. For the warm worker and the interpreters started ahead of time
    (grader/worker.py); a fresh ``python -m pytest`` has imported pytest before any code of the grader's."""
    gc.disable()
