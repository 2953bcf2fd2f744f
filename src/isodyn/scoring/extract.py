"""Pull the answer out of a raw model reply: a cascade, each step named in the result.

Models are asked for DynaMath's JSON (`solution`, `short answer`); real replies wrap it in code
fences, add prose before and after, use single quotes or trailing commas, leave LaTeX backslashes
unescaped, give up on JSON halfway, or ignore it. The cascade, first hit wins:

1. `json` / `json_lenient` / `json_key_regex`: the short answer of the last complete JSON object
   that has one (`short answer`, else `final answer` / `answer`, else any key naming an answer);
2. `boxed`: the last `\\boxed{...}` (nested braces allowed; MM-MATH's convention): when a reply
   boxes twice ("12 ... wait ... 14"), the last box is its final answer;
3. `answer_line`: the last "the answer is X" / "Answer: X", up to the end of its sentence, without a
   trailing explanation ("14, because ..."); a line that cannot be an answer of the type ("the answer
   is determined by ...", an option-less line for multiple choice) is passed over;
4. `choice` (multiple choice only): the whole reply when it is one letter (`**B**`), else the last of
   the final sentences that names options, when it names exactly one: explicitly (`(B)`, `option B`,
   `choose B`) or by a non-negated option text ("the function is neither even nor odd");
5. `last_number` (numeric answer types only): the last number in the reply (not a unit's exponent
   such as the 2 of `cm^2`), or the last inline formula when that number belongs to it.

Steps 4 and 5 are guesses and are skipped for a refusal ("I cannot determine ..."): a stray number
or option word in it is not an answer. Nothing found: `none`, and the cell is wrong with reason
`extraction_failed`; there is no default option. Each function here is pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from isodyn.core import AnswerType
from isodyn.scoring.compare import choice_letter, letters_mentioned, options_named, parse_number

# In order of preference; keys are compared lower-cased, with `_`/`-` read as spaces.
_SHORT_ANSWER_KEYS = ("short answer", "shortanswer", "final answer", "answer")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_BARE_LATEX = re.compile(r"(?<!\\)\\(?=[a-zA-Z]{2,})")  # `\frac` inside a JSON string, unescaped
_CONTROL = re.compile(r"[\x00-\x1f]")  # what `\f`rac, `\t`imes, `\b`eta decode to
_KEY_SPACING = re.compile(r"[\s_\-]+")
_LENIENT_JSON = json.JSONDecoder(strict=False)  # json.loads(..., strict=False) builds one per call
_KEY_VALUE = re.compile(
    r"""["']short[ _]?answer["']\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,}\n]+))""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Extraction:
    answer: str | None
    method: str  # json, json_lenient, json_key_regex, boxed, answer_line, choice, last_number, none


_STRUCTURE = re.compile(r'[{}"\\]')  # the only characters that move the scanner below


def _balanced_objects(text: str) -> list[str]:
    """Every top-level `{...}` substring with balanced braces (strings are respected).

    Visits only braces, quotes and backslashes (a regex finds them), not every character: replies
    run to thousands of characters and every cached cell is re-graded on a rerun.
    """
    found, depth, start, in_string, escaped_at = [], 0, -1, False, -1
    for match in _STRUCTURE.finditer(text):
        i, ch = match.start(), match.group()
        if i == escaped_at:
            continue  # the character after a backslash inside a string
        if in_string:
            if ch == "\\":
                escaped_at = i + 1
            elif ch == '"':
                in_string = False
            continue
        if ch == '"' and depth > 0:
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                found.append(text[start : i + 1])
    return found


def _short_answer_of(obj: object) -> str | None:
    if not isinstance(obj, dict):
        return None
    lowered = {_KEY_SPACING.sub(" ", str(k)).strip().lower(): v for k, v in obj.items()}
    keys = [k for k in _SHORT_ANSWER_KEYS if k in lowered]
    keys += [k for k in lowered if "answer" in k and k not in keys]
    for key in keys:
        value = lowered[key]
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value)
    return None


def _lenient_load(candidate: str) -> object | None:
    repaired = _BARE_LATEX.sub(r"\\\\", _TRAILING_COMMA.sub(r"\1", candidate))
    if "'" in repaired and '"' not in repaired:
        repaired = repaired.replace("'", '"')
    try:
        return _LENIENT_JSON.decode(repaired)
    except json.JSONDecodeError:
        return None


def _load(candidate: str) -> tuple[str | None, str]:
    """The short answer of one `{...}` and how it was read: strict JSON, or repaired JSON when strict
    JSON fails or decodes an unescaped LaTeX command into a control character."""
    try:
        answer = _short_answer_of(_LENIENT_JSON.decode(candidate))
        if answer is None or not _CONTROL.search(answer):
            return answer, "json"
    except json.JSONDecodeError:
        pass
    return _short_answer_of(_lenient_load(candidate)), "json_lenient"


def extract_json_answer(reply: str) -> Extraction:
    """The `short answer` of the last complete JSON object that has one, else a key regex."""
    for candidate in reversed(_balanced_objects(reply)):
        answer, method = _load(candidate)
        if answer is not None and answer.strip():
            return Extraction(answer.strip(), method)
    matches = list(_KEY_VALUE.finditer(reply))
    if matches:
        groups = matches[-1].groups()
        value = next(g for g in groups if g is not None).strip().strip("\"'")
        value = value.replace('\\"', '"').replace("\\\\", "\\")
        if value and value.lower() != "null":
            return Extraction(value, "json_key_regex")
    return Extraction(None, "none")


