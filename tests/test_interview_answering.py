"""Answering a question (drills/interview/answering.py): the $EDITOR file and what is read back from
it, and the key points ticked by number."""

from __future__ import annotations

import pytest

from autograd_drill.interview.answering import MARKER, TickError, answer_from_file, answer_template, parse_ticks
from autograd_drill.interview.bank import load_bank

QUESTION = load_bank().get("log-sum-exp")


def test_the_template_asks_the_question_above_the_marker():
    template = answer_template(QUESTION)
    above, below = template.split(MARKER)
    assert QUESTION.prompt in above and "Time box: 3:30" in above and not below.strip()
    assert answer_from_file(template) == ""


def test_the_answer_is_everything_below_the_marker_comments_and_blank_lines_included():
    written = answer_template(QUESTION) + "exp overflows.\n\n# subtract the max\nthen log.\n\n"
    assert answer_from_file(written) == "exp overflows.\n\n# subtract the max\nthen log."


def test_a_deleted_marker_keeps_all_but_the_leading_comments():
    assert answer_from_file("# Why?\n# Time box\nIt overflows.\n# and more\n") == "It overflows.\n# and more"


@pytest.mark.parametrize(
    ("typed", "covered"),
    [
        ("1 3", (0, 2)),
        ("3,1", (0, 2)),
        (" 2, 2 ", (1,)),
        ("all", (0, 1, 2, 3, 4)),
        ("ALL", (0, 1, 2, 3, 4)),
        ("", ()),
        ("none", ()),
        ("0", ()),
    ],
)
def test_ticks_are_read_as_numbers_from_one(typed, covered):
    assert parse_ticks(typed, 5) == covered


@pytest.mark.parametrize("typed", ["6", "1 x", "-1", "1.5", "0 2"])
def test_ticks_that_are_not_key_points_are_refused_in_one_line(typed):
    with pytest.raises(TickError, match=r"type the numbers \(1 to 5\) of the key points you covered, all, or none"):
        parse_ticks(typed, 5)
