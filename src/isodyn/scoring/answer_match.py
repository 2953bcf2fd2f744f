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

import math
import re
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache

from isodyn.core import AnswerType
from isodyn.scoring.answer_lists import lists_equal
from isodyn.scoring.bounds import as_float, bounded_call
from isodyn.scoring.boxed import box_content, last_boxed
from isodyn.scoring.fast_math import fast_equation_equivalent, fast_equivalent
from isodyn.scoring.groups import _groups_equal, _symbolic_equal
from isodyn.scoring.letters import _LETTERS, choice_letter, letters_mentioned, options_named, own_letter
from isodyn.scoring.matrices import Rows, in_latex, matrices_equal, matrix_rows, written_as_matrix
from isodyn.scoring.numbers import (
    DYNAMATH_ABS_TOLERANCE,
    NUMBER_WORDS,
    Number,
    Tolerance,
    _strip_wrappers,
    number_value,
    parse_number,
)
from isodyn.scoring.symbolic import _parse_math
from isodyn.scoring.text import unicode_math
from isodyn.scoring.written import _math_like, _normalize_text, has_variable

__all__ = [  # the public names other modules import from here
    "DYNAMATH_ABS_TOLERANCE",
    "NUMBER_WORDS",
    "Tolerance",
    "_groups_equal",
    "_parse_math",
    "choice_letter",
    "is_correct",
    "letters_mentioned",
    "number_value",
    "options_named",
    "own_letter",
    "parse_number",
    "text_equivalent",
    "truth_problem",
]

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


_MEMBER = re.compile(r"^\s*[a-zA-Z]\s*(?:∈|\\in)\s*")
_FUNCTION_NAME = re.compile(r"(?<![\\a-zA-Z])(log|ln|sin|cos|tan|sqrt|exp)(?![a-zA-Z])")


_NAMED_GROUP = re.compile(r"^\$?\s*[A-Za-z][\w']*\s*=\s*([\[(\{].*[\])\}])\s*\$?$")
_RELATION = re.compile(r"[=<>≤≥≠∈]|\\(?:[lg]eq?|[lg]t|neq?|in)(?![A-Za-z])")
_LIST_OR = re.compile(r"(?<=[\d)\]])\s*,?\s+or\s+(?=[-\d(\[])")
_EQUALS = re.compile(r"(?<![<>!=])=(?!=)")  # an equation's sign, not `<=`, `>=`, `!=`
# the left side of a truth `f(x) = 2x + 1`, `S_{MBCN}:S = 7:32`: names, no arithmetic
_NAMED_SIDE = re.compile(r"^\s*(?=[^=]*[A-Za-z])[A-Za-z\\_{}:'()\s,]+$")


def _as_written_math(candidate: str, truth: str) -> str:
    """A text candidate in the truth's form: `x ∈ [1, 3)` as `[1, 3)`, `P = 2(x + 3)` as `2(x + 3)` when
    the truth is no equation, unicode math as LaTeX, `log_2(x)` as `\\log_2(x)`."""
    text = _MEMBER.sub("", unicode_math(candidate)).strip().rstrip(".")
    equation = _EQUALS.search(truth)
    if not equation and (named := _NAMED_GROUP.match(text)):
        text = named.group(1)  # `P' = (7, -10)` for a truth `(-3, -4)`
    elif not equation and _EQUALS.search(text) and "," not in text:
        text = _EQUALS.split(text)[-1]
    return _FUNCTION_NAME.sub(r"\\\1", text).strip()


# Minerva's closing line of a worked solution: "Final Answer: The final answer is $28 \\%$. I hope ..."
_FINAL_ANSWER = re.compile(r"[Tt]he final answer is\s*\$([^$]+)\$")


def _boxed_answer(truth: str) -> str:
    """A truth written as a worked solution is the answer it boxes (MATH's convention), or else the
    one its last "The final answer is $...$" states (Minerva's)."""
    if "\\boxed" in truth or "\\fbox" in truth:
        return last_boxed(truth) or truth
    finals: list[str] = _FINAL_ANSWER.findall(truth) if len(truth) > 80 else []
    return finals[-1].strip() if finals else truth


def _truth_in_form(truth: str, candidate: str) -> str:
    """The truth in the candidate's form: a worked solution as the answer it boxes; `f(x) = 2x + 1` as
    `2x + 1` for a candidate that is no equation; unicode math as LaTeX."""
    truth = _LIST_OR.sub(", ", _boxed_answer(truth))  # a truth `21, 16 or 11` lists its answers
    sides = _EQUALS.split(truth)
    if len(sides) == 2 and not _EQUALS.search(candidate) and _NAMED_SIDE.match(sides[0]):
        truth = sides[1]
    return _FUNCTION_NAME.sub(r"\\\1", unicode_math(truth)).strip()


