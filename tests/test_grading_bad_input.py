"""Every grader is total and bounded: any reply (None, bytes, numbers, empty, 1 MB, built to make
regular expressions backtrack) is graded in bounded time, `extraction_failed` with a reason where no
answer can be read, never an exception."""

from __future__ import annotations

import time

import pytest

from isodyn.core import AnswerType
from isodyn.scoring import GRADERS, score

MC, FLOAT, INT, TEXT = AnswerType.MULTIPLE_CHOICE, AnswerType.FLOAT, AnswerType.INT, AnswerType.TEXT
QUESTIONS = [
    ("B", MC, ("even", "odd", "neither"), "Is the function even, odd or neither?"),
    ("A", MC, ("Yes", "No"), "Is the graph connected?"),
    ("12.5", FLOAT, (), "What is the area?"),
    ("7", INT, (), "How many edges are there?"),
    ("x^2 + 2x + 1", TEXT, (), "Expand (x+1)^2."),
    ("8:00", TEXT, (), "What time does the clock show?"),
]

NOT_TEXT = [None, 42, 3.5, b"B", ["B"], {"short answer": "B"}, object()]
EMPTY = ["", " ", "\n\n\t", "{}", "```json\n```", "\\boxed{}", "Answer:", "**", "😀"]
# Shapes that make naive patterns backtrack or naive scanners go quadratic.
HOSTILE = [
    "a" * 200_000 + "!",
    "{" * 100_000,
    "\\boxed{" * 50_000,
    "1," * 100_000,
    "answer is " * 50_000,
    "the answer is: " + "(" * 100_000,
    " " * 500_000 + "B",
    "$" * 200_000,
    "**" * 100_000 + "B",
    "not " * 100_000 + "odd",
    ("x" * 60 + " ") * 5_000,
    "1" * 200_000,
    "{\"short answer\": \"" + "\\" * 100_000,
    "Option " * 50_000,
    "1.2.3.4." * 30_000,
    "cm" * 100_000 + " 5",
    "\n".join(["Yes"] * 50_000),
]
MEGABYTE = "The function is odd. " * 50_000  # 1 MB of prose

SLOWEST_SECONDS = 1.0  # per reply, for the worst of these; a benchmark measures the typical case


@pytest.mark.parametrize("grader", list(GRADERS))
@pytest.mark.parametrize("reply", NOT_TEXT + EMPTY, ids=repr)
def test_no_reply_is_an_answer(grader, reply) -> None:
    for truth, answer_type, choices, question in QUESTIONS:
        result = score(reply, truth, answer_type, choices, question=question, grader=grader)
        if grader == "dynamath" and answer_type is MC and isinstance(reply, str):
            continue  # DynaMath's published rule reads the truth's letter in a reply's first characters
        assert result.correct is False and result.reason == "extraction_failed", (reply, result)
        assert result.ambiguity is not None


@pytest.mark.parametrize("grader", list(GRADERS))
@pytest.mark.parametrize("reply", [*HOSTILE, MEGABYTE], ids=lambda r: f"{r[:12]!r}x{len(r)}")
def test_hostile_replies_are_graded_in_bounded_time(grader, reply) -> None:
    for truth, answer_type, choices, question in QUESTIONS:
        started = time.perf_counter()
        result = score(reply, truth, answer_type, choices, question=question, grader=grader)
        elapsed = time.perf_counter() - started
        assert elapsed < SLOWEST_SECONDS, (grader, answer_type, elapsed)
        assert result.reason in ("ok", "extraction_failed")


def test_a_huge_reply_keeps_its_final_answer() -> None:
    """Past the length bound the reply's end is kept: its final answer is still read."""
    reply = "Let me think. " * 100_000 + "\nThe answer is 7."
    assert score(reply, "7", INT).correct is True


def test_unknown_grader_is_refused() -> None:
    with pytest.raises(KeyError, match="unknown grader"):
        score("B", "B", MC, ("a", "b"), grader="nope")
