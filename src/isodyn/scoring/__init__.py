"""Scoring: extract the short answer from a raw reply, then compare it with the truth."""

from __future__ import annotations

from dataclasses import dataclass

from isodyn.core import Variant
from isodyn.scoring.compare import DYNAMATH_ABS_TOLERANCE, is_correct
from isodyn.scoring.extract import Extraction, extract_short_answer

__all__ = ["Extraction", "Score", "extract_short_answer", "is_correct", "score_reply"]


@dataclass(frozen=True)
class Score:
    correct: bool
    extracted: str | None
    reason: str  # "ok" (graded, right or wrong) or "extraction_failed"
    method: str  # how the answer was found in the reply


def score_reply(reply: str, variant: Variant, abs_tolerance: float = DYNAMATH_ABS_TOLERANCE) -> Score:
    """Grade one reply. An answer that cannot be found, or read as the answer type, is wrong."""
    extraction = extract_short_answer(reply)
    if extraction.answer is None:
        return Score(False, None, "extraction_failed", extraction.method)
    verdict = is_correct(
        extraction.answer, variant.answer, variant.answer_type, variant.choices, abs_tolerance
    )
    if verdict is None:
        return Score(False, extraction.answer, "extraction_failed", extraction.method)
    return Score(verdict, extraction.answer, "ok", extraction.method)
