"""Each Python process's own CPU, for tests/cpu_report.py's table by process kind (a maintainer's tool,
off unless asked for). ``python tests/cpu_report.py --install`` puts a .pth file in this interpreter's
site-packages that runs this file at every start of that interpreter (the suite's children whatever
their PYTHONPATH, forks included); it does nothing unless DRILL_TEST_CPU_LOG is set, and then, as the
process ends (exit, or ``os._exit`` in a fork), writes one JSON object to ``$DRILL_TEST_CPU_LOG.procs/``:
its argv, its own CPU seconds (not its children's), its parent, whether it forked from it, the test
that was running (tests/conftest.py sets DRILL_TEST_CPU_NODE), whether it imported NumPy or torch,
and the CPU seconds its cycle collections took (``gc``, timed by a ``gc.callbacks`` entry).

A process killed by a signal (SIGKILL: a spare discarded, a grading's tree killed) writes nothing
itself; so each process also writes a line as it starts (``how``: "start", its argv and test), and
the process that reaps a child (``os.waitpid``, which this makes a ``wait4``) writes, for a child that
died of a signal, the CPU the kernel counted for it (``how``: "killed"; its own, and that of the
children it reaped itself, which the report subtracts). ``--uninstall`` removes the .pth file."""

import json
import os
import sys
import time

_LOG = os.environ.get("DRILL_TEST_CPU_LOG")


def _write(line: dict) -> None:
    try:
        folder = f"{_LOG}.procs"
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{line['pid']}-{time.time_ns()}.json"), "w", encoding="utf-8") as out:
            out.write(json.dumps(line))
    except OSError:
        pass


def _record(how: str, fork_of: list[int | None] = [None]) -> None:  # noqa: B006 - set at fork
    t = os.times()
    _write(
        {
            "pid": os.getpid(),
            "ppid": os.getppid(),
            "fork_of": fork_of[0],
            "argv": list(getattr(sys, "orig_argv", sys.argv)),
            "cpu": t.user + t.system,
            "how": how,
            "t": time.time(),
            "test": os.environ.get("DRILL_TEST_CPU_NODE", ""),
            "xdist": os.environ.get("PYTEST_XDIST_WORKER", ""),
            "torch": "torch" in sys.modules,
            "numpy": "numpy" in sys.modules,
            "gc": _gc_seconds[0],
        }
    )


_gc_seconds = [0.0]
_gc_started = [0.0]


def _gc_timer(phase: str, info: dict) -> None:
    if phase == "start":
        _gc_started[0] = time.process_time()
    else:
        _gc_seconds[0] += time.process_time() - _gc_started[0]


def _install() -> None:
    import atexit
    import gc

    gc.callbacks.append(_gc_timer)

    atexit.register(_record, "exit")
    real_exit, real_waitpid = os._exit, os.waitpid

    def _exit(code: int) -> None:
        _record("_exit")
        real_exit(code)

    def _forked() -> None:
        _record.__defaults__[0][0] = os.getppid()  # type: ignore[index]
        _gc_seconds[0] = 0.0  # the kernel counts a fork's CPU from zero: its collections too
        _record("start")

    def _waitpid(pid: int, options: int) -> tuple[int, int]:
        if not hasattr(os, "wait4") or sys.modules.get("resource", True) is None:  # wait4's rusage is resource's
            return real_waitpid(pid, options)
        done, status, usage = os.wait4(pid, options)
        if done > 0 and os.WIFSIGNALED(status):
            _write(
                {
                    "pid": done,
                    "ppid": os.getpid(),
                    "cpu": usage.ru_utime + usage.ru_stime,
                    "how": "killed",
                    "signal": os.WTERMSIG(status),
                    "t": time.time(),
                }
            )
        return done, status

    os._exit = _exit
    os.waitpid = _waitpid
    os.register_at_fork(after_in_child=_forked)
    _record("start")


if _LOG:
    _install()
