"""Puzzle pieces drawn on a given `Axes`: grids of square cells, boxes with text, and shape tokens."""

from __future__ import annotations

import math
from typing import Any

from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyBboxPatch, Patch, Polygon, Rectangle, RegularPolygon

from isodyn.modalities.canvas import FONT


def draw_cell_grid(
    ax: Axes,
    nrows: int,
    ncols: int,
    *,
    fills: dict[tuple[int, int], str] | None = None,
    labels: dict[tuple[int, int], str] | None = None,
    origin: tuple[float, float] = (0.0, 0.0),
    cell: float = 1.0,
    fontsize: float = 16,
    lw: float = 1.5,
    label_colors: dict[tuple[int, int], str] | None = None,
) -> None:
    """A grid of square cells; cell (r, c) has row 0 at the TOP. Optional fills and centred labels."""
    fills = fills or {}
    labels = labels or {}
    label_colors = label_colors or {}
    x0, y0 = origin
    for r in range(nrows):
        for c in range(ncols):
            x = x0 + c * cell
            y = y0 + (nrows - 1 - r) * cell
            ax.add_patch(
                Rectangle((x, y), cell, cell, facecolor=fills.get((r, c), "white"), edgecolor="black", lw=lw)
            )
            if (r, c) in labels:
                ax.text(
                    x + cell / 2,
                    y + cell / 2,
                    labels[(r, c)],
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color=label_colors.get((r, c), "black"),
                    fontweight="bold",
                )


def draw_box(
    ax: Axes,
    x: float,
    y: float,
    w: float,
    h: float,
    text: str = "",
    *,
    fill: str = "white",
    edge: str = "black",
    fontsize: float = FONT,
    lw: float = 1.5,
    round_: float = 0.0,
    color: str = "black",
    bold: bool = False,
) -> None:
    """A (rounded) box with centred text; (x, y) is its lower-left corner."""
    patch: Patch
    if round_:
        patch = FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle=f"round,pad=0,rounding_size={round_}",
            facecolor=fill,
            edgecolor=edge,
            lw=lw,
        )
    else:
        patch = Rectangle((x, y), w, h, facecolor=fill, edgecolor=edge, lw=lw)
    ax.add_patch(patch)
    if text:
        ax.text(
            x + w / 2,
            y + h / 2,
            text,
            ha="center",
            va="center",
            fontsize=fontsize,
            color=color,
            fontweight="bold" if bold else "normal",
        )


SHAPES = ("circle", "square", "triangle", "diamond", "hexagon", "star")


def draw_shape(ax: Axes, kind: str, x: float, y: float, size: float, color: str, zorder: int = 3) -> None:
    """A filled token centred at (x, y) with overall width about `size`."""
    r = size / 2
    style: dict[str, Any] = {"facecolor": color, "edgecolor": "black", "lw": 1.2, "zorder": zorder}
    if kind == "circle":
        ax.add_patch(Circle((x, y), r, **style))
    elif kind == "square":
        ax.add_patch(Rectangle((x - r * 0.9, y - r * 0.9), 1.8 * r, 1.8 * r, **style))
    elif kind == "triangle":
        ax.add_patch(RegularPolygon((x, y - 0.15 * r), 3, radius=r * 1.15, **style))
    elif kind == "diamond":
        ax.add_patch(RegularPolygon((x, y), 4, radius=r, **style))
    elif kind == "hexagon":
        ax.add_patch(RegularPolygon((x, y), 6, radius=r, **style))
    elif kind == "star":
        pts = []
        for k in range(10):
            rad = r * (1.0 if k % 2 == 0 else 0.45)
            ang = math.pi / 2 + k * math.pi / 5
            pts.append((x + rad * math.cos(ang), y + rad * math.sin(ang)))
        ax.add_patch(Polygon(pts, closed=True, **style))
    else:  # pragma: no cover - callers pass names from SHAPES
        raise ValueError(kind)
