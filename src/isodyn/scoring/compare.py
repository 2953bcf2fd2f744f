"""Compare an extracted answer with the truth, by answer type (pure functions).

- multiple choice: by letter (`B`, `(B)`, `B. odd`) or by the option's text (`odd`);
- float / int: a tolerance (DynaMath's absolute 0.001 by default; relative optional), reading
  fractions, `\\frac`, `\\sqrt`, multiples of `\\pi`, scientific notation, thousands separators and
  units; a percent sign means "per hundred" unless the question asks for a percentage;
- text (expressions, equations, sets, intervals, tuples, lists, times): math-verify on both sides,
  with the gold answer first (its `verify` is asymmetric) and inequalities turned into sets first;
  times compare as clock times.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from isodyn.core import AnswerType

DYNAMATH_ABS_TOLERANCE = 1e-3  # DynaMath scores floats with an absolute tolerance of 0.001
_LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Tolerance:
    absolute: float = DYNAMATH_ABS_TOLERANCE
    relative: float = 0.0

    def close(self, value: float, truth: float) -> bool:
        return abs(value - truth) <= max(self.absolute, self.relative * abs(truth))


_LETTER = re.compile(
    r"^\s*(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)?\s*(?:is)?\s*[:\-]?\s*"
    r"[\(\[]?([A-Ja-j])[\)\]]?(?=$|[\s.:,)\]])"
)


def _normalize_text(text: str) -> str:
    text = re.sub(r"\\text\{([^{}]*)\}", r"\1", text)
    text = text.replace("$", "").replace("**", "")
    return re.sub(r"\s+", " ", text.strip().strip(".").strip()).casefold()


def choice_letter(candidate: str, choices: tuple[str, ...]) -> str | None:
    """The option a candidate names: `B`, `(B)`, `B. odd`, `Option B`, or the option's text `odd`."""
    letters = _LETTERS[: len(choices)]
    normalized = _normalize_text(candidate)
    for i, option in enumerate(choices):  # the text of an option wins over a coincidental letter
        if normalized == _normalize_text(option):
            return letters[i]
    match = _LETTER.match(candidate.replace("$", "").replace("**", ""))
    if match and match.group(1).upper() in letters:
        rest = candidate[match.end() :].strip(" .:)")
        letter = match.group(1).upper()
        # `B. odd` is fine; `B. even` names two different options and is not an answer.
        if not rest or _normalize_text(rest) == _normalize_text(choices[letters.index(letter)]):
            return letter
    return None


# ---- numbers ----------------------------------------------------------------------------------

_PLAIN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_FRACTION = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)")
_TIMES_TEN = re.compile(
    r"([-+]?\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|x|\*|×)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?"
)
_UNIT_WORD = re.compile(r"^(?:[a-zA-Zµ°]+(?:\^?[23²³])?(?:\s*/\s*[a-zA-Z]+(?:\^?[23²³])?)?\.?\s*)+$")
_MATH_WORDS = {"pi", "sqrt", "e", "i", "π", "frac", "x", "y"}


def _strip_wrappers(text: str) -> str:
    text = text.strip()
    text = re.sub(r"^\\\(|\\\)$|^\\\[|\\\]$", "", text).strip()
    text = text.strip("$").strip()
    text = re.sub(r"\\(?:text|mathrm|textrm|operatorname)\{([^{}]*)\}", r" \1", text)
    text = text.replace("\\,", "").replace("\\!", "").replace("\\ ", " ").replace("\\left", "")
    text = text.replace("\\right", "").replace("^\\circ", "°").replace("^{\\circ}", "°")
    # `x = 5` or `AB = 5`: the value is the right-hand side
    if text.count("=") == 1:
        left, right = text.split("=")
        if re.fullmatch(r"\s*[A-Za-z][A-Za-z0-9_{}\\ ]*\s*", left):
            text = right
    return text.strip().rstrip(".").strip()


def _strip_unit(text: str) -> str:
    """`12.5 cm^2` -> `12.5`; a trailing word that is mathematics (`3 pi`) stays."""
    match = re.match(r"^(.*?\d)\s*([a-zA-Zµ°].*)$", text)
    if match and _UNIT_WORD.match(match.group(2)) and match.group(2).strip().lower() not in _MATH_WORDS:
        return match.group(1)
    return text.rstrip("°").strip()


