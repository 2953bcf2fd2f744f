"""The question a reply answers, read once per question: the benchmark's wrapper around it removed.

Prompts as asked carry more than the question: a hint line on the answer's format ("Hint: Please
answer the question requiring an integer answer ..."), a `Question:` label, the options listed
after `Choices:`, and instructions ("put your answer in one \\boxed{}", "Answer the question using
a single word or phrase."). The reading rules look for the question's subject in the reply; the
wrapper's words ("answer", "option", "letter", "end") are no subject. Cached: a run grades many
replies to one question.
"""

from __future__ import annotations

import re
from functools import lru_cache

from isodyn.scoring.answer_match import NUMBER_WORDS

_HINT_LINE = re.compile(r"^\s*Hint:.*$", re.I | re.M)
_LABEL = re.compile(r"^\s*Question:\s*", re.I | re.M)
_CHOICES = re.compile(r"\n\s*(?:Choices|Options)\s*:?\s*\n.*\Z", re.I | re.S)
_LISTED_OPTION = re.compile(r"^\s*\(?[A-H]\)\s.*$", re.M)
_INSTRUCTION = re.compile(
    r"^\s*(?:Please\s+(?:solve|answer|provide|reason)|Answer\s+the\s+question|Put\s+your|If\s+it\s+is\s+a"
    r"\s+multiple)[^\n]*$",
    re.I | re.M,
)
_IMAGE_TAG = re.compile(r"<image\d*>")


@lru_cache(maxsize=4096)
def asked_text(question: str) -> str:
    """The question itself, without hints, labels, listed options or answer-format instructions."""
    if not question:
        return question
    text = _CHOICES.sub("", question)
    for pattern in (_HINT_LINE, _INSTRUCTION, _LISTED_OPTION, _IMAGE_TAG):
        text = pattern.sub("", text)
    text = _LABEL.sub("", text)
    return re.sub(r"\n{2,}", "\n", text).strip() or question


_GIVEN_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


def numbers_in(text: str) -> frozenset[float]:
    """The plain numbers written in a text (`5`, `10.5`; not the `2` of `x2`)."""
    return frozenset(float(m.group()) for m in _GIVEN_NUMBER.finditer(text))


@lru_cache(maxsize=4096)
def question_numbers(question: str) -> frozenset[float]:
    """The numbers the question itself gives ("less than 5 units", "larger than 10B"): in a reply's
    sentence beside another value, they are the condition restated, not the answer."""
    return numbers_in(asked_text(question))


# "one" is a pronoun as often as a number ("the one on the left"): only after a word that counts
_SPELLED = re.compile(
    r"\b(?:(?<=only )|(?<=exactly )|(?<=just )|(?<=are )|(?<=is ))one\b"
    r"|\b(?:zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty)\b(?![-\w])",
    re.I,
)


def spelled_out(sentence: str, question: str) -> str:
    """For a question that asks to count, small numbers written as words as digits: "There are three
    groups" states 3 (elsewhere "takes two arguments" states nothing)."""
    if not asks_count(question):
        return sentence
    return _SPELLED.sub(lambda m: str(NUMBER_WORDS[m.group().lower()]), sentence)


@lru_cache(maxsize=4096)
def asks_count(question: str) -> bool:
    return re.search(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", asked_text(question), re.I) is not None
