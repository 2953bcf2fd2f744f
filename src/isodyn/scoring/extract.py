"""Pull the answer out of a raw model reply: a cascade, each step named in the result.

Models are asked for DynaMath's JSON (`solution`, `short answer`); real replies wrap it in code
fences, add prose before and after, use single quotes or trailing commas, give up on JSON halfway,
or ignore it. The cascade, first hit wins:

1. `json` / `json_lenient` / `json_key_regex`: the short answer of the last complete JSON object;
2. `boxed`: the last `\\boxed{...}` (nested braces allowed; MM-MATH's convention);
3. `answer_line`: the last "the answer is X" / "Answer: X";
4. `choice` (multiple choice only): the last explicit option mention, `(B)` or `option B`, or the
   one option text the final sentence contains;
5. `last_number` (numeric answer types only): the last number in the reply.

Nothing found: `none`, and the cell is wrong with reason `extraction_failed`; there is no default
option. Each function here is pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from isodyn.core import AnswerType

_SHORT_ANSWER_KEYS = ("short answer", "short_answer", "shortanswer", "answer")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_KEY_VALUE = re.compile(
    r"""["']short[ _]?answer["']\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,}\n]+))""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Extraction:
    answer: str | None
    method: str  # json, json_lenient, json_key_regex, boxed, answer_line, choice, last_number, none


def _balanced_objects(text: str) -> list[str]:
    """Every top-level `{...}` substring with balanced braces (strings are respected)."""
    found, depth, start, in_string, quote, escaped = [], 0, -1, False, "", False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                in_string = False
            continue
        if ch == '"' and depth > 0:
            in_string, quote = True, ch
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
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    for key in _SHORT_ANSWER_KEYS:
        if key in lowered and lowered[key] is not None:
            value = lowered[key]
            return value if isinstance(value, str) else json.dumps(value)
    return None


def _lenient_load(candidate: str) -> object | None:
    repaired = _TRAILING_COMMA.sub(r"\1", candidate)
    if "'" in repaired and '"' not in repaired:
        repaired = repaired.replace("'", '"')
    try:
        return json.loads(repaired, strict=False)
    except json.JSONDecodeError:
        return None


def extract_json_answer(reply: str) -> Extraction:
    """The `short answer` of the last complete JSON object that has one, else a key regex."""
    objects = _balanced_objects(reply)
    for candidate in reversed(objects):
        try:
            answer = _short_answer_of(json.loads(candidate, strict=False))
            method = "json"
        except json.JSONDecodeError:
            answer = _short_answer_of(_lenient_load(candidate))
            method = "json_lenient"
        if answer is not None and answer.strip():
            return Extraction(answer.strip(), method)
    matches = list(_KEY_VALUE.finditer(reply))
    if matches:
        groups = matches[-1].groups()
        value = next(g for g in groups if g is not None).strip().strip("\"'")
        if value:
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


_ANSWER_LINE = re.compile(
    r"(?:final answer|the answer|answer)\s*(?:is|:|=)\s*[:\s]*(.+?)\s*(?:$|\n|(?<=[^\d])\.(?:\s|$))",
    re.IGNORECASE,
)


def answer_line(reply: str) -> str | None:
    matches = [m.group(1).strip().strip("*").strip() for m in _ANSWER_LINE.finditer(reply)]
    matches = [m for m in matches if m and not m.startswith(("[", "{"))]
    return matches[-1].rstrip(".").strip() if matches else None


_OPTION_MENTION = re.compile(r"(?:\(([A-J])\)|\b(?:option|choice)\s+\(?([A-J])\b\)?)", re.IGNORECASE)


def mentioned_choice(reply: str, choices: tuple[str, ...]) -> str | None:
    """The last explicit option mention, or the single option text the final sentence names."""
    letters = "ABCDEFGHIJ"[: len(choices)]
    mentions = [(m.group(1) or m.group(2)).upper() for m in _OPTION_MENTION.finditer(reply)]
    mentions = [m for m in mentions if m in letters]
    if mentions:
        return mentions[-1]
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", reply.strip()) if s.strip()]
    if not sentences:
        return None
    last = sentences[-1].casefold()
    named = {c for c in choices if re.search(rf"\b{re.escape(c.casefold())}\b", last)}
    return named.pop() if len(named) == 1 else None


_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def last_number(reply: str) -> str | None:
    found = _NUMBER.findall(reply)
    return found[-1] if found else None


def extract_answer(reply: str, answer_type: AnswerType, choices: tuple[str, ...] = ()) -> Extraction:
    """Run the cascade; see the module docstring for the order."""
    found = extract_json_answer(reply)
    if found.answer is not None:
        return found
    if (boxed := last_boxed(reply)) is not None:
        return Extraction(boxed, "boxed")
    if (line := answer_line(reply)) is not None:
        return Extraction(line, "answer_line")
    if answer_type is AnswerType.MULTIPLE_CHOICE and (letter := mentioned_choice(reply, choices)):
        return Extraction(letter, "choice")
    if answer_type in (AnswerType.FLOAT, AnswerType.INT) and (number := last_number(reply)):
        return Extraction(number, "last_number")
    return Extraction(None, "none")
