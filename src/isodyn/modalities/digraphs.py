"""Helpers for problems about a small weighted directed graph (a flow network): its weighted adjacency
matrix, and its drawing on a ring of nodes with a source and a sink (`digraph_png`). The undirected
graphs are `modalities/graphs.py`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from matplotlib.axes import Axes

from isodyn.modalities.graphs import HIGHLIGHT_COLOR, HIGHLIGHT_NAME, NODE_COLOR, segment_distance
from isodyn.modalities.images import render_png

Arc = tuple[int, int, int]  # (tail, head, capacity): a directed edge tail -> head

SOURCE_COLOR = "#74c476"  # green
SOURCE_NAME = "green"
SINK_COLOR = HIGHLIGHT_COLOR  # orange
SINK_NAME = HIGHLIGHT_NAME
_DIGRAPH_NODE_SIZE = 700  # scatter area in points^2 (radius about 13 pt)
_ARROW_SHRINK = 15.5  # points: arrows start and stop just outside the node discs


def normalize_arcs(arcs: Iterable[Sequence[int]]) -> list[Arc]:
    """Sorted `(tail, head, weight)` triples with positive weight (zero-weight arcs mean "no edge")."""
    out = sorted((int(a), int(b), int(c)) for a, b, c in arcs if int(c) != 0)
    if len({(a, b) for a, b, _ in out}) != len(out) or any(a == b for a, b, _ in out):
        raise ValueError("arcs must be distinct and without self-loops")
    return out


def weighted_adjacency_matrix(n: int, arcs: Iterable[Sequence[int]]) -> list[list[int]]:
    """`A[i][j]` = weight of the arc i -> j, 0 where there is none (not symmetric)."""
    mat = [[0] * n for _ in range(n)]
    for a, b, c in normalize_arcs(arcs):
        mat[a][b] = c
    return mat


def weighted_adjacency_latex(n: int, arcs: Iterable[Sequence[int]], name: str = "C") -> str:
    """`C = \\begin{bmatrix} ... \\end{bmatrix}` for a weighted directed graph, one row per line."""
    rows = [" & ".join(str(v) for v in row) + r" \\" for row in weighted_adjacency_matrix(n, arcs)]
    rows[-1] = rows[-1].removesuffix(r" \\")
    return f"{name} = \\begin{{bmatrix}}\n" + "\n".join(rows) + "\n\\end{bmatrix}"


def ring_positions(order: Sequence[int]) -> dict[int, tuple[float, float]]:
    """Nodes on a regular polygon of circumradius 1: `order[0]` on the left, the rest clockwise.

    Polygon vertices are in convex position, so no straight edge can pass through a third node.
    """
    m = len(order)
    return {
        int(v): (-math.cos(2 * math.pi * i / m), math.sin(2 * math.pi * i / m)) for i, v in enumerate(order)
    }


def _label_spots(
    arcs: list[Arc], pos: dict[int, tuple[float, float]]
) -> dict[tuple[int, int], tuple[float, float]]:
    """Where each arc's weight is written: a point on the arc itself, chosen greedily to stay clear of
    the other arcs, the other labels and the nodes (the midpoint unless something is in the way)."""
    fractions = (0.5, 0.42, 0.58, 0.36, 0.64, 0.3)
    spots: dict[tuple[int, int], tuple[float, float]] = {}
    for a, b, _ in arcs:
        (x0, y0), (x1, y1) = pos[a], pos[b]
        best, best_clear = None, -1.0
        for t in fractions:
            p = (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
            clear = min(
                [segment_distance(p, pos[c], pos[d]) for c, d, _ in arcs if (c, d) != (a, b)]
                + [0.8 * math.dist(p, q) for q in spots.values()]  # labels are wider than lines
                + [math.dist(p, q) - 0.15 for q in pos.values()],  # nodes have a radius
                default=math.inf,
            )
            if clear > best_clear + 0.03:  # prefer earlier (more central) spots unless clearly better
                best, best_clear = p, clear
        assert best is not None
        spots[(a, b)] = best
    return spots


def draw_digraph(
    ax: Axes,
    n: int,
    arcs: Iterable[Sequence[int]],
    pos: dict[int, tuple[float, float]],
    *,
    source: int | None = None,
    sink: int | None = None,
) -> None:
    """Arcs as straight arrows with their weight written on them; source and sink filled and named."""
    arcs = normalize_arcs(arcs)
    spots = _label_spots(arcs, pos)
    for a, b, c in arcs:
        ax.annotate(
            "",
            xy=pos[b],
            xytext=pos[a],
            arrowprops={
                "arrowstyle": "-|>",
                "mutation_scale": 22,
                "color": "0.2",
                "linewidth": 1.6,
                "shrinkA": _ARROW_SHRINK,
                "shrinkB": _ARROW_SHRINK,
            },
            zorder=1,
        )
        x, y = spots[(a, b)]
        ax.text(
            x,
            y,
            str(c),
            ha="center",
            va="center",
            fontsize=12,
            fontweight="bold",
            color="#08306b",
            bbox={"boxstyle": "round,pad=0.18", "facecolor": "white", "edgecolor": "none"},
            zorder=4,
        )
    cx = sum(p[0] for p in pos.values()) / n
    cy = sum(p[1] for p in pos.values()) / n
    for i in range(n):
        xi, yi = pos[i]
        color = SOURCE_COLOR if i == source else SINK_COLOR if i == sink else NODE_COLOR
        ax.scatter([xi], [yi], s=_DIGRAPH_NODE_SIZE, c=color, edgecolors="black", linewidths=1.2, zorder=5)
        ax.text(xi, yi, str(i), ha="center", va="center", fontsize=13, fontweight="bold", zorder=6)
        if i in (source, sink):
            # The role is written just outside the polygon, on the far side from its centre.
            dx, dy = xi - cx, yi - cy
            norm = math.hypot(dx, dy) or 1.0
            dx, dy = dx / norm, dy / norm
            ha = "center" if abs(dx) < 0.4 else ("left" if dx > 0 else "right")
            va = "center" if abs(dy) < 0.4 else ("bottom" if dy > 0 else "top")
            ax.text(
                xi + 0.2 * dx,
                yi + 0.2 * dy,
                "source" if i == source else "sink",
                ha=ha,
                va=va,
                fontsize=11,
                fontstyle="italic",
                zorder=6,
            )
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    ax.set_xlim(min(xs) - 0.75, max(xs) + 0.75)
    ax.set_ylim(min(ys) - 0.4, max(ys) + 0.4)
    ax.set_aspect("equal")
    ax.axis("off")


def digraph_png(
    n: int,
    arcs: Iterable[Sequence[int]],
    *,
    order: Sequence[int] | None = None,
    source: int | None = None,
    sink: int | None = None,
    caption: str | None = None,
    size: tuple[float, float] = (5, 4),
    dpi: int = 100,
) -> bytes:
    """PNG of a weighted directed graph on a regular polygon (`order`: see `ring_positions`)."""
    pos = ring_positions(list(order) if order is not None else list(range(n)))

    def draw(ax: Axes) -> None:
        draw_digraph(ax, n, arcs, pos, source=source, sink=sink)
        if caption:
            ax.set_title(caption, fontsize=10)

    return render_png(draw, size=size, dpi=dpi)
