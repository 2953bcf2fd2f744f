"""Where in a reply the grader read its answer: character offsets for a person to see (`answer_span`).

The extraction cascade (`extract.py`) works on cleaned text (code blocks dropped, markup stripped),
so it cannot hand back offsets into the reply as saved. This module finds them afterwards from what
the verdict recorded: the method names the region the answer came from (the last box, the last JSON
answer key, the answer line, the first or last line) and the extracted value is looked up inside it.
It is for display only: it never changes a verdict, and when the value cannot be found where the
method says, it falls back to the region, or to nothing, rather than guess elsewhere.
"""

from __future__ import annotations

import re

Span = tuple[int, int]  # [start, end) into the reply

_BOX_OR_BRACE = re.compile(r"\\(?:boxed|fbox)\s*\{|[{}]")
_JSON_VALUE = re.compile(
    r"""["']?(?:short[ _-]?answer|final[ _-]?answer|answer)["']?\s*:\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,}\n]+))""",
    re.IGNORECASE,
)
_MARKED_LINE = re.compile(
    r"answer|result|conclusion|option|####|答案|选",
    re.IGNORECASE,
)
_CLOSING_OR_LEADING = ("closing", "leading")


def _last_boxed(reply: str) -> Span | None:
    """The content of the last non-empty box (as `extract.last_boxed` reads it), as offsets."""
    stack: list[int | None] = []
    found = None
    for match in _BOX_OR_BRACE.finditer(reply):
        token = match.group()
        if token == "}":
            if stack and (start := stack.pop()) is not None and reply[start : match.start()].strip():
                found = (start, match.start())
        else:
            stack.append(match.end() if token != "{" else None)
    return found


def _last_json_value(reply: str) -> Span | None:
    found = None
    for match in _JSON_VALUE.finditer(reply):
        group = next(g for g in (1, 2, 3) if match.group(g) is not None)
        found = (match.start(group), match.end(group))
    return found


def _line_spans(reply: str) -> list[Span]:
    """Each non-blank line's offsets, without its surrounding white space."""
    spans = []
    for match in re.finditer(r"[^\n]+", reply):
        text = match.group()
        if text.strip():
            left = len(text) - len(text.lstrip())
            spans.append((match.start() + left, match.start() + len(text.rstrip())))
    return spans


def _region(reply: str, method: str) -> list[Span]:
    """Where the method says the answer stands, most likely first (empty: anywhere)."""
    lines = _line_spans(reply)
    if method == "boxed":
        return [s for s in [_last_boxed(reply)] if s]
    if method.startswith("json"):
        return [s for s in [_last_json_value(reply)] if s]
    if method == "answer_line":
        marked = [i for i, (a, b) in enumerate(lines) if _MARKED_LINE.search(reply[a:b])]
        # the answer may sit on the line after a heading ("## Final answer" / "12")
        regions = [lines[j] for i in reversed(marked) for j in (i, i + 1) if j < len(lines)]
        return regions
    if method == "closing" and lines:
        return [lines[-1]]
    if method == "leading" and lines:
        return [lines[0]]
    return []


_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def _needles(extracted: str, choices: tuple[str, ...]) -> list[re.Pattern[str]]:
    """Ways the extracted value may be written in the reply, most exact first."""
    value = extracted.strip()
    if re.fullmatch(r"[A-Za-z]", value):  # an option letter: (B), B), **B**, "B." ... or its text
        needles = [re.compile(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])")]
        index = ord(value.upper()) - ord("A")
        if 0 <= index < len(choices) and choices[index].strip():
            option = re.escape(choices[index].strip())
            needles.insert(0, re.compile(rf"(?<!\w){option}(?!\w)", re.IGNORECASE))
        return needles
    value = value.rstrip(".")
    needles = [re.compile(re.escape(value), re.IGNORECASE)]
    number = re.fullmatch(r"[-+]?\d+(?:\.\d+)?", value)
    if number and "." in value:  # 0.50 in the reply, 0.5 recorded: the whole number, first
        whole, _, fraction = value.partition(".")
        needles.insert(0, re.compile(rf"(?<![\d.]){re.escape(whole)}\.{re.escape(fraction)}0*(?!\d)"))
    if number:
        needles.append(re.compile(rf"(?<![\d.]){re.escape(value.split('.')[0])}(?:[.,]\d+)?(?!\d)"))
        if value.isdigit() and int(value) < len(_NUMBER_WORDS):  # "There are two cinnamon rolls."
            needles.append(re.compile(rf"\b{_NUMBER_WORDS[int(value)]}\b", re.IGNORECASE))
    return needles


def _last_match(reply: str, needles: list[re.Pattern[str]], within: Span) -> Span | None:
    start, end = within
    for needle in needles:
        matches = list(needle.finditer(reply, start, end))
        if matches:
            return matches[-1].start(), matches[-1].end()
    return None


def answer_span(
    reply: str, method: str | None, extracted: str | None, choices: tuple[str, ...] = ()
) -> Span | None:
    """Offsets of the answer the grader read in `reply`: the extracted value inside the region its
    method names; the region itself when the value is written otherwise there (`\\frac12` read as
    0.5); for the other methods, the value's last occurrence. An option letter is also looked for
    as its option's text (`choices`, in the order shown). None when there is nothing to show."""
    if not reply or not method or method == "none":
        return None
    regions = _region(reply, method)
    needles = _needles(extracted, choices) if extracted and extracted.strip() else []
    for region in regions:
        if needles and (found := _last_match(reply, needles, region)):
            return found
    if regions and method not in ("answer_line",):
        return regions[0]
    if needles and (found := _last_match(reply, needles, (0, len(reply)))):
        return found
    return regions[0] if regions else None
