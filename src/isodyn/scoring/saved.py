"""Grading a saved result row again: everything needed is in the row (pure functions)."""

from __future__ import annotations

from typing import Any

from isodyn.scoring import DEFAULT_GRADER, Score, Tolerance, score


def question_text(row: dict[str, Any]) -> str:
    """The question a row was asked: its own `question`, or (rows written before it was recorded)
    the text of the last user message of its transcript."""
    if row.get("question"):
        return str(row["question"])
    for call in reversed(row.get("transcript") or []):
        for message in reversed(call.get("messages") or []):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def grade_row(row: dict[str, Any], tolerance: Tolerance, grader: str = DEFAULT_GRADER) -> Score:
    """One saved row graded again from its reply, truth and question (pure)."""
    return score(
        row.get("response"),
        row["truth"],
        row["answer_type"],
        tuple(row.get("choices") or ()),
        tolerance,
        bool(row.get("percent_question")),
        question=question_text(row),
        grader=grader,
    )
