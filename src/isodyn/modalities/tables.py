"""Ruled tables drawn as pictures: a table on a given `Axes`, or a standalone table image."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from isodyn.modalities.canvas import FONT, blank
from isodyn.modalities.images import render_png


def text_width(text: str, fontsize: float = FONT) -> float:
    """A generous estimate of rendered text width in inches (DejaVu Sans averages ~0.6 em)."""
    return len(text) * fontsize * 0.62 / 72


def draw_table(
    ax: Axes,
    rows: Sequence[Sequence[str]],
    *,
    col_widths: Sequence[float],
    row_height: float = 0.5,
    x0: float = 0.0,
    y_top: float = 0.0,
    header_rows: int = 1,
    header_cols: int = 0,
    fontsize: float = FONT,
    header_fill: str = "#e6e6e6",
    cell_fills: dict[tuple[int, int], str] | None = None,
    bold_header: bool = True,
    align: Sequence[str] | None = None,
) -> float:
    """Draw a ruled table (data units = inches when the caller sizes the figure so); returns its bottom y."""
    cell_fills = cell_fills or {}
    y = y_top
    for r, row in enumerate(rows):
        x = x0
        for c, width in enumerate(col_widths):
            text = row[c] if c < len(row) else ""
            is_header = r < header_rows or c < header_cols
            fill = cell_fills.get((r, c), header_fill if is_header else "white")
            ax.add_patch(
                Rectangle((x, y - row_height), width, row_height, facecolor=fill, edgecolor="black", lw=1)
            )
            ha = align[c] if align else "center"
            tx = {"center": x + width / 2, "left": x + 0.1, "right": x + width - 0.1}[ha]
            ax.text(
                tx,
                y - row_height / 2,
                text,
                ha=ha,
                va="center",
                fontsize=fontsize,
                fontweight="bold" if (is_header and bold_header) else "normal",
            )
            x += width
        y -= row_height
    return y


def table_png(
    rows: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    header_rows: int = 1,
    header_cols: int = 0,
    fontsize: float = FONT,
    row_height: float = 0.5,
    min_col: float = 0.7,
) -> bytes:
    """A standalone table image sized to its content (title above in 12 pt)."""
    ncols = max(len(r) for r in rows)
    widths = [
        max(min_col, max(text_width(r[c] if c < len(r) else "", fontsize) for r in rows) + 0.3)
        for c in range(ncols)
    ]
    total_w, total_h = sum(widths), row_height * len(rows)
    title_h = 0.55 if title else 0.0
    if title:
        total_w = max(total_w, text_width(title, FONT + 1) + 0.2)
    x0 = (total_w - sum(widths)) / 2
    margin = 0.15

    def draw(ax: Axes) -> None:
        blank(ax, (-margin, total_w + margin), (-total_h - margin, title_h + margin))
        if title:
            ax.text(total_w / 2, title_h / 2, title, ha="center", va="center", fontsize=FONT + 1)
        draw_table(
            ax,
            rows,
            col_widths=widths,
            row_height=row_height,
            x0=x0,
            y_top=0.0,
            header_rows=header_rows,
            header_cols=header_cols,
            fontsize=fontsize,
        )

    size = (max(3.0, total_w + 2 * margin + 0.3), max(1.5, total_h + title_h + 2 * margin + 0.3))
    return render_png(draw, size=size)