def last_boxed(reply: str) -> str | None:
    """Content of the last `\\boxed{...}` (or `\\fbox{...}`), with nested braces."""
    starts = [m.end() for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", reply)]
    for start in reversed(starts):
        depth = 1
        for i in range(start, len(reply)):
            if reply[i] == "{":
                depth += 1
            elif reply[i] == "}":
                depth -= 1
                if depth == 0:
                    content = reply[start:i].strip()
                    if content:
                        return content
                    break
    return None


_ANSWER_MARKER = re.compile(r"\b(?:final answer|the answer|answer)\s*(?:is|:|=)[\s:*]*", re.IGNORECASE)
# The answer ends at a line break or at a sentence end (a period followed by a space; `3.5` is one
# number), and before an explanation ("14, because ...").
_ANSWER_END = re.compile(
    r"\n|\.(?=\s|$)|,?\s+(?:because|since|as|which|due to|given)\b|,\s+so\b", re.IGNORECASE
)


def answer_line(reply: str) -> str | None:
    """The last "the answer is X" / "Answer: X" with a non-empty X that is not a JSON object."""
    for marker in reversed(list(_ANSWER_MARKER.finditer(reply))):
        rest = reply[marker.end() :]
        end = _ANSWER_END.search(rest)
        answer = (rest[: end.start()] if end else rest).strip().strip("*").strip().rstrip(".").strip()
        if answer and not answer.startswith(('{"', "{'", "[{")):
            return answer
    return None


def mentioned_choice(reply: str, choices: tuple[str, ...]) -> str | None:
    """A one-letter reply, or the one option the last option-naming sentence (of the final three)
    names; None when that sentence names several (a list of the options, "even or odd")."""
    letters = "ABCDEFGHIJ"[: len(choices)]
    if (bare := re.fullmatch(r"\W*\(?([A-Ja-j])\)?\W*", reply.strip())) is not None:
        letter = bare.group(1).upper()
        return letter if letter in letters else None
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", reply.strip()) if s.strip()]
    for sentence in reversed(sentences[-3:]):
        if sentence.rstrip().endswith("?"):
            continue  # a question ("is it odd?") names options without choosing one
        named = set(letters_mentioned(sentence, choices)) | options_named(sentence, choices)
        if named:
            return named.pop() if len(named) == 1 else None
    return None


_NUMBER = re.compile(r"(?<![\w^.])(?<!\^\{)[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)


def last_number(reply: str) -> str | None:
    """The last number; when it sits in the last inline formula and that formula's final value reads
    as a number (`$\\frac{\\sqrt{3}}{2}$`, `$A = 6 \\cdot 4 / 2 = 12$`), that value."""
    numbers = list(_NUMBER.finditer(reply))
    if not numbers:
        return None
    last = numbers[-1]
    spans = [m for m in _MATH_SPAN.finditer(reply) if m.start() <= last.start() < m.end()]
    if spans:
        formula = next(g for g in spans[-1].groups() if g is not None)
        value = re.split(r"=|\\approx|≈", formula)[-1].strip()
        if value and parse_number(value) is not None:
            return value
    return last.group().replace("−", "-")


_REFUSAL = re.compile(
    r"\bI\s*(?:'m|am)?\s*(?:cannot|can't|can not|could not|couldn't|unable to|not able to)\s+"
    r"(?:\w+\s+)?(?:determine|tell|answer|solve|provide)\b"
    r"|\b(?:answer|value|it)\s+cannot be determined|\bnot enough information|\binsufficient information",
    re.IGNORECASE,
)


def _is_refusal(reply: str) -> bool:
    """The model declares it cannot answer. A hedge ("I can't see it clearly, but it is 4") is not."""
    return _REFUSAL.search(reply) is not None


def _could_be_answer(line: str, answer_type: AnswerType, choices: tuple[str, ...]) -> bool:
    """Whether an answer line can be an answer of the type at all (prose such as "the answer is
    determined by ..." cannot); whether it is a *readable* one is for the comparison to decide."""
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        return choice_letter(line, choices) is not None
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        return re.search(r"\d|\\pi|π|√|\\sqrt", line) is not None
    return True


def extract_answer(reply: str, answer_type: AnswerType, choices: tuple[str, ...] = ()) -> Extraction:
    """Run the cascade; see the module docstring for the order."""
    found = extract_json_answer(reply)
    if found.answer is not None:
        return found
    if (boxed := last_boxed(reply)) is not None:
        return Extraction(boxed, "boxed")
    if (line := answer_line(reply)) is not None and _could_be_answer(line, answer_type, choices):
        return Extraction(line, "answer_line")
    if _is_refusal(reply):
        return Extraction(None, "none")
    if answer_type is AnswerType.MULTIPLE_CHOICE and (letter := mentioned_choice(reply, choices)):
        return Extraction(letter, "choice")
    if answer_type in (AnswerType.FLOAT, AnswerType.INT) and (number := last_number(reply)):
        return Extraction(number, "last_number")
    return Extraction(None, "none")
