"""The ``drill`` console entry point, and ``python -m autograd_drill``: what must hold before anything heavy
is imported (typer, rich, NumPy, the grader take half a second to load, and a Ctrl-C can come in
that half-second as well as any other).

- A Ctrl-C, at any moment of any command, imports included, is one line on stderr ("interrupted")
  and exit status 130; no traceback. The command's own context managers have run by then (a
  grading's processes killed, the history's transaction rolled back, a temporary file removed);
  a second Ctrl-C while it leaves changes nothing. ``drill watch`` catches its own Ctrl-C: it is
  how a watch is left ("Stopped watching", exit 0).
- Output never fails on an encoding: stdout and stderr write what their encoding cannot hold (a
  Windows console, output redirected under cp1252, an ASCII locale) as an ASCII look-alike
  (drills/ascii_fallback.py) instead of raising UnicodeEncodeError.

Importing this module is for the entry points alone: it sets the SIGINT handler, so that a Ctrl-C in
the imports that follow exits at once (there is nothing to undo yet). The command then runs with
Python's own handler (KeyboardInterrupt, so that its context managers unwind), caught here.
"""

import errno
import os
import signal
import sys
from functools import partial
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

INTERRUPTED = 130
"""The exit status of a command ended by Ctrl-C (128 + SIGINT, as a shell reports it)."""


def main() -> None:
    code: object = 0
    safe_streams()
    from autograd_drill.grader import collect_rarely, one_blas_thread  # before NumPy is imported

    one_blas_thread()
    collect_rarely()
    if sys.argv[1:] in (["--version"], ["-V"]):  # a fast path: the version needs none of the app
        from autograd_drill import version_line

        print(version_line())
        sys.exit(0)
    if sys.argv[1:] == ["check"]:  # its grading's interpreter starts first, and imports while drill does
        from autograd_drill.commands.quick import no_history

        if not no_history():  # none: the command refuses before grading, and the interpreter would be killed unused
            from autograd_drill.grader.spawn import start_early

            start_early()
    from autograd_drill.commands.quick import COMMANDS, HELP, answer_bare

    args = tuple(sys.argv[1:])
    command: Callable[[], None] | None = None
    if completing():  # the shell asks for completions (typer's): argv is bare, but it is not `drill` typed bare
        pass
    elif args in COMMANDS:  # a fast path: drill, drill list, status and next typed bare need no typer
        command = partial(answer_bare, args)
    elif args in HELP:  # and the app's help, drawn as typer draws it (unless click would wrap its usage line)
        from autograd_drill.commands.quick_help import print_help, usage

        line = usage()
        if line is not None:
            command = partial(print_help, line)
    quick = command is not None
    if command is None:
        from autograd_drill.cli import main as command
    try:
        if OURS:  # inside the try: a Ctrl-C as it is set is caught
            sys.unraisablehook = partial(_unraisable, sys.unraisablehook)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            command()
        finally:
            if OURS:  # the command is done: a Ctrl-C from here exits at once
                signal.signal(signal.SIGINT, _leave)
    except KeyboardInterrupt:
        interrupted()
    except SystemExit as exc:
        code = exc.code
    except OSError as exc:  # the output cannot be written (a full disk, a device error): one line, not a traceback
        if exc.errno not in UNWRITABLE:
            raise
        code = unwritable(exc)
    except Exception as exc:  # a Ctrl-C that surfaced as another error is a Ctrl-C all the same
        if not from_interrupt(exc):
            raise
        interrupted()
    if code == INTERRUPTED:  # typer turns a Ctrl-C into exit 130 without a word
        interrupted()
    if quick:
        leave_at_once(code)
    sys.exit(code)  # type: ignore[arg-type]


def completing() -> bool:
    """The shell's completion script runs drill (``_DRILL_COMPLETE=complete_bash``, the variable typer
    names after the program: ``_DRILL_COMPLETE``, or for ``python -m autograd_drill`` one that names it too): it
    is answered by the app, whatever the arguments (none, usually)."""
    return any(
        name.startswith("_") and name.endswith("_COMPLETE") and "DRILL" in name and value
        for name, value in os.environ.items()
    )


