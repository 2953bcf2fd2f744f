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

__all__ = [  # the cascade, and the parts of it other modules and tests use, in one place
    "AMBIGUITIES", "CLEAR", "NONE_FOUND", "NOT_AN_OPTION", "SEVERAL_OPTIONS", "SEVERAL_VALUES", "TRUNCATED",
    "UNREADABLE", "Extraction", "answer_lines", "cut_off_before_answer", "extract_answer", "last_boxed",
    "looping", "read_candidate", "read_number", "read_text", "without_code",
]  # fmt: skip

import re
from collections import Counter

from isodyn.core import AnswerType
from isodyn.scoring.ambiguity import (
    AMBIGUITIES,
    CLEAR,
    NONE_FOUND,
    NOT_AN_OPTION,
    SEVERAL_OPTIONS,
    SEVERAL_VALUES,
    TRUNCATED,
    UNREADABLE,
    Extraction,
)
from isodyn.scoring.answer_match import choice_letter, letters_mentioned, options_named
from isodyn.scoring.asked import asked_text, question_numbers, spelled_out
from isodyn.scoring.boxed import last_boxed
from isodyn.scoring.choice import LEADING_LETTER, NEGATED_WORD, option_reading, read_choice, statement_choice
from isodyn.scoring.focus import (
    answer_sentences,
    restates,
    stated,
)
from isodyn.scoring.json_answer import json_answer
from isodyn.scoring.marks import (
    HEADING_BLOCK,
    answer_lines,
    bare_line,
    closing_bold,
    closing_line,
    cut_off_before_answer,
    double_bracketed,
    empty_final_box,
    is_refusal,
    leading_line,
    marked_after_boxes,
    without_code,
)
from isodyn.scoring.options import LETTERS, option_signature, read_statement, tokens
from isodyn.scoring.text import (
    MAX_CANDIDATE_CHARS,
    as_written,
    bounded,
    clauses,
    clip,
    sentences,
    strip_markup,
)
from isodyn.scoring.text_answers import NUMBER as NUMBER_KIND
from isodyn.scoring.text_answers import TIME, WORD, YES_NO, read_shaped, times_in, truth_kind
from isodyn.scoring.values import LATEX_WORDS, read_number


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
        said = [c for c in clauses(candidate) if not NEGATED_WORD.search(c)]
        if not said:
            return None, NONE_FOUND  # "Not odd." rules a word out; it does not answer with it
        return (said[-1].strip(" .!"), CLEAR) if short else (read_shaped(said[-1], kind), CLEAR)
    if _EITHER.search(candidate) and not short:
        return None, SEVERAL_VALUES
    # a candidate of math alone is the answer whole: a matrix, a set, "5 or -25", not its last group
    whole = _wholly_math(candidate) and (short or candidate.count("=") <= 1)
    shaped = read_shaped(candidate, kind)
    if shaped is not None and not whole:
        return shaped, CLEAR
    return (candidate, CLEAR) if short or whole else (None, NONE_FOUND)


def _wholly_math(candidate: str) -> bool:
    """No prose word in it: `x = 2, y = 3`, `\\frac{1}{2} (x + 1)^2`."""
    prose = [w for w in re.findall(r"(?<!\\)\b[A-Za-z]{2,}\b", candidate) if w.lower() not in _MATH_WORDS]
    return not prose and len(candidate) <= 120


_MATH_WORDS = frozenset(
    (
        "sin cos tan cot sec csc log ln exp sqrt frac pi infty cup cap le ge neq "
        "or and pmatrix bmatrix matrix"
    ).split()
)
_EITHER = re.compile(r"\beither\b.*\bor\b|\bor\b.*\bdepending\b|\bdepends\b|\b(?:if|otherwise)\b", re.I)


_NO_ANSWER = re.compile(
    r"^\s*\[(?=[^\]]*[A-Za-z]{3})[A-Za-z][\w .:'/-]{2,}\]?\s*$"  # a placeholder left in: `[Concise Answer]`
    r"|^\W*(?:n/?a|none|null|unknown|undetermined|indeterminate|not\s+(?:determinable|applicable|possible\s+to\s+"
    r"(?:tell|determine))|(?:it\s+)?cannot\s+be\s+determined|can't\s+(?:be\s+)?(?:determined|tell)|i\s+don'?t\s+know"
    r"|(?:i\s+am\s+|i'm\s+)?unable\s+to\s+(?:determine|tell|answer)|insufficient\s+(?:data|information))\W*$",
    re.IGNORECASE,
)


_LONE_BRACKETED = re.compile(r"^\s*(?:\\left\[|\[)+\s*([^\[\],;\\]+?)\s*(?:\\right\]|\])+\s*$")
_DENIAL = re.compile(r"^\W*(?:not|never|isn't|no\s+longer)\s", re.I)


