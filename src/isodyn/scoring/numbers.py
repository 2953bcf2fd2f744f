"""Numbers as written: exact when written as a decimal or a fraction, with thousands separators,
percent, scientific notation, units and closed forms (`2\\sqrt{3}`), and the tolerance they are
compared with (pure functions)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from isodyn.scoring.bounds import as_float, exact_decimal
from isodyn.scoring.fast_math import fast_value, translate
from isodyn.scoring.symbolic import _parse_math
from isodyn.scoring.text import unicode_math
from isodyn.scoring.written import _math_like, _unwrap

DYNAMATH_ABS_TOLERANCE = 1e-3  # DynaMath scores floats with an absolute tolerance of 0.001
# A number as read: exact (a Fraction) when written as a decimal or a fraction, so that integers and
# long decimals compare exactly; a float when computed from a closed form (`2\sqrt{3}`).
Number = Fraction | float


@dataclass(frozen=True)
class Tolerance:
    absolute: float = DYNAMATH_ABS_TOLERANCE
    relative: float = 0.0

    def close(self, value: Number, truth: Number) -> bool:
        absolute, relative = _as_written(self.absolute), _as_written(self.relative)
        if isinstance(value, Fraction) and isinstance(truth, Fraction) and absolute is not None:
            # as written, so exactly: 12345678901234567891 is not 12345678901234567890
            return abs(value - truth) <= max(absolute, (relative or 0) * abs(truth))
        value, truth = as_float(value), as_float(truth)
        return abs(value - truth) <= max(self.absolute, self.relative * abs(truth))


@lru_cache(maxsize=64)
def _as_written(value: object) -> Fraction | None:
    """A tolerance as the decimal it is written as (0.001 is 1/1000, not the float nearest to it);
    None for anything but a finite number."""
    if not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return exact_decimal(repr(float(value)))


_PLAIN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# A thousands separator follows a first group of 1-3 digits that is no lone 0: `0,111` is a decimal.
_THOUSANDS = re.compile(r"[-+]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?")
_SPACED_THOUSANDS = re.compile(r"[-+]?[1-9]\d{0,2}(?:[ \u00a0\u2009\u202f]\d{3})+(?:\.\d+)?")  # `2 500`
# A decimal comma, where no thousands separator can stand: `3,75`, `1000,99`, `0,111`.
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")
_FRACTION = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)")
_TIMES_TEN = re.compile(
    r"([-+]?\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|x|\*|×)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?"
)
_MIXED = re.compile(r"([-+]?\d+)\s+(\d+)\s*/\s*(\d+)")  # `2 1/2`
NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
# Possessive quantifiers: a long run of letters must not be split every possible way (backtracking).
_UNIT_WORD = re.compile(
    r"^(?:[a-zA-Zµ°]++(?:\^?\{?[23²³]\}?)?+(?:\s*+/\s*+[a-zA-Z]++(?:\^?\{?[23²³]\}?)?+)?+\.?+\s*+)++$"
)
_MATH_WORDS = {"pi", "sqrt", "e", "i", "π", "frac", "x", "y"}
_APPROX_WORDS = re.compile(r"^(?:approximately|approx\.?|about|around|roughly|nearly|circa|~)\s*", re.I)
_PROSE_PREFIX = re.compile(r"^[A-Za-z][A-Za-z ]*?\s(?:is|are|was|equals)\s+(?=[-+.\d\\(√π])")
# a label before the value: `Answer: 10`, `Answer \( (9+1) \)`
_ANSWER_LABEL = re.compile(r"^(?:final\s+)?answer\s*:?\s+(?=[-+.\d\\(√π$])", re.I)
_UNICODE_SQRT = re.compile(r"√\s*(?:\{([^{}]*)\}|\(([^()]*)\)|(\d+(?:\.\d+)?|[A-Za-z]))")
_IDENTIFIER = re.compile(r"\s*(?:[A-Za-z][A-Za-z0-9_{}\\ ()']*)?\s*")
_PERCENT_WORD = re.compile(r"\s*(?:per\s?cent(?:age)?|percentage(?:\s+points?)?|pct)\.?$", re.I)
_SEVERAL = re.compile(r"\d\s*(?:,|;|\bor\b|\band\b)\s*[-+]?\.?\d")


def _strip_wrappers(text: str) -> str:
    text = _ANSWER_LABEL.sub("", unicode_math(text).strip()).replace("\\$", "").replace("$", "")
    text = _unwrap(text).replace("−", "-").replace("≈", "=").replace("\\approx", "=")
    text = re.sub(
        r"\\(?:text|mathrm|textrm|textnormal|textbf|textit|mbox|operatorname)\{([^{}]*)\}", r" \1", text
    )
    text = (
        text.replace("~", " ")  # LaTeX's unbreakable space: `10 \mathrm{~cm}^{2}` is 10 cm^{2}
        .replace("{,}", ",")
        .replace("\\,", "")
        .replace("\\!", "")
        .replace("\\ ", " ")
        .replace("\\left", "")
    )
    text = text.replace("\\right", "").replace("^\\circ", "°").replace("^{\\circ}", "°")
    text = re.sub(r"(?<=[\w)}])\s*\*\*\s*(?=[\w({.-])", "^", text)  # Python's power: `2**3` is 8
    text = _UNICODE_SQRT.sub(lambda m: "\\sqrt{" + next(g for g in m.groups() if g is not None) + "}", text)
    text = _PROSE_PREFIX.sub("", _APPROX_WORDS.sub("", text.strip()))
    # `x = 5`, `AB = 5`, `= 3.46` (from `\approx 3.46`), `A = 1/2 * 6 * 4 = 12`: the value is the last
    # right-hand side; several comma-separated equations (`x = 2, y = 3`) are left alone.
    parts = text.split("=")
    single = len(parts) == 2 or (len(parts) > 2 and not re.search(r"[,;]|\bor\b|\band\b", text))
    if single and _IDENTIFIER.fullmatch(parts[0]):
        text = parts[-1]
    return _APPROX_WORDS.sub("", text.strip()).rstrip(".").strip()


def _strip_unit(text: str) -> str:
    """`12.5 cm^2` -> `12.5`; a trailing word that is mathematics (`3 pi`) stays."""
    match = re.match(r"^(.*?[\d}])\s*([a-zA-Zµ°].*)$", text)
    if match and _UNIT_WORD.match(match.group(2)) and match.group(2).strip().lower() not in _MATH_WORDS:
        return match.group(1)
    return text.rstrip("°").strip()


# What a closed-form number may be written with; any other letter is a variable (`\\frac{r}{4}`), and
# an expression with a variable is no number: it is refused before the (slow) LaTeX parser runs.
_NUMBER_NOTATION = re.compile(
    r"\\(?:[dtc]?frac|sqrt|pi|times|cdot|div|left|right|circ|degree|approx|mathrm|text|operatorname"
    r"|textdollar|dollar|log|ln|sin|cos|tan|exp|infty|pm|mp|[,;:! %$]|quad)(?![A-Za-z])"
    r"|\b(?:pi|sqrt|log|ln|sin|cos|tan|exp|e)(?![A-Za-z])|[^A-Za-z]"
)


_TRAILING_UNIT = re.compile(r"[\s~]*[A-Za-z]{1,3}(?:\^\s*\{?\d\}?)?[\s.]*$")  # `45 ~cm^{2}`
_UNIT_TEXT = re.compile(r"\\(?:mathrm|text|textrm|operatorname|mbox)\s*\{[^{}]*\}")  # units: `\\mathrm{~cm}`


@lru_cache(maxsize=4096)
def _sympy_number(text: str) -> float | None:
    """A closed-form number in LaTeX or plain notation (`2\\sqrt{3}`, `\\frac{3}{4}\\pi`) via math-verify;
    None also for one beyond the bounds of `bounds.tame` (`9^{9^{9^{9}}}`)."""
    bare = _TRAILING_UNIT.sub("", _UNIT_TEXT.sub("", text))
    if re.search(r"[A-Za-z]", _NUMBER_NOTATION.sub("", bare)):
        return None  # a variable or a word is left: no closed-form number
    parsed = _parse_math(f"${text}$")
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if getattr(expr, "free_symbols", {1}) or not expr.is_number:
            return None
        value = complex(expr.evalf())
    except (TypeError, ValueError, AttributeError, ArithmeticError):
        return None
    if abs(value.imag) > 1e-12 or not math.isfinite(value.real):
        return None
    return value.real


@lru_cache(maxsize=16384)  # options and marked answers recur across a question's replies
def parse_number(candidate: str, percent_question: bool = False) -> float | None:
    """One number in the candidate, or None when there is none or it is ambiguous (`2 or 3`), as a
    float (±inf beyond the float range); `number_value` keeps it exact."""
    value = number_value(candidate, percent_question)
    return None if value is None else as_float(value)


@lru_cache(maxsize=16384)
def number_value(candidate: str, percent_question: bool = False) -> Number | None:
    """One number in the candidate, exact when written as a decimal or a fraction; None when there is
    none, it is ambiguous (`2 or 3`) or beyond the bounds (`bounds.py`: over 1,000 digits, `10^{10^{10}}`)."""
    if _PLAIN.fullmatch(candidate):
        return exact_decimal(candidate)  # the common case, without the wrapper stripping below
    text = _PERCENT_WORD.sub("%", _strip_wrappers(candidate))
    percent = text.endswith("%")
    if percent:
        text = text.rstrip("%").rstrip("\\").strip()
    value = _number_in(text)
    if value is None:
        return None
    return value if (not percent or percent_question) else value / 100


# What only a symbolic parse can read: LaTeX, π, roots, powers, arithmetic between numbers.
_CLOSED_FORM = re.compile(r"\\[A-Za-z]|π|√|(?<![A-Za-z])(?:pi|sqrt)\b|\^|[\d)]\s*[*/+\-×·]\s*[\d(.]|\be\b")
_RELATION = re.compile(r"[<>≤≥,;=]|\\(?:le|ge|leq|geq|neq|cup|infty|in)\b|∞|∪")  # no single number
_PROSE = re.compile(
    r"\b(?!(?:pi|sqrt|frac|cdot|times|dfrac|tfrac|cfrac|left|right|mathrm|text)\b)[A-Za-z]{3,}\b"
)


def _number_in(text: str) -> Number | None:
    stripped = _strip_unit(text)
    for form in (text, stripped):
        if (exact := _plain_number(form)) is not None:
            return exact
    if _SEVERAL.search(text) or not re.search(r"[\d\\π]", text):
        return None  # several numbers, or no mathematics at all
    prose = _PROSE.search(re.sub(r"\\[A-Za-z]+", "", stripped))  # a unit word (`meters`) is no prose
    if _RELATION.search(text) or not _CLOSED_FORM.search(text) or prose or not _math_like(stripped):
        return None  # prose, or a plain number with words: no symbolic parse (it costs milliseconds)
    for form in (text, stripped):
        if (computed := fast_value(form)) is not None:
            return computed
        if (known := translate(form)) is not None and known[1]:
            return None  # an expression in variables (`x^2 + 1`) is no number
    closed = _sympy_number(text)
    return closed if closed is not None or stripped == text else _sympy_number(stripped)


def _plain_number(text: str) -> Fraction | None:
    """A number written without a closed form (`12,345`, `3/4`, `1.5 \\times 10^{3}`, `2 1/2`,
    `seven`), exactly."""
    if _PLAIN.fullmatch(text):
        return exact_decimal(text)
    if _THOUSANDS.fullmatch(text) or _SPACED_THOUSANDS.fullmatch(text):
        return exact_decimal(re.sub(r"[,\s]", "", text))
    if _DECIMAL_COMMA.fullmatch(text):
        return exact_decimal(text.replace(",", "."))
    if match := _FRACTION.fullmatch(text):
        top, bottom = exact_decimal(match.group(1)), exact_decimal(match.group(2))
        return top / bottom if top is not None and bottom else None
    if match := _TIMES_TEN.fullmatch(text):
        return exact_decimal(f"{match.group(1)}e{match.group(2)}")
    if match := _MIXED.fullmatch(text):
        whole, top, bottom = (exact_decimal(g) for g in match.groups())
        if whole is None or top is None or not bottom:
            return None
        return whole + (top / bottom if whole >= 0 else -top / bottom)
    if text.casefold() in NUMBER_WORDS:
        return Fraction(NUMBER_WORDS[text.casefold()])
    return None
