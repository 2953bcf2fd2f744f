"""Compare an extracted answer with the truth, by answer type (pure functions).

- multiple choice: by letter (`B`, `(B)`, `**B**`, `B. odd`) or by the option's text (`odd`); an
  option text after a negation ("not even", "neither even nor odd") does not name that option; a
  number names the one option within the float tolerance of it (`3.4641` for `2\\sqrt{3}`); a letter
  next to another option's text (`B. even`) is a contradiction, not an answer;
- float / int: a tolerance (DynaMath's absolute 0.001 by default; relative optional), reading
  fractions, `\\frac`, `\\sqrt`, multiples of `\\pi`, scientific notation, thousands separators (a
  comma followed by exactly three digits), `x = 5`, `\\approx 3.46` and units; a percent sign (or the
  word "percent") means "per hundred" unless the question asks for a percentage, in which case `45%`
  reads as 45; a bare `45` is never read as 0.45, nor `0.5` as 50;
- text (expressions, equations, sets, intervals, tuples, lists, times): two plain numbers, or tuples,
  intervals and sets of numbers, compare with the same tolerance as floats; everything else goes to
  math-verify, configured explicitly, with the gold answer first (its `verify` is asymmetric) and
  inequalities turned into sets first (`1 \\le x < 3` is `[1, 3)`); a list in brackets is ordered, a
  bare comma-separated list is a set; times compare as clock times.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from isodyn.core import AnswerType
from isodyn.scoring.bounds import (
    as_float,
    bounded_call,
    exact_decimal,
    route_math_verify_logs,
    tame,
    tame_text,
)
from isodyn.scoring.fast_math import fast_equation_equivalent, fast_equivalent, fast_value, translate
from isodyn.scoring.text import unicode_math

DYNAMATH_ABS_TOLERANCE = 1e-3  # DynaMath scores floats with an absolute tolerance of 0.001
_LETTERS = "ABCDEFGHIJ"
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


# ---- presentation ---------------------------------------------------------------------------------

_LATEX_TEXT = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_WHOLE_BOX = re.compile(r"^\\(?:boxed|fbox)\s*\{(.*)\}$", re.DOTALL)


def _unwrap(text: str) -> str:
    """Strip presentation around an answer: `$`, `\\(...\\)`, `**bold**`, `\\boxed{}`, `\\text{}`."""
    text = text.strip()
    for _ in range(3):  # wrappers nest: `$\boxed{\text{B}}$`
        before = text
        text = text.strip("*").strip()  # bold around the answer; `x**2` inside stays
        text = re.sub(r"^\\\(|\\\)$|^\\\[|\\\]$", "", text).strip()
        text = text.strip("$").strip()
        if match := _WHOLE_BOX.match(text):
            text = match.group(1).strip()
        if text == before:
            break
    return _LATEX_TEXT.sub(r"\1", text)


@lru_cache(maxsize=8192)  # options and short answers recur in every cell of a run
def _normalize_text(text: str) -> str:
    text = _unwrap(text).replace("$", "").replace("**", "")
    text = re.sub(r"\s*([:=,+])\s*", r"\1 ", text)  # `\sqrt{2} : 1` is `\sqrt{2}: 1`
    return re.sub(r"\s+", " ", text.strip().strip(".").strip()).casefold()


# ---- multiple choice --------------------------------------------------------------------------------

# A letter at the start: `B`, `(B)`, `B.`, `B)`, `Option B`, `the answer is B`.
_LETTER = re.compile(
    r"^\s*(?P<keyword>(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)\s*(?:is)?\s*[:\-]?\s*)?"
    r"(?:(?P<open>[\(\[])(?P<bracketed>[A-Ja-j])[\)\]]|(?P<bare>[A-Ja-j])(?=$|[\s.:,)\]]))"
)
_LETTER_LIST = re.compile(r"^\W*[A-Ja-j]\W*(?:(?:,|\band\b|\bor\b)\s*(?:and\s+)?\(?[A-Ja-j]\)?\W*)+$")
_BARE_LETTER = re.compile(r"^\W*\(?([A-Ja-j])\)?\W*$")  # the whole candidate is one letter: `**B**.`
# Explicit letter mentions inside prose: `(B)`, `**B**`, `option B`, `is B.` / `choose B`.
_LETTER_MENTION = re.compile(
    r"\(([A-J])\)|\[([A-J])\]"
    r"|\*\*\s*\(?([A-J])\)?\s*\*\*"
    r"|\b(?i:option|choice)\s*\(?([A-Ja-j])\)?(?![\w'])"
    r"|^\W*\(?([A-J])\)?\s+is\s+the\s+(?:correct\s+|right\s+|best\s+)?(?:answer|option|choice)\b"
    r"|\b(?i:letter)\s*[(\"']?([A-J])[)\"']?(?=\s*(?:[.,;:!]|$))"
    r"|\b(?:is|be|choose|pick|select|go\s+with|so|thus|hence)\s+\(?([A-J])\)?(?=\s*(?:[.,;:!]|$))"
)
_NEGATED = re.compile(r"(?:\b(?:not|nor|neither|never)|n't)\s+(?:(?:a|an|the|necessarily|really)\s+)?$")


@lru_cache(maxsize=4096)
def _option_pattern(option: str) -> re.Pattern[str]:
    # Boundaries that also work for numbers and LaTeX: `5` is not in `15`, `-5` or `5.2`.
    # ... and a piece of a larger expression is no option: `4` in `4\pi` or `\frac{4}{\pi}`
    return re.compile(rf"(?<![\w.\\{{}}^-]){re.escape(_normalize_text(option))}(?![\w{{}}^\\]|\.\d)")


_OPERATORS = "+-*/^×·"


def own_letter(option: str, letter: str) -> bool:
    """An option listed as its own letter (`A` for A, `(b)` for B): the option itself is in a picture."""
    return option.replace("$", "").strip().strip("()").upper() == letter


def options_named(text: str, choices: tuple[str, ...]) -> set[str]:
    """Letters of the options whose text occurs in `text` and is not negated (`not even`)."""
    normalized = _normalize_text(text)
    named = set()
    for letter, option in zip(_LETTERS, choices, strict=False):
        if not _normalize_text(option) or own_letter(option, letter):
            continue  # options shown only in a picture are listed as their own letters: `A` is no text
        for match in _option_pattern(option).finditer(normalized):
            before, after = normalized[: match.start()].rstrip()[-1:], normalized[match.end() :].lstrip()[:1]
            if (before and before in _OPERATORS) or (after and after in _OPERATORS + "="):
                continue  # `7 + 9 + 12 = 28`: terms of a sum name no option
            if not _NEGATED.search(normalized[: match.start()]):
                named.add(letter)
                break
    return named


def letters_mentioned(text: str, choices: tuple[str, ...]) -> list[str]:
    """Explicit letter mentions (`(B)`, `**B**`, `option B`, `choose B`) of valid options, in order."""
    letters = _LETTERS[: len(choices)]
    found = [next(g for g in m.groups() if g).upper() for m in _LETTER_MENTION.finditer(text)]
    return [letter for letter in found if letter in letters]


def _numeric_choice(candidate: str, choices: tuple[str, ...]) -> str | bool | None:
    """For numeric options: the one option within the tolerance of the candidate's number, None when
    none or several are; False when the options or the candidate are not numbers."""
    if not choices:
        return False
    parsed = [parse_number(option) for option in choices]
    values = [v for v in parsed if v is not None]
    if len(values) < len(parsed):
        return False
    value = parse_number(candidate)
    if value is None:
        return False
    close = [i for i, v in enumerate(values) if Tolerance().close(value, v)]
    return _LETTERS[close[0]] if len(close) == 1 else None


def choice_letter(candidate: str, choices: tuple[str, ...]) -> str | None:
    """The option a candidate names: `B`, `(B)`, `B. odd`, `Option B`, or the option's text `odd`."""
    letters = _LETTERS[: len(choices)]
    normalized = _normalize_text(candidate)
    for i, option in enumerate(choices):  # the text of an option wins over a coincidental letter
        if normalized == _normalize_text(option):
            return letters[i]
    plain = _unwrap(candidate)
    if _LETTER_LIST.match(plain):
        return None  # "A, b, c": several options
    if match := _BARE_LETTER.match(plain):
        letter = match.group(1).upper()
        return letter if letter in letters else None
    match = _LETTER.match(plain)
    # Without a keyword, an unbracketed `A`/`I` (article, pronoun) or lower-case letter followed by a
    # word is prose, not a letter: "A function that is odd" names option B, not A.
    if match and match.group("bare") and not match.group("keyword"):
        rest = plain[match.end() :]
        if rest[:1].isspace() and (match.group("bare") in "AaIi" or match.group("bare").islower()):
            match = None
    if match:
        letter = (match.group("bracketed") or match.group("bare")).upper()
        if letter not in letters:
            return None
        named = options_named(plain[match.end() :], choices)
        # `B. even` names two different options and is not an answer; `(C), since it is neither` is C.
        return None if named and letter not in named else letter
    numeric = _numeric_choice(candidate, choices)
    if not isinstance(numeric, bool):  # False: the options or the candidate are not numbers
        return numeric
    named = set(letters_mentioned(plain, choices)) | options_named(plain, choices)
    return named.pop() if len(named) == 1 else None


