"""The reference engine: the answer key every drill is graded against and compared with.

``ENGINE`` is its file, the one place every other part of the project finds it (stubs are cut from
it, the grader's finite-difference oracle runs it, ``drill diff`` shows it). Importing this package
does not import the engine.
"""

import importlib.util
from pathlib import Path
from types import ModuleType

ENGINE = Path(__file__).resolve().with_name("engine.py")


def load_engine(name: str = "reference_engine") -> ModuleType:
    """A fresh copy of the engine, imported by path under ``name`` (and not registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, ENGINE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
