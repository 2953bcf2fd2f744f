"""The columns of results.jsonl (`Row`, `Column`), the versions of its rows, and how a row of an older
version becomes a current row (`migrate`).

1: rows before the record (no `schema` key); 2: the flat record, with the judge's reading beside the
verdict (`judge_extract`); 3: the composed record (`isodyn.runs.record`), every score under `scores`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, make_dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, AnswerType, JsonObject
from isodyn.runs.calls import Call
from isodyn.scoring import DEFAULT_GRADER, Tolerance
from isodyn.scoring.extract import NONE_FOUND

SCHEMA_VERSION = 3
GRADED = ("ok", "extraction_failed", "truncated")  # reasons of a cell whose reply was graded
JUDGE = "judge"  # the grader name (and `scores` key) of the judge's reading


def migrate(row: Mapping[str, Any]) -> JsonObject:
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


def _judge_as_score(row: Mapping[str, Any]) -> JsonObject:
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


def _asked_in_transcript(transcript: Iterable[JsonObject]) -> str:
    """The text of the last user message of a transcript (what a version-1 row was asked)."""
    for call in reversed(list(transcript)):
        for message in reversed(call.get("messages") or []):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(p.get("text", "") for p in content or () if isinstance(p, dict))
    return ""


_REQUIRED: Any = MISSING  # a column every row has (the cell's identity)


@dataclass(frozen=True)
class FlatColumn:
    """One column of results.jsonl: its name, its JSON type (what the reader checks each line
    against, `results.record_check`), what a row without it reads as, and where the record holds it
    (`CellResult.flat` is compiled from these). `CellResult.from_row` rebuilds the record from them."""

    name: str
    json_type: Any
    default: Any
    source: str  # where the record holds it: an expression of `record` and its decided score `verdict`


def _column(name: str, json_type: Any, default: Any, source: str) -> FlatColumn:
    return FlatColumn(name, json_type, default, source)


# results.jsonl's columns (schema 3), declared once and in the order a line holds them: `Row`,
# `ROW_FIELDS`, `CellResult.flat` and the defaults `CellResult.from_row` reads come from this list,
# and `Column` and the viewer's byte-level reader (`view.scan`) are checked against it.
COLUMNS: tuple[FlatColumn, ...] = (
    _column("model", str, _REQUIRED, "record.cell.model"),
    _column("strategy", str, _REQUIRED, "record.cell.strategy"),
    _column("modality", str, _REQUIRED, "record.cell.modality.value"),
    _column("seed_id", str, _REQUIRED, "record.cell.seed_id"),
    _column("variant", int, _REQUIRED, "record.cell.variant"),
    _column("repeat", int, 0, "record.cell.repeat"),
    # issue 41: the render profile of the cell's picture, the perturbation of its question
    _column("render", str, DEFAULT_RENDER, "record.cell.render"),
    _column("perturbation", str, NO_PERTURBATION, "record.cell.perturbation"),
    _column("topic", str, "", "record.labels.topic"),
    _column("level", str, "", "record.labels.level"),
    _column("answer_type", str, AnswerType.TEXT.value, "record.asked.answer_type.value"),
    _column("question", str, "", "record.asked.text"),
    # in the order shown (a permuting strategy records its order in notes)
    _column("choices", tuple[str, ...], (), "record.asked.choices"),
    _column("truth", str, "", "record.asked.truth"),
    _column("percent_question", bool, False, "record.asked.percent_question"),
    _column("abs_tol", float, Tolerance().absolute, "record.asked.tolerance.absolute"),
    _column("rel_tol", float, Tolerance().relative, "record.asked.tolerance.relative"),
    _column("solution", str, "", "record.asked.solution"),
    _column("variation_types", tuple[str, ...], (), "record.labels.variation_types"),
    _column("number_digits", int | None, None, "record.labels.number_digits"),
    # ok, extraction_failed, truncated (graded), skipped: why, error:kind
    _column("reason", str, "ok", "record.outcome.reason"),
    _column("correct", bool | None, None, "verdict.correct if verdict else None"),
    _column("extracted", str | None, None, "verdict.extracted if verdict else None"),
    _column("method", str | None, None, "verdict.method if verdict else None"),
    _column("ambiguity", str | None, None, "verdict.ambiguity if verdict else None"),
    _column("grader", str | None, None, "record.decided_by"),  # the score the verdict columns hold
    _column("response", str | None, None, "record.response"),
    # the final reply's ("length": cut off at the token limit)
    _column("finish_reason", str | None, None, "record.finish_reason"),
    _column("error", str | None, None, "record.outcome.message"),
    # every score by grader, when not only one
    _column("scores", JsonObject, MappingProxyType({}), "record.scores_json(verdict)"),
    _column("transcript", tuple[Call, ...], (), "record.calls"),
    _column("notes", JsonObject, MappingProxyType({}), "record.notes"),
    _column("cache_hit", bool | None, None, "record.usage.cache_hit"),
    _column("prompt_tokens", int, 0, "record.usage.prompt_tokens"),
    _column("completion_tokens", int, 0, "record.usage.completion_tokens"),
    _column("cost_usd", float, 0.0, "record.usage.cost_usd"),
    _column("latency_s", float, 0.0, "record.usage.latency_s"),
    _column("schema", int, SCHEMA_VERSION, "record.schema"),
)

ROW_FIELDS = tuple(c.name for c in COLUMNS)
# What a row without a column reads as (the cell's identity has none: every row holds it).
DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {c.name: c.default for c in COLUMNS if c.default is not _REQUIRED}
)


def _field(column: FlatColumn) -> tuple[str, Any, Any]:
    if column.default is MISSING:
        return column.name, column.json_type, field()
    if isinstance(column.default, MappingProxyType):  # a mutable default, made afresh
        return column.name, column.json_type, field(default_factory=dict)
    return column.name, column.json_type, field(default=column.default)


# The columns as a dataclass: what the reader checks each line against (`results.record_check`).
Row = make_dataclass("Row", [_field(c) for c in COLUMNS], frozen=True)


@dataclass(frozen=True)
class ScoreRow:
    """A score under a row's `scores` (what `record.score_json` writes; its grader is its key): the
    JSON types the reader checks it against."""

    correct: bool
    extracted: str | None
    reason: str
    method: str | None
    ambiguity: str | None = None
    detail: JsonObject | None = None


class Column(StrEnum):
    """The names of results.jsonl's columns, for the analysis layer: one member per `COLUMNS` entry,
    in its order. Spelled out so that the type checker knows each member; checked below."""

    model = "model"
    strategy = "strategy"
    modality = "modality"
    seed_id = "seed_id"
    variant = "variant"
    repeat = "repeat"
    render = "render"
    perturbation = "perturbation"
    topic = "topic"
    level = "level"
    answer_type = "answer_type"
    question = "question"
    choices = "choices"
    truth = "truth"
    percent_question = "percent_question"
    abs_tol = "abs_tol"
    rel_tol = "rel_tol"
    solution = "solution"
    variation_types = "variation_types"
    number_digits = "number_digits"
    reason = "reason"
    correct = "correct"
    extracted = "extracted"
    method = "method"
    ambiguity = "ambiguity"
    grader = "grader"
    response = "response"
    finish_reason = "finish_reason"
    error = "error"
    scores = "scores"
    transcript = "transcript"
    notes = "notes"
    cache_hit = "cache_hit"
    prompt_tokens = "prompt_tokens"
    completion_tokens = "completion_tokens"
    cost_usd = "cost_usd"
    latency_s = "latency_s"
    schema = "schema"


if tuple(Column) != ROW_FIELDS:  # a column added to the list is added here too, or nothing imports
    raise TypeError("schema.Column and schema.COLUMNS list different columns")
