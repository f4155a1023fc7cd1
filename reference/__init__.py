"""The reference engine: the answer key every drill is graded against and compared with.

``ENGINE`` is its file, the one place every other part of the project finds it (stubs are cut from
it, the grader's finite-difference oracle runs it, ``drill diff`` shows it). Importing this package
does not import the engine.
"""

from pathlib import Path

ENGINE = Path(__file__).resolve().with_name("engine.py")
