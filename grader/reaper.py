"""The processes a grading leaves behind, found however they left it, and ended.

A process the user's code starts may leave the grading's process group (``setsid()``,
``setpgid(0, 0)``) or lose its parent (a double fork: the middle process exits at once); killing the
group misses it, and an orphan is adopted by init. On Linux the process that runs gradings (``drill``
itself for a fresh interpreter, the warm worker for its forks) is made a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``): an orphan below it is re-parented to it instead, so every
process a grading started remains its descendant, found by walking the parent links of
``/proc/*/stat``, and ended when the grading is. Elsewhere there is no subreaper: psutil's walk
finds the descendants whose parents still live, and ``grader/process.py`` kills those.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager

LINUX = sys.platform.startswith("linux")
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37

ENDING_SECONDS = 5.0
"""How long ``end_descendants`` keeps finding and killing (a fork bomb forks while it kills), and
``kill_attached`` waits for what it killed to die."""


def _prctl(option: int, arg: object) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, arg, 0, 0, 0))


def is_subreaper() -> bool:
    """This process adopts the orphans below it (Linux)."""
    if not LINUX:
        return False
    flag = ctypes.c_int(0)
    try:
        return _prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag)) == 0 and flag.value != 0
    except (OSError, AttributeError):
        return False


def become_subreaper(on: bool = True) -> bool:
    """Make this process adopt the orphans below it (or stop); False where the platform cannot."""
    if not LINUX:
        return False
    try:
        return _prctl(PR_SET_CHILD_SUBREAPER, int(on)) == 0
    except (OSError, AttributeError):
        return False


def process_table() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, state letter; Z: a zombie)."""
    if not LINUX:
        import psutil

        table = {}
        for process in psutil.process_iter(["ppid", "status"]):
            zombie = process.info["status"] == psutil.STATUS_ZOMBIE
            table[process.pid] = (process.info["ppid"] or 0, "Z" if zombie else "R")
        return table
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()  # the name, in parentheses, may hold anything
        except (OSError, IndexError):
            continue  # gone meanwhile
        table[int(entry.name)] = (int(fields[1]), fields[0].decode())
    return table


def own_children() -> set[int] | None:
    """This process's children, from ``/proc/self/task/*/children`` (Linux); None where it cannot tell."""
    if not LINUX:
        return None
    found: set[int] = set()
    try:
        for task in os.scandir("/proc/self/task"):
            with open(f"/proc/self/task/{task.name}/children", "rb") as f:
                found.update(int(pid) for pid in f.read().split())
    except (OSError, ValueError):
        return None
    return found


def descendants(root: int, spare: Collection[int] = (), table: dict[int, tuple[int, str]] | None = None) -> list[int]:
    """The descendants of ``root``, parents first, but not those in ``spare`` nor theirs."""
    table = process_table() if table is None else table
    below: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        below.setdefault(ppid, []).append(pid)
    found: list[int] = []
    frontier = [root]
    while frontier:
        frontier = [child for pid in frontier for child in below.get(pid, ()) if child not in spare and child != root]
        found.extend(frontier)
    return found


def end_descendants(spare: Collection[int] = ()) -> list[int]:
    """Kill (SIGKILL) every descendant of this process, but those in ``spare`` and theirs, until none
    is left; reap those that are its own children. The pids ended.

    Meant for a subreaper: the orphans of a process killed here are re-parented to this one, and the
    next round finds them."""
    me = os.getpid()
    ended: list[int] = []
    deadline = time.monotonic() + ENDING_SECONDS
    while True:
        children = own_children()
        if children is not None and not children - set(spare):  # the usual case, without reading every process
            return ended
        table = process_table()
        found = descendants(me, spare, table)
        for pid in found:
            if table[pid][0] == me:
                _reap(pid)
        live = [pid for pid in found if table[pid][1] != "Z"]
        if not live or time.monotonic() > deadline:
            return ended
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
            ended.append(pid)
        time.sleep(0.005)  # the kernel re-parents their orphans


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def children() -> set[int]:
    """This process's children now (``own_children``, where it can tell: reading every process's stat
    took 2.7 ms of each grading's start, at 130 processes)."""
    found = own_children()
    if found is not None:
        return found
    me = os.getpid()
    return {pid for pid, (ppid, _) in process_table().items() if ppid == me}


_lock = threading.Lock()
_blocks = 0
"""How many ``reaping`` blocks are open in this process (threads may grade at once: the campaign)."""
_spared: set[int] = set()
_was_subreaper = False


@contextmanager
def reaping() -> Iterator[None]:
    """In this block, this process adopts the orphans below it (Linux); at its end, every process
    that became its child in the block, and theirs, is ended: what a grading run in the block left,
    however it left its group. Children it had before are spared.

    Blocks open in several threads at once end those processes when the last of them closes (one
    thread's grading is not another's to end): a command grades one file at a time, so for it that is
    at once."""
    global _blocks, _spared, _was_subreaper
    if not LINUX:
        yield
        return
    with _lock:
        if _blocks == 0:
            _spared, _was_subreaper = children(), is_subreaper()
            become_subreaper(True)
        _blocks += 1
    try:
        yield
    finally:
        with _lock:
            _blocks -= 1
            if _blocks == 0:
                end_descendants(spare=_spared)
                if not _was_subreaper:
                    become_subreaper(False)


def kill_attached(pid: int, root: bool = False) -> None:
    """Kill the descendants of ``pid`` still attached to it (psutil: where there is no subreaper),
    and ``pid`` itself with ``root``; return once each is dead, or after ENDING_SECONDS.

    Dead, not reaped: a killed process whose parent is gone is a zombie of init until init collects
    its status, and psutil.wait_procs waited for that. Some inits collect late (a VM's here: 1.2-1.4 s
    after the kill, every drill ended by a signal without process groups waited for it), a container's
    first process may never; and the zombies that are this process's own children are reaped by
    whoever started them (Popen.wait, os.waitpid: their callers), not here."""
    import psutil

    try:
        process = psutil.Process(pid)
        tree = [*process.children(recursive=True), *([process] if root else [])]
    except psutil.Error:
        return
    for each in tree:
        try:
            each.kill()
        except psutil.Error:
            pass

    def dead(each: psutil.Process) -> bool:
        """Gone, or a zombie: nothing of it runs any more."""
        try:
            return not each.is_running() or each.status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True
        except psutil.Error:
            return False

    deadline = time.monotonic() + ENDING_SECONDS
    while not all(dead(each) for each in tree) and time.monotonic() < deadline:
        time.sleep(0.005)