# ---- numbers ----------------------------------------------------------------------------------

_PLAIN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
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
_UNICODE_SQRT = re.compile(r"√\s*(?:\{([^{}]*)\}|\(([^()]*)\)|(\d+(?:\.\d+)?|[A-Za-z]))")
_IDENTIFIER = re.compile(r"\s*(?:[A-Za-z][A-Za-z0-9_{}\\ ()']*)?\s*")
_PERCENT_WORD = re.compile(r"\s*(?:per\s?cent|percent)\.?$", re.I)
_SEVERAL = re.compile(r"\d\s*(?:,|;|\bor\b|\band\b)\s*[-+]?\.?\d")


def _strip_wrappers(text: str) -> str:
    text = unicode_math(text).replace("\\$", "").replace("$", "")
    text = _unwrap(text).replace("−", "-").replace("≈", "=").replace("\\approx", "=")
    text = re.sub(r"\\(?:text|mathrm|textrm|operatorname)\{([^{}]*)\}", r" \1", text)
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
    r"\\(?:d?frac|t?frac|sqrt|pi|times|cdot|div|left|right|circ|degree|approx|mathrm|text|operatorname"
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
_CLOSED_FORM = re.compile(r"\\[A-Za-z]|π|√|\bpi\b|\bsqrt\b|\^|[\d)]\s*[*/+\-×·]\s*[\d(.]|\be\b")
_RELATION = re.compile(r"[<>≤≥,;=]|\\(?:le|ge|leq|geq|neq|cup|infty|in)\b|∞|∪")  # no single number
_PROSE = re.compile(r"\b(?!(?:pi|sqrt|frac|cdot|times|dfrac|tfrac|left|right|mathrm|text)\b)[A-Za-z]{3,}\b")


