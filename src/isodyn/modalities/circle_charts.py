"""Charts drawn as circles: Venn diagrams, pie charts and spinners.

Everything is a pure function of its arguments, so the same data give the same PNG bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle, Rectangle, Wedge

from isodyn.modalities.images import render_png
from isodyn.modalities.palette import text_color_on
from isodyn.modalities.stat_charts import LABEL_SIZE

Point = tuple[float, float]

# Venn diagrams: circle centres (radius 1) and the outer rectangle, in data units.
_VENN_CENTRES = {
    2: [(-0.6, 0.0), (0.6, 0.0)],
    3: [(0.0, 0.62), (-0.62, -0.45), (0.62, -0.45)],
}

_VENN_FILLS = ("#9ecae1", "#fdae6b", "#a1d99b")  # light blue, light orange, light green (never asked)


def _frame(ax: Axes, half_width: float, half_height: float, title: str | None = None) -> None:
    """The view -half_width..half_width by -half_height..half_height at equal scale, no axes, a title."""
    ax.set_xlim(-half_width, half_width)
    ax.set_ylim(-half_height, half_height)
    ax.set_aspect("equal")
    ax.axis("off")
    if title is not None:
        ax.set_title(title, fontsize=12)


def venn_region_spots(k: int) -> dict[tuple[int, ...], Point]:
    """For each region (membership tuple, 1 = inside that circle) the point deepest inside it."""
    centres = _VENN_CENTRES[k]
    xs, ys = np.meshgrid(np.linspace(-2.2, 2.2, 221), np.linspace(-2.0, 2.0, 201))
    dists = [np.hypot(xs - cx, ys - cy) for cx, cy in centres]
    inside = [d < 1 for d in dists]
    margin = np.min([np.abs(d - 1) for d in dists], axis=0)
    spots: dict[tuple[int, ...], Point] = {}
    for bits in np.ndindex(*(2,) * k):
        if not any(bits):
            continue
        mask = np.ones_like(xs, dtype=bool)
        for b, ins in zip(bits, inside, strict=True):
            mask &= ins if b else ~ins
        mask &= (np.abs(xs) < 1.75) & (np.abs(ys) < 1.7)
        score = np.where(mask, margin, -1.0)
        j = int(np.argmax(score))
        spots[tuple(int(b) for b in bits)] = (round(float(xs.flat[j]), 3), round(float(ys.flat[j]), 3))
    return spots


def venn_png(
    set_labels: Sequence[str], counts: dict[tuple[int, ...], int], outside: int, title: str
) -> bytes:
    """Two or three overlapping circles in a universal rectangle; every region shows its count."""
    k = len(set_labels)
    centres = _VENN_CENTRES[k]
    spots = venn_region_spots(k)

    def draw(ax: Axes) -> None:
        ax.add_patch(Rectangle((-2.6, -2.15), 5.2, 4.3, fill=False, edgecolor="black", linewidth=1.5))
        ax.text(-2.45, 1.98, "U", ha="left", va="top", fontsize=14, fontweight="bold")
        for (cx, cy), fill in zip(centres, _VENN_FILLS, strict=False):
            ax.add_patch(Circle((cx, cy), 1.0, facecolor=fill, alpha=0.45, edgecolor="none"))
        for cx, cy in centres:
            ax.add_patch(Circle((cx, cy), 1.0, fill=False, edgecolor="black", linewidth=1.5))
        for bits, (x, y) in spots.items():
            ax.text(x, y, str(counts[bits]), ha="center", va="center", fontsize=14, fontweight="bold")
        # Set names just outside their circles, away from the centre of the diagram.
        for label, (cx, cy) in zip(set_labels, centres, strict=True):
            if k == 2:
                x, y, ha, va = cx + (-0.55 if cx < 0 else 0.55), 1.05, "center", "bottom"
            elif cy > 0:
                x, y, ha, va = cx, cy + 1.05, "center", "bottom"
            else:  # below the lower circles, inside the rectangle
                x, y, ha, va = cx + (-0.3 if cx < 0 else 0.3), cy - 1.08, "center", "top"
            ax.text(x, y, label, ha=ha, va=va, fontsize=12, fontweight="bold")
        ax.text(2.45, -2.0, str(outside), ha="right", va="bottom", fontsize=14, fontweight="bold")
        _frame(ax, 2.7, 2.25, title)

    return render_png(draw, size=(5.2, 4.6))


def _sector(
    ax: Axes,
    end: float,
    sweep: float,
    color: str,
    text: str,
    *,
    edge: tuple[str, float],
    text_at: float,
    fontsize: float,
) -> None:
    """The sector of the unit circle from `end - sweep` to `end` degrees, filled with `color`, outlined
    in `edge` (colour, width), and `text` in bold on it at `text_at` of the radius."""
    ax.add_patch(Wedge((0, 0), 1.0, end - sweep, end, facecolor=color, edgecolor=edge[0], linewidth=edge[1]))
    mid = math.radians(end - sweep / 2)
    ax.text(
        text_at * math.cos(mid), text_at * math.sin(mid), text, ha="center", va="center", fontsize=fontsize,
        fontweight="bold", color=text_color_on(color),
    )  # fmt: skip


def pie_png(counts: Sequence[int], colors: Sequence[str], legend: Sequence[str], title: str) -> bytes:
    """A pie chart (clockwise from the top) with each sector's count inside it and a colour legend."""

    def draw(ax: Axes) -> None:
        total = sum(counts)
        start = 90.0
        for count, color in zip(counts, colors, strict=True):
            sweep = 360.0 * count / total
            _sector(ax, start, sweep, color, str(count), edge=("white", 2), text_at=0.66, fontsize=13)
            start -= sweep
        handles = [Rectangle((0, 0), 1, 1, facecolor=c, edgecolor="black") for c in colors]
        ax.legend(
            handles, list(legend), loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=LABEL_SIZE,
            frameon=False,
        )  # fmt: skip
        _frame(ax, 1.05, 1.05, title)

    return render_png(draw, size=(6, 4))


def spinner_png(colors: Sequence[str], numbers: Sequence[int], pointer_deg: float) -> bytes:
    """A spinner of equal sectors (clockwise from the top), each with a colour and a number."""
    n = len(colors)

    def draw(ax: Axes) -> None:
        sweep = 360.0 / n
        for i, (color, number) in enumerate(zip(colors, numbers, strict=True)):
            hi = 90.0 - i * sweep
            _sector(ax, hi, sweep, color, str(number), edge=("black", 1.5), text_at=0.72, fontsize=16)
        a = math.radians(pointer_deg)
        ax.annotate(
            "", xy=(0.5 * math.cos(a), 0.5 * math.sin(a)), xytext=(0, 0),
            arrowprops={"arrowstyle": "-|>", "color": "black", "linewidth": 3, "mutation_scale": 22},
        )  # fmt: skip
        ax.add_patch(Circle((0, 0), 0.06, color="black", zorder=5))
        _frame(ax, 1.1, 1.1)

    return render_png(draw, size=(4.5, 4.5))
