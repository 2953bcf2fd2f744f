"""Scoring: extract the answer from a raw reply, then compare it with the truth, by a named grader."""

from __future__ import annotations

from isodyn.core import AnswerType, Variant
from isodyn.scoring.answer_match import DYNAMATH_ABS_TOLERANCE, Tolerance, is_correct
from isodyn.scoring.extract import AMBIGUITIES, UNREADABLE, Extraction, extract_answer
from isodyn.scoring.graders import DEFAULT_GRADER, GRADERS, Question, Score, get_grader
from isodyn.scoring.json_answer import ANSWER_KEY, json_answer

__all__ = [
    "AMBIGUITIES",
    "ANSWER_KEY",
    "DEFAULT_GRADER",
    "DYNAMATH_ABS_TOLERANCE",
    "GRADERS",
    "UNREADABLE",
    "Extraction",
    "Question",
    "Score",
    "Tolerance",
    "extract_answer",
    "extract_short_answer",
    "get_grader",
    "is_correct",
    "json_answer",
    "question_of",
    "score",
    "score_reply",
]


def extract_short_answer(reply: str) -> Extraction:
    """The JSON step alone: DynaMath's requested `short answer` and how it was read."""
    answer, method = json_answer(reply)
    return Extraction(answer, method) if answer is not None else Extraction.nothing()


def score(
    reply: object,
    truth: str,
    answer_type: AnswerType | str,
    choices: tuple[str, ...] = (),
    tolerance: Tolerance = Tolerance(),  # noqa: B008 - immutable
    percent_question: bool = False,
    question: str = "",
    grader: str = DEFAULT_GRADER,
) -> Score:
    """Grade one reply against one truth with the named grader. Public, so saved replies can be
    re-graded. An answer that cannot be found or read as the answer type is wrong with reason
    `extraction_failed`; nothing is guessed."""
    asked = Question(truth, AnswerType(answer_type), tuple(choices), question, percent_question, tolerance)
    return get_grader(grader)(reply, asked)


def question_of(variant: Variant, tolerance: Tolerance = Tolerance()) -> Question:  # noqa: B008
    """What a variant asks, as graders read it and a cell records it (with its reference solution)."""
    return Question(
        variant.answer,
        variant.answer_type,
        variant.choices,
        variant.question,
        variant.params.get("answer_unit") == "%",
        tolerance,
        variant.solution,
    )


def score_reply(
    reply: object,
    variant: Variant,
    tolerance: Tolerance = Tolerance(),  # noqa: B008 - immutable
    grader: str = DEFAULT_GRADER,
) -> Score:
    return get_grader(grader)(reply, question_of(variant, tolerance))