def leave_at_once(code: object) -> None:
    """Exit with status ``code`` (None: 0) without the interpreter's finalization, when it has nothing
    left to do: the output written (flushed here), no exit handler registered (``atexit``: coverage,
    logging, a temporary folder's cleanup), no other thread, no profiler or tracer (which writes its
    figures once the command returns). Tearing down the modules of a command that
    is done costs a sixth of ``import typer, rich`` (issue 25); the OS frees the rest. Otherwise (or
    when flushing fails: the interpreter's exit says so as it always did) it returns."""
    import atexit
    import threading

    if code is None:
        code = 0
    pending = getattr(atexit, "_ncallbacks", lambda: 1)()  # CPython's count; elsewhere: assume some
    if not isinstance(code, int) or pending or threading.active_count() > 1:
        return
    if sys.getprofile() is not None or sys.gettrace() is not None:  # python -m cProfile, a debugger: theirs
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        return
    os._exit(code)


UNWRITABLE = {errno.ENOSPC, errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG}
"""Why output may not be written: ``drill list > /dev/full``, a full or failing disk."""


def unwritable(exc: OSError) -> int:
    """Say in one line, on stderr if it can be written, that the output could not be; exit status 2.
    What stays buffered for stdout is dropped, so that the interpreter's exit does not fail on it."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    try:
        print(f"error: the output could not be written: {exc.strerror or exc}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
    return 2


def safe_streams() -> None:
    """stdout and stderr write what their encoding cannot hold as an ASCII look-alike (or ``?``),
    rather than raise; a UTF one, whatever it cannot (a lone surrogate), as ``?``."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # None: not a TextIOWrapper (tests, embedding)
        if reconfigure is None or stream.errors not in ("strict", "surrogateescape"):
            continue
        if (stream.encoding or "").lower().replace("_", "-").startswith("utf"):
            if stream.errors == "strict":  # surrogateescape writes an undecodable file name back as it was
                reconfigure(errors="replace")
            continue
        from autograd_drill.ascii_fallback import register

        reconfigure(errors=register())


def from_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by a KeyboardInterrupt (its cause, or what it was raised while
    handling, or theirs): a Ctrl-C inside an import can come out as another error (one in a class's
    creation is re-raised as "RuntimeError: Error calling __set_name__", from the KeyboardInterrupt)."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _unraisable(hook: "Callable[[sys.UnraisableHookArgs], object]", unraisable: "sys.UnraisableHookArgs") -> None:
    """A Ctrl-C that Python could not raise where it came, in code it runs for itself (a weak
    reference's callback, as an import drops its module lock; a ``__del__``): Python would print
    "Exception ignored in" with a traceback, forget it, and the command would go on to its end. It
    cannot be raised again from here (it would come in this very hook), so drill leaves as it does
    for a Ctrl-C before or after the command: at once, one line, 130 (what the command had under way
    is then as after a SIGKILL, which loses nothing: issue 5). Anything else goes to ``hook``."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        interrupted()
    hook(unraisable)


def interrupted() -> None:
    """Say so in one line and exit 130, whatever the interpreter would do at exit (join threads, run
    atexit handlers) and whatever Ctrl-C comes next."""
    import os

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _flush(sys.stdout)
    try:
        sys.stderr.write("interrupted\n")
    except (OSError, ValueError):  # stderr closed or gone: the status says it
        pass
    _flush(sys.stderr)
    os._exit(INTERRUPTED)


def _leave(signum: int, frame: FrameType | None) -> None:
    interrupted()


def _flush(stream: object) -> None:
    try:
        stream.flush()  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):  # a closed pipe, a closed stream
        pass


OURS = signal.getsignal(signal.SIGINT) is signal.default_int_handler
"""Python's own handler is in place: Ctrl-C is ours to handle. A SIGINT ignored by whoever started
drill (``nohup``, a background job of a script) stays ignored."""
if OURS:
    signal.signal(signal.SIGINT, _leave)
