"""``drill export`` and ``drill import`` (drills/store/export.py): the round trip through both formats, with
and without the sources, no duplicates on a second import, and one-line refusals of bad files."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from autograd_drill import cli
from autograd_drill.loop.clock import MockClock
from autograd_drill.store.export import CSV_FIELDS
from tests.support import CATALOG, DAY, T0, drill, open_store, said, seed, use_consoles

NOT_UTF8 = "# caf\udce9 in latin-1\nx = 1\n"  # a file saved as latin-1: kept byte for byte


@pytest.fixture(autouse=True)
def console(monkeypatch: pytest.MonkeyPatch) -> None:
    use_consoles(monkeypatch, width=500)
    monkeypatch.setattr(cli, "CLOCK", MockClock(T0 + 30 * DAY))


def fill_history() -> None:
    """A varied history: passes, a give-up, an abandon, assisted with hints, paused time, a full run with
    splits, graded sources (one not UTF-8), and an attempt still in progress."""
    store = open_store()
    try:
        a = store.start("unbroadcast", Path("/work/solutions/unbroadcast.py"), T0 + 0.123456)
        store.add_submission(a, T0 + 100, 99.5, "def unbroadcast(grad, shape):\n    pass\n", '{"passed": false}', False)
        store.add_submission(a, T0 + 200.25, 200.125, NOT_UTF8, '{"passed": true}', True)
        store.add_split(a, "unbroadcast", 200.125)
        store.finish(a, "passed", T0 + 200.248456)

        b = store.start("backward", Path("/work/solutions/backward.py"), T0 + DAY)
        store.pause(b, T0 + DAY + 60)
        store.resume(b, T0 + DAY + 360)
        store.show_hint(b, "backward")
        store.show_hint(b, "backward")
        store.add_split(b, "backward", 700)
        store.finish(b, "passed", T0 + DAY + 1000)

        c = store.start("arith", Path("/work/solutions/arith.py"), T0 + 2 * DAY)
        store.finish(c, "gave-up", T0 + 2 * DAY + 900)
        d = store.start("arith", Path("/work/solutions/arith.py"), T0 + 2 * DAY + 1000)
        store.finish(d, "abandoned", T0 + 2 * DAY + 1030, archive="/work/solutions/.archive/arith-001.py")

        f = store.start("full", Path("/work/solutions/full.py"), T0 + 3 * DAY)
        for k, target in enumerate(CATALOG.ids):
            store.add_split(f, target, 300.0 * (k + 1))
        store.show_hint(f, "softmax")
        store.finish(f, "passed", T0 + 3 * DAY + 300.0 * len(CATALOG.ids))

        store.start("unary", Path("/work/solutions/unary.py"), T0 + 4 * DAY)  # in progress: not exported
    finally:
        store.close()


def move_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / name))


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_round_trip_into_an_empty_home(fmt, tmp_path, monkeypatch):
    fill_history()
    first = drill("export", "--format", fmt).output
    move_home(monkeypatch, tmp_path, "new-home")
    path = tmp_path / f"history.{fmt}"
    path.write_text(first, encoding="utf-8")
    text = said(drill("import", str(path)))
    assert f"Imported 5 attempts ({2 + len(CATALOG.ids)} splits)" in text and "skipped" not in text
    assert drill("export", "--format", fmt).output == first

    store = open_store()
    try:
        attempts = store.attempts()
        assert [a.target for a in attempts] == ["unbroadcast", "backward", "arith", "arith", "full"]
        assert [a.outcome for a in attempts] == ["passed", "passed", "gave-up", "abandoned", "passed"]
        backward = attempts[1]
        assert backward.paused_total == 300 and backward.time == 700 and backward.assisted
        assert store.hints_shown(backward, "backward") == 2
        assert attempts[3].archive == "/work/solutions/.archive/arith-001.py"
        assert attempts[4].splits == {t: 300.0 * (k + 1) for k, t in enumerate(CATALOG.ids)}
        assert attempts[0].started_at == pytest.approx(T0 + 0.123456, abs=1e-6)
        assert store.submissions(attempts[0]) == []  # sources only with --with-sources
        assert store.active() is None
    finally:
        store.close()


def test_json_with_sources_keeps_every_graded_version_byte_for_byte(tmp_path, monkeypatch):
    fill_history()
    out = tmp_path / "with-sources.json"
    assert f"Wrote 5 attempts ({2 + len(CATALOG.ids)} splits)" in said(
        drill("export", "-f", "json", "--with-sources", "-o", str(out))
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    subs = data["attempts"][0]["submissions"]
    assert [s["passed"] for s in subs] == [False, True] and subs[1]["result"] == {"passed": True}
    move_home(monkeypatch, tmp_path, "new-home")
    assert "2 graded versions" in said(drill("import", str(out)))
    store = open_store()
    try:
        [first] = [a for a in store.attempts() if a.target == "unbroadcast"]
        subs = store.submissions(first)
        assert [s.source for s in subs][1].encode("utf-8", "surrogateescape") == b"# caf\xe9 in latin-1\nx = 1\n"
        assert [(s.graded_at, s.elapsed, s.passed) for s in subs] == [
            (T0 + 100, 99.5, False),
            (T0 + 200.25, 200.125, True),
        ]
        row = store.db.execute(
            "SELECT sha256 FROM submissions WHERE attempt_id = ? ORDER BY id", (first.id,)
        ).fetchall()
        assert row[1]["sha256"] == hashlib.sha256(b"# caf\xe9 in latin-1\nx = 1\n").hexdigest()
    finally:
        store.close()
    again = tmp_path / "again.json"
    drill("export", "-f", "json", "--with-sources", "-o", str(again))
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_import_of_one_attempt_speaks_in_the_singular(tmp_path):
    seed("unbroadcast", 100, at=T0)
    path = tmp_path / "h.csv"
    assert "Wrote 1 attempt (1 split)" in said(drill("export", "-o", str(path)))
    assert "1 already in your history was skipped" in said(drill("import", str(path)))


def test_import_skips_attempts_already_there(tmp_path):
    fill_history()
    path = tmp_path / "h.csv"
    drill("export", "-o", str(path))
    text = said(drill("import", str(path)))
    assert "Imported 0 attempts" in text and "5 already in your history were skipped" in text
    store = open_store()
    try:
        assert len(store.attempts()) == 6  # the 5 finished and the one in progress, once each
    finally:
        store.close()


def test_import_merges_into_a_history_with_other_attempts(tmp_path, monkeypatch):
    fill_history()
    path = tmp_path / "h.json"
    drill("export", "-f", "json", "-o", str(path))
    move_home(monkeypatch, tmp_path, "other")
    store = open_store()
    try:
        a = store.start("softmax", Path("/elsewhere/softmax.py"), T0 + 10 * DAY)
        store.add_split(a, "softmax", 400)
        store.finish(a, "passed", T0 + 10 * DAY + 400)
    finally:
        store.close()
    assert "Imported 5 attempts" in said(drill("import", str(path)))
    rows = list(csv.DictReader(io.StringIO(drill("export").output)))
    assert [r["target"] for r in rows if r["kind"] == "attempt"] == [
        "unbroadcast",
        "backward",
        "arith",
        "arith",
        "full",
        "softmax",
    ]


def test_import_reads_standard_input(tmp_path, monkeypatch):
    fill_history()
    text = drill("export", "-f", "json").output
    move_home(monkeypatch, tmp_path, "new-home")
    assert "Imported 5 attempts" in said(drill("import", "-", input=text))


# ---------------------------------------------------------------------------- the CSV a data person reads


def test_csv_is_one_tidy_table(tmp_path):
    fill_history()
    rows = list(csv.DictReader(io.StringIO(drill("export").output)))
    assert tuple(rows[0]) == CSV_FIELDS
    assert [r["kind"] for r in rows[:4]] == ["attempt", "split", "attempt", "split"]
    first = rows[0]
    assert first["started_at"] == "2027-01-15T08:00:00.123456+00:00" and first["outcome"] == "passed"
    assert float(first["seconds"]) == pytest.approx(200.125) and first["assisted"] == "false"
    hint = next(r for r in rows if r["kind"] == "hint")
    assert (hint["attempt"], hint["target"], hint["hints"]) == ("2", "backward", "2")
    splits = [r for r in rows if r["kind"] == "split" and r["attempt"] == "5"]
    assert [r["target"] for r in splits] == list(CATALOG.ids)
    assert {r["attempt"] for r in rows} == {"1", "2", "3", "4", "5"}  # the attempt in progress is left out


def test_json_has_a_version_and_attempts_with_their_splits():
    fill_history()
    data = json.loads(drill("export", "--format", "json").output)
    assert data["version"] == 2 and len(data["attempts"]) == 5
    full = data["attempts"][4]
    assert full["target"] == "full" and full["hints"] == {"softmax": 1}
    assert [s["target"] for s in full["splits"]] == list(CATALOG.ids)
    assert "submissions" not in full


# ---------------------------------------------------------------------------- refusals


def test_export_refusals(tmp_path):
    assert "unknown format 'xml'" in said(drill("export", "--format", "xml", code=2))
    assert "--with-sources needs --format json" in said(drill("export", "--with-sources", code=2))
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    assert "cannot write" in said(drill("export", "-o", str(blocked / "h.csv"), code=2))


def good_json() -> dict:
    fill_history()
    return json.loads(drill("export", "-f", "json").output)


def good_csv() -> str:
    fill_history()
    return drill("export").output


@pytest.mark.parametrize(
    ("suffix", "make", "message"),
    [
        pytest.param(".json", lambda: "{not json", "not JSON", id="not-json"),
        pytest.param(".json", lambda: "[1, 2]", "not an autograd-drill export", id="not-an-export"),
        pytest.param(
            ".json", lambda: json.dumps({**good_json(), "version": 3}), "version 3 is not supported", id="version"
        ),
        pytest.param(
            ".json",
            lambda: json.dumps({"version": 1, "attempts": [{**good_json()["attempts"][0], "started_at": "yesterday"}]}),
            "attempt 1: started_at is not an ISO 8601 time: 'yesterday'",
            id="bad-time",
        ),
        pytest.param(
            ".json",
            lambda: json.dumps({"version": 1, "attempts": [{**good_json()["attempts"][0], "target": "backwrd"}]}),
            "attempt 1: target 'backwrd' is not a target",
            id="unknown-target",
        ),
        pytest.param(
            ".json",
            lambda: json.dumps({"version": 1, "attempts": [{**good_json()["attempts"][0], "outcome": None}]}),
            "outcome must be one of passed, gave-up, abandoned",
            id="in-progress",
        ),
        pytest.param(
            ".json",
            lambda: json.dumps(
                {
                    "version": 1,
                    "attempts": [{**good_json()["attempts"][0], "splits": [{"target": "arith", "seconds": 5}]}],
                }
            ),
            "an attempt at unbroadcast cannot have a split for arith",
            id="foreign-split",
        ),
        pytest.param(
            ".json",
            lambda: json.dumps({"version": 1, "attempts": [{**good_json()["attempts"][0], "paused_seconds": -1}]}),
            "paused_seconds must be a number of seconds (0 or more)",
            id="negative",
        ),
        pytest.param(".csv", lambda: "a,b\n1,2\n", "no column kind, attempt, target", id="not-our-csv"),
        pytest.param(
            ".csv", lambda: good_csv().replace("split,1,", "split,9,", 1), "names attempt 9", id="orphan-split"
        ),
        pytest.param(
            ".csv", lambda: good_csv().replace("passed", "won", 1), "line 2: outcome must be", id="bad-outcome"
        ),
        pytest.param(
            ".csv", lambda: good_csv().replace(",false,", ",maybe,", 1), "assisted must be true or false", id="flag"
        ),
        pytest.param(
            ".csv", lambda: good_csv().replace("split,1,", "splat,1,", 1), "line 3: kind must be attempt", id="kind"
        ),
        pytest.param(
            ".csv", lambda: good_csv() + "split,1,unbroadcast,,,,1.0,,,,,,,\n", "appears twice", id="dup-split"
        ),
    ],
)
def test_import_refuses_a_malformed_file_in_one_line(tmp_path, monkeypatch, suffix, make, message):
    text = make()
    move_home(monkeypatch, tmp_path, "new-home")
    path = tmp_path / f"bad{suffix}"
    path.write_text(text, encoding="utf-8")
    result = drill("import", str(path), code=2)
    assert message in said(result)
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    store = open_store()
    try:
        assert store.attempts() == []  # checked before anything is written
    finally:
        store.close()


def test_import_refuses_a_missing_or_unreadable_file(tmp_path):
    assert "no such file" in said(drill("import", str(tmp_path / "nope.csv"), code=2))
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"caf\xe9\n")
    assert "cannot read" in said(drill("import", str(latin), code=2))
    plain = tmp_path / "h.txt"
    plain.write_text("kind,attempt\n", encoding="utf-8")
    assert "unknown format 'xml'" in said(drill("import", str(plain), "--format", "xml", code=2))


def test_import_takes_a_paused_time_a_float_rounded_below_zero(tmp_path, monkeypatch):
    """An export of an earlier version could say paused_seconds -2e-9 (a float's rounding): imported as 0."""
    exported = good_json()
    exported["attempts"][0]["paused_seconds"] = -2e-9
    move_home(monkeypatch, tmp_path, "new-home")
    path = tmp_path / "old.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    drill("import", str(path))
    store = open_store()
    try:
        assert store.attempts()[0].paused_total == 0.0
    finally:
        store.close()
