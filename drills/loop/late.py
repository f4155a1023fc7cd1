"""Verdicts graded while the history could not take them (drills/store/pending.py), recorded late:
by the next command that can write."""

from __future__ import annotations

from autograd_drill.loop.session import parse_result, record
from autograd_drill.store import pending
from autograd_drill.store.history import History


def record_waiting(history: History) -> int:
    """Record the verdicts kept while the history could not be written (``pending``), oldest first, all
    or none; how many. Raises sqlite3.Error or HistoryError when it still cannot be written."""
    kept = pending.waiting(history.path)
    if not kept:
        return 0
    with history.transaction():
        for v in kept:
            result = parse_result(str(v.get("result")))
            if result is None:
                continue
            when, elapsed, source = float(v["graded_at"]), v.get("elapsed"), str(v.get("source", ""))
            try:
                attempt = history.get(int(v["attempt_id"]))
            except (KeyError, TypeError, ValueError):  # not of this history: its source is kept all the same
                history.add_submission(None, when, elapsed, source, str(v["result"]), result.passed)
                continue
            record(history, attempt, when, elapsed, source, str(v["result"]), result, tick=False)
    pending.clear(history.path)
    return len(kept)
