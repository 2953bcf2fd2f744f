"""The option a candidate or a whole reply commits to: letters, option texts by meaning, yes/no
polarity, numeric options by value. Pure."""

from __future__ import annotations

import re

from isodyn.scoring.ambiguity import CLEAR, NONE_FOUND, NOT_AN_OPTION, SEVERAL_OPTIONS
from isodyn.scoring.answer_match import choice_letter, letters_mentioned, own_letter, parse_number
from isodyn.scoring.focus import (
    STRONG_CONCLUSION,
    answer_sentences,
    question_focus,
    restates,
    said,
    stated,
)
from isodyn.scoring.marks import bare_line
from isodyn.scoring.options import LETTERS, OptionReading, read_statement
from isodyn.scoring.polarity import echo_polarity, read_yes_no, yes_no_letters
from isodyn.scoring.text import clip, lines, sentences, strip_markup
from isodyn.scoring.text_answers import formulas, math_runs
from isodyn.scoring.values import read_number

_NOUN_LETTER = re.compile(
    r"\b(?i:image|figure|picture|shape|graph|arc|point|box|card|piece|net|pattern)\s*\$?\(?([A-J])\)?\$?(?![\w'])"
)


def _letter_options(choices: tuple[str, ...]) -> bool:
    """The options are only their letters (the options themselves are in the picture)."""
    return bool(choices) and all(own_letter(c, L) for L, c in zip(LETTERS, choices, strict=False))


def _letter_reading(text: str, choices: tuple[str, ...]) -> OptionReading:
    """Explicit letters in prose (`(B)`, `option B`), a letter after a negation ruled out."""
    chosen: set[str] = set()
    ruled_out: set[str] = set()
    found = letters_mentioned(text, choices)
    if _letter_options(choices):  # "Image B", "Arc D", "the cat ends up at point $D$"
        found += [m.group(1) for m in _NOUN_LETTER.finditer(text) if m.group(1) in LETTERS[: len(choices)]]
    for letter in found:
        before = text[: text.find(letter)].lower()
        negated = re.search(r"\b(?:not|isn't|never|no)\s*(?:option\s*|choice\s*)?\(?$", before.strip()[-20:])
        (ruled_out if negated else chosen).add(letter)
    return OptionReading(frozenset(chosen - ruled_out), frozenset(ruled_out))


_LETTER_BEYOND = re.compile(r"^\W*[(\[]?([B-HJ])[)\]]?(?=[.,:;)\]]|\s*$)")
LEADING_LETTER = re.compile(r"^\W*[(\[]?([A-J])[)\]]?(?:[.):\]]|\s|$)")


_LETTER_ALTERNATIVES = re.compile(
    r"(?:^|[\s(*\[])[(\[]?[A-J][)\]]?\s*(?:or|/|and/or)\s*[(\[]?[A-J][)\]]?(?=$|[\s.,;:!?)\]*])"
    # a candidate that is nothing but a list of letters: "A, b, c", "(A), (B), and (C)", "A and D"
    r"|^\W*[(\[]?[A-J][)\]]?(?:\s*(?:,|\band\b|\bor\b)\s*(?:and\s+)?[(\[]?[A-Ja-j][)\]]?)+[\s.!*]*$"
)


_BARE_LETTER = re.compile(r"^\W*\(?([A-Ja-j])\)?\W*$")


def letter_or_label(candidate: str, choices: tuple[str, ...]) -> bool:
    """A bare letter that names one option by its place and another by its text: options that are
    labels in a picture (`D`, `B`, `(a)`, in shuffled order), where "C" may mean either."""
    bare = _BARE_LETTER.match(strip_markup(candidate))
    if bare is None:
        return False
    letter = bare.group(1)
    if letter not in LETTERS[: len(choices)]:
        return False  # a lower-case "c" is no place; labels are compared as written ("(c)" is not "C")
    labels = [re.sub(r"[\s()\[\].$]", "", option) for option in choices]
    return any(label == letter and LETTERS[i] != letter for i, label in enumerate(labels))


