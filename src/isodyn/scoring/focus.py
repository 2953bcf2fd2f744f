"""Which sentences of a free-form reply state its answer (pure functions).

A reply that does not mark its answer still states it in a sentence that echoes what the question
asks for ("How many students chose soccer?" ... "14 students chose soccer."), or in a concluding
sentence ("so", "therefore"). Sentences that only check, compare or suppose ("Check: ...", "For
comparison ...", "If she had paid with $20, the change would be ...") state no answer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from isodyn.scoring.asked import asks_count, numbers_in, question_numbers, spelled_out
from isodyn.scoring.options import tokens
from isodyn.scoring.text import sentences

STRONG_CONCLUSION = re.compile(
    r"\b(?:so|therefore|thus|hence|in\s+total|altogether|overall|in\s+conclusion|which\s+gives|this\s+gives"
    r"|the\s+result\s+is|finally|we\s+conclude|consequently)\b",
    re.IGNORECASE,
)
CHECK = re.compile(
    r"^\(?\s*(?:(?:as|for)\s+a\s+|a\s+|quick\s+)?(?:check|checking|verify|verifying|verification"
    r"|double[- ]check|sanity check|spot check|indeed"
    r"|note|testing|test|substituting(?:\s+back)?|plugging\s+(?:back|in)|expanding"
    r"|this (?:matches|agrees|is consistent)"
    r"|which (?:matches|agrees))\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:would(?:\s+have)?|could|if\s+\w+\s+(?:had|were)|for\s+comparison|instead|by\s+comparison"
    r"|compared\s+(?:to|with)|suppose|otherwise)\b",
    re.IGNORECASE,
)
# What a question asks for: "What is the X of ...", "How many X ...", "How tall ...", "Find the X".
_FOCUS = (
    re.compile(
        r"\b(?:what|which)\s+(?:is|are|was|were|will\s+be)\s+(?:the\s+)?(?P<f>[^?.,;]+?)"
        r"(?=\s+(?:of|in|for|from|between|at|on|when|if|that|shown|given|after|before|to)\b|[?.,;]|$)",
        re.IGNORECASE,
    ),
    re.compile(r"\bhow\s+(?:many|much)\s+(?P<f>[^?.,;]+?)(?=[?.,;]|$)", re.IGNORECASE),
    re.compile(r"\bhow\s+(?P<f>long|tall|far|wide|high|old|deep|fast|heavy|big|large)\b[^?]*", re.IGNORECASE),
    re.compile(
        r"\b(?:find|calculate|compute|determine|estimate|give|state)\s+(?:the\s+)?(?P<f>[^?.,;]+?)"
        r"(?=\s+(?:of|in|for|from|at|on)\b|[?.,;]|$)",
        re.IGNORECASE,
    ),
    re.compile(r"\bwhat\s+(?P<f>time|day|year|number|value|angle|percentage|fraction|type)\b", re.IGNORECASE),
)
_FOCUS_STOP = frozenset("the a an of is are be does do did will total value its it this that".split())
_SIZE_WORDS = {"long": "length", "tall": "height", "high": "height", "far": "distance", "wide": "width",
               "old": "age", "deep": "depth", "fast": "speed", "heavy": "weight"}  # fmt: skip


def _stem(word: str) -> str:
    return word[:5]


@lru_cache(maxsize=4096)
def question_focus(question: str) -> frozenset[str]:
    """Stems of the words naming what the question asks for (empty when no pattern matches)."""
    asked = re.split(r"\n\s*(?:Choices|Options)\b", question)[0]
    found: set[str] = set()
    for pattern in _FOCUS:
        for match in pattern.finditer(asked):
            for word in tokens(match.group("f")):
                if word not in _FOCUS_STOP and not word.isdigit() and len(word) > 1:
                    found.add(_stem(word))
                    if word in _SIZE_WORDS:
                        found.add(_stem(_SIZE_WORDS[word]))
    return frozenset(found)


def is_aside(sentence: str) -> bool:
    """A sentence that checks, compares or supposes: it states no answer."""
    whole = sentence.rstrip(" .")
    parenthetical = (
        whole.startswith("(") and whole.endswith(")") and re.search(r"[A-Za-z]{3,}", whole) is not None
    )
    said = re.sub(r"\([^()]*\)", " ", sentence)  # "(which would mirror ...)" is an aside inside it
    return bool(CHECK.match(sentence) or _HYPOTHETICAL.search(said) or parenthetical)


def restates(sentence: str, question: str) -> bool:
    """A sentence that only repeats the question (weak models echo it): nearly all of its word pairs
    occur in the question, in the same order."""
    content = _CONTENT_WORD.findall(sentence.casefold())
    if len(content) >= 3 and 2 * sum(w in _question_words(question) for w in content) < len(content):
        return False  # most of its words are not the question's: no echo (a cheap test before tokens)
    words = tokens(sentence)
    pairs = list(pairwise(words))
    if len(pairs) < 4:
        return False
    known = _question_pairs(question)
    if sum(pair in known for pair in pairs) < 0.8 * len(pairs):
        return False
    if not asks_count(question):
        return True
    # "After subtracting all small spheres, there are two objects left": the echo carries the count
    return numbers_in(spelled_out(sentence, question)) <= question_numbers(question)


_CONTENT_WORD = re.compile(r"[^\W\d_]{4,}")


@lru_cache(maxsize=2048)
def _question_words(question: str) -> frozenset[str]:
    return frozenset(_CONTENT_WORD.findall(question.casefold()))


@lru_cache(maxsize=2048)
def _question_pairs(question: str) -> frozenset[tuple[str, str]]:
    asked = re.split(r"\n\s*(?:Choices|Options)\b|\(A\)", question)[0]  # the options are answers, not echo
    words = tokens(asked)
    return frozenset(pairwise(words))


@lru_cache(maxsize=64)  # one reply's grading asks for its statements from several rules
def stated(reply: str, question: str = "") -> tuple[str, ...]:
    """The reply's sentences less asides, questions and restatements of the question."""
    return tuple(
        s
        for s in sentences(reply)
        if not is_aside(s) and not s.rstrip().endswith("?") and not (question and restates(s, question))
    )


def said(reply: str, question: str = "") -> tuple[str, ...]:
    """The stated sentences; when every sentence is an aside (a lone "Plugging in: ... x = 3 satisfies
    the equation"), every sentence that is no question."""
    return stated(reply, question) or tuple(s for s in sentences(reply) if not s.rstrip().endswith("?"))


def answer_sentences(reply: str, question: str) -> list[str]:
    """Sentences most likely to state the answer, best first: the one echoing the question's focus
    most (the later on a tie), then the last strong conclusion, then the stated sentences from last
    to first."""
    found = said(reply, question)
    ranked: list[str] = []
    focus = question_focus(question) if question else frozenset()
    if focus:
        scores = [len(focus & {_stem(w) for w in tokens(s)}) for s in found]
        best = max(scores, default=0)
        if best:
            ranked.append(found[max(i for i, v in enumerate(scores) if v == best)])
    conclusions = [s for s in found if STRONG_CONCLUSION.search(s)]
    if conclusions:
        ranked.append(conclusions[-1])
    ranked.extend(reversed(found))
    return list(dict.fromkeys(ranked))
