"""Running the user's code under limits: a time limit per test, a memory cap, no forbidden imports.

The grading process is already a child of the CLI; these limits keep one bad solution from
hanging it, exhausting the machine, or grading torch's gradients instead of the user's.

Each limit degrades, never breaks, where the platform lacks what it uses: the time limit is a
``SIGALRM`` timer where there is one (Linux, macOS) and otherwise a watchdog thread that raises
into the test (Windows); the memory cap is applied where the platform enforces it (Linux) and
otherwise skipped, with a note the verdict carries.
"""

from __future__ import annotations

import _signal
import ast
import ctypes
import dis
import importlib.abc
import importlib.util
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, FrameType, ModuleType

from autograd_drill.grader.blame import Blame
from autograd_drill.grader.catalog import listed
from autograd_drill.grader.check import GradeFailure, TestTimeout
from autograd_drill.grader.solution_file import UnreadableFile, read_solution

MODULE_NAME = "drill_solution"
FORBIDDEN = {"torch", "jax", "tensorflow", "autograd", "micrograd", "tinygrad", "autograd_drill", "reference", "grader"}
FORBIDDEN.add("drills")  # this package's import name and its folders' names (issue 27): the reference is in it
"""Packages a solution may not use: the drill is to write the gradients, with NumPy only."""


def _stop(seconds: float) -> type[TestTimeout]:
    """The exception that stops a test after ``seconds``: a class, since a watchdog raises a class."""
    return type("TestTimeout", (TestTimeout,), {"limit": seconds, "__test__": False})


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TestTimeout in whatever runs after ``seconds`` (wall clock); 0 means no limit."""
    if seconds <= 0:
        yield
    elif hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        with _alarm(seconds):
            yield
    else:
        with _watchdog(seconds):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """A ``SIGALRM`` timer: interrupts even a blocking call such as ``time.sleep``."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise _stop(seconds)()

    # NOTE: _signal's signal(), not signal's: the same call, without converting each handler to an
    # enum (this runs for each phase of each test, and each case of a batch)
    previous = _signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGALRM, previous)


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    """A thread that raises TestTimeout in this thread after ``seconds``, where there is no ``SIGALRM``.

    CPython delivers it between two bytecodes, so a Python loop is stopped; a single blocking call
    (``time.sleep(1e9)``) is not, and the parent stops the whole grading instead (grader/run.py).
    """
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), ctypes.py_object(_stop(seconds)))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    try:
        timer.start()
        yield
    finally:
        with lock:
            state["done"] = True
            if state["fired"]:  # raised but perhaps not delivered yet: take it back
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)
        timer.cancel()


def cap_memory(megabytes: int) -> str | None:
    """Cap this process's address space, so that a huge allocation raises MemoryError instead of
    swapping; where the platform cannot, a note that says the cap is off (None when applied)."""
    if megabytes <= 0:
        return None
    skipped = f"the {megabytes} MB memory cap is not applied on this platform ({sys.platform})"
    if sys.platform == "darwin":  # macOS refuses address-space limits (EINVAL) or ignores them
        return skipped + ": macOS does not enforce address-space limits"
    try:
        import resource
    except ImportError:  # Windows
        return skipped
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = megabytes * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError, AttributeError) as exc:
        return f"{skipped}: {exc}"
    return None


def _forbidden_in_tree(source: bytes, filename: str) -> str | None:
    """``forbidden_imports`` for a file that does not compile, read as a syntax tree where it parses
    (``ast.parse`` allows what only the compiler refuses, a late ``from __future__``)."""
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            if name.split(".")[0] in FORBIDDEN:
                return f"{filename}:{node.lineno} imports {name}"
    return None


def forbidden_imports(code: CodeType, filename: str) -> str | None:
    """The first import of a forbidden package in ``code`` (the solution compiled, its functions'
    code included), as a message; None if there is none. Looks into the instructions only where the
    names a code object uses include a forbidden one (an import's module is one of them)."""
    if any(name.split(".")[0] in FORBIDDEN for name in code.co_names):
        previous: list[dis.Instruction] = []
        for instruction in dis.get_instructions(code):
            level = previous[-2].argval if len(previous) >= 2 else 0  # LOAD_CONST level, fromlist; IMPORT_NAME
            if instruction.opname == "IMPORT_NAME" and level == 0 and instruction.argval.split(".")[0] in FORBIDDEN:
                line = instruction.positions.lineno if instruction.positions else None
                return f"{filename}:{line or code.co_firstlineno} imports {instruction.argval}"
            previous.append(instruction)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            refusal = forbidden_imports(const, filename)
            if refusal:
                return refusal
    return None


class ForbiddenImports(importlib.abc.MetaPathFinder):
    """Refuses a forbidden package to an import made from the solution's own code, at any time."""

    def __init__(self, path: Path) -> None:
        self.filename = str(path)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] not in FORBIDDEN:
            return None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.filename:
                raise ImportError(f"refused: the solution imports {name}; the drill is to write the gradients yourself")
            frame = frame.f_back  # type: ignore[assignment]
        return None


def _smuggled(module: ModuleType) -> str | None:
    """A forbidden package reached at run time (importlib, __import__): a module or function in its globals."""
    for name, value in vars(module).items():
        owner = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if isinstance(owner, str) and owner.split(".")[0] in FORBIDDEN:
            return f"its global {name!r} comes from {owner}"
    return None


def _not_compiled(path: Path, exc: SyntaxError) -> GradeFailure:
    if "codec can't decode" in str(exc) or "utf-8" in str(exc.msg).lower():
        return GradeFailure(f"could not import {path}: it is not UTF-8 text ({exc.msg})")
    where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
    text = f"\n    {exc.text.rstrip()}" if exc.text else ""
    return GradeFailure(f"could not import {path}: SyntaxError at {where}: {exc.msg}{text}")


def load_solution(path: Path, blame: Blame, seconds: float) -> ModuleType | GradeFailure:
    """Import the user's file by path, or the verdict that explains why it cannot be graded."""
    try:
        source = read_solution(path)
    except UnreadableFile as exc:
        return GradeFailure(str(exc))
    if not source.strip():
        return GradeFailure(f"{path} is empty: it should define {listed(blame.catalog.top_level_names())}")
    try:  # as the import system compiles a source file (SourceLoader.source_to_code)
        code = compile(source, str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes (Python 3.11)
        refusal = _forbidden_in_tree(source, str(path))
        if refusal is None:
            return (
                _not_compiled(path, exc)
                if isinstance(exc, SyntaxError)
                else GradeFailure(f"could not import {path}: {exc}")
            )
    else:
        refusal = forbidden_imports(code, str(path))
    if refusal:
        return GradeFailure(
            f"refused: {refusal}. The drill is to write the gradients yourself, with NumPy only "
            "(no torch, no reference, no autograd library)"
        )
    sys.meta_path.insert(0, ForbiddenImports(path))
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    try:
        with time_limit(seconds):
            exec(code, module.__dict__)  # noqa: S102 - the user's module, run as its import would
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - whatever the user's import raised, TestTimeout included
        text, location = blame.describe(exc, "the module")
        return GradeFailure(
            f"could not import {path}: {text}", location=location, timed_out=isinstance(exc, TestTimeout)
        )
    smuggled = _smuggled(module)
    if smuggled:
        return GradeFailure(
            f"refused: {path} uses a forbidden package ({smuggled}). The drill is to write "
            "the gradients yourself, with NumPy only"
        )
    return module