def read_choice(candidate: str, choices: tuple[str, ...], question: str = "") -> tuple[str | None, str]:
    """The option a candidate commits to: the candidate itself when it is a letter or an option's
    text (`odd`, `(C) neither`), else the letter its meaning names."""
    candidate = clip(candidate)
    if _LETTER_ALTERNATIVES.search(candidate) or letter_or_label(candidate, choices):
        return None, SEVERAL_OPTIONS  # "(A) or (C)", "B or D"; "C" when option D's text is "C"
    if choice_letter(candidate, choices) is not None:
        return candidate.strip(), CLEAR
    beyond = _LETTER_BEYOND.match(strip_markup(candidate))
    if beyond and beyond.group(1) not in LETTERS[: len(choices)]:
        rest = option_reading(candidate[beyond.end() :], choices, question)
        if not rest.said_anything:  # "D" or "D, Dark Seafoam" when the options are yes and no
            return candidate.strip(), NOT_AN_OPTION
    reading = option_reading(candidate, choices, question)
    letter = LEADING_LETTER.match(strip_markup(candidate))
    beside = option_reading(candidate[letter.end() :], choices, question).chosen if letter else frozenset()
    if letter and letter.group(1) in LETTERS[: len(choices)] and beside - {letter.group(1)}:
        return None, SEVERAL_OPTIONS  # `B. even` when B is "odd": a contradiction, not an answer
    if reading.letter == "?":  # "(E) 90°" when there are four options; "[D] Neither A nor B" names options
        rest = option_reading(candidate[letter.end() :], choices, question) if letter else reading
        return (candidate.strip(), NOT_AN_OPTION) if not rest.said_anything else (None, SEVERAL_OPTIONS)
    if reading.letter is not None:
        return reading.letter, CLEAR
    if len(reading.chosen) > 1:
        return None, SEVERAL_OPTIONS
    if len(choices) == 2 and len(reading.ruled_out) == 1:  # "not convex" of convex / concave
        return next(L for L in LETTERS[:2] if L not in reading.ruled_out), CLEAR
    return None, NONE_FOUND


_OPERATION = re.compile(r"[=^]|[a-z]\s*[-+*/(]|[-+*/]\s*[a-z]")


def _formula_option(option: str) -> bool:
    """An option that is a formula in a variable (`y=2(x-1)`, `-\\cos^2 x`), not a value (`\\frac{6}{5}`,
    `$3 \\mathrm{~m}$`)."""
    bare = re.sub(r"\\(?:mathrm|text|textbf|mathbf|operatorname)\s*\{[^{}]*\}", "", option)
    bare = re.sub(r"\\[a-zA-Z]+", "f", bare)  # a function's name reads as a letter applied
    return re.search(r"[a-z]", bare) is not None and _OPERATION.search(bare) is not None


def option_reading(text: str, choices: tuple[str, ...], question: str) -> OptionReading:
    """Letters named explicitly, yes/no polarity, and options named by meaning; a letter that
    disagrees with the option text beside it makes both chosen (the caller calls that ambiguous)."""
    letters = _letter_reading(text, choices)
    if yes_no_letters(choices) is not None:
        polar = read_yes_no(text, choices, question)
        if polar.said_anything and not letters.chosen:
            return polar
    if len(letters.chosen) > 1 or _LETTER_ALTERNATIVES.search(text):
        return OptionReading(letters.chosen | {"?"}, letters.ruled_out)  # several letters: no single choice
    # an option written as a formula: in `$...$`, or, when the options are formulas, as plain math
    # ("y = 2(x - 1)" for `y=2(x-1)`; "-cos^2 x" names `-\cos^2 x`, not `\cos^2 x` inside it)
    spans = formulas(text) or (math_runs(text) if any(map(_formula_option, choices)) else [])
    written = {letter for f in spans if len(f.strip()) > 1 and (letter := choice_letter(f, choices))}
    if letters.chosen and written and written != letters.chosen:
        return OptionReading(letters.chosen | written)  # "[C] $y = 8(x - 3)$" when that is B: both
    opening = LEADING_LETTER.match(strip_markup(text))
    if opening and opening.group(1) not in LETTERS[: len(choices)] and re.match(r"\W*[(\[]", text):
        return OptionReading(frozenset({"?"}))  # "[D] Neither ..." with three options: no such option
    if len(letters.chosen) == 1 and opening:
        rest = strip_markup(text)[opening.end() :]
        named = choice_letter(rest, choices)
        beside = set(read_statement(rest, choices).chosen) | ({named} if named else set())
        if beside - letters.chosen:  # "[C] Circuit 1, not Circuit 2" when C is "neither": a contradiction
            return OptionReading(frozenset(letters.chosen | beside))
    if letters.chosen:
        return letters  # an explicit letter outranks words around it ("the correct option is (B)")
    if len(written) == 1:  # an option written as a formula: "I'd pick $y = 4(x - 3)$"
        return OptionReading(frozenset(written))
    if _ASKS_NAME.search(question):  # "What is it called?" ... "it is called obtuse": a naming answers it
        text = _CALLED.sub(" is ", text)
    meaning = read_statement(text, choices)
    return OptionReading(meaning.chosen, meaning.ruled_out | letters.ruled_out)


_ASKS_NAME = re.compile(r"\bcalled\?|\bwhat\s+is\s+(?:it|this|the\s+\w+)\s+called\b|\bname\s+of\b", re.I)
_CALLED = re.compile(r"\s(?:is|are)\s+(?:called|known\s+as|named)\s", re.I)


