"""Error-type distribution from process evaluation (MM-MATH Section 3.3; DynaMath Figure 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from isodyn.analysis.markdown import markdown_table
from isodyn.results import read_lines, record_check
from isodyn.scoring.judge import ERROR_TYPES

UNREADABLE = "unreadable_judgement"
NO_ERROR_FOUND = "no_error_found"


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    """A line of process.jsonl as its readers rely on it (`exp judge` writes it, with the judge's
    reply and cache key beside): the cell judged, and the judge's verdict on its solution."""

    model: str
    strategy: str
    modality: str
    seed_id: str
    variant: int
    repeat: int = 0
    topic: str = ""
    level: str = ""
    correct: bool | None = None
    first_wrong_step: int | None = None
    error_type: str | None = None  # one of ERROR_TYPES or None, when the judgement is readable
    explanation: str = ""
    judge_readable: bool = False
    judge_model: str = ""
    judge_reply: str = ""


@dataclass(frozen=True)
class JudgementsRead:
    records: list[dict[str, Any]]
    damaged: int  # lines that are no judgement (not JSON, or not of Judgement's types): skipped
    first_problem: str | None = None

    def problems(self) -> str | None:
        if not self.damaged:
            return None
        return f"{self.damaged} damaged line(s) of process.jsonl skipped; the first, {self.first_problem}"


def judgement_problem(record: dict[str, Any], where: str = "") -> str | None:
    """What keeps a process.jsonl line from being a Judgement, or None."""
    check = record_check(Judgement)
    if not check.test(record):
        return check.explain(record)
    error = record.get("error_type")
    # an unreadable judgement keeps whatever type the judge wrote; a readable one names a known type
    if record.get("judge_readable") and error is not None and error not in ERROR_TYPES:
        return f"error_type is {error[:40]!r}, not one of {', '.join(ERROR_TYPES)} or null"
    return None


def read_judgements(path: Path) -> JudgementsRead:
    """The judgements of a process.jsonl; a line that is not one is skipped and counted, so a
    damaged file costs its damaged lines only, never the report. No file: no judgements."""
    if not path.is_file():
        return JudgementsRead([], 0)
    read = read_lines(path, judgement_problem)
    return JudgementsRead(read.rows, len(read.damaged), read.first_problem)


def error_label(record: dict[str, Any]) -> str:
    if not record.get("judge_readable"):
        return UNREADABLE
    return record.get("error_type") or NO_ERROR_FOUND


def error_distribution(records: list[dict[str, Any]], by: Sequence[str]) -> pd.DataFrame:
    """Counts of each error type per group, plus the number of judged cells."""
    columns = [*ERROR_TYPES, NO_ERROR_FOUND, UNREADABLE]
    if not records:
        return pd.DataFrame(columns=[*by, "judged", *columns])
    frame = pd.DataFrame(records)
    frame["label"] = [error_label(r) for r in records]
    table = pd.crosstab([frame[c] for c in by], frame["label"]).reindex(columns=columns, fill_value=0)
    table.insert(0, "judged", table.sum(axis=1))
    return table.reset_index()


def render_process_report(records: list[dict[str, Any]], run_name: str) -> str:
    parts = [
        f"# Process evaluation of run {run_name}",
        "",
        "First wrong step of each judged solution, by error type (MM-MATH Section 3.3's four types plus "
        "DynaMath's hallucination and knowledge errors). `no_error_found`: the judge found every step "
        "right; `unreadable_judgement`: the judge's reply could not be parsed.",
    ]
    for title, by in (
        ("By model, strategy and modality", ["model", "strategy", "modality"]),
        ("By topic", ["topic"]),
    ):
        parts += ["", f"## {title}", "", markdown_table(error_distribution(records, by))]
    return "\n".join(parts) + "\n"
