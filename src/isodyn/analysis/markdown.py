"""Tables as Markdown and as HTML (pure): the one place a report cell is formatted as text.

Cells may hold untrusted text (model names, seed ids), so every cell goes through one escaping
function per output: `textsafe.markdown_text` for Markdown, markupsafe's escaping for HTML.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from markupsafe import Markup

from isodyn.textsafe import markdown_text, visible


def cell_text(value: Any) -> str:
    """A cell's value as plain text (floats to three places, NaN as a dash)."""
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def markdown_cell(value: Any) -> str:
    """A cell that cannot split its row: line breaks and controls made visible, `|` escaped."""
    return markdown_text(cell_text(value))


def markdown_table(table: pd.DataFrame) -> str:
    if table.empty:
        return "_(nothing to show)_"
    lines = [
        "| " + " | ".join(map(markdown_cell, table.columns)) + " |",
        "| " + " | ".join("---" for _ in table.columns) + " |",
    ]
    for record in table.to_dict("records"):
        lines.append("| " + " | ".join(markdown_cell(record[c]) for c in table.columns) + " |")
    return "\n".join(lines)


def _html_cells(tag: str, values: list[Any]) -> Markup:
    # Markup.format escapes each argument: the cell text is never read as markup.
    return Markup("").join(
        Markup("<{0}>{1}</{0}>").format(Markup(tag), visible(cell_text(v))) for v in values
    )


def html_table(table: pd.DataFrame) -> Markup:
    """The table as an HTML <table>, built from escaped cells and marked safe only as a whole."""
    head = Markup("<thead><tr>{}</tr></thead>").format(_html_cells("th", list(table.columns)))
    rows = Markup("").join(
        Markup("<tr>{}</tr>").format(_html_cells("td", [record[c] for c in table.columns]))
        for record in table.to_dict("records")
    )
    return Markup('<table class="table">{}<tbody>{}</tbody></table>').format(head, rows)