def statement_choice(reply: str, choices: tuple[str, ...], question: str) -> tuple[str | None, str]:
    """The whole reply when it is a letter or an option's text; else the last sentence that chooses
    an option decides, earlier ones only when later ones say nothing."""
    whole = lines(reply)
    # the whole reply names the option: `**B**`, `odd`, `f is odd, not even.` (yes and no, which prose
    # uses for other things, only as the whole reply)
    short = bare_line(whole[0]) if len(whole) == 1 and yes_no_letters(choices) else len(whole) == 1
    # "(B) Does Linda's snowboard slide ... wax?": a lone line opening with a letter, of any length
    lettered = len(whole) == 1 and re.match(r"^\W*[(\[][A-J][)\]]", whole[0]) is not None
    if short and letter_or_label(whole[0], choices):
        return None, SEVERAL_OPTIONS
    letter = choice_letter(whole[0], choices) if short and (len(whole[0]) <= 60 or lettered) else None
    if letter is not None:
        return (whole[0] if bare_line(whole[0]) else letter), CLEAR
    bare_word = short and bare_line(whole[0]) and not letters_mentioned(whole[0], choices)
    if bare_word and _letter_options(choices):
        return whole[0].strip(), NOT_AN_OPTION  # "Square" when the options are letters of a picture
    found = said(reply, question)
    polar = _yes_no_commitment(reply, found, choices, question) if yes_no_letters(choices) else None
    if polar is not None:
        return polar, CLEAR
    ruled_out: set[str] = set()
    for sentence in reversed(found):
        reading = option_reading(clip(sentence), choices, question)
        chosen = reading.chosen - ruled_out
        if len(chosen) == 1:
            letter = next(iter(chosen))
            if letter == "?":  # a letter beyond the options: an answer outside them, or a contradiction
                answer, ambiguity = read_choice(sentence, choices, question)
                return (answer, ambiguity) if ambiguity == NOT_AN_OPTION else (None, SEVERAL_OPTIONS)
            return letter, CLEAR
        if len(chosen) > 1:
            return None, SEVERAL_OPTIONS
        ruled_out |= reading.ruled_out
        remaining = [L for L in LETTERS[: len(choices)] if L not in ruled_out]
        if ruled_out and len(remaining) == 1 and len(choices) == 2:
            return remaining[0], CLEAR
    return _numeric_option(reply, choices, question)


NEGATED_WORD = re.compile(r"\b(?:not|no|never|isn't|aren't|nor)\s+\w", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|isn't|aren't|can't|cannot)\b", re.I)


def _yes_no_commitment(
    reply: str, found: tuple[str, ...], choices: tuple[str, ...], question: str
) -> str | None:
    """Yes or no as a reply commits to it: a concluding sentence ("So it's False.") that reads as
    one; else an opening "No, ..." (the sentences after it are its evidence: "There are four ...");
    else the clause of the whole reply saying most about the property asked; else the question
    restated as a statement ("The derivative is positive between [1, 2]." answers Yes; with "not", No).
    `found` is the reply's said sentences (`focus.said`)."""
    for sentence in reversed(found):
        if not STRONG_CONCLUSION.search(sentence):
            continue
        if (letter := option_reading(clip(sentence), choices, question).letter) is not None:
            return letter
    if (letter := read_yes_no(" ".join(found), choices, question).letter) is not None:
        return letter
    echoed = [s for s in sentences(reply) if not s.rstrip().endswith("?") and not _ASKING.match(s)]
    echoed = [s for s in echoed if question and restates(s, question)]
    letters = yes_no_letters(choices)
    if not echoed or letters is None:
        return None
    # the question said back as a statement affirms it, once negated denies it
    affirmed = echo_polarity(echoed[-1], question)
    return letters[0] if affirmed else letters[1]


_ASKING = re.compile(r"^\W*(?:is|are|was|were|does|do|did|can|could|has|have|will|would|should)\b", re.I)


def _numeric_option(reply: str, choices: tuple[str, ...], question: str = "") -> tuple[str | None, str]:
    """Numeric options named by value, when no sentence names one otherwise: the value stated by the
    sentence answering the question ("the most likely equilibrium population count is 80"), else by
    the last affirmative sentence with a value (`So there are 5 triangles.`)."""
    if not choices or any(parse_number(option) is None for option in choices):
        return None, NONE_FOUND
    focused = answer_sentences(reply, question)[:1] if question_focus(question) else []
    for sentence in [*focused, *reversed(stated(reply, ""))]:
        value, _ = read_number(sentence)
        if value is None:
            continue
        if _NEGATION.search(sentence):
            return None, NONE_FOUND  # "It's definitely not 15° or 60°."
        letter = choice_letter(value, choices)
        # a value no option holds is still the reply's answer: "AC is 14 cm. No option fits."
        return (letter, CLEAR) if letter is not None else (value, NOT_AN_OPTION)
    return None, NONE_FOUND
