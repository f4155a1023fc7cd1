"""Each Python process's own CPU, for tests/cpu_report.py's table by process kind (a maintainer's tool,
off unless asked for). ``python tests/cpu_report.py --install`` puts a .pth file in this interpreter's
site-packages that runs this file at every start of that interpreter (the suite's children whatever
their PYTHONPATH, forks included); it does nothing unless DRILL_TEST_CPU_LOG is set, and then, as the
process ends (exit, or ``os._exit`` in a fork), writes one JSON object to ``$DRILL_TEST_CPU_LOG.procs/``:
its argv, its own CPU seconds (not its children's), its parent, whether it forked from it, the test
that was running (tests/conftest.py sets DRILL_TEST_CPU_NODE) and whether it imported NumPy or torch.
A process killed by a signal writes nothing: the report counts its CPU in no kind (the in-tests figure
of tests/conftest.py's log still holds it). ``--uninstall`` removes the .pth file."""

import json
import os
import sys
import time

_LOG = os.environ.get("DRILL_TEST_CPU_LOG")


def _record(how: str, fork_of: list[int | None] = [None]) -> None:  # noqa: B006 - set at fork
    t = os.times()
    line = {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "fork_of": fork_of[0],
        "argv": list(getattr(sys, "orig_argv", sys.argv)),
        "cpu": t.user + t.system,
        "how": how,
        "test": os.environ.get("DRILL_TEST_CPU_NODE", ""),
        "xdist": os.environ.get("PYTEST_XDIST_WORKER", ""),
        "torch": "torch" in sys.modules,
        "numpy": "numpy" in sys.modules,
    }
    try:
        folder = f"{_LOG}.procs"
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{os.getpid()}-{time.time_ns()}.json"), "w", encoding="utf-8") as out:
            out.write(json.dumps(line))
    except OSError:
        pass


def _install() -> None:
    import atexit

    atexit.register(_record, "exit")
    real_exit = os._exit

    def _exit(code: int) -> None:
        _record("_exit")
        real_exit(code)

    def _forked() -> None:
        _record.__defaults__[0][0] = os.getppid()  # type: ignore[index]

    os._exit = _exit
    os.register_at_fork(after_in_child=_forked)


if _LOG:
    _install()
