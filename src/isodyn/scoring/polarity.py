"""Yes or no as a reply says it: a leading word, a judgement of the statement, or the clause that states
the property the question asks about, its polarity flipped by each negation or by naming the
property's opposite; a threshold question answered by the value stated. Pure."""

from __future__ import annotations

import re
from functools import lru_cache

from isodyn.scoring.options import (
    INCIDENTAL,
    LETTERS,
    NEGATORS,
    PARENTHETICAL,
    REASON,
    OptionReading,
    plain_tokens,
    stem,
    word_set,
)
from isodyn.scoring.text import clauses

_YES, _NO = frozenset({"yes", "true"}), frozenset({"no", "false"})


def yes_no_letters(choices: tuple[str, ...]) -> tuple[str, str] | None:
    """(letter of yes, letter of no) when the options are a yes/no (or true/false) pair."""
    if len(choices) != 2:
        return None
    kinds = [stem(re.sub(r"[^a-z]", "", option.casefold())) for option in choices]
    if kinds[0] in _YES and kinds[1] in _NO:
        return LETTERS[0], LETTERS[1]
    if kinds[0] in _NO and kinds[1] in _YES:
        return LETTERS[1], LETTERS[0]
    return None


# `No, ...`, `Yes.`, `True`, `**No** — ...`; not `No single force ...` or `Yes-or-no questions`.
_LEADING_POLARITY = re.compile(
    r"^\W*(yes|no|true|false|correct|incorrect|affirmative|negative)\W*?(?:[,.!:;—–)]|\s[-—–]\s|-(?!\w)|$)",
    re.I,
)
# A sentence that judges the question's statement: "the statement holds", "that is false".
_STATEMENT_TRUE = re.compile(
    r"\b(?:statement|claim|it|this|that)\s+(?:is\s+)?(?:holds|true|correct|valid|right)\b", re.I
)
_STATEMENT_FALSE = re.compile(
    r"\b(?:statement|claim|it|this|that)\s+(?:is\s+)?(?:false|incorrect|wrong|invalid|does\s+not\s+hold)\b"
    r"|\b(?:statement|claim)\s+(?:is\s+not|isn't)\s+(?:true|correct|valid)\b",
    re.I,
)
_NEGATED_ADJECTIVE = re.compile(
    r"\b(?:non-?|dis(?=connect|continu|joint)|un|in(?=complete|consistent|valid))", re.I
)
# Words of a yes/no question that name neither the property asked about nor anything specific.
_QUESTION_STOP = word_set(
    "does do is are was were can could has have had there exist exists any all each other every the a an of "
    "to in on at for by with from this that these those it its be will would should shown given following "
    "true false yes no answer statement graph graphs node vertex vertice vertices edge edges line "
    "lines point points triangle shape figure image picture diagram number value set table magnet magnets "
    "two three four one both pair"
)
# A property and its opposite: a statement of the opposite answers the question with No.
_OPPOSITES = {
    "attra": "repel", "repel": "attra", "incre": "decre", "decre": "incre", "conve": "conca",
    "conca": "conve", "prime": "compo", "compo": "prime", "paral": "perpe", "perpe": "paral",
    "accep": "rejec", "rejec": "accep",
}  # fmt: skip


_CONTRAST = re.compile(r"\b(?:rather\s+than|instead\s+of|as\s+opposed\s+to)\b", re.I)


def _stem5(word: str) -> str:
    """A crude stem: the first five letters (`reachable`/`reached`, `continuous`/`continuity`)."""
    return word[:5]


@lru_cache(maxsize=2048)
def _question_subject(question: str) -> tuple[frozenset[str], bool]:
    """Stems of the property a yes/no question asks about (its last sentence ending in ?, less the
    things it is about) and whether the question itself is negated ("Is the graph not connected?")."""
    question = re.split(r"\n\s*(?:Choices|Options)\b|\(A\)", question)[0]
    asked = [s for s in re.split(r"(?<=[.?!])\s+", question) if s.strip().endswith("?")]
    text = asked[-1] if asked else question
    text = re.sub(r"\s(?:when|if|where|given|assuming)\s[^?]*", " ", text)  # a condition is not the property
    words = plain_tokens(_NEGATED_ADJECTIVE.sub("not ", text))
    negated = any(w.replace("'", "") in NEGATORS or w.endswith("n't") for w in words)
    content = frozenset(
        _stem5(w)
        for w in words
        if len(w) > 2 and w not in _QUESTION_STOP and w not in NEGATORS and not w.isdigit()
    )
    return content, negated


def echo_polarity(statement: str, question: str) -> bool:
    """Whether a statement that says a yes/no question back affirms it: as many negations as the
    question ("The derivative is positive" to "Is the derivative positive?") affirms."""
    _, question_negated = _question_subject(question)
    _, negations = _polarity_words(statement)
    return (negations % 2 == 1) == question_negated


