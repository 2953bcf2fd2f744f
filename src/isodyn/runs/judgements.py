"""process.jsonl: the judgements `exp judge` writes beside a run, read back as its readers rely on them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, Modality
from isodyn.runs.record import Cell, CellKey
from isodyn.runs.results import read_lines, record_check
from isodyn.scoring.judge import ERROR_TYPES

_MODALITIES = frozenset(m.value for m in Modality)


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgementLine:
    """A line of process.jsonl as its readers rely on it, flat as it is written (`exp judge` writes
    it, with the judge's cache key beside): the cell judged, and the judge's verdict on its solution.
    The reader's check is made from these annotations (`record_check`); `Judgement` is the record."""

    model: str
    strategy: str
    modality: str
    seed_id: str
    variant: int
    repeat: int = 0
    render: str = DEFAULT_RENDER
    perturbation: str = NO_PERTURBATION
    topic: str = ""
    level: str = ""
    correct: bool | None = None
    first_wrong_step: int | None = None
    error_type: str | None = None  # one of ERROR_TYPES or None, when the judgement is readable
    explanation: str = ""
    judge_readable: bool = False
    judge_model: str = ""
    judge_reply: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    """One judgement of a cell's solution: the cell, and the judge's verdict, model, cache key and
    reply. Its line of process.jsonl (`line`) spells the cell's six values flat, first."""

    cell: Cell
    topic: str = ""
    level: str = ""
    correct: bool | None = None  # the cell's verdict
    first_wrong_step: int | None = None
    error_type: str | None = None  # one of ERROR_TYPES or None, when the judgement is readable
    explanation: str = ""
    judge_readable: bool = False
    judge_model: str = ""
    judge_key: str = ""  # the reply cache's key of the judge's call
    judge_cache_hit: bool = False
    judge_reply: str = ""

    @property
    def key(self) -> CellKey:
        return self.cell.key

    def to_json(self) -> dict[str, Any]:
        """The judgement as its line spells it: flat, in this order."""
        return {
            **self.cell.to_json(), "topic": self.topic, "level": self.level, "correct": self.correct,
            "first_wrong_step": self.first_wrong_step, "error_type": self.error_type,
            "explanation": self.explanation, "judge_readable": self.judge_readable,
            "judge_model": self.judge_model, "judge_key": self.judge_key,
            "judge_cache_hit": self.judge_cache_hit, "judge_reply": self.judge_reply,
        }  # fmt: skip

    def line(self) -> bytes:
        """Its line of process.jsonl (UTF-8, not ASCII-escaped, as `exp judge` has always written)."""
        return (json.dumps(self.to_json(), ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_json(cls, data: Any) -> Judgement | None:
        """The judgement a parsed line holds, or None when it is not one (as `read_judgements`
        skips it, or its modality is none of isodyn's, or its cache key is not text)."""
        if not isinstance(data, dict) or judgement_problem(data) is not None:
            return None
        if data["modality"] not in _MODALITIES:
            return None
        key, hit = data.get("judge_key", ""), data.get("judge_cache_hit", False)
        if type(key) is not str or type(hit) is not bool:
            return None
        cell = Cell.from_json(data)
        return cls(
            cell=cell, topic=data.get("topic", ""), level=data.get("level", ""),
            correct=data.get("correct"), first_wrong_step=data.get("first_wrong_step"),
            error_type=data.get("error_type"), explanation=data.get("explanation", ""),
            judge_readable=data.get("judge_readable", False), judge_model=data.get("judge_model", ""),
            judge_key=key, judge_cache_hit=hit, judge_reply=data.get("judge_reply", ""),
        )  # fmt: skip


def write_judgements(path: Path, judgements: Iterable[Judgement]) -> None:
    """process.jsonl: one line per judgement, in order (the file is written anew)."""
    with path.open("wb") as handle:
        for judgement in judgements:
            handle.write(judgement.line())


@dataclass(frozen=True)
class JudgementsRead:
    records: list[dict[str, Any]]
    damaged: int  # lines that are no judgement (not JSON, or not of JudgementLine's types): skipped
    first_problem: str | None = None

    def problems(self) -> str | None:
        if not self.damaged:
            return None
        return f"{self.damaged} damaged line(s) of process.jsonl skipped; the first, {self.first_problem}"


def judgement_problem(record: dict[str, Any], where: str = "") -> str | None:
    """What keeps a process.jsonl line from being a judgement (`JudgementLine`), or None."""
    check = record_check(JudgementLine)
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
