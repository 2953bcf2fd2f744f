"""Reading the requested answer format, DynaMath's JSON with a `short answer`, out of a reply
(`json_answer`, used by every grader and so by the sc@k vote). The format itself (the key, the
example, `format_answer`) is defined once in `prompts.py`, which asks for it.

`ANSWER_KEY` is the key the prompt templates ask for; `json_answer` finds it in a reply the way real
models write it: in code fences, with prose around, single quotes, trailing commas, unescaped LaTeX
backslashes, several objects (the last one with a short answer counts), or only the key and value
left of a broken object. `strict_json_answer` is the same key read only from well-formed JSON.
"""

from __future__ import annotations

import json
import re

from isodyn.prompts import ANSWER_KEY

# In order of preference; keys are compared lower-cased, with `_`/`-` read as spaces.
_SHORT_ANSWER_KEYS = (ANSWER_KEY, "shortanswer", "final answer", "answer")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
# `\frac` inside a JSON string, unescaped, or `\(`, `\,`, `\{`: a backslash JSON cannot read
_BARE_LATEX = re.compile(r"(?<!\\)\\(?=[a-zA-Z]{2,}|[^\"\\/bfnrtu])")
_CONTROL = re.compile(r"[\x00-\x1f]")  # what `\f`rac, `\t`imes, `\b`eta decode to
_KEY_SPACING = re.compile(r"[\s_\-]+")
_LENIENT_JSON = json.JSONDecoder(strict=False)  # json.loads(..., strict=False) builds one per call
# What decoding hostile text raises: a syntax error (JSONDecodeError, a ValueError), an integer past
# Python's 4,300 digits (ValueError), nesting past the recursion limit (RecursionError).
JSON_FAILURES = (ValueError, RecursionError)
# any key naming the answer (`short answer`, `answer`, `final_answer`, `result`), read from a broken object
_KEY_VALUE = re.compile(
    r"""["'](?:[\w -]{0,20}answer[\w -]{0,10}|(?:final[ _-]?)?result)["']\s*:\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,}\n]+))""",
    re.IGNORECASE,
)


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
    keys += [k for k in ("result", "final result") if k in lowered]  # `{"steps": ..., "result": "12"}`
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
        loaded: object = _LENIENT_JSON.decode(repaired)
    except JSON_FAILURES:
        return None
    return loaded


def _load(candidate: str) -> tuple[str | None, str]:
    """The short answer of one `{...}` and how it was read: strict JSON, or repaired JSON when strict
    JSON fails or decodes an unescaped LaTeX command into a control character."""
    try:
        answer = _short_answer_of(_LENIENT_JSON.decode(candidate))
        if answer is None or not _CONTROL.search(answer):
            return answer, "json"
    except JSON_FAILURES:
        pass
    return _short_answer_of(_lenient_load(candidate)), "json_lenient"


def json_answer(reply: str) -> tuple[str | None, str]:
    """The `short answer` of the last complete JSON object that has one, else a key regex; with the
    method that found it (json, json_lenient, json_key_regex) or (None, "none")."""
    lowered = reply.lower()
    if "answer" not in lowered and '"result"' not in lowered:
        return None, "none"  # every key read below holds the word: no JSON parse for `{1}` in `\\frac{1}{2}`
    for candidate in reversed(_balanced_objects(reply)):
        if "answer" not in candidate.lower() and '"result"' not in candidate.lower():
            continue
        answer, method = _load(candidate)
        if answer is not None and answer.strip():
            return answer.strip(), method
    matches = list(_KEY_VALUE.finditer(reply))
    if matches:
        groups = matches[-1].groups()
        value = next(g for g in groups if g is not None).strip().strip("\"'")
        value = value.replace('\\"', '"').replace("\\\\", "\\")
        if value and value.lower() != "null":
            return value, "json_key_regex"
    return None, "none"


def strict_json_answer(reply: str) -> str | None:
    """The short answer of the last object that is well-formed JSON as written (no repairs)."""
    for candidate in reversed(_balanced_objects(reply)):
        try:
            answer = _short_answer_of(json.loads(candidate))
        except JSON_FAILURES:
            continue
        if answer is not None and answer.strip():
            return answer.strip()
    return None
