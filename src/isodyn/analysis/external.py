"""Results from outside isodyn, as rows the reports understand (pure).

- long form: one row per cell with `seed_id, variant, correct` and any of `model, strategy,
  modality, repeat, topic, level` (missing ones get defaults);
- DynaMath's published wide form: `Question ID, Variant 1 ... Variant 10, # of correct per question,
  Topic, Difficulty Level`, one row per seed question.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from isodyn.core import Level, Topic
from isodyn.results import SCHEMA_VERSION, CellResult

_TRUE = {"1", "true", "yes", "y", "t", "correct", "1.0"}
_FALSE = {"0", "false", "no", "n", "f", "wrong", "incorrect", "0.0"}


class ExternalTableError(ValueError):
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


def _defaults(model: str) -> dict[str, Any]:
    return {"model": model, "strategy": "external", "modality": "image", "repeat": 0, "topic": "unknown",
            "level": "unknown", "reason": "ok", "answer_type": "multiple_choice", "truth": "",
            "extracted": None}  # fmt: skip


def long_form_rows(table: pd.DataFrame, model: str) -> list[dict[str, Any]]:
    missing = {"seed_id", "variant", "correct"} - set(table.columns)
    if missing:
        raise ExternalTableError(f"long-form table lacks column(s) {', '.join(sorted(missing))}")
    topics, levels = [t.value for t in Topic], [lv.value for lv in Level]
    rows = []
    for record in table.to_dict("records"):
        row = {**_defaults(model), **{k: v for k, v in record.items() if pd.notna(v)}}
        row["seed_id"], row["variant"] = str(row["seed_id"]), int(row["variant"])
        row["repeat"], row["correct"] = int(row["repeat"]), _truth_value(row["correct"])
        row["topic"], row["level"] = _normalized(row["topic"], topics), _normalized(row["level"], levels)
        rows.append(row)
    return rows


def dynamath_wide_rows(table: pd.DataFrame, model: str) -> list[dict[str, Any]]:
    variant_columns = sorted(
        (c for c in table.columns if re.fullmatch(r"Variant \d+", str(c))),
        key=lambda c: int(str(c).split()[1]),
    )
    if "Question ID" not in table.columns or not variant_columns:
        raise ExternalTableError("DynaMath wide form needs 'Question ID' and 'Variant 1', 'Variant 2', ...")
    topics, levels = [t.value for t in Topic], [lv.value for lv in Level]
    rows = []
    for record in table.to_dict("records"):
        answers = [_truth_value(record[c]) for c in variant_columns]
        stated = record.get("# of correct per question")
        if stated is not None and pd.notna(stated) and int(stated) != sum(answers):
            raise ExternalTableError(
                f"question {record['Question ID']}: '# of correct per question' is {stated}, "
                f"but its variants add up to {sum(answers)}"
            )
        base = {
            **_defaults(model),
            "seed_id": str(record["Question ID"]),
            "topic": _normalized(record.get("Topic", "unknown"), topics),
            "level": _normalized(record.get("Difficulty Level", "unknown"), levels),
        }
        rows += [{**base, "variant": i, "correct": ok} for i, ok in enumerate(answers)]
    return rows


def read_external(path: Path) -> list[CellResult]:
    """Cell results from a CSV (or TSV, or JSON lines) file in either form; the model is named after
    the file. They hold verdicts only: no reply, so no grader and nothing to re-grade."""
    if path.suffix == ".jsonl":
        table = pd.read_json(path, lines=True)
    else:
        table = pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",")
    table.columns = [str(c).strip() for c in table.columns]
    if "Question ID" in table.columns:
        rows = dynamath_wide_rows(table, path.stem)
    else:
        rows = long_form_rows(table, path.stem)
    return [CellResult.from_row({**row, "schema": SCHEMA_VERSION}) for row in rows]
