"""What a reply's boxes say (pure functions).

`last_boxed` reads the final `\\boxed{...}` (or `\\fbox{...}`) whole, nested braces allowed, and
joins the boxes just before it when the reply boxes several parts of one answer on one line
(`\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}`, `\\boxed{1}, \\boxed{2}`): separated only
by punctuation, spacing or a few words with "and". Boxes apart in the reasoning are not joined: the
last one is the answer. `box_content` reads what a box holds as plain text: a unit in a `\\text{}`
wrapper after a number unwrapped (`80\\textnormal{ km}` is `80 km`), LaTeX spacing dropped, thousands
written `11,\\! 111,\\! 100` or `14{,}916` joined, `6 \\text{ and } 8` as the list `6, 8`, matrices as
`((0, 3), (0, -1))`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from isodyn.scoring.matrices import as_tuples, matrix_rows

_BOX_OR_BRACE = re.compile(r"\\(?:boxed|fbox)\s*\{|[{}]")


@dataclass(frozen=True)
class Box:
    start: int  # where `\boxed{` begins
    end: int  # after its closing brace
    content: str


def boxes(reply: str) -> list[Box]:
    """The outermost non-empty boxes, in order; one pass over the braces, so unclosed boxes cost
    nothing extra."""
    stack: list[tuple[int, int] | None] = []  # for each open brace: its box's start and content start
    found: list[Box] = []
    for match in _BOX_OR_BRACE.finditer(reply):
        token = match.group()
        if token == "}":
            if stack and (opened := stack.pop()) is not None:
                content = reply[opened[1] : match.start()].strip()
                if content:
                    found.append(Box(opened[0], match.end(), content))
        else:
            stack.append((match.start(), match.end()) if token != "{" else None)
    outer: list[Box] = []
    for box in sorted(found, key=lambda b: b.start):  # an inner box closes first: keep the outer one
        if not outer or box.start >= outer[-1].end:
            outer.append(box)
    return outer


# What may stand between two boxes of one answer: delimiters, spacing, `\text{...}` and a few words.
_DELIMITERS = re.compile(r"\\(?:quad|qquad|text|textnormal|mathrm|[,;:! ()\[\]])|[${}~&]")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n\s*\n")
_MAX_JOINING_WORDS = 4
_PERCENT_AFTER = re.compile(r"\s*\$?\s*(?:\\?%|per\s?cent\b|pct\b)", re.I)


def _joins(between: str) -> bool:
    plain = _DELIMITERS.sub(" ", between)
    if _SENTENCE_END.search(plain):
        return False
    words = [w.casefold() for w in re.findall(r"[A-Za-z]+", plain)]
    return not words or ("and" in words and len(words) <= _MAX_JOINING_WORDS)


def last_boxed(reply: str) -> str | None:
    """The answer the last box gives, read by `box_content`, with the boxes before it that box other
    parts of the same answer (module docstring), joined by `, `; None when there is no non-empty box."""
    found = boxes(reply)
    if not found:
        return None
    group = [found[-1]]
    for box in reversed(found[:-1]):
        if not _joins(reply[box.end : group[0].start]):
            break
        group.insert(0, box)
    parts = [part for part in dict.fromkeys(box_content(box.content) for box in group) if part]
    if len(parts) == 1 and "%" not in parts[0] and _PERCENT_AFTER.match(reply, found[-1].end):
        return parts[0] + "%"  # `\boxed{45}\%`: the sign after the box belongs to it
    return ", ".join(parts) if parts else None


# `80\\textnormal{ km}`, `\\frac{1}{4} \\mathrm{~cm}^2`: a unit in a text wrapper after a number
_UNIT_TEXT = re.compile(
    r"(?<=[\d}])\s*\\(?:text|textnormal|textrm|mathrm|mbox)\s*\{\s*~?\s*([A-Za-z°][^{}]*)\}"
)
_TEXT_AND = re.compile(r"\\(?:text|textnormal|textrm|mathrm)\s*\{\s*and\s*\}")
# thousands: `11,\\! 111`, `32,\\,349`, `14{,}916`
_THOUSANDS_MARK = re.compile(r"(?<=\d)\s*(?:\{,\}|,\s*\\[!,;:]|\\[!,;:]\s*,)\s*(?=\d{3}(?!\d))")
_SPACING = re.compile(r"\\[,;:]|\\q?quad|~")
_LIST_AND = re.compile(r"(?<=[\d)\]])\s*,?\s+and\s+(?=\S)")  # `6 and 8`, `(5, 8) and (8, 5)`


def box_content(content: str) -> str:
    """What a box holds, as plain text (module docstring); other LaTeX (`\\textbf{(B)}`) as written."""
    if (rows := matrix_rows(content)) is not None:
        return as_tuples(rows) or content
    text = _THOUSANDS_MARK.sub(",", content).replace("\\!", "")
    text = _TEXT_AND.sub(" and ", _UNIT_TEXT.sub(r" \1", text))
    text = _SPACING.sub(" ", text).replace("$", " ")
    return _LIST_AND.sub(", ", re.sub(r"\s+", " ", text)).strip()


def last_box_as_written(text: str) -> str | None:
    """The content of the last non-empty box exactly as written (a release's solution, where the box
    holds the truth verbatim)."""
    found = boxes(text)
    return found[-1].content if found else None
