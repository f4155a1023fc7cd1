"""The interview's question bank (drills/interview/questions.toml, drills/interview/bank.py): what the
shipped bank covers, and the loader's refusals, each a one-line BankError naming the question."""

from __future__ import annotations

import re

import pytest

from autograd_drill.interview import bank as bank_module
from autograd_drill.interview.bank import BankError, parse_bank
from tests.support import BANK, CATALOG, about

# The topics issue 15 asks the bank to cover, each as words a question on it must use.
TOPICS = {
    "inside loss.backward()": r"loss\.backward\(\)",
    "a broadcast input's gradient is a sum": r"broadcast.*sum|sum.*broadcast",
    "an intermediate's .grad is None": r"retain_grad",
    "no topological order": r"topological order",
    "a freed graph and retain_graph": r"backward through the graph a second time",
    "backward twice": r"backward twice",
    "in-place ops and the version counter": r"version counter",
    "aliasing a NumPy array": r"NumPy array",
    "recursion depth": r"RecursionError",
    "reverse versus forward mode": r"reverse mode.*forward mode|forward mode.*reverse mode",
    "Hessian-vector products": r"Hessian-vector",
    "finite-difference checks and tolerances": r"central differences",
    "activation checkpointing": r"checkpointing",
    "a custom op (Function, custom_vjp)": r"torch\.autograd\.Function(.|\n)*jax\.custom_vjp",
    "data-parallel all-reduce overlap": r"all-reduce",
    "dynamic graph versus JAX": r"JAX's function transformations",
    "log-sum-exp stability": r"log\(sum\(exp",
    "cross-entropy from logits": r"cross_entropy take logits",
}


def test_the_bank_holds_at_least_24_questions_with_unique_ids():
    assert len(BANK.questions) >= 24
    assert len(set(BANK.ids)) == len(BANK.ids)


@pytest.mark.parametrize("topic", TOPICS)
def test_each_topic_of_the_issue_has_a_question(topic):
    found = [q.id for q in BANK.questions if re.search(TOPICS[topic], q.prompt + "\n" + q.answer, re.S)]
    assert found, f"no question on {topic}"


def test_every_question_is_complete_and_checkable():
    for q in BANK.questions:
        assert q.target in CATALOG.all_ids, q.id
        assert 3 <= len(q.points) <= 6 and all(len(p) <= 120 for p in q.points), q.id
        assert q.difficulty in (1, 2, 3) and 60 <= q.time_box <= 900, q.id
        assert len(q.answer.split()) >= 60, f"{q.id}: a strong answer is a paragraph or a few"
    assert {q.difficulty for q in BANK.questions} == {1, 2, 3}


def test_every_core_target_has_a_follow_up_drill_and_questions():
    extensions = {t.id for t in CATALOG.extensions}
    unpaired = sorted(set(CATALOG.ids) - set(BANK.follow_ups))
    assert not unpaired, f"drills/interview/questions.toml, [follow_up]: pair {', '.join(unpaired)} with a follow-up"
    assert set(BANK.follow_ups) <= set(CATALOG.ids), "[follow_up]: a key that is no core target"
    assert set(BANK.follow_ups.values()) <= extensions
    assert BANK.follow_up("unary") == "max" and BANK.follow_up("backward") == "cotangent"
    for target in CATALOG.ids:
        assert about({target, BANK.follow_ups[target]}), f"no question goes with {target}"


def test_get_and_about():
    assert BANK.get("log-sum-exp").target == "softmax"
    assert all(q.target == "softmax" for q in about({"softmax"}))
    with pytest.raises(KeyError):
        BANK.get("no-such-question")


# ---------------------------------------------------------------------------- refusals

GOOD = """
[follow_up]
unary = "max"

[[question]]
id = "one"
target = "unary"
difficulty = 1
time_box = 120
prompt = "Why?"
answer = "Because."
points = ["a", "b", "c"]
"""


def edited(old: str, new: str, text: str = GOOD) -> str:
    assert old in text
    return text.replace(old, new)


def test_a_good_bank_parses():
    parsed = parse_bank(GOOD, "q.toml", CATALOG)
    assert parsed.ids == ("one",) and parsed.follow_ups == {"unary": "max"}
    assert parsed.get("one").points == ("a", "b", "c")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            edited('"unary"\ndifficulty', '"unery"\ndifficulty'), "(one): unknown target 'unery'", id="unknown-target"
        ),
        pytest.param(
            edited('["a", "b", "c"]', '["a", "b"]'), "(one): 2 key points; a question has 3 to 6", id="too-few-points"
        ),
        pytest.param(
            edited('["a", "b", "c"]', str(list("abcdefg")).replace("'", '"')),
            "(one): 7 key points",
            id="too-many-points",
        ),
        pytest.param(
            edited('["a", "b", "c"]', '["a", "a", "c"]'), "(one): two key points are the same", id="same-point"
        ),
        pytest.param(
            GOOD + GOOD.split("[[question]]")[1].join(["[[question]]", ""]),
            "question 2: the id 'one' is used twice",
            id="duplicate-id",
        ),
        pytest.param(edited("difficulty = 1", "difficulty = 4"), "difficulty is 1, 2 or 3, not 4", id="difficulty"),
        pytest.param(edited("time_box = 120", "time_box = 5"), "time_box is 60 to 900 seconds, not 5", id="time-box"),
        pytest.param(
            edited("time_box = 120", 'time_box = "2:00"'), "'time_box' must be an integer", id="time-box-type"
        ),
        pytest.param(
            edited('prompt = "Why?"', 'prompt = " "'), "'prompt' must be a non-empty string", id="empty-prompt"
        ),
        pytest.param(edited('id = "one"', 'id = "One Two"'), "lowercase words joined by dashes", id="bad-id"),
        pytest.param(
            edited('unary = "max"', 'unary = "softmax"'),
            "unary = 'softmax' is not a follow-up drill",
            id="follow-up-not-extension",
        ),
        pytest.param(
            edited('unary = "max"', 'max = "cotangent"'), "'max' is not a core target", id="follow-up-of-extension"
        ),
        pytest.param(
            edited("time_box = 120", "time_box = 120\ncolour = 1"), "unknown field 'colour'", id="unknown-field"
        ),
        pytest.param("[[question]\n", "q.toml is not valid TOML", id="not-toml"),
        pytest.param("[follow_up]\n", "q.toml holds no [[question]]", id="no-questions"),
    ],
)
def test_a_bad_bank_is_refused_in_one_line(text, message):
    with pytest.raises(BankError) as caught:
        parse_bank(text, "q.toml", CATALOG)
    said = str(caught.value)
    assert message in said and "\n" not in said and said.startswith("q.toml")


def test_strong_answers_are_paragraphs_each_on_one_line():
    assert bank_module.reflowed("a\nb\n\n  c\n d \n\n\n") == "a b\n\nc d"
    for q in BANK.questions:
        assert all(p and "\n" not in p for p in q.answer.split("\n\n")), q.id
