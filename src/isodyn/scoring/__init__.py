"""Scoring: extract the answer from a raw reply, then compare it with the truth."""

from __future__ import annotations

from dataclasses import dataclass

from isodyn.core import AnswerType, Variant
from isodyn.scoring.compare import DYNAMATH_ABS_TOLERANCE, Tolerance, is_correct
from isodyn.scoring.extract import Extraction, extract_answer, extract_json_answer

__all__ = [
    "DYNAMATH_ABS_TOLERANCE",
    "Extraction",
    "Score",
    "Tolerance",
    "extract_answer",
    "extract_json_answer",
    "extract_short_answer",
    "is_correct",
    "score",
    "score_reply",
]

# The JSON step alone (kept under its first name for callers that want only DynaMath's format).
extract_short_answer = extract_json_answer


@dataclass(frozen=True)
class Score:
    correct: bool
    extracted: str | None
    reason: str  # "ok" (graded, right or wrong) or "extraction_failed"
    method: str  # which step of the extraction cascade found the answer


def score(
    reply: str,
    truth: str,
    answer_type: AnswerType | str,
    choices: tuple[str, ...] = (),
    tolerance: Tolerance = Tolerance(),  # noqa: B008 - immutable
    percent_question: bool = False,
) -> Score:
    """Grade one reply against one truth. Public, so saved replies can be re-graded.

    An answer that cannot be found, or cannot be read as the answer type, is wrong with reason
    `extraction_failed`; nothing is guessed.
    """
    answer_type = AnswerType(answer_type)
    extraction = extract_answer(reply, answer_type, tuple(choices))
    if extraction.answer is None:
        return Score(False, None, "extraction_failed", extraction.method)
    verdict = is_correct(extraction.answer, truth, answer_type, tuple(choices), tolerance, percent_question)
    if verdict is None:
        return Score(False, extraction.answer, "extraction_failed", extraction.method)
    return Score(verdict, extraction.answer, "ok", extraction.method)


def score_reply(reply: str, variant: Variant, tolerance: Tolerance = Tolerance()) -> Score:  # noqa: B008
    return score(
        reply,
        variant.answer,
        variant.answer_type,
        variant.choices,
        tolerance,
        percent_question=variant.params.get("answer_unit") == "%",
    )
