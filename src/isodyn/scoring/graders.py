"""Graders a user can name (`grader=`) and compare: each turns one reply into a `Score`.

- `isodyn` (default): the extraction cascade of `extract.py`, then isodyn's comparison by type;
- `dynamath`: DynaMath's published rule (its evaluation script, as released with the benchmark):
  the substring from the first `{` to the last `}` with every backslash removed, read as JSON, its
  `short answer`; else the whole reply. Floats: the first space-separated token (a trailing `π`
  multiplies), right within 0.001 absolute; multiple choice: a one-character answer, else the one
  letter of A-E the upper-cased answer contains; when that fails, right if the truth's letter is in
  the reply's first three characters; text: right if the lower-cased answer is a substring of the
  lower-cased truth. No model fallback;
- `mmmath`: MM-MATH's outcome rule (Section 3.3): only the last `\\boxed{}`, compared by value
  (tolerance 0.001, SymPy equivalence, intervals, units stripped);
- `strict-json`: only the `short answer` of well-formed JSON, compared by isodyn's rules.

Every grader is a pure function, total on any input: a reply that is not a string, empty or huge is
graded `extraction_failed` with a reason, never an exception; what it would have to evaluate is
bounded first (`bounds.py`). `get_grader` hands out each grader behind one total entry point: should a
grader still raise (a bug), the reply is graded `extraction_failed` (method `grader_error`, the error in
its detail), the error is logged and counted in `GRADER_ERRORS`, and the run goes on.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from isodyn.core import AnswerType
from isodyn.registry import Registry
from isodyn.scoring.answer_match import Tolerance, is_correct, parse_number
from isodyn.scoring.extract import (
    CLEAR,
    NONE_FOUND,
    NOT_AN_OPTION,
    UNREADABLE,
    Extraction,
    extract_answer,
    last_boxed,
)
from isodyn.scoring.json_answer import JSON_FAILURES, strict_json_answer
from isodyn.scoring.scale import REPLY_SCALE, question_scale, readings
from isodyn.scoring.text import as_written, bounded

DEFAULT_GRADER = "isodyn"  # an answer was found but cannot be read as the answer type


@dataclass(frozen=True)
class Question:
    """What a grader needs to know about the question a reply answers."""

    truth: str
    answer_type: AnswerType
    choices: tuple[str, ...] = ()
    text: str = ""  # the question as asked (yes/no statements are read against it)
    percent_question: bool = False
    tolerance: Tolerance = field(default_factory=Tolerance)
    solution: str = ""  # the reference solution (process evaluation); empty when none is known


@dataclass(frozen=True)
class Score:
    correct: bool
    extracted: str | None
    reason: str  # "ok" (graded, right or wrong) or "extraction_failed"
    method: str  # where the answer was found (json, boxed, answer_line, leading, statement, ...)
    # clear, ambiguous: several options/values, none found, unreadable; when not given: none found
    # for a reply with no answer, else clear
    ambiguity: str | None = None
    grader: str = DEFAULT_GRADER
    # what a grader that is not a rule keeps of its reading (the judge: its cache key, its answer)
    detail: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.ambiguity is None:
            derived = NONE_FOUND if self.extracted is None and self.reason != "ok" else CLEAR
            object.__setattr__(self, "ambiguity", derived)


Grader = Callable[[object, Question], Score]
# Found on first read: every module of `isodyn.scoring`, then the `isodyn.graders` entry points.
GRADERS: Registry[Grader] = Registry("grader", packages=("isodyn.scoring",), group="isodyn.graders")
# `@grader("name", order=N)`: what `grader=` accepts. Listed (and shown in reports) by order: the
# default, then the papers' rules, then the strictest; a new grader without an order lists last.
grader = GRADERS.register


GRADER_ERRORS: Counter[str] = Counter()  # by grader: the replies on which it raised (each one a bug)
_log = logging.getLogger(__name__)


def get_grader(name: str) -> Grader:
    """The named grader, behind its total entry point (see the module notes)."""
    return _total(name, GRADERS.get_named(name))


def _total(name: str, grade: Grader) -> Grader:
    def total(reply: object, question: Question) -> Score:
        try:
            return grade(reply, question)
        except Exception as error:  # a bug in a grader must not end a run, nor its report
            GRADER_ERRORS[name] += 1
            said = f"{type(error).__name__}: {error}"[:200]
            _log.error("grader %r raised on a reply (%s); graded it extraction_failed", name, said)
            _log.debug("the grader's traceback", exc_info=True)
            return Score(False, None, "extraction_failed", "grader_error", UNREADABLE, name, {"error": said})

    return total


def _compared(extraction: Extraction, question: Question, name: str) -> Score:
    """An extraction compared with the truth by isodyn's rules for the answer type."""
    if extraction.answer is None:
        return Score(False, None, "extraction_failed", extraction.method, extraction.ambiguity, name)
    if extraction.ambiguity == NOT_AN_OPTION:  # a committed answer outside the options: wrong
        return Score(False, extraction.answer, "ok", extraction.method, NOT_AN_OPTION, name)
    if extraction.ambiguity == UNREADABLE:
        return Score(False, extraction.answer, "extraction_failed", extraction.method, UNREADABLE, name)
    verdict = _scaled_verdict(extraction.answer, question)
    if verdict is None:
        return Score(False, extraction.answer, "extraction_failed", extraction.method, UNREADABLE, name)
    return Score(verdict, extraction.answer, "ok", extraction.method, extraction.ambiguity, name)


