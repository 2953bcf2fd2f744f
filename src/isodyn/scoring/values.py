"""A number as a candidate states it: the value after its last "is" / "=", a lone value, its scale word
kept; values offered as alternatives are no answer. Pure."""

from __future__ import annotations

import re

from isodyn.scoring.ambiguity import CLEAR, NONE_FOUND, SEVERAL_VALUES
from isodyn.scoring.answer_match import parse_number
from isodyn.scoring.scale import REPLY_SCALE
from isodyn.scoring.text import clip

NUMBER = re.compile(r"(?<![\w^.])(?<!\^\{)[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")

# ---- reading a candidate as the answer type ---------------------------------------------------------

_VALUE_ANCHOR = re.compile(
    r"(?:\bis|\bequals?|\bare|\bbe|\bof|\bto|=|:|≈|\\approx|\babout)\s+", re.IGNORECASE
)
_VALUE_END = re.compile(r",\s|;|\s\(|\s(?:because|since|which|so|and|but|as|when|if|for|from|with)\s", re.I)


# A value as written in prose: `3/4`, `2 1/2`, `45%`, `.50`, `1,234.5`, `6.02 × 10^{23}`, `$2.50`.
VALUE = re.compile(
    r"(?<![\w^.])(?<!\^\{)[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?<=\d)"
    r"(?:\s+\d+\s*/\s*\d+|\s*/\s*\d+(?:\.\d+)?)?"
    r"(?:\s*(?:\\times|×|\*|x)\s*10\s*(?:\^\s*\{?\s*[-+−]?\d+\s*\}?|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+))?%?"
)
# A condition on the value: "at x = 3", "when x = 3" (the answer is the value, not the condition).
_CONDITION = re.compile(r"\b(?:at|when|where|for|if|with)\s+[a-zA-Z]\s*=\s*[-+−]?[\d.]+", re.I)
LATEX_WORDS = re.compile(r"\\(?:text|mathrm|textrm|mathbf|textbf)\s*\{([^{}]*)\}")


def read_number(
    candidate: str, percent_question: bool = False, first: bool = False, given: frozenset[float] = frozenset()
) -> tuple[str | None, str]:
    """The value a numeric candidate states: all of it when short (`12.5 cm`, `\\frac{3}{4}`), else the
    value after its last "is" / "=" (`the flow from s to t is 6`), else one of its values: the first
    for an answer line (`12 students scored above 80`), the last for a sentence of reasoning; values
    offered as alternatives ("8 or 9") are no answer."""
    candidate = clip(candidate).strip()
    if len(candidate.split()) <= 4 and parse_number(candidate, percent_question) is not None:
        return candidate, CLEAR
    bare = not re.search(r"[A-Za-z]{2,}|=", re.sub(r"\\[A-Za-z]+", "", candidate))
    if len(candidate.split()) <= 3 and bare:
        return None, NONE_FOUND  # a bare value that is no number (`1/0`)
    text = LATEX_WORDS.sub(r" \1 ", candidate)
    if VALUE.search(_CONDITION.sub(" ", text)):
        text = _CONDITION.sub(" ", text)
    values = [m.group().strip() for m in VALUE.finditer(text)]
    if len(set(values)) > 1 and _ALTERNATIVES.search(text):
        return None, SEVERAL_VALUES  # "8 or 9, depending on ...": no committed value
    for anchor in reversed(list(_VALUE_ANCHOR.finditer(text))):
        tail = text[anchor.end() :]
        end = _VALUE_END.search(tail)
        value = (tail[: end.start()] if end else tail).strip().rstrip(".").strip()
        parsed = parse_number(value, percent_question) if value and NUMBER.search(value) else None
        if parsed is not None and parsed not in given:
            return _bare(value, parsed, percent_question), CLEAR
    readable = [v for v in values if parse_number(v, percent_question) is not None]
    if not readable:
        return None, NONE_FOUND
    # "There are 2 items sold less than 5 units": a value the question gives is its condition
    readable = [v for v in readable if parse_number(v, percent_question) not in given] or readable
    return (readable[0] if first else readable[-1]), CLEAR


_ALTERNATIVES = re.compile(
    r"\d\s*(?:or|and/or)\s*[-+−]?\d|\beither\b|\bdepending\b|\bdepends\b"
    r"|\b\d+(?:\.\d+)?\s*,\s*\d+(?:\.\d+)?\s*,?\s*(?:and|or)\s+\d",  # "042, 82, and 918": a list, not a value
    re.I,
)


def _bare(value: str, parsed: float, percent_question: bool) -> str:
    """`12 cm^2` as `12`: the value's first number when it alone reads as the same value."""
    first = NUMBER.search(value)
    if first and first.group() != value and parse_number(first.group(), percent_question) == parsed:
        scale = REPLY_SCALE.match(value, first.end() - 1)  # "1,832 million" keeps its scale word
        return first.group() + (f" {scale.group(2)}" if scale else "")
    return value
