"""The groups of results.jsonl columns the analysis keeps returning to, named once.

Every column the analysis reads is named through the record (`isodyn.runs.schema.Column`, one member per
`Row` field: `frame[Column.correct]`), never by a string literal. The groups are tuples: pass
`list(ARM)` where pandas takes several keys (`groupby` reads a tuple as one key). Where a column's
name becomes a label of a new table, it is the plain name (`labels`, or `Column.model.value`), so no
enum member reaches a table or a report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from isodyn.runs.schema import Column

ARM = (Column.model, Column.strategy, Column.modality)  # a series of the report: what is compared
ITEM = (Column.seed_id, Column.variant, Column.repeat)  # one question asked once, in every arm


def labels(columns: Iterable[str]) -> list[str]:
    """Columns as labels of a new table: their plain names (`str` of a `Column` is its value)."""
    return [str(column) for column in columns]


def cell_label(record: Mapping[str, Any]) -> str:
    """A cell as the report names it to a reader: `model / strategy / modality / seed #variant`."""
    arm = " / ".join(f"{record[column]}" for column in ARM)
    return f"{arm} / {record[Column.seed_id]} #{record[Column.variant]}"
