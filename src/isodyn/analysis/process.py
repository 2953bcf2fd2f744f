"""Error-type distribution from process evaluation (MM-MATH Section 3.3; DynaMath Figure 6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from isodyn.analysis.markdown import markdown_table
from isodyn.scoring.judge import ERROR_TYPES

UNREADABLE = "unreadable_judgement"
NO_ERROR_FOUND = "no_error_found"


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
