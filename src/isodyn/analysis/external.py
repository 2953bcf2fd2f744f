"""Results from outside isodyn, as rows the reports understand (pure).

- long form: one row per cell with `seed_id, variant, correct` and any of `model, strategy,
  modality, repeat, topic, level` (missing ones get defaults);
- DynaMath's published wide form: `Question ID, Variant 1 ... Variant 10, # of correct per question,
  Topic, Difficulty Level`, one row per seed question.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from isodyn.core import JsonObject, Level, Topic
from isodyn.errors import IsodynError
from isodyn.runs.results import SCHEMA_VERSION, CellResult
from isodyn.runs.schema import Column

# Correctness as published tables write it (DynaMath's say `correct` / `fail`), compared lower-cased.
_TRUE = {"1", "1.0", "true", "t", "yes", "y", "correct", "right", "pass", "passed", "✓", "✔", "☑"}
_FALSE = {"0", "0.0", "false", "f", "no", "n", "wrong", "incorrect", "fail", "failed", "✗", "✘", "☒", "×"}


class ExternalTableError(IsodynError, ValueError):
    pass


def _truth_value(value: Any) -> bool:
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ExternalTableError(f"cannot read {value!r} as correct/incorrect (use 1/0 or true/false)")


def _normalized(name: str, known: list[str]) -> str:
    """`Plane Geometry` -> `plane_geometry`; `High School` -> `high_school`; unknown names are kept."""
    key = re.sub(r"[^a-z]+", "_", str(name).strip().lower()).strip("_")
    key = {"elementary_school": "elementary", "puzzle_tests": "puzzle_test"}.get(key, key)
    return key if key in known else str(name)


def _defaults(model: str) -> JsonObject:
    return {Column.model: model, Column.strategy: "external", Column.modality: "image", Column.repeat: 0,
            Column.topic: "unknown", Column.level: "unknown", Column.reason: "ok",
            Column.answer_type: "multiple_choice", Column.truth: "", Column.extracted: None}  # fmt: skip


@dataclass
class Skipped:
    """Rows of a table that are not cells (blank rows, totals, summary rows, footers)."""

    count: int = 0
    labels: list[str] = field(default_factory=list)

    def add(self, label: Any) -> None:
        self.count += 1
        text = "" if label is None or (isinstance(label, float) and math.isnan(label)) else str(label).strip()
        if text and text not in self.labels and len(self.labels) < 4:
            self.labels.append(text)

    def line(self, name: str) -> str | None:
        if not self.count:
            return None
        named = f" ({', '.join(repr(label) for label in self.labels)})" if self.labels else " (blank)"
        return f"{name}: {self.count} row(s) that are not questions skipped{named}"


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def _question_id(value: Any) -> str | None:
    """A question's id (`169`, `169.0`, `q12`), or None for a summary or footer label."""
    if _blank(value):
        return None
    text = str(value).strip()
    if re.fullmatch(r"\d+(\.0+)?", text):
        return str(int(float(text)))
    if re.search(r"^(#|total|sum|avg|average|mean|a_avg|a_wst|accuracy|overall)|per variant", text, re.I):
        return None
    return text


def long_form_rows(table: pd.DataFrame, model: str, skipped: Skipped | None = None) -> list[JsonObject]:
    missing = {Column.seed_id, Column.variant, Column.correct} - set(table.columns)
    if missing:
        raise ExternalTableError(f"long-form table lacks column(s) {', '.join(sorted(missing))}")
    skipped = skipped if skipped is not None else Skipped()
    topics, levels = [t.value for t in Topic], [lv.value for lv in Level]
    rows = []
    for record in table.to_dict("records"):
        if _question_id(record.get(Column.seed_id)) is None or _blank(record.get(Column.correct)):
            skipped.add(record.get(Column.seed_id))
            continue
        row = {**_defaults(model), **{k: v for k, v in record.items() if pd.notna(v)}}
        row[Column.seed_id], row[Column.variant] = str(row[Column.seed_id]), int(row[Column.variant])
        row[Column.repeat], row[Column.correct] = int(row[Column.repeat]), _truth_value(row[Column.correct])
        row[Column.topic] = _normalized(row[Column.topic], topics)
        row[Column.level] = _normalized(row[Column.level], levels)
        rows.append(row)
    return rows


def dynamath_wide_rows(
    table: pd.DataFrame, model: str, skipped: Skipped | None = None
) -> list[JsonObject]:
    variant_columns = sorted(
        (c for c in table.columns if re.fullmatch(r"Variant \d+", str(c))),
        key=lambda c: int(str(c).split()[1]),
    )
    if "Question ID" not in table.columns or not variant_columns:
        raise ExternalTableError("DynaMath wide form needs 'Question ID' and 'Variant 1', 'Variant 2', ...")
    skipped = skipped if skipped is not None else Skipped()
    topics, levels = [t.value for t in Topic], [lv.value for lv in Level]
    rows = []
    for record in table.to_dict("records"):
        key = _question_id(record["Question ID"])
        if key is None or all(_blank(record[c]) for c in variant_columns):
            skipped.add(record["Question ID"])  # a blank row, `# of correct per variant`, `A_avg`, ...
            continue
        answers = [_truth_value(record[c]) for c in variant_columns]
        stated = record.get("# of correct per question")
        if stated is not None and pd.notna(stated) and int(stated) != sum(answers):
            raise ExternalTableError(
                f"question {record['Question ID']}: '# of correct per question' is {stated}, "
                f"but its variants add up to {sum(answers)}"
            )
        base = {
            **_defaults(model),
            Column.seed_id: key,
            Column.topic: _normalized(record.get("Topic", "unknown"), topics),
            Column.level: _normalized(record.get("Difficulty Level", "unknown"), levels),
        }
        rows += [{**base, Column.variant: i, Column.correct: ok} for i, ok in enumerate(answers)]
    return rows


@dataclass
class ExternalTable:
    results: list[CellResult]
    notes: list[str]  # one line per file that had rows set aside


def read_tables(paths: list[Path]) -> ExternalTable:
    """Cell results from CSV (or TSV, or JSON lines) files in either form, one model per file unless a
    `model` column names it: several files give one table with a row per model. They hold verdicts
    only: no reply, so no grader and nothing to re-grade. Rows that are not questions are skipped
    and counted in `notes`."""
    results: list[CellResult] = []
    notes = []
    for path in paths:
        skipped = Skipped()
        table = _read_table(path)
        if "Question ID" in table.columns:
            rows = dynamath_wide_rows(table, path.stem, skipped)
        else:
            rows = long_form_rows(table, path.stem, skipped)
        if not rows:
            raise ExternalTableError(f"{path}: no question rows")
        results += [CellResult.from_row({**row, Column.schema: SCHEMA_VERSION}) for row in rows]
        if line := skipped.line(path.name):
            notes.append(line)
    return ExternalTable(results, notes)


def _read_table(path: Path) -> pd.DataFrame:
    try:
        if path.suffix == ".jsonl":
            table = pd.read_json(path, lines=True)
        else:
            table = pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",", skip_blank_lines=True)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ExternalTableError(f"{path}: cannot read it as a table ({str(exc).splitlines()[0]})") from None
    table.columns = [str(c).strip() for c in table.columns]
    return table
