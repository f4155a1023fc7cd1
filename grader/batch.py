"""Generated cases, run in batches: many cases per pytest test, so that a save stays fast.

A pytest test costs about 2 ms of its own (fixtures, hooks, the report) whatever it checks; a
generated case costs a fraction of that. ``@batched(argnames, cases)`` stands where
``@pytest.mark.parametrize(argnames, cases)`` would, and makes one test of every ``size`` cases:
each case runs in turn under its own id (the failure message names it, ``[(2,1)-(3,)]``) and its
own time limit, the first failure ends the batch, and the cases' marks (their contract clauses) go
to the batch.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from _pytest.mark.structures import ParameterSet

from autograd_drill.grader.sandbox import time_limit

BATCH = 25
"""Cases per test: a failure in one batch does not hide those of the others."""
PARAM = "_cases"
"""The parameter that carries a batch's cases (grader/conftest.py times them one by one)."""

# NOTE: set once per grading process by grader/conftest.py (pytest_configure): a case is timed as a
# test is (the batch itself is not), and the report hears of each case, so that drill's backstop
# for a test that runs far past its limit times cases, not whole batches.
CASE_SECONDS = 0.0
"""The time limit of one case (--test-timeout); 0: none."""


def on_case(case: str) -> None:
    """Told each case's id as it starts (grader/conftest.py puts the report's heartbeat here)."""


def batched(argnames: str | Sequence[str], cases: Sequence[Any], size: int = BATCH) -> Callable[..., Any]:
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
    sets = [case if isinstance(case, ParameterSet) else pytest.param(*_values(case, len(names))) for case in cases]

    def wrap(test: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(test)
        kept = [p for name, p in signature.parameters.items() if name not in names]
        if "grade" not in signature.parameters:
            raise TypeError(f"{test.__name__}: a batched test takes the grade fixture")

        def run(**kwargs: Any) -> None:
            __tracebackhide__ = True
            grade, chunk = kwargs["grade"], kwargs.pop(PARAM)
            for case in chunk:
                grade.case = case.id or grade.case
                on_case(grade.case)
                with time_limit(CASE_SECONDS):
                    test(**kwargs, **dict(zip(names, case.values, strict=True)))

        run.__name__, run.__qualname__, run.__module__ = test.__name__, test.__qualname__, test.__module__
        run.__doc__ = test.__doc__
        run.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*kept, inspect.Parameter(PARAM, inspect.Parameter.KEYWORD_ONLY)]
        )
        run.pytestmark = list(getattr(test, "pytestmark", []))  # type: ignore[attr-defined]
        chunks = [sets[i : i + size] for i in range(0, len(sets), size)]
        params = [
            pytest.param(
                chunk,
                id=f"{i + 1}-of-{len(chunks)}",
                marks=[m for case in chunk for m in (case.marks or ())],
            )
            for i, chunk in enumerate(chunks)
        ]
        return pytest.mark.parametrize(PARAM, params)(run)

    return wrap


def seeds(n: int) -> list[ParameterSet]:
    """Cases ``0`` to ``n - 1`` for a test that draws its case from a seed (a random graph): each case
    is named by its seed, as a parametrized test's would be (``[17]``)."""
    return [pytest.param(seed, id=str(seed)) for seed in range(n)]


def _values(case: Any, n: int) -> tuple[Any, ...]:
    return tuple(case) if n > 1 else (case,)
