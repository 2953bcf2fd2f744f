"""The JSON forms of the records the cell memo and the render store keep, and their checks.

A store keeps bytes; a record goes in as JSON through its own `to_json` (`Variant`, `Call`,
`CellResult.to_row`) and comes back only when the JSON has the record's shape: every field of its
JSON type (the check `results.record_check` makes of each results.jsonl row, from the annotations
of the forms below) and every label one isodyn knows. Anything else (a forged entry, a damaged
one) decodes to None, which the stores take as a miss: the value is computed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from isodyn.core import AnswerType, JsonObject, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.runs.calls import Call
from isodyn.runs.record import CellResult
from isodyn.runs.results import record_check, row_problem
from isodyn.runs.schema import SCHEMA_VERSION

_TOPICS = frozenset(t.value for t in Topic)
_LEVELS = frozenset(lv.value for lv in Level)
_ANSWER_TYPES = frozenset(a.value for a in AnswerType)
_VARIATIONS = frozenset(v.value for v in VariationType)
_MODALITIES = frozenset(m.value for m in Modality)


@dataclass(frozen=True)
class VariantForm:
    """`Variant.to_json()` as JSON types."""

    seed_id: str
    index: int
    base_seed: int
    topic: str
    level: str
    answer_type: str
    question: str
    answer: str
    params: JsonObject
    choices: tuple[str, ...] = ()
    solution: str = ""
    variation_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class RepresentationForm:
    """A `Representation` as the render store keeps it: its PNG by digest (`image`), not inline."""

    modality: str
    text: str
    image: str | None
    extra: JsonObject


@dataclass(frozen=True)
class ReplayForm:
    """A cell memo entry (`memo.Replay`); `graded` is a results.jsonl row, whose transcript, when
    left out, is `calls`."""

    variant: VariantForm
    calls: tuple[Call, ...]
    response: str
    notes: JsonObject
    scored: VariantForm | None
    graded: JsonObject | None
    grader: str
    finish_reason: str | None = None  # the final reply's; absent in entries made before it was kept


_VARIANT = record_check(VariantForm)
_REPRESENTATION = record_check(RepresentationForm)
REPLAY_CHECK = record_check(ReplayForm)


def dumps(data: JsonObject) -> bytes | None:
    """`data` as JSON bytes, or None when it holds what JSON cannot (then it is not stored)."""
    try:
        return orjson.dumps(data)
    except TypeError:  # a value orjson does not take (an integer beyond 64 bits, an object)
        return None


def loads(value: Any) -> Any:
    """A stored entry's JSON, or None when it is no JSON bytes."""
    if type(value) is not bytes:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def known_labels(data: JsonObject) -> bool:
    """Whether a variant's JSON, of `VariantForm`'s shape, names labels this isodyn knows."""
    return (
        data["topic"] in _TOPICS and data["level"] in _LEVELS and data["answer_type"] in _ANSWER_TYPES
        and _VARIATIONS.issuperset(data.get("variation_types", ()))
    )  # fmt: skip


def variant_from_json(data: Any) -> Variant | None:
    """The variant `data` is the JSON of, or None when it is not of `VariantForm`'s shape."""
    return Variant.from_json(data) if _VARIANT.test(data) and known_labels(data) else None


def representation_json(representation: Representation, image: str | None) -> JsonObject:
    """The stored form of `representation`, its PNG named by `image` (its digest)."""
    return {
        "modality": representation.modality.value, "text": representation.text, "image": image,
        "extra": representation.extra,
    }  # fmt: skip


def representation_from_json(data: Any) -> tuple[Representation, str | None] | None:
    """The representation without its PNG and the digest that names the PNG, or None."""
    if not _REPRESENTATION.test(data) or data["modality"] not in _MODALITIES:
        return None
    return Representation(Modality(data["modality"]), data["text"], None, data["extra"]), data["image"]


def graded_from_row(row: JsonObject, calls: list[Any]) -> CellResult | None:
    """A memo entry's graded row as the record, or None when it is no current results.jsonl row.
    A row stored without its transcript takes `calls` (the entry's calls, as JSON) as one; `row`
    is the caller's own, freshly read."""
    if "transcript" not in row:
        row["transcript"] = calls
    if row.get("schema") != SCHEMA_VERSION or row_problem(row) is not None:
        return None
    return CellResult.from_row(row)
