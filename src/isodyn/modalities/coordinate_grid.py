"""Drawing helpers for the coordinate-plane seeds: a unit grid with tick labels of at least 10 pt,
labelled points placed so they do not overlap, and the figure as PNG (`grid_png`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from matplotlib.axes import Axes

from isodyn.modalities.geometry import FIG_SIZE, TICK_SIZE, Point, Points, label, place_labels
from isodyn.modalities.images import render_png


def coordinate_grid(
    ax: Axes,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    *,
    step: int = 1,
    label_step: int | None = None,
    unit: int = 1,
) -> None:
    """A unit grid with the axes drawn through the origin, arrowheads, and integer tick labels; with
    `unit` > 1 the grid lines stand for `unit` apart (a seed's numbers scaled, issue 41) and every
    second or third line is labelled, so the longer numbers do not collide."""
    if label_step is None:  # scaled numbers are wider: every second or third line is labelled
        label_step = step if unit == 1 else max(step, 2 if len(str(unit)) <= 4 else 3)
    # Tick numbers stay readable where a drawn curve passes behind them (a light halo, not a solid box).
    tick_style: dict[str, Any] = {
        "fontsize": TICK_SIZE,
        # Scaled numbers are long enough to reach a point drawn next to an axis: they go under it then.
        "zorder": 7 if unit == 1 else 2,
        "bbox": {"facecolor": "white", "edgecolor": "none", "alpha": 0.7, "pad": 0.2},
    }
    x0, x1 = xlim
    y0, y1 = ylim
    for gx in range(math.ceil(x0), math.floor(x1) + 1):
        if gx % step == 0:
            ax.plot([gx, gx], [y0, y1], color="0.86", lw=0.7, zorder=0)
    for gy in range(math.ceil(y0), math.floor(y1) + 1):
        if gy % step == 0:
            ax.plot([x0, x1], [gy, gy], color="0.86", lw=0.7, zorder=0)
    ax.annotate("", xy=(x1, 0), xytext=(x0, 0), arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.1})
    ax.annotate("", xy=(0, y1), xytext=(0, y0), arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.1})
    for gx in range(math.ceil(x0), math.floor(x1) + 1):
        if gx != 0 and gx % label_step == 0 and x0 + 0.4 < gx < x1 - 0.4:
            ax.text(gx, -0.12, str(gx * unit).replace("-", "\u2212"), ha="center", va="top", **tick_style)
            ax.plot([gx, gx], [-0.08, 0.08], color="black", lw=1)
    for gy in range(math.ceil(y0), math.floor(y1) + 1):
        if gy != 0 and gy % label_step == 0 and y0 + 0.4 < gy < y1 - 0.4:
            ax.text(-0.15, gy, str(gy * unit).replace("-", "\u2212"), ha="right", va="center", **tick_style)
            ax.plot([-0.08, 0.08], [gy, gy], color="black", lw=1)
    ax.text(-0.15, -0.12, "0", ha="right", va="top", fontsize=TICK_SIZE)
    ax.text(x1, 0.15, "x", ha="right", va="bottom", fontsize=12, style="italic")
    ax.text(0.2, y1, "y", ha="left", va="top", fontsize=12, style="italic")


def grid_scale(
    xlim: tuple[float, float], ylim: tuple[float, float], size: tuple[float, float] = FIG_SIZE
) -> float:
    """Data units per point in a `grid_png` figure."""
    return max((xlim[1] - xlim[0]) / (size[0] * 72 * 0.9), (ylim[1] - ylim[0]) / (size[1] * 72 * 0.9))


def label_points(
    ax: Axes,
    points: Points,
    texts: Sequence[str],
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    *,
    segments: Sequence[tuple[Point, Point]] = (),
    colors: Sequence[str] | None = None,
    size: float = 12,
    size_in: tuple[float, float] = FIG_SIZE,
) -> None:
    """Coordinate labels next to points on a grid, kept clear of each other, the axes and `segments`."""
    scale = grid_scale(xlim, ylim, size_in)
    # The axes and the rows of tick labels beside them.
    axes = [
        ((xlim[0], 0.0), (xlim[1], 0.0)),
        ((xlim[0], -0.3), (xlim[1], -0.3)),
        ((0.0, ylim[0]), (0.0, ylim[1])),
        ((-0.35, ylim[0]), (-0.35, ylim[1])),
    ]
    centres = place_labels(
        points,
        texts,
        scale=scale,
        segments=[*segments, *axes],
        bounds=(xlim[0], ylim[0], xlim[1], ylim[1]),
        size=size,
        gap=4,
    )
    for k, (c, t) in enumerate(zip(centres, texts, strict=True)):
        label(ax, c, t, size=size, color=(colors[k] if colors else "black"))


def grid_png(
    draw: Callable[[Axes], None],
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    *,
    size: tuple[float, float] = FIG_SIZE,
    label_step: int | None = None,
    unit: int = 1,
) -> bytes:
    """PNG of a drawing on a coordinate grid with equal units on both axes (`draw` works in grid
    lines; `unit` is what one grid line stands for, see `coordinate_grid`)."""

    def _draw(ax: Axes) -> None:
        coordinate_grid(ax, xlim, ylim, label_step=label_step, unit=unit)
        draw(ax)
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal", adjustable="box")
        ax.set_axis_off()

    return render_png(_draw, size=size)
