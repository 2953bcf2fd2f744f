"""Compare an extracted answer with the truth, by answer type (pure functions)."""

from __future__ import annotations

import re
from fractions import Fraction

from isodyn.core import AnswerType

DYNAMATH_ABS_TOLERANCE = 1e-3  # DynaMath scores floats with an absolute tolerance of 0.001

_LETTER = re.compile(r"^\s*(?:option|choice|answer)?\s*[:\-]?\s*\(?([A-Za-z])\)?(?=$|[\s.:,)\]])")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:\s*/\s*\d+(?:\.\d*)?)?")


def choice_letter(candidate: str, choices: tuple[str, ...]) -> str | None:
    """The option letter a candidate names: `B`, `(B)`, `B. No`, or the option's text `No`."""
    text = candidate.strip()
    letters = "ABCDEFGHIJ"[: len(choices)]
    match = _LETTER.match(text)
    if match and match.group(1).upper() in letters:
        return match.group(1).upper()
    normalized = _normalize_text(text)
    for i, option in enumerate(choices):
        if normalized == _normalize_text(option):
            return letters[i]
    return None


def parse_number(candidate: str) -> float | None:
    """A single number in the candidate (fraction `3/4` allowed); None if none or several."""
    cleaned = candidate.replace(",", "").replace("$", "").strip()
    found = _NUMBER.findall(cleaned)
    if len(found) != 1:
        return None
    token = found[0].replace(" ", "")
    try:
        return float(Fraction(token)) if "/" in token else float(token)
    except (ValueError, ZeroDivisionError):
        return None


def _normalize_text(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip(".").strip()).casefold()


def is_correct(
    candidate: str,
    truth: str,
    answer_type: AnswerType,
    choices: tuple[str, ...] = (),
    abs_tolerance: float = DYNAMATH_ABS_TOLERANCE,
) -> bool | None:
    """True/False when the candidate can be read as this answer type, None when it cannot."""
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        letter = choice_letter(candidate, choices)
        return None if letter is None else letter == truth
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        value, expected = parse_number(candidate), parse_number(truth)
        if value is None:
            return None
        if expected is None:
            raise ValueError(f"truth {truth!r} is not a number")
        tolerance = abs_tolerance if answer_type is AnswerType.FLOAT else 1e-9
        return abs(value - expected) <= tolerance
    return _normalize_text(candidate) == _normalize_text(truth)
