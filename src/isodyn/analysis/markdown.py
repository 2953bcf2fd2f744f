"""Tables as Markdown (pure): the one place a report cell is formatted as text."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.3f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: pd.DataFrame) -> str:
    if table.empty:
        return "_(nothing to show)_"
    lines = [
        "| " + " | ".join(map(str, table.columns)) + " |",
        "| " + " | ".join("---" for _ in table.columns) + " |",
    ]
    for record in table.to_dict("records"):
        lines.append("| " + " | ".join(_cell(record[c]) for c in table.columns) + " |")
    return "\n".join(lines)