@lru_cache(maxsize=16384)  # an answer form recurs across a run's cells: decide it once
def text_equivalent(candidate: str, truth: str, tolerance: Tolerance = Tolerance()) -> bool | None:  # noqa: B008
    """Whether a text answer says the truth; None when it cannot be compared: its value (or the
    truth's) is beyond what may be evaluated (`bounds.tame`)."""
    if _normalize_text(candidate) == _normalize_text(truth):
        return True
    # `6 \text{ and } 8` is `6, 8`; a worked solution is its boxed answer
    candidate, truth = _as_plain(candidate), _as_plain(_boxed_answer(truth))
    truth = _truth_in_form(truth, candidate)
    candidate = _as_written_math(candidate, truth)
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
        return _numbers_match(candidate, truth, lambda v: tolerance.close(v, expected))
    if not _math_like(candidate) or not _math_like(truth):
        return False  # words ("Yes", "odd") were compared as text above

    def same(a: str, b: str) -> bool | None:
        return text_equivalent(a, b, tolerance)

    if (groups := _groups_equal(candidate, truth, tolerance)) is not None:
        return groups
    if (matrices := _matrices(candidate, truth)) is not None:
        return matrices_equal(*matrices, same)
    if (listed := lists_equal(candidate, truth, same)) is not None:
        return listed
    if not _RELATION.search(candidate + truth) and has_variable(candidate) != has_variable(truth):
        return False  # an expression in unknowns is no number (decided without a parse: milliseconds)
    fast = fast_equation_equivalent(candidate, truth) if "=" in truth else fast_equivalent(candidate, truth)
    if fast is not None:
        return fast
    return bounded_call(_symbolic_equal, in_latex(candidate), in_latex(truth), tolerance)


def _as_plain(text: str) -> str:
    """`box_content`'s reading, but a matrix stays in its own notation (for math-verify's parser)."""
    return text if written_as_matrix(text) else box_content(text)


def _matrices(candidate: str, truth: str) -> tuple[Rows, Rows] | None:
    """Both as matrices when one is written as one (`\\begin{pmatrix}`, `[[1, 2], [3, 4]]`): nested
    tuples alone (`((1,2),(3,4))` against `(1,2),(3,4)`) are compared as tuples, not as matrices."""
    if not (written_as_matrix(candidate) or written_as_matrix(truth)):
        return None
    rows, expected = matrix_rows(candidate), matrix_rows(truth)
    return None if rows is None or expected is None else (rows, expected)


def is_correct(
    candidate: str,
    truth: str,
    answer_type: AnswerType,
    choices: tuple[str, ...] = (),
    tolerance: Tolerance = Tolerance(),  # noqa: B008 - immutable
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
        expected = number_value(
            _truth_in_form(truth, candidate) if "\\boxed" in truth else truth, percent_question
        )
        if value is None or expected is None:
            return None

        def matches(value: Number) -> bool:
            if answer_type is AnswerType.INT:
                return _distance(value, expected) < 1e-9
            return tolerance.close(value, expected)

        if matches(value) or (not percent_question and _in_points(candidate, truth, matches)):
            return True
        exact = _before_approximation(candidate, percent_question)
        return exact is not None and matches(exact)
    return text_equivalent(candidate, truth, tolerance)


def _numbers_match(candidate: str, truth: str, matches: Callable[[Number], bool]) -> bool:
    value = number_value(candidate)
    if (value is not None and matches(value)) or _in_points(candidate, truth, matches):
        return True
    exact = _before_approximation(candidate)
    return exact is not None and matches(exact)


_APPROX = re.compile(r"\\approx|≈")


def _before_approximation(candidate: str, percent_question: bool = False) -> Number | None:
    """`x = 1/3 \\approx 0.33`: the exact value stated before its approximation, which says the
    answer as well (a sloppy rounding after it does not unsay it)."""
    if not (found := _APPROX.search(candidate)):
        return None
    return number_value(candidate[: found.start()], percent_question)


def _in_points(candidate: str, truth: str, matches: Callable[[Number], bool]) -> bool:
    """ "7%" against a truth written 7: the truth counts percentage points (charts, surveys)."""
    if "%" in truth or not re.search(r"%\s*$", candidate):
        return False
    in_points = number_value(candidate, True)
    return in_points is not None and matches(in_points)


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
