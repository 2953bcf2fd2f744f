"""Pull the short answer out of a raw model reply.

Models are asked for DynaMath's JSON (`solution`, `short answer`); real replies wrap it in code
fences, add prose before and after, use single quotes or trailing commas, or give up on JSON
halfway. Each function here is pure and returns what it found and how.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_SHORT_ANSWER_KEYS = ("short answer", "short_answer", "shortanswer", "answer")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_KEY_VALUE = re.compile(
    r"""["']short[ _]?answer["']\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,}\n]+))""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Extraction:
    answer: str | None
    method: str  # "json", "json_lenient", "json_key_regex" or "none"


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


def extract_short_answer(reply: str) -> Extraction:
    """The `short answer` of the last complete JSON object that has one, else a regex fallback."""
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