def _number_in(text: str) -> Number | None:
    stripped = _strip_unit(text)
    for form in (text, stripped):
        if (exact := _plain_number(form)) is not None:
            return exact
    if _SEVERAL.search(text) or not re.search(r"[\d\\π]", text):
        return None  # several numbers, or no mathematics at all
    prose = _PROSE.search(re.sub(r"\\[A-Za-z]+", "", text))
    if _RELATION.search(text) or not _CLOSED_FORM.search(text) or prose or not _math_like(text):
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
    if _THOUSANDS.fullmatch(text):
        return exact_decimal(text.replace(",", ""))
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


# ---- free-form text -----------------------------------------------------------------------------

# `8:00`, `8 h 05`, `8:00 PM`, and DynaMath's unpadded `8:0`.
_TIME = re.compile(r"^\s*(\d{1,2})\s*[:h]\s*(\d{1,2})\s*(am|pm|a\.m\.|p\.m\.)?\s*$", re.IGNORECASE)


def _clock_minutes(text: str) -> int | None:
    match = _TIME.match(_strip_wrappers(text).replace("\\", ""))
    if not match:
        return None
    hours, minutes, half = int(match.group(1)), int(match.group(2)), (match.group(3) or "").lower()
    if minutes >= 60 or hours > 24:
        return None
    if half.startswith("p") and hours < 12:
        hours += 12
    if half.startswith("a") and hours == 12:
        hours = 0
    return hours * 60 + minutes