def _polarity_words(clause: str) -> tuple[tuple[str, ...], int]:
    """The clause's tokens with `non-`/`dis-`/`un-` prefixes split off, and how many negations it holds."""
    words = plain_tokens(_NEGATED_ADJECTIVE.sub("not ", clause))
    negations = sum(w.replace("'", "") in NEGATORS or w.endswith("n't") for w in words)
    return words, negations


_THRESHOLD = re.compile(
    r"\b(at\s+least|at\s+most|more\s+than|greater\s+than|larger\s+than|higher\s+than|less\s+than|fewer\s+than"
    r"|smaller\s+than|lower\s+than|exactly|equal\s+to)\s+([-+]?\d+(?:\.\d+)?)",
    re.I,
)
_COMPARE = {
    "at least": lambda v, t: v >= t, "at most": lambda v, t: v <= t, "more than": lambda v, t: v > t,
    "greater than": lambda v, t: v > t, "larger than": lambda v, t: v > t, "higher than": lambda v, t: v > t,
    "less than": lambda v, t: v < t, "fewer than": lambda v, t: v < t, "smaller than": lambda v, t: v < t,
    "lower than": lambda v, t: v < t, "exactly": lambda v, t: v == t, "equal to": lambda v, t: v == t,
}  # fmt: skip
_STATED_VALUE = re.compile(
    r"\b(?:is|are|equals|=|of|has|have)\s+(?:about\s+|only\s+|exactly\s+)?([-+]?\d+(?:\.\d+)?)\b"
)


def _threshold_answer(text: str, question: str) -> bool | None:
    """A yes/no question comparing a quantity with a number ("Is the maximum flow at least 10?")
    answered by the value the reply states for that quantity ("so the maximum flow is 9")."""
    asked = re.split(r"\n\s*(?:Choices|Options)\b|\(A\)", question)[0]
    threshold = _THRESHOLD.search(asked)
    if threshold is None:
        return None
    subject = {w for w in plain_tokens(asked[: threshold.start()]) if w not in _QUESTION_STOP and len(w) > 2}
    for clause in reversed(clauses(PARENTHETICAL.sub(" ", text))):
        stated = _STATED_VALUE.search(clause)
        if stated and subject & set(plain_tokens(clause[: stated.start()])):
            relation = re.sub(r"\s+", " ", threshold.group(1).lower())
            holds: bool = _COMPARE[relation](float(stated.group(1)), float(threshold.group(2)))
            return holds
    return None


def read_yes_no(text: str, choices: tuple[str, ...], question: str) -> OptionReading:
    """Yes or no from a leading word (`No, they are not`, `Answer: True`), a judgement of the
    statement ("the statement holds"), or the last clause that states the property asked about,
    its polarity flipped by each negation ("they are not isomorphic") or by naming its opposite."""
    letters = yes_no_letters(choices)
    if letters is None:
        return OptionReading()
    yes, no = letters

    def verdict(positive: bool) -> OptionReading:
        return OptionReading(frozenset({yes if positive else no}), frozenset({no if positive else yes}))

    if re.match(r"^\W*(?:yes|no)\s+(?:and|or)\s+(?:yes|no)\b", text, re.I):
        return OptionReading(frozenset({yes, no}))  # "Yes and no": both, so neither is committed
    if match := _LEADING_POLARITY.match(text):
        return verdict(match.group(1).casefold() in ("yes", "true", "correct", "affirmative"))
    if (compared := _threshold_answer(text, question)) is not None:
        return verdict(compared)  # "Is the flow at least 10?" ... "the maximum flow is 9"
    subject, question_negated = _question_subject(question)
    found: bool | None = None
    best = 0
    for clause in clauses(PARENTHETICAL.sub(" ", text)):
        if REASON.match(clause):
            continue
        if match := _LEADING_POLARITY.match(clause):
            found, best = match.group(1).casefold() in ("yes", "true", "correct", "affirmative"), 99
            continue
        if _STATEMENT_FALSE.search(clause) or _STATEMENT_TRUE.search(clause):
            found, best = _STATEMENT_FALSE.search(clause) is None, 99
            continue
        if INCIDENTAL.search(_CONTRAST.sub(" ", clause)):  # "rather than X" negates X here
            continue
        words, negations = _polarity_words(_CONTRAST.sub(" not ", clause))
        stems = {_stem5(w) for w in words}
        overlap = len(subject & stems)
        if overlap and overlap >= best:  # the clause saying most about the property; the later on a tie
            # "we reject the hypothesis" to "Should we accept it?": the opposite word negates the clause
            negations += sum(_OPPOSITES.get(key) in stems and key not in stems for key in subject)
            found, best = (negations % 2 == 0) != question_negated, overlap
        elif not overlap and not best and any(_OPPOSITES.get(key) in stems for key in subject):
            found = (negations % 2 == 1) != question_negated
    return OptionReading() if found is None else verdict(found)