def _scaled_verdict(answer: str, question: Question) -> bool | None:
    """`is_correct`, a numeric answer read in the question's unit of scale ("in millions") as well
    (`scale.readings`): right when one of its readings is."""

    truth = as_written(question.truth)

    def verdict(candidate: str) -> bool | None:
        asked = question
        return is_correct(candidate, truth, asked.answer_type, asked.choices, asked.tolerance,
                          asked.percent_question)  # fmt: skip

    numeric = question.answer_type in (AnswerType.FLOAT, AnswerType.INT)
    scaled = numeric and (REPLY_SCALE.search(answer) is not None or question_scale(question.text) is not None)
    value = parse_number(answer, question.percent_question) if scaled else None
    if value is None:
        return verdict(answer)
    verdicts = [verdict(repr(reading)) for reading in readings(value, answer, question.text)]
    return True if True in verdicts else (False if False in verdicts else None)


@grader("isodyn", order=10)
def isodyn_grader(reply: object, question: Question) -> Score:
    """The default: the full extraction cascade (JSON, box, answer lines, bare lines, statements)."""
    asked = question
    extraction = extract_answer(
        reply, asked.answer_type, asked.choices, asked.text, asked.percent_question, asked.truth
    )
    return _compared(extraction, question, "isodyn")


@grader("strict-json", order=40)
def strict_json_grader(reply: object, question: Question) -> Score:
    """The requested JSON `short answer` only, as written (no repair, no fallback)."""
    answer = strict_json_answer(bounded(reply))
    found = Extraction(answer, "json") if answer is not None else Extraction.nothing()
    return _compared(found, question, "strict-json")


@grader("mmmath", order=30)
def mmmath_grader(reply: object, question: Question) -> Score:
    """MM-MATH's outcome rule: the last \\boxed{} answer, compared by SymPy, intervals and units."""
    answer = last_boxed(bounded(reply))
    found = Extraction(answer, "boxed") if answer is not None else Extraction.nothing()
    return _compared(found, question, "mmmath")


# ---- DynaMath's published rule -------------------------------------------------------------------


def _dynamath_short_answer(reply: str) -> str | None:
    first, last = reply.find("{"), reply.rfind("}")
    text = reply[first : last + 1] if 0 <= first < last else reply
    text = text.replace("\\", "").replace("\\n", "\n")
    try:
        found = json.loads(text, strict=False)
    except JSON_FAILURES:
        return None
    value = found.get("short answer") if isinstance(found, dict) else None
    return None if value is None else str(value)


def _dynamath_float(answer: str) -> float | None:
    token = answer if answer.isdigit() else answer.split(" ")[0]
    try:
        if "π" in token:
            factor = token.split("π")[0]
            return float(factor or "1") * math.pi
        return float(token)
    except ValueError:
        return None


def _dynamath_letter(answer: str) -> str | None:
    if len(answer) == 1:
        return answer.upper()
    present = [letter for letter in "ABCDE" if letter in answer.upper()]
    return present[0] if len(present) == 1 else None


@grader("dynamath", order=20)
def dynamath_grader(reply: object, question: Question) -> Score:
    """DynaMath's published rule: the JSON short answer, absolute tolerance 0.001, no fallback."""
    text = bounded(reply)
    short = _dynamath_short_answer(text)
    method = "json" if short is not None else "whole_reply"
    answer = short if short is not None else text
    truth = question.truth.strip()
    correct, extracted = False, None
    if question.answer_type in (AnswerType.FLOAT, AnswerType.INT):
        value = _dynamath_float(answer)
        if value is not None:
            extracted = str(value)
            numeric_truth = re.fullmatch(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", truth)
            correct = bool(numeric_truth) and abs(value - float(truth)) <= 0.001
    elif question.answer_type is AnswerType.MULTIPLE_CHOICE:
        extracted = _dynamath_letter(answer) if answer else None
        if extracted is not None:
            correct = extracted == truth.upper()
        elif truth and truth.upper() in text[:3].upper():
            # the published fallback: the truth's letter among the reply's first three characters
            correct, extracted = True, truth.upper()
    elif answer.strip():
        extracted = answer
        correct = answer.lower().strip() in truth.lower()
    # Without a JSON short answer DynaMath's script asks a model; here (no fallback) a verdict read
    # from the whole reply counts only when it is right, so a reply with no answer is never "ok".
    readable = extracted is not None and (short is not None or correct)
    if not readable:
        return Score(False, None, "extraction_failed", method, NONE_FOUND, "dynamath")
    return Score(correct, extracted, "ok", method, CLEAR, "dynamath")
