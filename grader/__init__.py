"""The oracle suite: pytest tests that grade an engine file against torch.autograd in float64.

python -m pytest grader --impl solutions/unbroadcast.py -m unbroadcast
"""

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
