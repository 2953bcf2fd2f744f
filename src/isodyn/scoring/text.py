"""A reply as text a grader can read: bounded, de-marked-up, split into lines, sentences and clauses.

Everything here is pure and linear in the length of its input. A reply that is not a string, or is
empty, becomes ""; a reply longer than `MAX_REPLY_CHARS` keeps its beginning and its end (where the
answer stands: first line for answer-first replies, the end for everything else).
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_REPLY_CHARS = 16_000  # about 4,000 tokens: more is a runaway, whose end still holds the answer
_HEAD_CHARS = 4_000
MAX_CANDIDATE_CHARS = 400  # an "answer" longer than this is prose, not a short answer


def bounded(reply: object) -> str:
    """The reply as a string of bounded length ("" for None and non-strings)."""
    if not isinstance(reply, str):
        return ""
    if len(reply) <= MAX_REPLY_CHARS:
        return reply
    return reply[:_HEAD_CHARS] + "\n" + reply[-(MAX_REPLY_CHARS - _HEAD_CHARS) :]


# Markdown and decoration around an answer: headings, quotes, bullets, emphasis, check marks, emoji.
_LINE_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*•+]\s+|\d{1,2}[.)]\s+(?=\D))+")
# `**` between two word characters is Python's power (`2**3`), not bold.
_EMPHASIS = re.compile(
    r"(?<![\w)])\*\*|\*\*(?![\w(])|(?<!\w)__|__(?!\w)|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|`+"
)
_SYMBOLS = re.compile(
    "[\u2190-\u21ff\u2300-\u23ff\u2460-\u24ff\u25a0-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\ufe0f\u200d]"
)


def strip_markup(line: str) -> str:
    """One line without Markdown decoration or emoji; LaTeX stays (the comparison reads it)."""
    line = _SYMBOLS.sub(" ", line)
    line = _LINE_PREFIX.sub("", line)
    line = _EMPHASIS.sub("", line)
    return re.sub(r"[ \t]+", " ", line).strip()


_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+-]*\s*$")  # a code fence's own line: ```json


@lru_cache(maxsize=4096)
def lines(text: str) -> tuple[str, ...]:
    """Non-empty lines, de-marked-up."""
    out = []
    for raw in text.splitlines():
        if _FENCE.match(raw):
            continue
        line = strip_markup(raw)
        if line:
            out.append(line)
    return tuple(out)


# A sentence ends at . ! ? followed by a space or the end, but not inside a number (3.5), after a
# one-letter abbreviation (e.g.), or inside a formula.
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b[a-z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)\s+(?=[^a-z\s])")


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[str, ...]:
    """The text's sentences in order (lines are sentence breaks too), de-marked-up."""
    out: list[str] = []
    for line in lines(text):
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return tuple(out)


# Clauses: where a new assertion starts. Commas split only before a subject-like continuation.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|:\s|—|–\s|\s-\s|,\s*(?:so|but|and so|hence|thus|therefore|which means|meaning|while|whereas)\b"
    r"|\b(?:but|whereas|however|therefore|thus|hence|so)\b|\s(?=(?:because|since)\b)|(?<=[.!?])\s+(?=[A-Z])"
    r"|,\s*(?=(?:it|they|this|that|the|he|she|we|there)\b))\s*",
    re.IGNORECASE,
)


def clauses(sentence: str) -> list[str]:
    """A sentence cut where a new assertion starts ("White is stalemated, so Black does not win")."""
    return [c.strip() for c in _CLAUSE_BREAK.split(sentence) if c and c.strip()]


def clip(candidate: str) -> str:
    return candidate if len(candidate) <= MAX_CANDIDATE_CHARS else candidate[:MAX_CANDIDATE_CHARS]


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")


def unicode_math(text: str) -> str:
    """`x²` as `x^{2}`, `10⁻³` as `10^{-3}`, `−` `×` `·` as `-` `*` `*`."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + m.group().translate(_SUPERSCRIPT) + "}", text)
    return text.replace("−", "-").replace("×", "*").replace("·", "*").replace("∙", "*")


_FORM_FEED = re.compile(r"\\?\x0c")


def as_written(text: str) -> str:
    """A form feed read back as the `\\f` it was: what `\\frac` becomes when a reply (or a truth) went
    through a JSON or Python string decoder."""
    return _FORM_FEED.sub(r"\\f", text) if "\x0c" in text else text
