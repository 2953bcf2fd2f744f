"""The versions of results.jsonl's rows, and how a row of an older one becomes a current row.

1: rows before the record (no `schema` key); 2: the flat record, with the judge's reading beside the
verdict (`judge_extract`); 3: the composed record (`isodyn.record`), every score under `scores`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from isodyn.scoring import DEFAULT_GRADER
from isodyn.scoring.extract import NONE_FOUND

SCHEMA_VERSION = 3
GRADED = ("ok", "extraction_failed")  # reasons of a cell whose reply was graded
JUDGE = "judge"  # the grader name (and `scores` key) of the judge's reading


def migrate(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row of an older schema brought to the current one (pure). Version 1 rows (before the
    record) may lack the question (taken from the last user message of the transcript), the grading
    method and ambiguity, the grader and the tolerance; their missing counts were never written.
    Version 2 rows kept the judge's reading beside the verdict (`judge_extract`); version 3 keeps it
    as the judge's score."""
    schema = row.get("schema", 1)
    if schema >= SCHEMA_VERSION:
        return dict(row) if not isinstance(row, dict) else row
    data = dict(row)
    if schema < 2:
        data = {k: v for k, v in row.items() if v is not None or k in ("correct", "extracted", "response")}
        data.setdefault("question", _asked_in_transcript(row.get("transcript") or ()))
        if data.get("reason") in GRADED:
            data.setdefault("grader", DEFAULT_GRADER)
            failed = data.get("reason") != "ok" and data.get("extracted") is None
            data.setdefault("ambiguity", "none found" if failed else "clear")
        for count in ("prompt_tokens", "completion_tokens"):
            data[count] = int(data.get(count) or 0)
        data["cost_usd"] = float(data.get("cost_usd") or 0.0)
    data = _judge_as_score(data)
    data["schema"] = SCHEMA_VERSION
    return data


def _judge_as_score(row: Mapping[str, Any]) -> dict[str, Any]:
    """A version-2 row's `judge_extract` ({key, answer, rules: {extracted, method}}) as the judge's
    score: the verdict when the judge decided it (method "judge"), another score when it did not."""
    data = {k: v for k, v in row.items() if k != "judge_extract"}
    reading = row.get("judge_extract")
    if not isinstance(reading, dict):
        return data
    detail = {k: v for k, v in reading.items() if k in ("key", "answer")}
    rules_grader = str(data.get("grader") or DEFAULT_GRADER)
    columns = ("correct", "extracted", "reason", "method", "ambiguity")
    if data.get("method") != JUDGE:  # the judge found no answer: the rules' verdict stands
        judged = {"correct": False, "extracted": None, "reason": "extraction_failed", "method": JUDGE,
                  "ambiguity": NONE_FOUND, "detail": detail}  # fmt: skip
        data["scores"] = {rules_grader: {k: data.get(k) for k in columns}, JUDGE: judged}
        return data
    rules = reading["rules"] if isinstance(reading.get("rules"), dict) else {}
    extracted = rules.get("extracted")
    ruled = {"correct": False, "extracted": extracted, "method": rules.get("method"),
             "reason": "ok" if extracted is not None else "extraction_failed",
             "ambiguity": data.get("ambiguity")}  # fmt: skip
    data["scores"] = {rules_grader: ruled, JUDGE: {**{k: data.get(k) for k in columns}, "detail": detail}}
    data["grader"] = JUDGE
    return data


def _asked_in_transcript(transcript: Iterable[dict[str, Any]]) -> str:
    """The text of the last user message of a transcript (what a version-1 row was asked)."""
    for call in reversed(list(transcript)):
        for message in reversed(call.get("messages") or []):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(p.get("text", "") for p in content or () if isinstance(p, dict))
    return ""