@lru_cache(maxsize=1)
def _math_config() -> list[Any]:
    """math-verify's extraction, spelled out: LaTeX (units stripped, `\\boxed` read) then plain
    expressions, both without needing an "answer is" anchor (the answer is already extracted)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig
    from math_verify.parser import NormalizationConfig

    route_math_verify_logs()  # its timeouts are counted, not printed

    normalization = NormalizationConfig(
        basic_latex=True, units=True, malformed_operators=True, nits=True, boxed="all", equations=False
    )
    return [
        LatexExtractionConfig(try_extract_without_anchor=True, normalization_config=normalization),
        ExprExtractionConfig(try_extract_without_anchor=True),
    ]


def _timeout(seconds: int) -> int | None:
    """math-verify's timeouts use SIGALRM, which only the main thread may set; elsewhere (the DSPy
    optimiser grades in a worker thread) it raises, so there the timeout is off."""
    return seconds if threading.current_thread() is threading.main_thread() else None


@lru_cache(maxsize=8192)  # a truth is parsed once however many replies are compared with it
def _parse_math_cached(text: str) -> tuple[Any, ...] | None:
    if not tame_text(text):
        return None
    parsed = tuple(_parse_math_uncached(text))
    return parsed if tame(parsed) else None


def _parse_math(text: str) -> list[Any] | None:
    """math-verify's parse (unevaluated SymPy), or None when the text or its parse is beyond the
    bounds (`bounds.tame_text`, `bounds.tame`: `9^{9^{9^{9}}}`, `1000000!`): the one way to SymPy
    here, so nothing parses or evaluates (evalf, as_set, verify) what the bounds refuse."""
    parsed = _parse_math_cached(text)
    return None if parsed is None else list(parsed)


def _parse_math_uncached(text: str) -> list[Any]:
    from math_verify import parse

    parsed: list[Any] = parse(text, extraction_config=_math_config(), parsing_timeout=_timeout(2))
    return parsed


def _as_math(text: str) -> list[Any] | None:
    """The parse to compare, inequalities as sets; None beyond the bounds (see `_parse_math`)."""
    wrapped = text if "$" in text or "\\(" in text or "\\[" in text else f"${text}$"
    parsed = _parse_math(wrapped)
    if parsed is None:
        return None
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


def _numeric_shape(expr: object) -> tuple[Any, ...] | None:
    """A tuple, interval or finite set of plain numbers as (kind, values, flags), else None."""
    import sympy

    def values(items) -> list[float] | None:
        out = []
        for item in items:
            if not isinstance(item, sympy.Basic) or item.free_symbols or not item.is_number:
                return None
            value = complex(item.evalf())
            if abs(value.imag) > 1e-12:
                return None
            out.append(value.real)
        return out

    if isinstance(expr, sympy.Tuple):
        found = values(expr.args)
        return None if found is None else ("tuple", found, ())
    if isinstance(expr, sympy.Interval):
        found = values([expr.start, expr.end])
        return None if found is None else ("interval", found, (expr.left_open, expr.right_open))
    if isinstance(expr, sympy.FiniteSet):
        found = values(expr.args)
        return None if found is None else ("set", sorted(found), ())
    return None


def _shapes_close(gold: object, guess: object, tolerance: Tolerance) -> bool | None:
    """Tuples/intervals/sets of numbers compared elementwise with the tolerance; None if not both."""
    try:
        a, b = _numeric_shape(gold), _numeric_shape(guess)
    except (TypeError, ValueError, AttributeError, ArithmeticError):
        return None
    if a is None or b is None:
        return None
    kind_a, values_a, flags_a = a
    kind_b, values_b, flags_b = b
    if kind_a == "set" and kind_b == "tuple":  # a bare list truth is a set: `[3, 1, 2]` for `1, 2, 3`
        kind_b, values_b = "set", sorted(values_b)
    # `(1, 2)` reads as an open interval or as a point: the two agree when the numbers do.
    if {kind_a, kind_b} == {"tuple", "interval"}:
        interval = flags_a if kind_a == "interval" else flags_b
        if interval != (True, True):
            return False
    elif kind_a != kind_b or flags_a != flags_b:
        return False
    if len(values_a) != len(values_b):
        return False
    return all(x == t or tolerance.close(x, t) for x, t in zip(values_b, values_a, strict=True))


_WORDY = re.compile(
    r"\b(?!(?:sin|cos|tan|log|ln|exp|sqrt|pi|frac|infty|cup|cap|le|ge|leq|geq|neq|in)\b)[A-Za-z]{3,}\b"
)


def _math_like(text: str) -> bool:
    """Short enough, bracketed sanely enough and free of prose, to be worth a symbolic parse
    (math-verify can spend its whole timeout on `((((((...`, and milliseconds on any sentence)."""
    plain = re.sub(r"\\[A-Za-z]+", "", text)
    return len(text) <= 200 and sum(text.count(b) for b in "([{") <= 24 and not _WORDY.search(plain)


_GROUP = re.compile(r"^\s*([\[({]?)\s*([^\[\](){}]*?)\s*([\])}]?)\s*$")
_INFINITY = {"∞": math.inf, "\\infty": math.inf, "inf": math.inf, "infinity": math.inf, "oo": math.inf}
_UNION = re.compile(r"\s*(?:\\cup|∪|\bU\b)\s*")
_BOUND = r"([-+]?\s*(?:\d+(?:\.\d+)?|\.\d+))"
_LESS = r"(<=|≤|\\le(?:q)?|<)"
_GREATER = r"(>=|≥|\\ge(?:q)?|>)"
_BETWEEN = re.compile(rf"^\s*{_BOUND}\s*{_LESS}\s*[a-z]\s*{_LESS}\s*{_BOUND}\s*$")
_ABOVE = re.compile(rf"^\s*[a-z]\s*{_GREATER}\s*{_BOUND}\s*$")
_BELOW = re.compile(rf"^\s*[a-z]\s*{_LESS}\s*{_BOUND}\s*$")
_NOT_EQUAL = re.compile(rf"^\s*[a-z]\s*(?:\\neq|≠|!=)\s*{_BOUND}\s*$")


def _group_value(text: str) -> float | None:
    text = text.strip()
    sign = -1.0 if text.startswith(("-", "−")) else 1.0
    bare = text.lstrip("+-−").strip()
    if bare in _INFINITY:
        return sign * _INFINITY[bare]
    return parse_number(text)


def _inequality_groups(text: str) -> list[tuple[str, list[float], str]] | None:
    """`1 \\le x < 3` as [1, 3); `x > 2` as (2, ∞); `x \\neq 0` as (-∞, 0) ∪ (0, ∞)."""

    def closed(op: str) -> bool:
        return op != "<" and op != ">"

    if m := _BETWEEN.match(text):
        low, op1, op2, high = (
            float(m.group(1).replace(" ", "")),
            m.group(2),
            m.group(3),
            float(m.group(4).replace(" ", "")),
        )
        return [("[" if closed(op1) else "(", [low, high], "]" if closed(op2) else ")")]
    if m := _ABOVE.match(text):
        return [("[" if closed(m.group(1)) else "(", [float(m.group(2).replace(" ", "")), math.inf], ")")]
    if m := _BELOW.match(text):
        return [("(", [-math.inf, float(m.group(2).replace(" ", ""))], "]" if closed(m.group(1)) else ")")]
    if m := _NOT_EQUAL.match(text):
        point = float(m.group(1).replace(" ", ""))
        return [("(", [-math.inf, point], ")"), ("(", [point, math.inf], ")")]
    return None


def _numeric_groups(text: str) -> list[tuple[str, list[float], str]] | None:
    """`(2, -1)`, `[1, 3)`, `{1, 2, 3}`, a bare `1, 2, 3`, a union of intervals or a simple inequality,
    as (opening, values, closing) groups; None for anything else."""
    text = text.replace("\\left", "").replace("\\right", "").replace("\\{", "{").replace("\\}", "}")
    text = text.replace("$", "").strip()
    if (inequality := _inequality_groups(text)) is not None:
        return inequality
    if (both := re.fullmatch(r"\s*(?:±|\\pm)\s*(.+?)\s*", text)) and (
        value := parse_number(both.group(1))
    ) is not None:
        return [("{", [-value, value], "}")]  # `±3` is the set {-3, 3}
    groups = []
    for part in _UNION.split(text):
        match = _GROUP.match(part)
        named = re.search(r"[=a-hj-zA-Z]", match.group(2).replace("inf", "")) if match else None
        if not match or "," not in match.group(2) or (named and "\\infty" not in match.group(2)):
            return None  # named values (`x = 1, y = 2`) are math-verify's to compare
        values = [_group_value(value) for value in match.group(2).split(",")]
        if any(v is None for v in values):
            return None
        groups.append((match.group(1), values, match.group(3)))
    return groups  # type: ignore[return-value]


def _groups_equal(candidate: str, truth: str, tolerance: Tolerance) -> bool | None:
    """Groups of numbers compared without a symbolic parse: a set (braces or bare) ignores order,
    a tuple or interval keeps order and its brackets; None when either is no such group."""
    a, b = _numeric_groups(candidate), _numeric_groups(truth)
    if a is None or b is None:
        return None
    if len(a) != len(b):
        return False
    return all(
        _group_equal(x, y, tolerance)
        for x, y in zip(sorted(a, key=_start), sorted(b, key=_start), strict=True)
    )


def _start(group: tuple[str, list[float], str]) -> float:
    return group[1][0]


def _group_equal(
    a: tuple[str, list[float], str], b: tuple[str, list[float], str], tolerance: Tolerance
) -> bool:
    (open_a, values_a, close_a), (open_b, values_b, close_b) = a, b
    if len(values_a) != len(values_b):
        return False
    if open_b in ("{", "") or open_a == "{":
        values_a, values_b = sorted(values_a), sorted(values_b)
    elif (open_a, close_a) != (open_b, close_b):
        return False
    return all(x == y or tolerance.close(x, y) for x, y in zip(values_a, values_b, strict=True))


_MEMBER = re.compile(r"^\s*[a-zA-Z]\s*(?:∈|\\in)\s*")
_FUNCTION_NAME = re.compile(r"(?<![\\a-zA-Z])(log|ln|sin|cos|tan|sqrt|exp)(?![a-zA-Z])")


_NAMED_GROUP = re.compile(r"^\$?\s*[A-Za-z][\w']*\s*=\s*([\[(\{].*[\])\}])\s*\$?$")


def _as_written_math(candidate: str, truth: str) -> str:
    """A text candidate in the truth's form: `x ∈ [1, 3)` as `[1, 3)`, `P = 2(x + 3)` as `2(x + 3)` when
    the truth is no equation, unicode math as LaTeX, `log_2(x)` as `\\log_2(x)`."""
    text = _MEMBER.sub("", unicode_math(candidate)).strip().rstrip(".")
    if "=" not in truth and (named := _NAMED_GROUP.match(text)):
        text = named.group(1)  # `P' = (7, -10)` for a truth `(-3, -4)`
    elif "=" not in truth and text.count("=") >= 1 and "," not in text:
        text = text.split("=")[-1]
    return _FUNCTION_NAME.sub(r"\\\1", text).strip()


@lru_cache(maxsize=16384)  # an answer form recurs across a run's cells: decide it once
def text_equivalent(candidate: str, truth: str, tolerance: Tolerance = Tolerance()) -> bool | None:
    """Whether a text answer says the truth; None when it cannot be compared: its value (or the
    truth's) is beyond what may be evaluated (`bounds.tame`)."""
    if _normalize_text(candidate) == _normalize_text(truth):
        return True
    candidate, truth = _as_written_math(candidate, truth), _FUNCTION_NAME.sub(r"\\\1", unicode_math(truth))
    if _normalize_text(candidate) == _normalize_text(truth):
        return True
    clock = _clock_minutes(truth)
    if clock is not None:
        said = _clock_minutes(candidate)
        if said is None:
            return False
        written = _TIME.match(truth)
        if written and not written.group(3) and clock < 13 * 60:
            return said % 720 == clock % 720  # a truth without AM/PM (`8:20`) is either half of the day
        return said == clock
    expected, value = number_value(truth), number_value(candidate)
    if expected is not None and value is not None:
        return tolerance.close(value, expected)
    if not _math_like(candidate) or not _math_like(truth):
        return False  # words ("Yes", "odd") were compared as text above
    if (groups := _groups_equal(candidate, truth, tolerance)) is not None:
        return groups
    fast = fast_equation_equivalent(candidate, truth) if "=" in truth else fast_equivalent(candidate, truth)
    if fast is not None:
        return fast
    return bounded_call(_symbolic_equal, candidate, truth, tolerance)


def _symbolic_equal(candidate: str, truth: str, tolerance: Tolerance) -> bool | None:
    """math-verify's comparison of two parses (pure Python once the bounds have passed, but SymPy's
    simplification may take seconds: `bounded_call` limits it)."""
    from math_verify import verify

    gold, guess = _as_math(truth), _as_math(candidate)
    if gold is None or guess is None:
        return None  # beyond the bounds: not evaluated, so neither right nor wrong
    if not gold or not guess:
        return False
    shapes = _shapes_close(gold[0], guess[0], tolerance)
    if shapes is not None:
        return shapes
    return bool(
        verify(
            gold,
            guess,
            float_rounding=6,
            numeric_precision=15,
            strict=True,
            allow_set_relation_comp=False,
            timeout_seconds=_timeout(2),
        )
    )


def is_correct(
    candidate: str,
    truth: str,
    answer_type: AnswerType,
    choices: tuple[str, ...] = (),
    tolerance: Tolerance = Tolerance(),
    percent_question: bool = False,
) -> bool | None:
    """True/False when the candidate can be read as this answer type, None when it cannot (or the
    truth cannot: a number truth that is none, which `truth_problem` refuses when a release is read).
    Numbers written as decimals or fractions compare exactly."""
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        letter = choice_letter(candidate, choices)
        return None if letter is None else letter == truth.strip().upper()
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        value = number_value(candidate, percent_question)
        expected = number_value(truth, percent_question)
        if value is None or expected is None:
            return None

        def matches(value: Number) -> bool:
            if answer_type is AnswerType.INT:
                return _distance(value, expected) < 1e-9
            return tolerance.close(value, expected)

        if matches(value):
            return True
        # "7%" against a truth written 7: the truth counts percentage points (charts, surveys)
        points = not percent_question and "%" not in truth and re.search(r"%\s*$", candidate)
        in_points = number_value(candidate, True) if points else None
        return in_points is not None and matches(in_points)
    return text_equivalent(candidate, truth, tolerance)


def _distance(a: Number, b: Number) -> Number:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return abs(a - b)
    return abs(as_float(a) - as_float(b))


def truth_problem(truth: str, answer_type: AnswerType) -> str | None:
    """Why a truth is not of its answer type, so that no reply could be compared with it, or None: a
    float truth is one finite number, an integer truth an integer, a multiple-choice truth a letter."""
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        letter = truth.strip().upper()
        return None if len(letter) == 1 and letter in _LETTERS else "is not an option letter (A-J)"
    if answer_type not in (AnswerType.FLOAT, AnswerType.INT):
        return None
    value = number_value(truth)
    if value is None or not math.isfinite(value):
        return "is not a number"
    whole = value.denominator == 1 if isinstance(value, Fraction) else value.is_integer()
    return "is not an integer" if answer_type is AnswerType.INT and not whole else None
