"""Multiple choice: the option a candidate names, by letter (`B`, `(B)`, `**B**`, `B. odd`), by the
option's text (`odd`, not after a negation), or by value (`3.4641` for `2\\sqrt{3}`) (pure functions)."""

from __future__ import annotations

import re
from functools import lru_cache

from isodyn.scoring.fast_math import fast_equation_equivalent, fast_equivalent
from isodyn.scoring.numbers import Tolerance, parse_number
from isodyn.scoring.written import _normalize_text, _unwrap

_LETTERS = "ABCDEFGHIJ"

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
    if len(named) == 1:
        return named.pop()
    return _math_choice(plain, choices) if not named else None


_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])(?!(?:sin|cos|tan|log|ln|exp|sqrt|pi)\b)[A-Za-z]{2,}")


def _math_choice(candidate: str, choices: tuple[str, ...]) -> str | None:
    """The one option the candidate equals as mathematics (`y = 2(x - 1)` for `y=2(x-1)`, `-cos^2 x`
    for `-\\cos^2 x`), by the fast path alone (no parse on the hot path); None when none or several."""
    if _PROSE_WORD.search(candidate) or not re.search(r"[a-z]", candidate):
        return None  # prose, or a number (numbers were compared by value)
    same = [
        letter for letter, option in zip(_LETTERS, choices, strict=False) if _same_math(candidate, option)
    ]
    return same[0] if len(same) == 1 else None


def _same_math(candidate: str, option: str) -> bool:
    option = _unwrap(option)
    if ("=" in candidate) != ("=" in option):
        return False
    if "=" in candidate:
        return fast_equation_equivalent(candidate, option) is True
    return fast_equivalent(candidate, option) is True