@lru_cache(maxsize=4096)
def _sympy_number(text: str) -> float | None:
    """A closed-form number in LaTeX or plain notation (`2\\sqrt{3}`, `\\frac{3}{4}\\pi`) via math-verify."""
    from math_verify import parse

    parsed = parse(f"${text}$", parsing_timeout=2)
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if getattr(expr, "free_symbols", {1}) or not expr.is_number:
            return None
        value = complex(expr.evalf())
    except (TypeError, ValueError, AttributeError):
        return None
    if abs(value.imag) > 1e-12 or not math.isfinite(value.real):
        return None
    return value.real


def parse_number(candidate: str, percent_question: bool = False) -> float | None:
    """One number in the candidate, or None when there is none or it is ambiguous (`2 or 3`)."""
    text = _strip_unit(_strip_wrappers(candidate))
    percent = text.endswith("%")
    if percent:
        text = text.rstrip("%").rstrip("\\").strip()
    value = _plain_number(text)
    if value is None:
        return None
    return value if (not percent or percent_question) else value / 100


def _plain_number(text: str) -> float | None:
    if _PLAIN.fullmatch(text):
        return float(text)
    if _THOUSANDS.fullmatch(text):
        return float(text.replace(",", ""))
    if match := _FRACTION.fullmatch(text):
        denominator = float(match.group(2))
        return float(Fraction(match.group(1)) / Fraction(match.group(2))) if denominator else None
    if match := _TIMES_TEN.fullmatch(text):
        return float(match.group(1)) * 10 ** int(match.group(2))
    if re.search(r"\d\s*(?:,|or|and)\s*\d", text) or not re.search(r"[\d\\π]", text):
        return None  # several numbers, or no mathematics at all
    return _sympy_number(text)


# ---- free-form text -----------------------------------------------------------------------------

_TIME = re.compile(r"^\s*(\d{1,2})\s*[:h]\s*(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?\s*$", re.IGNORECASE)


def _clock_minutes(text: str) -> int | None:
    match = _TIME.match(_strip_wrappers(text).replace("\\", ""))
    if not match:
        return None
    hours, minutes, half = int(match.group(1)), int(match.group(2)), (match.group(3) or "").lower()
    if half.startswith("p") and hours < 12:
        hours += 12
    if half.startswith("a") and hours == 12:
        hours = 0
    return hours * 60 + minutes


def _as_math(text: str) -> list:
    from math_verify import parse

    wrapped = text if "$" in text or "\\(" in text or "\\[" in text else f"${text}$"
    parsed = parse(wrapped, parsing_timeout=2)
    # An inequality such as `1 \le x < 3` is compared as the set it describes.
    out = []
    for item in parsed:
        as_set = getattr(item, "as_set", None)
        if callable(as_set) and item.__class__.__name__ in {
            "And",
            "Or",
            "StrictLessThan",
            "LessThan",
            "StrictGreaterThan",
            "GreaterThan",
        }:
            with contextlib.suppress(Exception):  # not a univariate condition: keep it as written
                item = as_set()
        out.append(item)
    return out


def text_equivalent(candidate: str, truth: str) -> bool:
    if _normalize_text(candidate) == _normalize_text(truth):
        return True
    clock = _clock_minutes(truth)
    if clock is not None:
        return _clock_minutes(candidate) == clock
    from math_verify import verify

    gold, guess = _as_math(truth), _as_math(candidate)
    if not gold or not guess:
        return False
    return bool(verify(gold, guess, timeout_seconds=2))


def is_correct(
    candidate: str,
    truth: str,
    answer_type: AnswerType,
    choices: tuple[str, ...] = (),
    tolerance: Tolerance = Tolerance(),
    percent_question: bool = False,
) -> bool | None:
    """True/False when the candidate can be read as this answer type, None when it cannot."""
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        letter = choice_letter(candidate, choices)
        return None if letter is None else letter == truth
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        value = parse_number(candidate, percent_question)
        if value is None:
            return None
        expected = parse_number(truth, percent_question)
        if expected is None:
            raise ValueError(f"truth {truth!r} is not a number")
        if answer_type is AnswerType.INT:
            return abs(value - expected) < 1e-9
        return tolerance.close(value, expected)
    return text_equivalent(candidate, truth)
