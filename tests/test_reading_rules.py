"""Unit tests of the reading rules' pure helpers (the reply corpus tests them end to end)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from isodyn.analysis.stats import cohen_kappa, kappa_interval
from isodyn.scoring.answer_match import Tolerance, _groups_equal, text_equivalent
from isodyn.scoring.extract import answer_lines, cut_off_before_answer, looping, read_number, without_code
from isodyn.scoring.focus import question_focus, restates
from isodyn.scoring.options import read_statement
from isodyn.scoring.polarity import read_yes_no
from isodyn.scoring.text_answers import (
    COLLECTION,
    EQUATION,
    EXPRESSION,
    TIME,
    WORD,
    YES_NO,
    times_in,
    truth_kind,
)

PARITY = ("even", "odd", "neither")
CHESS = ("White wins", "Black wins", "Draw")


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("It's quarter to nine.", ["8:45"]),
        ("half past 7", ["7:30"]),
        ("10 minutes to 4", ["3:50"]),
        ("It is 4 o'clock.", ["4:00"]),
        ("Reading the display: 0800 hours.", ["8:00"]),
        ("The display reads 20:15, a quarter past eight in the evening.", ["20:15"]),  # digits win
        ("It's 3:05 pm.", ["3:05 PM"]),
        ("No time here, only 3.5 metres.", []),
    ],
)
def test_times_are_read_in_every_spoken_and_written_form(text, times) -> None:
    assert times_in(text) == times


@pytest.mark.parametrize(
    ("truth", "kind"),
    [("8:0", TIME), ("No", YES_NO), ("(2, -1)", COLLECTION), ("[1, 3)", COLLECTION),
     ("x \\neq 0", COLLECTION), ("y = 2x + 3", EQUATION), ("x^2 + 1", EXPRESSION), ("odd", WORD),
     ("II", WORD)],
)  # fmt: skip
def test_the_truths_shape_says_what_to_look_for(truth, kind) -> None:
    assert truth_kind(truth) == kind


def test_negation_rules_out_and_the_last_committing_clause_wins() -> None:
    stalemate = "White is stalemated, so Black does not win; the result is a draw."
    assert read_statement(stalemate, CHESS).letter == "C"
    assert read_statement("It is not odd, it is even.", PARITY).letter == "A"
    assert read_statement("It is convex on the left and concave on the right, so overall neither.",
                          ("convex", "concave", "neither")).letter == "C"  # fmt: skip
    reading = read_statement("Black does not win.", CHESS)
    assert reading.chosen == frozenset() and reading.ruled_out == {"B"}


def test_incidental_uses_choose_nothing() -> None:
    assert read_statement("The black king stands on h8.", ("white", "black", "draw")).chosen == frozenset()
    assert read_statement("Unlike an odd function, this one ...", PARITY).chosen == frozenset()
    assert read_statement("An odd function passes through the origin.", PARITY).chosen == frozenset()
    assert read_statement("f is an even function.", PARITY).letter == "A"


def test_evidence_after_a_choice_does_not_undo_it() -> None:
    options = ("Graph 1", "Graph 2", "They have the same number")
    reply = "Graph 1 has more edges: I count 9 in Graph 1 and 8 in Graph 2."
    assert read_statement(reply, options).letter == "A"


@pytest.mark.parametrize(
    ("reply", "question", "letter"),
    [
        ("The two graphs are not isomorphic.", "Are the two graphs isomorphic?", "B"),
        ("The graph is connected.", "Is the graph connected?", "A"),
        ("There is no path from node 3 to node 5.", "Is there a path from node 3 to node 5?", "B"),
        ("They repel, since the north poles face each other.", "Do the magnets attract each other?", "B"),
        ("It's a trapezoid rather than a parallelogram.", "Is ABCD a parallelogram?", "B"),
        ("The graph can't be two-colored.", "Is the graph bipartite?", "B"),
        ("The maximum flow is 9, which is less than 10.", "Is the maximum flow at least 10?", "B"),
        ("The maximum flow is 12.", "Is the maximum flow at least 10?", "A"),
        ("No single force dominates here. The net force is zero.", "Is the net force zero?", "A"),
    ],
)
def test_yes_no_statements_are_read_against_the_question(reply, question, letter) -> None:
    reading = read_yes_no(reply, ("Yes", "No"), question)
    assert reading.letter == letter


def test_what_the_question_asks_for() -> None:
    assert "area" in question_focus("What is the area of the circle with radius 2?")
    assert {"stude", "chose", "socce"} <= question_focus("How many students chose soccer?")
    assert "heigh" in question_focus("How tall is the tree in meters?")


def test_restatements_and_loops_are_recognised() -> None:
    question = "A walker wants a route that goes along every edge exactly once. Is such a route possible?"
    assert restates("A walker wants a route that goes along every edge exactly once.", question)
    assert not restates("Yes, and the route can end where it started.", question)
    assert looping("The code is 42. The code is 42. The code is 42. The code is 7.")
    assert not looping("The code is 42. The code is 7.")


def test_a_line_describing_the_answer_gives_none() -> None:
    boilerplate = "- Identify the answer: The answer is the solution to the multiple choice question."
    assert answer_lines(boilerplate) == []
    assert answer_lines("The answer to the question is: 9\n" + boilerplate * 3) == ["9"]
    assert answer_lines("The answer is the edge A-C.") == ["the edge A-C"]  # a phrase still answers


def test_cut_off_replies_and_code_blocks() -> None:
    assert cut_off_before_answer("We count paths along the grid.\n\nThe answer is that")
    assert cut_off_before_answer('{"solution": "Edge s->a has capacity 4, edge s->b')
    assert not cut_off_before_answer("The answer is 4.")
    code = "Here:\n```python\ndef f(x):\n    return 3\n```\nThe answer is 5."
    assert "return 3" not in without_code(code) and "The answer is 5." in without_code(code)
    assert "B" in without_code("```\nB\n```")  # a bare answer in a fence stays


@pytest.mark.parametrize(
    ("candidate", "value"),
    [("the maximum flow from s to t in the given network is 6", "6"), ("12 students scored above 80", "12"),
     ("the maximum value of 7 at x = 3", "7"), ("y = 4.5 when x = 3", "4.5"), ("I get 8 or 9", None),
     ("The code is 042, 82, and 918.", None)],
)  # fmt: skip
def test_the_value_a_sentence_states(candidate, value) -> None:
    assert read_number(candidate, first=True)[0] == value


@pytest.mark.parametrize(
    ("candidate", "truth", "equal"),
    [("1 \\le x < 3", "[1, 3)", True), ("x > 2", "(2, \\infty)", True),
     ("x \\neq 0", "(-∞, 0) ∪ (0, ∞)", True), ("[1, 3]", "[1, 3)", False),
     ("{3, 1, 2}", "\\{1, 2, 3\\}", True),
     ("±3", "{-3, 3}", True), ("(2, 1)", "(1, 2)", False)],
)  # fmt: skip
def test_groups_of_numbers_compare_without_a_symbolic_parse(candidate, truth, equal) -> None:
    assert _groups_equal(candidate, truth, Tolerance()) is equal
    assert text_equivalent(candidate, truth) is equal


def test_kappa_matches_the_textbook_example_and_its_interval_contains_it() -> None:
    # 50 items: both yes 20, rater A yes / B no 5, A no / B yes 10, both no 15 -> kappa 0.4
    a = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15)
    b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    interval = kappa_interval(a, b, resamples=500)
    assert interval.low < 0.4 < interval.high
    assert cohen_kappa(np.array(["x"] * 5), np.array(["x"] * 5)) == 1.0
    assert math.isnan(cohen_kappa(np.array([]), np.array([])))
