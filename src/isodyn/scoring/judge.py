"""Model-graded scoring, as pure prompt builders and reply parsers (the calls happen elsewhere).

- the LLM extractor: for a free-form reply the rules could not read, a judge model restates the
  student's final answer, which is then compared by the ordinary rules (never on by default);
- process evaluation (MM-MATH Section 3.3): a judge compares a solution with the seed's worked
  solution and names the first wrong step and its type.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from isodyn.core import JsonObject
from isodyn.prompts import render_template
from isodyn.scoring.json_answer import JSON_FAILURES

ERROR_TYPES = (
    "diagram_misreading",
    "logical_reasoning",
    "calculation",
    "condition_misunderstanding",
    "hallucination",
    "knowledge",
)


def extractor_messages(question: str, reply: str, choices: tuple[str, ...] = ()) -> list[JsonObject]:
    lettered = list(zip("ABCDEFGHIJ", choices, strict=False))
    prompt = render_template("judge_extract.j2", question=question, reply=reply, choices=lettered)
    return [{"role": "user", "content": prompt}]


def parse_extractor_reply(text: str) -> str | None:
    """The judge's restated answer; None when it found none or its reply is unreadable."""
    found = _last_json(text)
    key = next((k for k in ("final answer", "final_answer") if found and k in found), None)
    if found is not None and key is not None:
        value = found[key]
        return None if value in (None, "", "null", "none") else str(value).strip()
    return None


def solution_steps(solution: str) -> list[str]:
    """A reply's reasoning split into steps: its JSON `solution` if any, by lines or sentences."""
    found = _last_json(solution)
    text = str(found["solution"]) if found and "solution" in found else solution
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) <= 1:
        lines = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
    return lines or [text.strip()]


def process_messages(question: str, truth: str, reference: str, reply: str) -> list[JsonObject]:
    prompt = render_template(
        "judge_process.j2", question=question, truth=truth, reference=reference, steps=solution_steps(reply)
    )
    return [{"role": "user", "content": prompt}]


@dataclass(frozen=True)
class ProcessVerdict:
    first_wrong_step: int | None
    error_type: str | None  # one of ERROR_TYPES, or None
    explanation: str
    readable: bool  # False when the judge's reply could not be parsed


def parse_process_reply(text: str, n_steps: int) -> ProcessVerdict:
    found = _last_json(text)
    if found is None or not {"first_wrong_step", "error_type"} <= found.keys():
        # a reply without the two required fields says nothing: never "no error found"
        explanation = str(found.get("explanation", "")) if found else ""
        return ProcessVerdict(None, None, explanation, readable=False)
    step = found.get("first_wrong_step")
    try:
        step = int(step) if step not in (None, "null") else None
    except (TypeError, ValueError, OverflowError):  # `1e999` decodes to inf
        return ProcessVerdict(None, None, str(found.get("explanation", "")), readable=False)
    error = found.get("error_type")
    error = str(error).strip().lower().replace(" ", "_") if error not in (None, "null") else None
    # a wrong step needs its error type and no step means no error: anything else is unreadable
    consistent = (step is None) == (error is None)
    valid = consistent and (step is None or 1 <= step <= n_steps) and (error is None or error in ERROR_TYPES)
    return ProcessVerdict(step, error, str(found.get("explanation", "")), readable=valid)


def _last_json(text: str) -> JsonObject | None:
    """The last JSON object in the text that parses (judges wrap JSON in prose and fences)."""
    decoder = json.JSONDecoder()
    found = None
    for start, char in enumerate(text):
        if char == "{":
            try:
                value, _ = decoder.raw_decode(text, start)
            except JSON_FAILURES:
                continue
            if isinstance(value, dict):
                found = value
    return found


__all__ = [
    "ERROR_TYPES",
    "ProcessVerdict",
    "extractor_messages",
    "parse_extractor_reply",
    "parse_process_reply",
    "process_messages",
    "solution_steps",
]
