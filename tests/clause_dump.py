"""A pytest plugin for tests/test_contract.py: dumps each collected grader test's markers and clauses.

``python -m pytest grader --collect-only -p tests.clause_dump`` writes JSON to $DRILL_CLAUSE_DUMP.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


def pytest_collection_finish(session: pytest.Session) -> None:
    found = {
        item.nodeid: {
            "markers": sorted({m.name for m in item.iter_markers()}),
            "clauses": [phrase for m in item.iter_markers("clause") for phrase in m.args],
        }
        for item in session.items
    }
    Path(os.environ["DRILL_CLAUSE_DUMP"]).write_text(json.dumps(found), encoding="utf-8")
