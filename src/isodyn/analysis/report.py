"""Markdown report of a finished run (written by `exp report RUN_DIR` and at the end of `exp run`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from isodyn.analysis.metrics import robustness_table

_PERCENT = ("A_avg", "A_wst")


def _cell(column: str, value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{100 * value:.1f}" if column in _PERCENT else f"{value:.3f}"
    return str(value)


def markdown_table(table: pd.DataFrame) -> str:
    header = "| " + " | ".join(table.columns) + " |"
    rule = "| " + " | ".join("---" for _ in table.columns) + " |"
    lines = [header, rule]
    for record in table.to_dict("records"):
        lines.append("| " + " | ".join(_cell(c, record[c]) for c in table.columns) + " |")
    return "\n".join(lines)


def render_report(rows: list[dict[str, Any]], summary: dict[str, Any] | None, run_name: str) -> str:
    table = robustness_table(rows)
    parts = [
        f"# isodyn run {run_name}",
        "",
        "A_avg and A_wst in percent (DynaMath Eq. 1: worst case counts a seed only if every variant is "
        "right); RR = A_wst / A_avg (Eq. 2). `–`: nothing graded (every cell skipped or failed).",
        "",
        markdown_table(table),
    ]
    if summary:
        keys = ("cells", "calls_made", "cache_hits", "cost_usd", "skipped", "errors", "extraction_failed")
        parts += ["", "## Run", "", *[f"- {k}: {summary.get(k)}" for k in keys]]
        if summary.get("not_renderable"):
            parts.append(f"- not renderable (never run): {', '.join(summary['not_renderable'])}")
    return "\n".join(parts) + "\n"


def write_report(run_dir: Path, rows: list[dict[str, Any]]) -> Path:
    summary_path = run_dir / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
    path = run_dir / "report.md"
    path.write_text(render_report(rows, summary, run_dir.name), encoding="utf-8")
    return path
