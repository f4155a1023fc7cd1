"""Interview questions of every installed pack (issue 28, point 1): the bank is the union of every
pack's questions.toml (targets canonical; a question id another pack has already qualified as
``layers/<id>``; the built-in ids and questions unchanged), ``drill interview --target layernorm``
plans a coding task on layers/layernorm with the layers questions about it first and, the layers pack
having no [follow_up] table, no follow-up but a note; a pack's questions.toml that does not load is one
line on stderr. In process, the layers pack installed as tests/pack_here.py does it; the session in a
real terminal is tests/test_pack_interview_terminal.py's."""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import replace

import pytest

from autograd_drill.grader.packs import builtin
from autograd_drill.interview import interviewer as steps
from autograd_drill.interview.bank import file_bank, load_bank, merged_bank
from autograd_drill.targets import pack_of
from tests.support import drill, said
from tests.test_pack_installed import PACKAGE

pytestmark = pytest.mark.usefixtures("wide_terminal")

OWN = tomllib.loads((PACKAGE / "questions.toml").read_text(encoding="utf-8"))["question"]
"""The layers pack's questions as its file holds them (read here, not by the code under test)."""


def test_the_bank_is_the_union_of_every_packs_questions(layers_installed):
    bank, alone = load_bank(), file_bank()
    assert bank.questions[: len(alone.questions)] == alone.questions  # the built-in ones unchanged, first
    mine = bank.questions[len(alone.questions) :]
    assert [q.id for q in mine] == [q["id"] for q in OWN]
    assert [q.target for q in mine] == [f"layers/{q['target']}" for q in OWN]
    assert len(OWN) >= 10 and len(set(bank.ids)) == len(bank.ids)
    assert bank.follow_ups == alone.follow_ups  # the layers pack pairs no follow-up


def test_a_clashing_question_id_is_qualified_by_its_pack(layers_installed, tmp_path):
    """A pack's question whose id another pack has already: ``layers/<id>``; the built-in one stays bare."""
    text = (PACKAGE / "questions.toml").read_text(encoding="utf-8")
    clash = tmp_path / "questions.toml"
    clash.write_text(text.replace('id = "adam-bias-correction"', 'id = "log-sum-exp"', 1), encoding="utf-8")
    pack = replace(pack_of("layers/adam"), questions=clash)
    bank = merged_bank((builtin(), pack))
    assert bank.get("log-sum-exp") == file_bank().get("log-sum-exp")
    assert bank.get("layers/log-sum-exp").target == "layers/adam"
    path = steps.answer_path(3, "layers/log-sum-exp")
    assert path.parent == steps.interviews_folder() / "answers" and path.name == "interview-3-layers.log-sum-exp.txt"


def test_a_packs_questions_that_do_not_load_are_one_line(layers_installed, tmp_path, capsys):
    broken = tmp_path / "questions.toml"
    shutil.copy(PACKAGE / "questions.toml", broken)
    broken.write_text(broken.read_text(encoding="utf-8") + "\n[[question]\n", encoding="utf-8")
    bank = merged_bank((builtin(), replace(pack_of("layers/adam"), questions=broken)))
    assert bank == file_bank()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("drill: the interview questions of the pack layers do not load: ")


@pytest.mark.parametrize("typed", ["layernorm", "layers/layernorm"])
def test_drill_interview_target_plans_a_layers_task_and_its_questions(layers_installed, clock, typed):
    data = json.loads(drill("interview", "--plan", "--json", "--minutes", "30", "--target", typed).output)
    coding, *questions = data["parts"]
    assert (coding["kind"], coding["id"]) == ("coding", "layers/layernorm")
    bank = load_bank()
    about = [q.id for q in bank.questions if q.target == "layers/layernorm"]
    assert [q["id"] for q in questions[: len(about)]] == about  # the layers questions about layernorm first
    assert all(q["kind"] == "question" for q in questions)
    assert data["notes"] == ["no follow-up: the layers pack pairs none with layers/layernorm"]
    text = said(drill("interview", "--plan", "--minutes", "30", "--target", typed))
    assert "layers/layernorm" in text and "no follow-up: the layers pack pairs none" in text


def test_the_builtin_plan_keeps_its_follow_up_and_no_note(layers_installed, clock):
    data = json.loads(drill("interview", "--plan", "--json", "--minutes", "20", "--target", "unbroadcast").output)
    assert [p["kind"] for p in data["parts"]][:2] == ["coding", "follow-up"] and data["notes"] == []


def test_without_a_target_the_schedules_first_core_target_of_any_pack(layers_installed, clock, store):
    """Every built-in drill passed fast an hour ago (due in days): the queue's first core target is a
    layers one, never drilled, and the interview takes it."""
    from tests.support import CATALOG, record_attempt

    for target in [*CATALOG.ids, "full", *(t.id for t in CATALOG.extensions)]:
        record_attempt(store, target, 30, clock.now - 3600)
    data = json.loads(drill("interview", "--plan", "--json", "--minutes", "45").output)
    assert data["parts"][0] == {
        "kind": "coding",
        "id": "layers/layernorm",
        "budget": data["parts"][0]["budget"],
        "why": "first in the schedule's queue; target time 8:00",
    }


def test_a_packs_full_drill_is_no_interview_task(layers_installed, clock):
    result = drill("interview", "--plan", "--target", "layers/full", code=2)
    assert "layers/full is a" in said(result) and "an interview's task is one target" in said(result)
    assert "Traceback" not in result.output


MINE = ["drills/views/chart.py", "drills/store/schedule.py", "drills/interview", "drills/commands/interview.py"]
"""The practice surfaces routed through drills/targets.py (tests/test_targets.py's NOT_ROUTED_YET)."""


def test_the_practice_surfaces_read_the_catalog_through_the_merged_view():
    from tests.support import ROOT
    from tests.test_targets import calls_load_catalog_bare

    files = [p for name in MINE for p in ([ROOT / name] if name.endswith(".py") else (ROOT / name).rglob("*.py"))]
    assert len(files) > 5 and not [str(p) for p in files if calls_load_catalog_bare(p)]
