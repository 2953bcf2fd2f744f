"""isodyn's extraction: the final answer a free-form reply commits to, and how it was found.

Real replies ignore the requested JSON, answer first and reason after, bury the value in a sentence,
paraphrase an option, answer a yes/no question with a statement, or check their answer with more
numbers after it. The cascade tries the places a committed answer stands, most explicit first, and
reads each candidate as the answer type; the first readable one is the answer:

1. `json*`: the `short answer` of the last JSON object (see `json_answer`);
2. `boxed`: the last `\\boxed{...}`;
3. `answer_line`: the last "the answer is X" / "Answer: X" / a "Final answer" heading and its line;
4. `closing` / `leading`: a bare last line (`> **C**`, `✅ 42`), or a bare first line with reasoning
   after it ("Yes.\n\nBoth graphs ...");
5. `choice` (multiple choice): the last sentence that chooses or rules out an option, read by
   meaning (`options.py`); for yes/no, a statement about the question's subject;
6. `statement` / `last_number` (numbers, text): the value stated by the sentence that answers the
   question (`focus.answer_sentences`), less checks, suppositions and restatements; text answers in
   the truth's shape (`text_answers.py`).

A candidate that names several options, or several different numbers with nothing to pick one, is
`ambiguous: several options` / `ambiguous: several values` and ends the search with no answer. A
refusal, code, a reply cut off before its answer, or a loop whose sentences disagree stops the guesses
of steps 4-6. Nothing found: `none found`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from isodyn.core import AnswerType
from isodyn.scoring.asked import asked_text, question_numbers, spelled_out
from isodyn.scoring.compare import choice_letter, letters_mentioned, options_named, own_letter, parse_number
from isodyn.scoring.focus import (
    CHECK,
    STRONG_CONCLUSION,
    answer_sentences,
    question_focus,
    restates,
    said,
    stated,
)
from isodyn.scoring.json_answer import json_answer
from isodyn.scoring.options import (
    LETTERS,
    OptionReading,
    echo_polarity,
    option_signature,
    read_statement,
    read_yes_no,
    tokens,
    yes_no_letters,
)
from isodyn.scoring.scale import REPLY_SCALE
from isodyn.scoring.text import MAX_CANDIDATE_CHARS, bounded, clauses, clip, lines, sentences, strip_markup
from isodyn.scoring.text_answers import NUMBER as NUMBER_KIND
from isodyn.scoring.text_answers import TIME, WORD, YES_NO, formulas, read_shaped, times_in, truth_kind

CLEAR = "clear"
SEVERAL_OPTIONS = "ambiguous: several options"
SEVERAL_VALUES = "ambiguous: several values"
NONE_FOUND = "none found"
UNREADABLE = "unreadable"  # an answer was marked but cannot be read as the answer type, or declines
# a multiple-choice reply committed to an answer that is none of the options ("(E) 90°" with four
# options; "AC is 14 cm. The correct option is not provided."): an answer, and a wrong one
NOT_AN_OPTION = "not an option"
# the reply was cut off at the token limit (finish reason `length`): not read, never graded as complete
TRUNCATED = "truncated"
AMBIGUITIES = (CLEAR, SEVERAL_OPTIONS, SEVERAL_VALUES, NONE_FOUND, UNREADABLE, NOT_AN_OPTION, TRUNCATED)


@dataclass(frozen=True)
class Extraction:
    answer: str | None  # for multiple choice, the option's letter
    method: str  # json, json_lenient, json_key_regex, boxed, answer_line, leading, statement, ...
    ambiguity: str = CLEAR  # one of AMBIGUITIES

    @classmethod
    def nothing(cls, ambiguity: str = NONE_FOUND, method: str = "none") -> Extraction:
        return cls(None, method, ambiguity)


# ---- where an answer stands ------------------------------------------------------------------------

_BOX_OR_BRACE = re.compile(r"\\(?:boxed|fbox)\s*\{|[{}]")


def last_boxed(reply: str) -> str | None:
    """Content of the last non-empty `\\boxed{...}` (or `\\fbox{...}`), nested braces allowed; one
    pass over the braces, so unclosed boxes cost nothing extra. See `empty_final_box`."""
    stack: list[int | None] = []  # for each open brace: where its box's content starts, or None
    found = None
    for match in _BOX_OR_BRACE.finditer(reply):
        token = match.group()
        if token == "}":
            if stack and (start := stack.pop()) is not None:
                found = reply[start : match.start()].strip() or found
        else:
            stack.append(match.end() if token != "{" else None)
    return found


_CODE_BLOCK = re.compile(r"^[ \t]*(```|~~~)(?!\s*json)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S | re.I)


_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \w+ import|return\b|print\(|for .+:$|while .+:$|if .+:$|#|//"
    r"|\w+\s*=\s*[\[{(\w])"
)


def without_code(reply: str) -> str:
    """The reply less its code blocks (an unclosed block runs to the end); JSON blocks stay, and so
    does a block holding nothing but a bare answer (```\nB\n```)."""

    def dropped(block: re.Match[str]) -> str:
        opening, *rest = block.group().splitlines() or [""]
        body = [line for line in rest if line.strip() and not line.strip().startswith(("```", "~~~"))]
        if len(body) == 1 and bare_line(body[0]):
            return "\n" + body[0] + "\n"
        if not re.search(r"[`~]{3}\s*\w", opening) and not any(_CODE_LINE.match(line) for line in body):
            return "\n" + "\n".join(body) + "\n"  # a fence around prose or JSON is no program
        return "\n"

    return _CODE_BLOCK.sub(dropped, reply)


_ABOUT_TO = re.compile(
    r"^(?:let's|let\s+us|let\s+me|now\s+(?:let's|we|i)|next,?\s+(?:we|i))\s+(?:\w+\s+)?"
    r"(?:check|look|see|compute|calculate|find|count|examine|analy[sz]e|determine|consider|start|verify|solve)\b",
    re.I,
)


def cut_off_before_answer(reply: str) -> bool:
    """The reply stops inside its JSON object or right after announcing its answer ("The answer is
    that"): its numbers are reasoning, the answer never came."""
    stripped = reply.strip()
    unclosed_json = stripped.startswith("{") and "}" not in stripped and '"short answer"' not in stripped
    announced = re.search(r"(?:answer|result)\s+(?:is|is\s+that|would\s+be)\s*:?\s*$", stripped, re.I)
    last = sentences(stripped)[-1:] or ("",)
    about_to = _ABOUT_TO.match(last[0]) is not None  # "Let's check the cycles in this graph." ends it
    return unclosed_json or announced is not None or about_to


def empty_final_box(reply: str) -> bool:
    """The reply ends with an empty answer slot (`\\boxed{}`): it gives no answer."""
    return re.search(r"\\(?:boxed|fbox)\s*\{\s*\}[\s$.*]*$", reply) is not None


_ANSWER_MARKER = re.compile(
    r"(?:\bfinal\s+answer|\b(?:the\s+)?(?:correct\s+|right\s+|best\s+)?answer|\bmy\s+answer"
    r"|\b(?:the\s+)?(?:correct|right|best)\s+(?:option|choice)(?:\s+letter)?|\boption\s+letter)"
    r"(?:\s+to\s+(?:the|this|your)\s+question)?(?:\s+(?:is|would\s+be|should\s+be|will\s+be)|\s*[:=])[\s:*]*"
    r"|(?:答案|选项|故选|应选|所以选)\s*(?:是|为|应该是|应为)?\s*[:：]?\s*",
    re.IGNORECASE,
)
# The answer ends at a line break, a sentence end (a period and a space; `3.5` is one number), or
# before an explanation ("14, because ...", "6 (check: ...)").
_ANSWER_END = re.compile(
    r"\n|\.(?=[\"'”’]?(?:\s|$))|[。，；]|正确|\s+\((?=(?:check|verif|since|because|note|approx|rounded|i\.e|e\.g))"
    r"|,?\s+(?:because|since|as|which|due\s+to|given|where)\b|,\s+so\b", re.IGNORECASE,
)  # fmt: skip
_HEADING = re.compile(
    r"^\s*+(?:#{1,6}\s*+|\*\*)?+\s*+(?:the\s+)?(?:final\s+answer|answer|conclusion|result)"
    r"(?:\s+to\s+(?:the|this|your)\s+question)?(?:\s+is)?\s*+:?\s*+\**\s*+$",
    re.I,
)
_FINAL_HASHES = re.compile(r"^\s*####\s+(?!\**\s*(?:final\s+)?answer\b)(.{1,60}?)\s*$", re.I)
MAX_ANSWER_LINES = 6
_MARKING_WORDS = ("answer", "####", "result", "conclusion", "option", "答案", "选")
_MARKS = re.compile("|".join(_MARKING_WORDS), re.I)
_SUPPOSED = re.compile(r"\b(?:if|were|suppose|supposing|assuming|instead)\b", re.I)
HEADING_BLOCK = "\x00block\x00"  # marks the lines under an answer heading read as one candidate


# "The answer is the solution to the question": a line describing the answer rather than giving it
_ABOUT_THE_ANSWER = re.compile(
    r"(?:the|a|an|our)\s+(?:\w+\s+){0,2}(?:answer|solution|result)\b.*\b(?:question|problem|task)\b", re.I
)


def answer_lines(reply: str) -> list[str]:
    """The last "the answer is X" / "Answer: X" values, in order, and lines under an answer heading."""
    found: list[str] = []
    raw_lines = reply.splitlines()
    for i, raw in enumerate(raw_lines):
        if not _MARKS.search(raw):
            continue  # the only lines that can mark an answer name it
        line = strip_markup(raw)
        if len(raw) <= 80 and (_HEADING.match(raw) or (line and _HEADING.match(line))):
            block = [strip_markup(n) for n in raw_lines[i + 1 : i + 5] if re.search(r"[^\W_]", n)]
            if block:
                found.append(block[0])
            if len(block) > 1:
                found.append(HEADING_BLOCK + "\n".join(block))  # a list under the heading, for text
            continue
        if gsm := _FINAL_HASHES.match(raw):  # GSM8K's `#### 18`
            found.append(gsm.group(1).strip())
            continue
        for marker in _ANSWER_MARKER.finditer(line):
            own_sentence = re.split(r"[.!?]\s", line[: marker.start()])[-1]
            if "would" in marker.group() and _SUPPOSED.search(own_sentence):
                continue  # "If it were 12, the answer would be 4.8": a supposition, not the answer
            rest = line[marker.end() : marker.end() + MAX_CANDIDATE_CHARS]
            end = _ANSWER_END.search(rest)
            answer = (rest[: end.start()] if end else rest).strip().strip("*").strip().rstrip(".").strip()
            if answer and not answer.startswith(('{"', "{'", "[{")) and not _ABOUT_THE_ANSWER.match(answer):
                found.append(answer)
        del found[:-MAX_ANSWER_LINES]
    return found


def bare_line(line: str, words_allowed: int = 3) -> bool:
    """A line that can be nothing but an answer: one short sentence with few words of prose."""
    line = line.rstrip(".!").strip()
    words = re.findall(r"[A-Za-z]{2,}", re.sub(r"\\[A-Za-z]+", "", line))
    one_sentence = not re.search(r"[.!?]\s+\S", line)
    # beyond three words, a line that reasons ("..., so the function is odd") is no bare answer
    reasons = len(words) > 3 and re.search(r"=|\b(?:so|since|because|therefore|thus|hence)\b", line, re.I)
    short = 0 < len(line) <= 48 and len(words) <= words_allowed
    labelled = re.search(r"\banswer|\bsolution", line, re.I)  # "The answer i" (cut off) answers nothing
    return short and not line.endswith((":", "?")) and one_sentence and not reasons and not labelled


def leading_line(reply: str) -> str | None:
    """The first line, or first sentence, when it is bare and more text follows (answer first,
    reasoning after: `2\n\nThe function changes slope ...`, `Beaker A. It has 0.6 mol ...`)."""
    found = lines(reply)
    if len(found) >= 2 and bare_line(found[0], 6):
        return found[0].rstrip(".!").strip()
    first = sentences(reply)[:2]
    if len(first) == 2 and bare_line(first[0], 6):
        return first[0].rstrip(".!").strip()
    return None


def closing_line(reply: str) -> str | None:
    """The last line when it is a bare answer after reasoning (`> **C**`, `✅ 42`, `- Total: 12`)."""
    found = lines(reply)
    if len(found) < 2:
        return None
    last = found[-1].rstrip(".!").strip()
    listing = last.count("=") > 1 or ", " in last  # "Other routes: A → C → D = 7, ..."
    return last if bare_line(last) and not CHECK.match(last) and not listing else None


NUMBER = re.compile(r"(?<![\w^.])(?<!\^\{)[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_REFUSAL = re.compile(
    r"\bI\s*(?:'m|am)?\s*(?:cannot|can't|can not|could not|couldn't|unable to|not able to)\s+"
    r"(?:\w+\s+)?(?:determine|tell|answer|solve|provide|see|read|identify)\b"
    r"|\b(?:answer|value|it)\s+cannot be determined|\bnot enough information|\binsufficient information"
    r"|\bimpossible to (?:determine|tell|say)|\bI\s+don'?t\s+know\b"
    r"|^\W*unable\s+to\s+(?:determine|tell|answer)"
    r"|\bcannot\s+be\s+(?:determined|read)\b",
    re.IGNORECASE,
)


# Declining to answer, as real replies close: "Therefore, the question cannot be answered.", "The text
# does not provide enough information", "No image was provided." Read in the closing sentences only,
# where a reply commits; earlier, such words often open reasoning that goes on to an answer.
_DECLINES = re.compile(
    r"\b(?:cannot|can't|can\s+not|unable\s+to|impossible\s+to|not\s+possible\s+to)\s+(?:be\s+)?"
    r"(?:answer(?:ed)?|provided?|determined?|tell|say|solved?|calculated?|computed?|identif(?:y|ied))\b"
    r"|\b(?:does|do|did)\s*(?:not|n't)\s+(?:provide|give|include|contain|show|have|specify|mention)\s+"
    r"(?:\w+\s+){0,3}?(?:information|context|details|data|image|diagram|figure|picture)\b"
    r"|\b(?:not\s+enough|insufficient|no)\s+(?:information|context|data)\b"
    r"|\black(?:s|ing)?\s+(?:the\s+)?(?:\w+\s+)?(?:context|information|image|details)\b"
    r"|\bno\s+(?:image|picture|diagram|figure|graph)\s+(?:is\s+|was\s+|has\s+been\s+)?(?:provided|attached|given|shown|included)"
    r"|\b(?:can't|cannot|unable\s+to)\s+(?:process|see|view|access)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"\bbut\b[^.]*\b(?:is|are|looks|seems|appears?|would be|should be|about)\b")


def is_refusal(reply: str) -> bool:
    """The model declares it cannot answer. A hedge ("I can't see it clearly, but it is 4") is not."""
    if _HEDGE.search(reply):
        return False
    if _REFUSAL.search(reply) is not None:
        return True
    closing = " ".join(sentences(reply)[-2:])
    # "We cannot determine x directly, so we use ...: the hypotenuse is 10" goes on to an answer
    return any(
        not _GOES_ON.search(closing[declined.end() :]) for declined in _DECLINES.finditer(closing)
    )


_GOES_ON = re.compile(r"^[^.!?]*?(?:,\s*(?:so|but|however|thus|hence|then)\b|:\s)")


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
_LATEX_WORDS = re.compile(r"\\(?:text|mathrm|textrm|mathbf|textbf)\s*\{([^{}]*)\}")


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
    text = _LATEX_WORDS.sub(r" \1 ", candidate)
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
_LEADING_LETTER = re.compile(r"^\W*[(\[]?([A-J])[)\]]?(?:[.):\]]|\s|$)")


_LETTER_ALTERNATIVES = re.compile(
    r"(?:^|[\s(*\[])[(\[]?[A-J][)\]]?\s*(?:or|/|and/or)\s*[(\[]?[A-J][)\]]?(?=$|[\s.,;:!?)\]*])"
    # a candidate that is nothing but a list of letters: "A, b, c", "(A), (B), and (C)", "A and D"
    r"|^\W*[(\[]?[A-J][)\]]?(?:\s*(?:,|\band\b|\bor\b)\s*(?:and\s+)?[(\[]?[A-Ja-j][)\]]?)+[\s.!*]*$"
)


def read_choice(candidate: str, choices: tuple[str, ...], question: str = "") -> tuple[str | None, str]:
    """The option a candidate commits to: the candidate itself when it is a letter or an option's
    text (`odd`, `(C) neither`), else the letter its meaning names."""
    candidate = clip(candidate)
    if _LETTER_ALTERNATIVES.search(candidate):
        return None, SEVERAL_OPTIONS  # "(A) or (C)", "B or D"
    if choice_letter(candidate, choices) is not None:
        return candidate.strip(), CLEAR
    beyond = _LETTER_BEYOND.match(strip_markup(candidate))
    if beyond and beyond.group(1) not in LETTERS[: len(choices)]:
        rest = _reading(candidate[beyond.end() :], choices, question)
        if not rest.said_anything:  # "D" or "D, Dark Seafoam" when the options are yes and no
            return candidate.strip(), NOT_AN_OPTION
    reading = _reading(candidate, choices, question)
    letter = _LEADING_LETTER.match(strip_markup(candidate))
    beside = _reading(candidate[letter.end() :], choices, question).chosen if letter else frozenset()
    if letter and letter.group(1) in LETTERS[: len(choices)] and beside - {letter.group(1)}:
        return None, SEVERAL_OPTIONS  # `B. even` when B is "odd": a contradiction, not an answer
    if reading.letter == "?":  # "(E) 90°" when there are four options; "[D] Neither A nor B" names options
        rest = _reading(candidate[letter.end() :], choices, question) if letter else reading
        return (candidate.strip(), NOT_AN_OPTION) if not rest.said_anything else (None, SEVERAL_OPTIONS)
    if reading.letter is not None:
        return reading.letter, CLEAR
    if len(reading.chosen) > 1:
        return None, SEVERAL_OPTIONS
    if len(choices) == 2 and len(reading.ruled_out) == 1:  # "not convex" of convex / concave
        return next(L for L in LETTERS[:2] if L not in reading.ruled_out), CLEAR
    return None, NONE_FOUND


def _reading(text: str, choices: tuple[str, ...], question: str) -> OptionReading:
    """Letters named explicitly, yes/no polarity, and options named by meaning; a letter that
    disagrees with the option text beside it makes both chosen (the caller calls that ambiguous)."""
    letters = _letter_reading(text, choices)
    if yes_no_letters(choices) is not None:
        polar = read_yes_no(text, choices, question)
        if polar.said_anything and not letters.chosen:
            return polar
    if len(letters.chosen) > 1 or _LETTER_ALTERNATIVES.search(text):
        return OptionReading(letters.chosen | {"?"}, letters.ruled_out)  # several letters: no single choice
    written = {letter for f in formulas(text) if len(f.strip()) > 1 and (letter := choice_letter(f, choices))}
    if letters.chosen and written and written != letters.chosen:
        return OptionReading(letters.chosen | written)  # "[C] $y = 8(x - 3)$" when that is B: both
    opening = _LEADING_LETTER.match(strip_markup(text))
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


def _statement_choice(reply: str, choices: tuple[str, ...], question: str) -> tuple[str | None, str]:
    """The whole reply when it is a letter or an option's text; else the last sentence that chooses
    an option decides, earlier ones only when later ones say nothing."""
    whole = lines(reply)
    # the whole reply names the option: `**B**`, `odd`, `f is odd, not even.` (yes and no, which prose
    # uses for other things, only as the whole reply)
    short = bare_line(whole[0]) if len(whole) == 1 and yes_no_letters(choices) else len(whole) == 1
    # "(B) Does Linda's snowboard slide ... wax?": a lone line opening with a letter, of any length
    lettered = len(whole) == 1 and re.match(r"^\W*[(\[][A-J][)\]]", whole[0]) is not None
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
        reading = _reading(clip(sentence), choices, question)
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


_NEGATED_WORD = re.compile(r"\b(?:not|no|never|isn't|aren't|nor)\s+\w", re.I)
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
        if (letter := _reading(clip(sentence), choices, question).letter) is not None:
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


def read_text(candidate: str, kind: str = WORD) -> tuple[str | None, str]:
    """A text answer of the truth's shape: the shaped value in the candidate (a time, a pair, an
    equation, ...), or a short candidate as written, or a word answer's last word."""
    candidate = clip(candidate).strip()
    content = re.sub(r"\\(?:boxed|fbox|text|mathrm|mathbf|textbf|left|right)\b", "", candidate)
    if not re.search(r"[^\W_]", content) or candidate.startswith(('{"', "[{")):
        return None, NONE_FOUND  # punctuation, markup or a JSON object is no answer
    short = len(candidate.split()) <= 4 or _wholly_math(candidate)
    prose_only = not re.search(r"[\d=()\[\]{}^+\-*/\\π√<>≤≥∞]", candidate)
    if kind not in (WORD, TIME) and prose_only and len(re.findall(r"[A-Za-z]{2,}", candidate)) >= 2:
        return None, NONE_FOUND  # prose alone ("The answer") is no point, interval or expression
    if candidate.endswith(":") and not (kind == TIME and times_in(candidate)):
        return None, NONE_FOUND  # a label whose value never came
    if kind == TIME:
        times = list(dict.fromkeys(times_in(candidate)))
        if len(times) > 1 and _EITHER.search(candidate):
            return None, SEVERAL_VALUES
        if times:
            return times[-1], CLEAR
        return (candidate, CLEAR) if short else (None, NONE_FOUND)
    if kind == WORD:
        if re.search(r"\b(?:answer|solution)\W*$", candidate, re.I):
            return None, NONE_FOUND  # "The answer" (cut off) names a label, not a word answer
        if not short and re.search(r"\botherwise\b|\beither\b.*\bor\b|\bdepend", candidate, re.I):
            return None, SEVERAL_VALUES  # "If the dot counts, it's even; otherwise odd."
        said = [c for c in clauses(candidate) if not _NEGATED_WORD.search(c)]
        if not said:
            return None, NONE_FOUND  # "Not odd." rules a word out; it does not answer with it
        return (said[-1].strip(" .!"), CLEAR) if short else (read_shaped(said[-1], kind), CLEAR)
    if _EITHER.search(candidate) and not short:
        return None, SEVERAL_VALUES
    shaped = read_shaped(candidate, kind)
    if shaped is not None and not (short and _wholly_math(candidate)):
        return shaped, CLEAR
    return (candidate, CLEAR) if short else (None, NONE_FOUND)


def _wholly_math(candidate: str) -> bool:
    """No prose word in it: `x = 2, y = 3`, `\\frac{1}{2} (x + 1)^2`."""
    prose = [w for w in re.findall(r"(?<!\\)\b[A-Za-z]{2,}\b", candidate) if w.lower() not in _MATH_WORDS]
    return not prose and len(candidate) <= 120


_MATH_WORDS = frozenset("sin cos tan cot sec csc log ln exp sqrt frac pi infty cup cap le ge neq".split())
_EITHER = re.compile(r"\beither\b.*\bor\b|\bor\b.*\bdepending\b|\bdepends\b|\b(?:if|otherwise)\b", re.I)


_NO_ANSWER = re.compile(
    r"^\s*\[(?=[^\]]*[A-Za-z]{3})[A-Za-z][\w .:'/-]{2,}\]?\s*$"  # a placeholder left in: `[Concise Answer]`
    r"|^\W*(?:n/?a|none|null|unknown|undetermined|indeterminate|not\s+(?:determinable|applicable|possible\s+to\s+"
    r"(?:tell|determine))|(?:it\s+)?cannot\s+be\s+determined|can't\s+(?:be\s+)?(?:determined|tell)|i\s+don'?t\s+know"
    r"|(?:i\s+am\s+|i'm\s+)?unable\s+to\s+(?:determine|tell|answer)|insufficient\s+(?:data|information))\W*$",
    re.IGNORECASE,
)


_DENIAL = re.compile(r"^\W*(?:not|never|isn't|no\s+longer)\s", re.I)


def read_candidate(
    candidate: str,
    answer_type: AnswerType,
    choices: tuple[str, ...],
    question: str,
    percent_question: bool,
    kind: str = WORD,
) -> tuple[str | None, str]:
    if _NO_ANSWER.match(_LATEX_WORDS.sub(r"\1", candidate)):
        return None, UNREADABLE  # "N/A", "\\text{cannot be determined}": the reply declines
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        return read_choice(candidate, choices, question)
    if _DENIAL.match(candidate):
        return None, UNREADABLE  # "The answer is not 5." denies a value; it commits to none
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        return read_number(candidate, percent_question, first=True)
    return read_text(candidate, kind)


# ---- the cascade --------------------------------------------------------------------------------


def _explicit(reply: str) -> list[tuple[str, str]]:
    """Candidates the reply marks as its answer, most explicit first: JSON, box, answer lines (a
    reply that states three or more different answers gives them as one `several` candidate)."""
    found: list[tuple[str, str]] = []
    answer, method = json_answer(reply)
    if answer is not None:
        found.append((method, answer))
    if (boxed := last_boxed(reply)) is not None:
        found.append(("boxed", boxed))
    marked = answer_lines(reply)
    distinct = {line.strip().rstrip(".").casefold() for line in marked if not line.startswith(HEADING_BLOCK)}
    if len(distinct) >= 3:  # "The answer is 1. The answer is 2. ..."
        found.append(("answer_line", " or ".join(m for m in marked if not m.startswith(HEADING_BLOCK))))
    else:
        found.extend(("answer_line", line) for line in reversed(marked))
    return found


_YES_NO_OPTIONS = ("Yes", "No")
# a model's end-of-text token left in its reply ("1.</s>")
_SPECIAL_TOKENS = re.compile(r"</s>|<\|(?:endoftext|im_end|eot_id|end)\|>|<eos>|<end_of_turn>")


def extract_answer(
    reply: object,
    answer_type: AnswerType,
    choices: tuple[str, ...] = (),
    question: str = "",
    percent_question: bool = False,
    truth: str = "",
) -> Extraction:
    """Run the cascade (module docstring) on any input: a non-string or empty reply finds nothing.
    `truth` is read only for its shape (a clock time, a pair, yes/no), which says what a text answer
    looks like; its value never steers the extraction."""
    text = _SPECIAL_TOKENS.sub("", bounded(reply))
    if not text.strip():
        return Extraction.nothing()
    question = asked_text(question)
    kind = truth_kind(truth) if answer_type is AnswerType.TEXT else WORD
    if kind == YES_NO:  # a yes/no question with a text answer: read as the two options
        found = extract_answer(text, AnswerType.MULTIPLE_CHOICE, _YES_NO_OPTIONS, question)
        letter = found.answer and choice_letter(found.answer, _YES_NO_OPTIONS)
        answer = None if not letter else _YES_NO_OPTIONS["AB".index(letter)]
        return Extraction(answer, found.method, found.ambiguity) if answer else found
    if kind == NUMBER_KIND:
        answer_type = AnswerType.FLOAT
    text = without_code(text)  # a program is no statement of an answer (JSON blocks stay)
    unreadable = off_option = None
    for method, candidate in _explicit(text):
        if candidate.startswith(HEADING_BLOCK):
            if answer_type is not AnswerType.TEXT or kind == WORD:
                continue  # a list under a heading is read whole only for a shaped text answer
            candidate = candidate[len(HEADING_BLOCK) :]
        answer, ambiguity = read_candidate(candidate, answer_type, choices, question, percent_question, kind)
        if ambiguity == NOT_AN_OPTION:  # an earlier mark may still name an option (invented follow-ups)
            off_option = off_option or Extraction(answer, method, NOT_AN_OPTION)
            continue
        if answer is not None or ambiguity not in (NONE_FOUND, UNREADABLE):
            return Extraction(answer, method, ambiguity)
        multiple_choice = answer_type is AnswerType.MULTIPLE_CHOICE
        if multiple_choice and ambiguity == NONE_FOUND and _off_option(candidate, choices):
            # a marked value no option holds: the answer unless a later mark names an option
            off_option = off_option or Extraction(clip(candidate), method, NOT_AN_OPTION)
            continue
        if ambiguity == UNREADABLE or method != "answer_line" or _could_be_answer(candidate, answer_type):
            unreadable = unreadable or Extraction(clip(candidate), method, UNREADABLE)
    if off_option is not None:
        return off_option
    if unreadable is not None:
        return unreadable  # the reply marked an answer that is not one ("unknown"): nothing is guessed
    if not text.strip() or is_refusal(text) or empty_final_box(text):
        return Extraction.nothing()
    if cut_off_before_answer(text) and not (
        looping(text) and _loop_agrees(text, answer_type, choices, question, percent_question, kind)
    ):
        return Extraction.nothing()  # cut off before its answer, unless it kept saying one thing
    found = _guessed(text, answer_type, choices, question, percent_question, kind)
    if found.answer is not None and looping(text):
        # a reply caught in a loop commits only to what every sentence of it says
        agreed = _loop_agrees(text, answer_type, choices, question, percent_question, kind)
        return found if agreed else Extraction.nothing()
    return found


def _guessed(
    text: str, answer_type: AnswerType, choices: tuple[str, ...], question: str, percent: bool, kind: str
) -> Extraction:
    """Steps 4-6 of the cascade: a bare closing or leading line, else the stated answer."""
    bare_lines = (("closing", closing_line(text), True), ("leading", leading_line(text), False))
    for method, line, labelled in bare_lines:
        if line is None or (question and restates(line, question)):
            continue
        answer, ambiguity = _read_leading(line, answer_type, choices, question, percent, kind, labelled)
        if answer is not None:
            return Extraction(answer, method, ambiguity)
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        answer, ambiguity = _statement_choice(text, choices, question)
        return Extraction(answer, "choice" if answer or ambiguity != NONE_FOUND else "none", ambiguity)
    return _stated_value(text, answer_type, question, percent, kind)


def _off_option(candidate: str, choices: tuple[str, ...]) -> bool:
    """A marked answer that is a value (`14 cm`, `\\frac{4}{3}`, `x = 2`) naming no option at all."""
    if len(candidate.split()) > 6 or read_number(candidate, first=True)[0] is None:
        return False
    named = _LEADING_LETTER.match(strip_markup(candidate)) or letters_mentioned(candidate, choices)
    return not named and not options_named(candidate, choices)


def looping(reply: str) -> bool:
    """A degenerate reply: some sentence stated three times or more (weak models loop until cut off)."""
    found = sentences(reply)
    return len(found) >= 3 and max(Counter(found).values()) >= 3


def _loop_agrees(
    text: str, answer_type: AnswerType, choices: tuple[str, ...], question: str, percent: bool, kind: str
) -> bool:
    """Every stated sentence that reads as an answer reads as the same one."""
    readings = set()
    for sentence in set(stated(text, question)):
        if answer_type is AnswerType.MULTIPLE_CHOICE:
            reading = _reading(clip(sentence), choices, question)
            readings |= set(reading.chosen)
            continue
        if answer_type is AnswerType.TEXT:
            value, ambiguity = read_text(sentence, kind)
        else:
            value, ambiguity = read_number(sentence, percent)
        if ambiguity in (SEVERAL_VALUES, SEVERAL_OPTIONS):
            return False  # a sentence of the loop offers several answers itself
        if value is not None:
            readings.add(value)
    return len(readings) == 1


def _stated_value(
    text: str, answer_type: AnswerType, question: str, percent_question: bool, kind: str
) -> Extraction:
    """A number or text answer from the sentences that state it (`focus.answer_sentences`): the
    first of them that holds a value decides; `last_number` when that is the reply's final
    statement, `statement` when an earlier sentence answers the question."""
    numeric = answer_type in (AnswerType.FLOAT, AnswerType.INT)
    ranked = answer_sentences(text, question)
    statements = stated(text, question)
    final = statements[-1] if statements else None
    ambiguous = None
    given = question_numbers(question)
    for sentence in ranked:
        if numeric:
            answer, ambiguity = read_number(spelled_out(sentence, question), percent_question, given=given)
        else:
            answer, ambiguity = read_text(sentence, kind)
        method = ("last_number" if numeric else "last_sentence") if sentence == final else "statement"
        if answer is not None:
            return Extraction(answer, method, ambiguity)
        if ambiguity != NONE_FOUND and ambiguous is None:
            ambiguous = Extraction(None, method, ambiguity)
    if ambiguous is not None:
        return ambiguous
    return Extraction.nothing()


_REASON_TAIL = re.compile(r",?\s+(?:since|because|as)\s.*$", re.I)
_TIME_LIKE = re.compile(r"\d{1,2}:\d{2}")
_NAMED_VALUE = re.compile(r"^\s*\$?\s*[A-Za-z][\w']*(?:\([^()]*\))?\s*=\s*[^=]+$")


def _could_be_answer(line: str, answer_type: AnswerType) -> bool:
    """Whether an answer line could be an answer of the type at all; "the answer is determined by
    ..." cannot, and is passed over rather than taken as an unreadable answer."""
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        return re.search(r"\d|\\pi|π|√|\\sqrt", line) is not None
    return answer_type is AnswerType.TEXT and len(line.split()) <= 4


def _read_leading(
    first: str,
    answer_type: AnswerType,
    choices: tuple[str, ...],
    question: str,
    percent_question: bool,
    kind: str = WORD,
    labelled: bool = False,
) -> tuple[str | None, str]:
    """A first (or last) line counts only when it is wholly an answer: an option, yes/no, or a lone
    value, perhaps followed by its reason ("x = 35°, since ..."); a last line may carry a label."""
    first = _REASON_TAIL.sub("", first).strip()
    if labelled and (label := re.match(r"^([A-Za-z][\w\s'-]{0,30}):\s+(?=\S)", first)):
        if answer_type is AnswerType.MULTIPLE_CHOICE:  # "Winner: Black" says "the winner is Black"
            value = first[label.end() :]
            found = _read_leading(value, answer_type, choices, question, percent_question, kind)
            said = read_choice(f"The {label.group(1)} is {value}", choices, question)
            return found if found[0] is not None else (said if said[1] == CLEAR else (None, NONE_FOUND))
        first = first[label.end() :]  # "- **Non-red marbles: 12**" closes a list with its answer
    if answer_type is not AnswerType.MULTIPLE_CHOICE and not bare_line(first, 2):
        return None, NONE_FOUND  # "The clock shows 7:45." observes; a bare value answers
    if ":" in first.replace("\\:", "") and not _TIME_LIKE.search(first):
        return None, NONE_FOUND  # "Total marbles: 20", "(A) even: no." label a line of a list
    if answer_type is not AnswerType.MULTIPLE_CHOICE and "=" in first and not _NAMED_VALUE.match(first):
        return None, NONE_FOUND  # "3x = 12" is a step; "x = 4" or "GCD(36, 48) = 12" names the value
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        if not bare_line(first, 3):  # "Increasing on that interval.": the line opens with its option
            reading = read_statement(first, choices)
            opens = reading.letter is not None and tokens(first)[:1] == option_signature(
                choices[LETTERS.index(reading.letter)]
            )[:1]
            return (reading.letter, CLEAR) if opens and not reading.ruled_out else (None, NONE_FOUND)
        answer, ambiguity = read_choice(first, choices, question)
        return (answer, ambiguity) if ambiguity == CLEAR else (None, NONE_FOUND)
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        return read_number(first, percent_question, first=True)
    if (len(first.split()) > 4 and not _wholly_math(first)) or first.endswith(":"):
        return None, NONE_FOUND
    return read_text(first, kind)
