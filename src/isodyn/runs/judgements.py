"""process.jsonl: the judgements `exp judge` writes beside a run, read back as its readers rely on them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.runs.results import read_lines, record_check
from isodyn.scoring.judge import ERROR_TYPES


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