def read_candidate(
    candidate: str,
    answer_type: AnswerType,
    choices: tuple[str, ...],
    question: str,
    percent_question: bool,
    kind: str = WORD,
) -> tuple[str | None, str]:
    candidate = double_bracketed(candidate) or candidate  # "the answer is [[12]]", `\boxed{[[12]]}`
    if answer_type in (AnswerType.FLOAT, AnswerType.INT) and (lone := _LONE_BRACKETED.match(candidate)):
        candidate = lone.group(1)  # `\boxed{[3]}`, `\left[[1]\right]`: one value in brackets
    if _NO_ANSWER.match(LATEX_WORDS.sub(r"\1", candidate)):
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
    boxed: list[tuple[str, str]] = []
    if (box := last_boxed(reply)) is not None:
        boxed.append(("boxed", box))
    if (bracketed := double_bracketed(reply)) is not None:
        boxed.append(("bracketed", bracketed))
    marked = answer_lines(reply)
    lines: list[tuple[str, str]]
    distinct = {line.strip().rstrip(".").casefold() for line in marked if not line.startswith(HEADING_BLOCK)}
    if len(distinct) >= 3:  # "The answer is 1. The answer is 2. ..."
        lines = [("answer_line", " or ".join(m for m in marked if not m.startswith(HEADING_BLOCK)))]
    else:
        lines = [("answer_line", line) for line in reversed(marked)]
    # the last commitment counts: "... \\boxed{255} ... Final Answer: The final answer is $10,455$."
    return found + (lines + boxed if boxed and marked_after_boxes(reply) else boxed + lines)


_YES_NO_OPTIONS = ("Yes", "No")
# a model's end-of-text token left in its reply ("1.</s>")
_SPECIAL_TOKENS = re.compile(r"</s>|<\|(?:endoftext|im_end|eot_id|end)\|>|<eos>|<end_of_turn>")
# a model's start-of-turn token: what follows is a turn it invented, not its answer
_NEXT_TURN = re.compile(r"<\|(?:im_start|start_header_id)\|>|<start_of_turn>")


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
    text = _NEXT_TURN.split(bounded(reply), maxsplit=1)[0]
    text = as_written(_SPECIAL_TOKENS.sub("", text))
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
    """Steps 4-6 of the cascade: a bold value on the closing line, a bare closing or leading line, else
    the stated answer."""
    bold = closing_bold(text)
    if bold is not None and not (question and restates(bold, question)):
        answer, ambiguity = read_candidate(bold, answer_type, choices, question, percent, kind)
        if answer is not None and ambiguity == CLEAR:
            return Extraction(answer, "bold", CLEAR)
    bare_lines = (("closing", closing_line(text), True), ("leading", leading_line(text), False))
    for method, line, labelled in bare_lines:
        if line is None or (question and restates(line, question)):
            continue
        answer, ambiguity = _read_leading(line, answer_type, choices, question, percent, kind, labelled)
        if answer is not None:
            return Extraction(answer, method, ambiguity)
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        answer, ambiguity = statement_choice(text, choices, question)
        return Extraction(answer, "choice" if answer or ambiguity != NONE_FOUND else "none", ambiguity)
    return _stated_value(text, answer_type, question, percent, kind)


def _off_option(candidate: str, choices: tuple[str, ...]) -> bool:
    """A marked answer that is a value (`14 cm`, `\\frac{4}{3}`, `x = 2`) naming no option at all."""
    if len(candidate.split()) > 6 or read_number(candidate, first=True)[0] is None:
        return False
    named = LEADING_LETTER.match(strip_markup(candidate)) or letters_mentioned(candidate, choices)
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
            reading = option_reading(clip(sentence), choices, question)
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


def _tail(sentence: str) -> str:
    """The last MAX_CANDIDATE_CHARS of a sentence, starting outside any `$...$` formula."""
    cut = max(len(sentence) - MAX_CANDIDATE_CHARS, 0)
    if sentence.count("$", 0, cut) % 2:  # the cut falls inside a formula: start after it
        cut = sentence.find("$", cut) + 1
    return sentence[cut:]


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
    for stated_sentence in ranked:
        # a run-on "sentence" of working (formulas with no full stop between) states its result last
        sentence = _tail(stated_sentence)
        if numeric:
            answer, ambiguity = read_number(spelled_out(sentence, question), percent_question, given=given)
        else:
            answer, ambiguity = read_text(sentence, kind)
        method = ("last_number" if numeric else "last_sentence") if stated_sentence == final else "statement"
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
            if found[0] is not None:
                return found
            said = read_choice(f"The {label.group(1)} is {value}", choices, question)
            return said if said[1] == CLEAR else (None, NONE_FOUND)
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
            opens = (
                reading.letter is not None
                and tokens(first)[:1] == option_signature(choices[LETTERS.index(reading.letter)])[:1]
            )
            return (reading.letter, CLEAR) if opens and not reading.ruled_out else (None, NONE_FOUND)
        answer, ambiguity = read_choice(first, choices, question)
        return (answer, ambiguity) if ambiguity == CLEAR else (None, NONE_FOUND)
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        return read_number(first, percent_question, first=True)
    if (len(first.split()) > 4 and not _wholly_math(first)) or first.endswith(":"):
        return None, NONE_FOUND
    return read_text(first, kind)
