"""The forest plot of paired comparisons: one line per comparison, up to MAX_LINES of them (pure).

Differences and intervals are in percentage points; the intervals drawn are whatever the caller
hands in (the comparison report hands in the simultaneous ones and says so in the title). A
comparison without a difference (no shared cells) is written "n/a" on its line, never drawn at 0.
Labels are shortened to one line each ("a vs b", then the context) with an ellipsis, so none is cut
off and both sides of a pair stay in view.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from isodyn.textsafe import visible

LABEL_WIDTH = 44  # characters per label line; longer text ends in an ellipsis
MAX_LINES = 80  # comparisons drawn (about 3,500 px tall at most); the table lists every one


@dataclass(frozen=True)
class ForestRow:
    a: str  # the first label line reads "a vs b", each side shortened as needed
    b: str
    detail: str  # the context, the second label line ("" for none)
    difference: float | None  # points; None (or NaN) when undefined
    low: float | None
    high: float | None
    holds: bool = False  # drawn filled: the difference is established (the caller's decision)


def shortened(text: str, width: int = LABEL_WIDTH) -> str:
    """`text` on one line of at most `width` characters, ending in an ellipsis when cut; controls
    shown and `$` escaped, so untrusted text never becomes mathtext."""
    one_line = " ".join(visible(str(text)).split())
    if len(one_line) > width:
        one_line = textwrap.shorten(one_line, width, placeholder="…")
        if len(one_line) <= 1:  # one long word: cut inside it
            one_line = " ".join(visible(str(text)).split())[: width - 1] + "…"
    return one_line.replace("$", r"\$")


def pair_label(a: str, b: str, width: int = LABEL_WIDTH) -> str:
    """ "a vs b" in at most `width` characters: the longer side is shortened first, so both show."""
    a, b = " ".join(visible(str(a)).split()), " ".join(visible(str(b)).split())
    room = width - len(" vs ")
    if len(a) + len(b) > room:
        half = room // 2
        if len(a) <= half:
            b = b[: room - len(a) - 1] + "…"
        elif len(b) <= half:
            a = a[: room - len(b) - 1] + "…"
        else:
            a, b = a[: half - 1] + "…", b[: room - half - 1] + "…"
    return f"{a} vs {b}".replace("$", r"\$")


def _defined(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _x_limits(rows: Sequence[ForestRow]) -> tuple[float, float]:
    values = [0.0]
    for row in rows:
        values += [v for v in (row.difference, row.low, row.high) if v is not None and _defined(v)]
    low, high = max(min(values), -100.0), min(max(values), 100.0)
    pad = max(high - low, 2.0) * 0.08
    return low - pad, high + pad


def forest_png(rows: Sequence[ForestRow], title: str, xlabel: str = "A − B (accuracy points)") -> bytes:
    """The forest plot as PNG bytes: the figure grows with the rows, labels on the left; past
    MAX_LINES rows, the first MAX_LINES are drawn and the title says so."""
    if len(rows) > MAX_LINES:
        title = f"{title} (the first {MAX_LINES} of {len(rows):,} comparisons; the table lists all)"
        rows = rows[:MAX_LINES]
    n = len(rows)
    two_lines = any(row.detail for row in rows)
    per_row = 0.42 if two_lines else 0.3
    fig = Figure(figsize=(9.5, 1.9 + per_row * max(n, 1)), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ys = list(range(n))[::-1]
    text_at = blended_transform_factory(ax.transAxes, ax.transData)
    for y, row in zip(ys, rows, strict=True):
        if row.difference is None or not _defined(row.difference):
            ax.text(0.5, y, "n/a (no difference: no shared cells)", transform=text_at, ha="center",
                    va="center", fontsize=8, color="#666666", style="italic", zorder=3,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})  # fmt: skip
            continue
        colour = "#1f4e89" if row.holds else "#7f7f7f"
        if row.low is not None and row.high is not None and _defined(row.low) and _defined(row.high):
            ax.hlines(y, row.low, row.high, color=colour, linewidth=1.6)
            ax.vlines([row.low, row.high], y - 0.15, y + 0.15, color=colour, linewidth=1.2)
        ax.plot([row.difference], [y], marker="o", markersize=5.5, color=colour,
                markerfacecolor=colour if row.holds else "white")  # fmt: skip
    ax.axvline(0, color="black", linewidth=0.9, zorder=0)
    labels = [pair_label(row.a, row.b) + (f"\n{shortened(row.detail)}" if row.detail else "") for row in rows]
    ax.set_yticks(ys, labels, fontsize=8)
    ax.set_ylim(-0.7, max(n, 1) - 0.3)
    ax.set_xlim(*_x_limits(rows))
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=10)
    handles = [
        Line2D([], [], marker="o", color="#1f4e89", label="difference established"),
        Line2D([], [], marker="o", color="#7f7f7f", markerfacecolor="white", label="not established"),
    ]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None}, bbox_inches="tight", pad_inches=0.15)
    return buffer.getvalue()


def forest_frame(comparisons: pd.DataFrame, alpha: float = 0.05) -> bytes:
    """The forest plot of a comparison table (`a`, `b`, `context`, `difference`, and the interval as
    `simultaneous_low`/`simultaneous_high` when there, else `low`/`high`; accuracy 0..1)."""
    simultaneous = "simultaneous_low" in comparisons.columns
    low, high = ("simultaneous_low", "simultaneous_high") if simultaneous else ("low", "high")
    rows = []
    for record in comparisons.to_dict("records"):
        p = record.get("p_holm")
        rows.append(
            ForestRow(
                a=str(record["a"]),
                b=str(record["b"]),
                detail=str(record.get("context") or ""),
                difference=_points(record.get("difference")),
                low=_points(record.get(low)),
                high=_points(record.get(high)),
                holds=p is not None and p == p and p < alpha,
            )
        )
    kind = "simultaneous" if simultaneous else "per-comparison"
    return forest_png(rows, f"Paired differences A − B with {kind} intervals")


def _points(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return 100 * number if math.isfinite(number) else None
