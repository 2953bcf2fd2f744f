"""Amounts of a stated scale: a question that asks "in millions" and a reply that says "$1.832 billion"
or "$1,832,000,000" state the same amount (pure).

Financial and statistical questions ask for an amount in a unit of scale ("What was FY2021 EBITDA (in
USD millions)?"), and replies give it with a scale word or in full. The truth is in the question's
unit; a reply's number is read in that unit when it has no scale word, and also in full units (so
`1,832,000,000` answers 1,832 millions); a scale word of its own is always applied, so `1,832
thousand` is not 1,832 millions.
"""

from __future__ import annotations

import re
from functools import lru_cache

SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_ABBREVIATED = {"k": "thousand", "mn": "million", "mm": "million", "m": "million", "bn": "billion",
                "b": "billion"}  # fmt: skip
_WORD = r"(thousand|million|billion|trillion)s?"
_QUESTION_SCALE = re.compile(
    rf"\bin\s+(?:(?:usd|us\s+dollars?|dollars?|\$|eur|euros?|gbp|units?)\s+)?{_WORD}\b"
    rf"|\((?:(?:usd|\$|eur|gbp)\s*)?{_WORD}\)"
    rf"|\b(?:usd|\$)\s*{_WORD}\b",
    re.I,
)
# the scale word right after a reply's number: "1,832 million", "$1.8bn", "2.5 billion dollars"
REPLY_SCALE = re.compile(r"(\d)\s*(thousand|million|billion|trillion|bn|mn|mm|k|m|b)s?\b", re.I)


@lru_cache(maxsize=4096)
def question_scale(question: str) -> float | None:
    """The unit of scale the question asks its amount in, if it names one ("in millions": 1e6)."""
    found = _QUESTION_SCALE.search(question)
    if found is None:
        return None
    word = next(group for group in found.groups() if group)
    return SCALES[word.lower()]


def reply_scale(answer: str) -> float | None:
    """The scale word an answer's number carries ("1.832 billion": 1e9), if any."""
    found = REPLY_SCALE.search(answer)
    if found is None:
        return None
    word = found.group(2).lower()
    return SCALES[_ABBREVIATED.get(word, word)]


def readings(value: float, answer: str, question: str) -> tuple[float, ...]:
    """The amounts, in the question's unit, that an answer of this value can mean. When the question
    names a unit: with the answer's own scale word, exactly one; without, the value as written and
    the value read in full units. When it names none: the value as written, and with its scale word
    applied if it has one."""
    asked = question_scale(question)
    own = reply_scale(answer)
    if asked is None:  # no unit asked: the number as written, as before, or in full units
        return (value, value * own) if own is not None else (value,)
    if own is not None:
        return (value * own / asked,)
    return (value, value / asked) if abs(value) >= asked else (value,)
