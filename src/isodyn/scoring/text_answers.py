"""Reading a text answer by the shape of what is asked for (pure functions).

DynaMath's `text` answers are clock times, yes/no words, points and intervals, equations,
expressions and words. The truth's *shape* (never its value) says what to look for in a sentence:
a time (`8:00`, `8:00 PM`, `quarter to nine`, `0800 hours`), a bracketed pair, set or interval (or
`x = 2 and y = -1` for a pair, an inequality for an interval), an equation, the expression after
the last `=`, or the sentence's last word.
"""

from __future__ import annotations

import re

TIME, YES_NO, NUMBER, EQUATION, COLLECTION, EXPRESSION, WORD = (
    "time", "yes_no", "number", "equation", "collection", "expression", "word",
)  # fmt: skip

_CLOCK = re.compile(r"^\s*\d{1,2}\s*:\s*\d{1,2}(?:\s*(?:am|pm|a\.m\.|p\.m\.))?\s*$", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*[-+−]?\d+(?:\.\d+)?\s*$")
_BRACKETED = re.compile(
    r"^\s*[\[({].*[,;].*[\])}]\s*$|.*\\(?:le|ge|leq|geq|neq|ne|lt|gt)\b|.*[<>≤≥≠]|.*!=", re.DOTALL
)


def truth_kind(truth: str) -> str:
    text = truth.strip()
    if _CLOCK.match(text):
        return TIME
    if text.casefold() in ("yes", "no", "true", "false"):
        return YES_NO
    if _NUMBER.match(text):
        return NUMBER
    if _BRACKETED.match(text) or "\\infty" in text or "∞" in text:
        return COLLECTION
    if "=" in text:
        return EQUATION
    if re.search(r"[\d^+\-*/\\()]", text) or re.fullmatch(r"[a-z]", text):
        return EXPRESSION
    return WORD


# ---- clock times -------------------------------------------------------------------------------

_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine "
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}  # fmt: skip
_NUMBER_WORDS |= {"twenty-five": 25, "twenty five": 25, "thirty": 30}
_HOUR = r"(\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_MINUTES = r"(quarter|half|\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_SPOKEN = re.compile(
    rf"\b{_MINUTES}(?:\s+minutes?)?\s+(past|after|to|before|till)\s+{_HOUR}\b"
    rf"|\b{_HOUR}\s+o'?\s*clock\b"
    r"|\b(\d{2})(\d{2})\s*(?:hours|hrs|h)\b"
    r"|\b(\d{1,2})\s*[:.]\s*(\d{2})(?:\s*([ap]\.?\s?m\.?))?(?!\d|\.\d)"
    r"|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)


def _word_number(word: str) -> int:
    word = word.casefold()
    if word == "quarter":
        return 15
    if word == "half":
        return 30
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def times_in(text: str) -> list[str]:
    """The clock times the text states, in order, as `H:MM` (with `AM`/`PM` when written). Times in
    digits are what a reply commits to; spoken forms ("a quarter past eight") count only when no
    time is written in digits, and noon/midnight only when nothing else is."""
    digits, spoken, vague = [], [], []
    for m in _SPOKEN.finditer(text):
        minutes_word, relation, hour_word, clock_hour, military_h, military_m, h, mm, half, noon = m.groups()
        if minutes_word:
            minutes, hour = _word_number(minutes_word), _word_number(hour_word)
            if relation.casefold() in ("to", "before", "till"):
                hour, minutes = (hour - 1) % 12 or 12, 60 - minutes
            spoken.append(f"{hour}:{minutes:02d}")
        elif clock_hour:
            spoken.append(f"{_word_number(clock_hour)}:00")
        elif military_h:
            digits.append(f"{int(military_h)}:{military_m}")
        elif h:
            suffix = f" {half.replace('.', '').replace(' ', '').upper()}" if half else ""
            digits.append(f"{int(h)}:{mm}{suffix}")
        elif noon:
            vague.append("0:00" if noon.casefold() == "midnight" else "12:00")
    return digits or spoken or vague


# ---- mathematics in prose --------------------------------------------------------------------------

_GROUP = re.compile(r"[\[(\{][^\[\](){}]*?[,;][^\[\](){}]*?[\])\}]")
_INTERVAL = r"[\[(][^\[\]()]*?,[^\[\]()]*?[\])]"
_UNION = re.compile(rf"(?:{_INTERVAL}\s*(?:∪|\\cup|U)\s*)+{_INTERVAL}")
_INEQUALITY = re.compile(
    r"(?:[-+−]?\d+(?:\.\d+)?\s*(?:<|>|≤|≥|\\le|\\ge|\\leq|\\geq|\\lt|\\gt|<=|>=)\s*)?[a-z]\s*"
    r"(?:<=|>=|!=|<|>|≤|≥|≠|\\leq|\\geq|\\le|\\ge|\\lt|\\gt|\\neq|\\ne)\s*[-+−]?\d+(?:\.\d+)?"
)
_PAIR_EQUATIONS = re.compile(r"\bx\s*=\s*([-+−]?[\d./]+)\s*(?:,|and|;)\s*y\s*=\s*([-+−]?[\d./]+)")
_MATH_TOKEN = re.compile(
    r"^(?:[\d.,]+[a-zA-Z]?|[a-zA-Z](?:[_^]\w+|\d)?|[a-zA-Z][\d²³]|[-+−*/×·=^()\[\]{}<>≤≥√π²³|]+|\\[a-zA-Z]+\S*"
    r"|(?:sin|cos|tan|log|ln|exp|sqrt)\S*|\S*[\d=^()²³+\-−*/√π|]\S*)$"
)
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)


def formulas(text: str) -> list[str]:
    """The inline formulas of a text: `$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`."""
    return [next(g for g in m.groups() if g) for m in _MATH_SPAN.finditer(text)]


def math_runs(sentence: str) -> list[str]:
    """Maximal runs of mathematical tokens in a sentence (`2x − y + 3 = 0` in "The line satisfies
    2x − y + 3 = 0."), inline formulas first."""
    if found := formulas(sentence):
        return [f.strip() for f in found]
    runs, current = [], []
    for token in sentence.replace(",", " , ").split():
        if _MATH_TOKEN.match(token.rstrip(".;:")) and token not in (",",):
            current.append(token.rstrip(".;:") if token.endswith((".", ";", ":")) else token)
            if token.endswith((".", ";", ":")):
                runs.append(" ".join(current))
                current = []
        else:
            if current:
                runs.append(" ".join(current))
            current = []
    if current:
        runs.append(" ".join(current))
    return [r for r in runs if re.search(r"[\d=^()a-z]", r) and not re.fullmatch(r"[a-zA-Z]", r)]


_NAMED = r"[A-Za-z]\w{0,3}\s*:\s*[-+−]?[\d./]+"
_NAMED_VALUES = re.compile(rf"\{{\s*({_NAMED}(?:\s*,\s*{_NAMED})+)\s*\}}")


def read_shaped(text: str, kind: str) -> str | None:
    """The answer of the given shape that a sentence (or candidate) states, or None."""
    if kind == TIME:
        times = times_in(text)
        return times[-1] if times else None
    if kind == COLLECTION:
        if pair := _PAIR_EQUATIONS.search(text):
            return f"({pair.group(1)}, {pair.group(2)})"
        for pattern in (_UNION, _GROUP, _INEQUALITY):
            found = pattern.findall(text)
            if found:
                return found[-1] if isinstance(found[-1], str) else None
        return None
    if kind == EQUATION and (named := _NAMED_VALUES.search(text)):  # `{a: 3, d: -2}` says a=3, d=-2
        return re.sub(r"\s*:\s*", "=", named.group(1))
    runs = math_runs(text)
    if kind == EQUATION:
        equations = [r for r in runs if "=" in r]
        return equations[-1] if equations else None
    if kind == EXPRESSION and runs:
        last = runs[-1]
        return re.split(r"=|≈|\\approx", last)[-1].strip() or None
    if kind == WORD:
        words = re.findall(r"[A-Za-z][\w'-]*", text)
        return words[-1] if words else None
    return None
