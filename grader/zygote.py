"""A zygote: a grading set up once for a selection, forked for each file graded on it (grader/forks.py).

The fork worker's zygote runs pytest on a selection's arguments (but the file and the report) with
``--zygote=REQUESTS,REPLIES``: its configuration, plugins and collection done, it waits in
grader/conftest.py's run loop (``serve``) for one JSON line per grading on REQUESTS (the file, the
report, the time limit), forks, and waits for that fork as the worker waits for its own
(grader/forks.py, ``await_grading``): the fork goes on with the session's tests on that file, in its own
process group and working folder, its output in a pipe of its own; the zygote then writes the
status and the output's tail, one JSON line on REPLIES. A grading on a selection graded before
then costs its tests only, not pytest's set-up (0.04 to 0.08 CPU-s, over a tenth of a light
target's grading).

The zygote is a child subreaper, as the worker is: what a grading started and that left its group
is ended once the grading is over. It ends when the worker closes REQUESTS, and with the worker (its
watchdog, grader/reporter.py). It tells the worker the process id of each fork first: a cancel is the
worker's, which kills that fork as one of its own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from autograd_drill.grader import forks
from autograd_drill.grader.process import PARENT_ENV, WORKING, folders, kill_tree, new_folder, remove_folders
from autograd_drill.grader.reaper import become_subreaper


def serve(config: pytest.Config, reporter: Any) -> None:
    """Fork a grading for each request on the ``--zygote`` descriptors; return only in a fork, told
    its file and its report (the caller then runs the session's tests). Ends the zygote once the
    worker has closed its requests."""
    requests, replies = (int(fd) for fd in config.getoption("zygote").split(","))
    worker = os.getppid()
    become_subreaper()
    with os.fdopen(requests, "rb") as lines, os.fdopen(replies, "wb", buffering=0) as out:
        for line in lines:
            request = json.loads(line)
            read_end, write_end = os.pipe()
            folder = new_folder(WORKING)
            pid = os.fork()
            if pid == 0:
                lines.close()
                out.close()
                _become_grading(config, reporter, request, write_end, folder)
                return
            os.close(write_end)
            # the worker's to kill on a cancel, and its folder the worker's to remove should both end first
            out.write((json.dumps({"running": pid, "folder": folder}) + "\n").encode())
            grading = forks.Fork(pid, read_end, None, folder, ())
            status, output = forks.await_grading(
                grading, float(request["timeout"]), lambda: os.getppid() != worker, _end
            )
            out.write((json.dumps({"status": status, "output": output}) + "\n").encode())
    os._exit(0)


def _become_grading(config: pytest.Config, reporter: Any, request: dict[str, Any], output: int, folder: str) -> None:
    """In the fork: its own group and folder, its output to ``output`` (pytest's saved descriptors
    too: what is printed while nothing is captured), the worker's signals, a watchdog on the zygote;
    then its file and report."""
    os.setpgid(0, 0)
    os.chdir(folder)
    folders.clear()  # the zygote's to remove
    for fd in (1, 2, *_saved_descriptors(config)):
        os.dup2(output, fd)
    os.close(output)
    os.environ[PARENT_ENV] = str(os.getppid())
    reporter.watch_parent()
    config.option.impl = request["impl"]
    reporter.open(Path(request["report"]))
    reporter.write({"event": "go"})


def _saved_descriptors(config: pytest.Config) -> list[int]:
    """The descriptors where pytest's capture keeps the real standard output and error while it
    captures (it restores them between tests and at the end): the zygote's, until the fork sets them."""
    manager = config.pluginmanager.get_plugin("capturemanager")
    capturing = getattr(manager, "_global_capturing", None)
    saved = (getattr(getattr(capturing, name, None), "targetfd_save", None) for name in ("out", "err"))
    return [fd for fd in saved if isinstance(fd, int)]


def _end(status: int) -> None:
    """The worker is gone: so are the grading under way and this zygote."""
    if forks.running is not None:
        kill_tree(forks.running)
    remove_folders()
    os._exit(status)
