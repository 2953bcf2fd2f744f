"""Shared helpers for statistics charts, science figures and labelled graphs.

Drawing: bar charts, stem-and-leaf plots, box plots, Venn diagrams, pie charts, spinners, dot plots,
scatter plots and graphs with coloured nodes or weighted edges. Text: numbers written exactly (or
rounded to DynaMath's three decimals), LaTeX tables and Python code blocks. Layout: spread-out node
positions, planar (Delaunay) edge sets and edge-label spots that belong to exactly one edge.

Everything is a pure function of its arguments, so the same data give the same PNG bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle, Rectangle, Wedge
from matplotlib.ticker import MultipleLocator

from isodyn.modalities.images import render_png

Point = Sequence[float]  # (x, y)

# Colour names a reader cannot confuse with one another (no pink next to red, no cyan next to blue).
COLORS: dict[str, str] = {
    "red": "#d62728",
    "blue": "#1f77b4",
    "green": "#2ca02c",
    "orange": "#ff7f0e",
    "purple": "#9467bd",
    "yellow": "#ffe135",
    "brown": "#8c564b",
    "gray": "#7f7f7f",
}
LABEL_SIZE = 11  # default font size for labels inside figures (never below 10)


# ---------------------------------------------------------------------------------------------- text


def fmt_number(value: Fraction | int | float | str, places: int = 3) -> str:
    """A number written plainly: exact when it has at most `places` decimals, else rounded half up.

    `Fraction(7, 2)` -> `3.5`, `Fraction(1, 3)` -> `0.333`, `4.0` -> `4`, `-0.25` -> `-0.25`.
    """
    q = value if isinstance(value, Fraction) else Fraction(str(value))
    if q.denominator == 1:
        return str(q.numerator)
    with localcontext() as ctx:
        ctx.prec = 50
        d = (Decimal(q.numerator) / Decimal(q.denominator)).quantize(
            Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP
        )
    text = format(d, "f").rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt_exact(value: Fraction | int) -> str:
    """A fraction as `a/b` unless it is a short decimal: `60/13`, `4.5`, `7`."""
    q = Fraction(value)
    if q.denominator == 1:
        return str(q.numerator)
    d = q.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1 and len(fmt_number(q, 6).split(".")[-1]) <= 3:
        return fmt_number(q)
    return f"{q.numerator}/{q.denominator}"


def latex_table(headers: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None) -> str:
    """A `tabular` with a header row, one source line per row."""
    align = align or "l" + "r" * (len(headers) - 1)
    lines = [f"\\begin{{tabular}}{{{align}}}", "\\hline", " & ".join(headers) + r" \\", "\\hline"]
    lines += [" & ".join(str(c) for c in row) + r" \\" for row in rows]
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines)


def code_block(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def join_words(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def text_color_on(hex_color: str) -> str:
    """Black or white, whichever reads better on a fill of `hex_color`."""
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


# ---------------------------------------------------------------------------------------------- charts


def _value_axis(ax: Axes, horizontal: bool, step: float, top: float, label: str) -> None:
    axis = ax.xaxis if horizontal else ax.yaxis
    axis.set_major_locator(MultipleLocator(step))
    (ax.set_xlim if horizontal else ax.set_ylim)(0, top)
    (ax.set_xlabel if horizontal else ax.set_ylabel)(label, fontsize=LABEL_SIZE)
    ax.grid(True, axis="x" if horizontal else "y", color="0.85", linewidth=0.7)
    ax.set_axisbelow(True)


def nice_step(top: float, max_ticks: int = 10) -> float:
    """The smallest of 1, 2, 5, 10, 20, ... that gives at most `max_ticks` ticks up to `top`."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if top / step <= max_ticks:
            return step
    return 10 ** math.ceil(math.log10(top))


def bar_chart_png(
    categories: Sequence[str],
    values: Sequence[int],
    *,
    horizontal: bool,
    color: str,
    title: str,
    category_label: str,
    value_label: str,
) -> bytes:
    """Bars with their values written at the bar ends, on a grid."""
    step = nice_step(max(values) * 1.15)
    top = math.ceil(max(values) * 1.15 / step) * step

    def draw(ax: Axes) -> None:
        idx = np.arange(len(categories))
        if horizontal:
            ax.barh(idx, values, color=color, edgecolor="black", height=0.6, zorder=2)
            ax.set_yticks(idx, list(categories), fontsize=LABEL_SIZE)
            ax.invert_yaxis()  # first category on top, as a table reads
            ax.set_ylabel(category_label, fontsize=LABEL_SIZE)
            for i, v in enumerate(values):
                ax.text(v + top * 0.01, i, str(v), va="center", ha="left", fontsize=LABEL_SIZE)
        else:
            ax.bar(idx, values, color=color, edgecolor="black", width=0.6, zorder=2)
            ax.set_xticks(idx, list(categories), fontsize=LABEL_SIZE)
            ax.set_xlabel(category_label, fontsize=LABEL_SIZE)
            for i, v in enumerate(values):
                ax.text(i, v + top * 0.01, str(v), va="bottom", ha="center", fontsize=LABEL_SIZE)
        _value_axis(ax, horizontal, step, top, value_label)
        ax.tick_params(labelsize=10)
        ax.set_title(title, fontsize=12)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)

    return render_png(draw, size=(5.5 if horizontal else 5, 4))


def stem_leaf_png(rows: Sequence[tuple[int, Sequence[int]]], title: str, key: str) -> bytes:
    """A stem-and-leaf display: one row per stem, leaves in order, a vertical bar, the key below."""
    n = len(rows)

    def draw(ax: Axes) -> None:
        ax.set_xlim(0, 10)
        ax.set_ylim(-(n + 2.2), 1.2)
        ax.axis("off")
        ax.text(2.3, 0.2, "Stem", ha="right", va="center", fontsize=13, fontweight="bold")
        ax.text(3.0, 0.2, "Leaf", ha="left", va="center", fontsize=13, fontweight="bold")
        ax.plot([2.65, 2.65], [0.75, -n - 0.4], color="black", linewidth=1.5)
        ax.plot([0.6, 9.6], [-0.35, -0.35], color="black", linewidth=1.0)
        for i, (stem, leaves) in enumerate(rows):
            y = -(i + 1)
            ax.text(2.3, y, str(stem), ha="right", va="center", fontsize=13, family="DejaVu Sans Mono")
            ax.text(
                3.0, y, "  ".join(str(x) for x in leaves), ha="left", va="center", fontsize=13,
                family="DejaVu Sans Mono",
            )  # fmt: skip
        ax.text(0.6, -(n + 1.5), key, ha="left", va="center", fontsize=11, style="italic")
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5, max(3.0, 1.2 + 0.42 * (n + 3))))


def box_plot_png(
    names: Sequence[str],
    colors: Sequence[str],
    summaries: Sequence[Sequence[float]],
    *,
    horizontal: bool,
    axis_label: str,
    lo: float,
    hi: float,
    step: float,
    title: str,
) -> bytes:
    """Box plots drawn from five-number summaries (min, Q1, median, Q3, max); a tick at every `step`."""

    def draw(ax: Axes) -> None:
        for i, (color, (mn, q1, med, q3, mx)) in enumerate(zip(colors, summaries, strict=True)):
            c, w = float(i), 0.5

            def seg(a: float, b: float, p: float, q: float, **kw: Any) -> None:
                # a, b along the value axis; p, q across it
                xs, ys = ([a, b], [p, q]) if horizontal else ([p, q], [a, b])
                ax.plot(xs, ys, color="black", **kw)

            box = (
                Rectangle((q1, c - w / 2), q3 - q1, w)
                if horizontal
                else Rectangle((c - w / 2, q1), w, q3 - q1)
            )
            box.set(facecolor=color, edgecolor="black", linewidth=1.4, zorder=2)
            ax.add_patch(box)
            seg(med, med, c - w / 2, c + w / 2, linewidth=2.6, zorder=3)
            seg(mn, q1, c, c, linewidth=1.4, zorder=1)
            seg(q3, mx, c, c, linewidth=1.4, zorder=1)
            seg(mn, mn, c - w / 4, c + w / 4, linewidth=1.4, zorder=1)
            seg(mx, mx, c - w / 4, c + w / 4, linewidth=1.4, zorder=1)
        idx = list(range(len(names)))
        if horizontal:
            ax.set_yticks(idx, list(names), fontsize=LABEL_SIZE)
            ax.set_ylim(-0.6, len(names) - 0.4)
            ax.invert_yaxis()
            ax.set_xlim(lo, hi)
            ax.xaxis.set_major_locator(MultipleLocator(step))
            ax.set_xlabel(axis_label, fontsize=LABEL_SIZE)
            ax.grid(True, axis="x", color="0.85", linewidth=0.7)
        else:
            ax.set_xticks(idx, list(names), fontsize=LABEL_SIZE)
            ax.set_xlim(-0.6, len(names) - 0.4)
            ax.set_ylim(lo, hi)
            ax.yaxis.set_major_locator(MultipleLocator(step))
            ax.set_ylabel(axis_label, fontsize=LABEL_SIZE)
            ax.grid(True, axis="y", color="0.85", linewidth=0.7)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=10)
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5.5, 4) if horizontal else (5, 4.5))


# Venn diagrams: circle centres (radius 1) and the outer rectangle, in data units.
_VENN_CENTRES = {
    2: [(-0.6, 0.0), (0.6, 0.0)],
    3: [(0.0, 0.62), (-0.62, -0.45), (0.62, -0.45)],
}
_VENN_FILLS = ("#9ecae1", "#fdae6b", "#a1d99b")  # light blue, light orange, light green (never asked)


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
        ax.set_xlim(-2.7, 2.7)
        ax.set_ylim(-2.25, 2.25)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5.2, 4.6))


def pie_png(counts: Sequence[int], colors: Sequence[str], legend: Sequence[str], title: str) -> bytes:
    """A pie chart (clockwise from the top) with each sector's count inside it and a colour legend."""

    def draw(ax: Axes) -> None:
        total = sum(counts)
        start = 90.0
        for count, color in zip(counts, colors, strict=True):
            sweep = 360.0 * count / total
            ax.add_patch(
                Wedge((0, 0), 1.0, start - sweep, start, facecolor=color, edgecolor="white", linewidth=2)
            )
            mid = math.radians(start - sweep / 2)
            ax.text(
                0.66 * math.cos(mid), 0.66 * math.sin(mid), str(count), ha="center", va="center",
                fontsize=13, fontweight="bold", color=text_color_on(color),
            )  # fmt: skip
            start -= sweep
        handles = [Rectangle((0, 0), 1, 1, facecolor=c, edgecolor="black") for c in colors]
        ax.legend(
            handles, list(legend), loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=LABEL_SIZE,
            frameon=False,
        )  # fmt: skip
        ax.set_xlim(-1.05, 1.05)
        ax.set_ylim(-1.05, 1.05)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(6, 4))


def spinner_png(colors: Sequence[str], numbers: Sequence[int], pointer_deg: float) -> bytes:
    """A spinner of equal sectors (clockwise from the top), each with a colour and a number."""
    n = len(colors)

    def draw(ax: Axes) -> None:
        sweep = 360.0 / n
        for i, (color, number) in enumerate(zip(colors, numbers, strict=True)):
            hi = 90.0 - i * sweep
            ax.add_patch(
                Wedge((0, 0), 1.0, hi - sweep, hi, facecolor=color, edgecolor="black", linewidth=1.5)
            )
            mid = math.radians(hi - sweep / 2)
            ax.text(
                0.72 * math.cos(mid), 0.72 * math.sin(mid), str(number), ha="center", va="center",
                fontsize=16, fontweight="bold", color=text_color_on(color),
            )  # fmt: skip
        a = math.radians(pointer_deg)
        ax.annotate(
            "", xy=(0.5 * math.cos(a), 0.5 * math.sin(a)), xytext=(0, 0),
            arrowprops={"arrowstyle": "-|>", "color": "black", "linewidth": 3, "mutation_scale": 22},
        )  # fmt: skip
        ax.add_patch(Circle((0, 0), 0.06, color="black", zorder=5))
        ax.set_xlim(-1.1, 1.1)
        ax.set_ylim(-1.1, 1.1)
        ax.set_aspect("equal")
        ax.axis("off")

    return render_png(draw, size=(4.5, 4.5))


def dot_plot_png(values: Sequence[int], freqs: Sequence[int], axis_label: str, title: str) -> bytes:
    """One dot per observation, stacked above its value on a number line."""
    top = max(max(freqs), 4)

    def draw(ax: Axes) -> None:
        for v, f in zip(values, freqs, strict=True):
            if f:
                ax.scatter([v] * f, range(1, f + 1), s=150, color="#1f77b4", edgecolors="black", zorder=3)
        ax.set_xlim(min(values) - 0.6, max(values) + 0.6)
        ax.set_ylim(0.3, top + 0.7)
        ax.set_xticks(list(values))
        ax.tick_params(axis="x", labelsize=12)
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_position(("data", 0.4))
        ax.set_xlabel(axis_label, fontsize=LABEL_SIZE)
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5.5, max(3.2, 1.4 + 0.38 * top)))


def scatter_png(xs: Sequence[float], ys: Sequence[float], color: str, xlabel: str, ylabel: str) -> bytes:
    def draw(ax: Axes) -> None:
        ax.scatter(xs, ys, s=45, color=color, edgecolors="black", linewidths=0.6, zorder=3)
        ax.grid(True, color="0.88", linewidth=0.7)
        ax.set_axisbelow(True)
        ax.set_xlabel(xlabel, fontsize=LABEL_SIZE)
        ax.set_ylabel(ylabel, fontsize=LABEL_SIZE)
        ax.tick_params(labelsize=10)

    return render_png(draw)


# ---------------------------------------------------------------------------------------------- graph layout


def segment_distance(p: Point, a: Point, b: Point) -> float:
    """Distance from p to the segment ab."""
    (px, py), (ax_, ay), (bx, by) = p, a, b
    dx, dy = bx - ax_, by - ay
    t = max(0.0, min(1.0, ((px - ax_) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1.0)))
    return math.dist(p, (ax_ + t * dx, ay + t * dy))


def spread_points(
    rng: np.random.Generator, n: int, *, width: float = 1.3, height: float = 1.0, min_dist: float = 0.26
) -> list[list[float]] | None:
    """n points in a width x height box, pairwise at least `min_dist` apart (None if it cannot fit)."""
    pts: list[list[float]] = []
    for _ in range(4000):
        p = [round(float(rng.uniform(0, width)), 3), round(float(rng.uniform(0, height)), 3)]
        if all(math.dist(p, q) >= min_dist for q in pts):
            pts.append(p)
            if len(pts) == n:
                return pts
    return None


def edges_clear_of_nodes(
    pos: Sequence[Sequence[float]], edges: Sequence[Sequence[int]], clearance: float
) -> bool:
    """No edge passes within `clearance` of a node it does not end at (it would look like it touches)."""
    for a, b in edges:
        for v, p in enumerate(pos):
            if v not in (a, b) and segment_distance(tuple(p), tuple(pos[a]), tuple(pos[b])) < clearance:
                return False
    return True


def delaunay_edges(pos: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """The edges of the Delaunay triangulation: a planar, well-shaped edge set on the points."""
    from scipy.spatial import Delaunay

    tri = Delaunay(np.asarray(pos, dtype=float))
    out = set()
    for simplex in tri.simplices:
        for i in range(3):
            a, b = int(simplex[i]), int(simplex[(i + 1) % 3])
            out.add((min(a, b), max(a, b)))
    return sorted(out)


def edge_label_spots(
    pos: Sequence[Sequence[float]],
    edges: Sequence[Sequence[int]],
    *,
    node_radius: float = 0.055,
    edge_gap: float = 0.05,
    label_gap: float = 0.11,
) -> list[list[float]] | None:
    """A point on each edge for its weight label, or None when some label would be ambiguous.

    A spot is accepted only when it is at least `edge_gap` from every other edge, clear of every node
    and at least `label_gap` from the labels already placed, so each number sits on one edge only.
    """
    spots: list[list[float]] = []
    for k, (a, b) in enumerate(edges):
        pa, pb = pos[a], pos[b]
        for t in (0.5, 0.42, 0.58, 0.35, 0.65):
            s = (pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]))
            if any(math.dist(s, p) < node_radius + 0.06 for p in pos):
                continue
            if any(
                segment_distance(s, tuple(pos[c]), tuple(pos[d])) < edge_gap
                for j, (c, d) in enumerate(edges)
                if j != k
            ):
                continue
            if any(math.dist(s, q) < label_gap for q in spots):
                continue
            spots.append([round(s[0], 3), round(s[1], 3)])
            break
        else:
            return None
    return spots


def _angle_between(u: Point, v: Point) -> float:
    """The angle between two directions, in degrees (0..180)."""
    dot = u[0] * v[0] + u[1] * v[1]
    norm = math.hypot(*u) * math.hypot(*v) or 1.0
    return math.degrees(math.acos(max(-1.0, min(1.0, dot / norm))))


def _cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Do the open segments ab and cd cross?"""

    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0


def edges_distinct(
    pos: Sequence[Sequence[float]], edges: Sequence[Sequence[int]], min_angle: float = 15.0
) -> bool:
    """Edges at one node, and edges that cross, meet at `min_angle` degrees or more (never look merged)."""
    p = [tuple(q) for q in pos]
    for i, (a, b) in enumerate(edges):
        for c, d in edges[i + 1 :]:
            shared = {a, b} & {c, d}
            if shared:
                o = shared.pop()
                x, y = (b if a == o else a), (d if c == o else c)
                u = (p[x][0] - p[o][0], p[x][1] - p[o][1])
                v = (p[y][0] - p[o][0], p[y][1] - p[o][1])
                if _angle_between(u, v) < min_angle:
                    return False
            elif _cross(p[a], p[b], p[c], p[d]):
                u = (p[b][0] - p[a][0], p[b][1] - p[a][1])
                v = (p[d][0] - p[c][0], p[d][1] - p[c][1])
                ang = _angle_between(u, v)
                if min(ang, 180 - ang) < min_angle:
                    return False
    return True


def place_graph(
    rng: np.random.Generator, n: int, edges: Sequence[Sequence[int]], attempts: int = 400
) -> list[list[float]] | None:
    """Random node positions for a given edge set, legible: nodes apart, edges clear of other nodes,
    no two edges nearly on top of each other (None if no attempt succeeds)."""
    scale = max(1.0, math.sqrt(n / 8))
    for _ in range(attempts):
        pos = spread_points(rng, n, width=1.3 * scale, height=1.0 * scale, min_dist=0.27)
        if pos is not None and edges_clear_of_nodes(pos, edges, 0.085) and edges_distinct(pos, edges):
            return pos
    return None


def _root(parent: list[int], i: int) -> int:
    """Union-find root with path halving."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def planar_weighted_layout(
    rng: np.random.Generator, n: int, keep: float
) -> tuple[list[list[float]], list[tuple[int, int]], list[list[float]]]:
    """Positions, a connected planar edge set and a label spot per edge, for a weighted-graph figure.

    The edges are a random spanning tree of the Delaunay triangulation plus each other Delaunay edge
    with probability `keep`; layouts whose edges graze a node or whose labels cannot be placed
    unambiguously are redrawn.
    """
    while True:
        pos = spread_points(rng, n, min_dist=0.3)
        if pos is None:
            continue
        tri = delaunay_edges(pos)
        parent = list(range(n))
        edges = []
        for k in rng.permutation(len(tri)):
            a, b = tri[int(k)]
            ra, rb = _root(parent, a), _root(parent, b)
            if ra != rb:
                parent[ra] = rb
                edges.append((a, b))
            elif rng.random() < keep:
                edges.append((a, b))
        edges.sort()
        if not edges_clear_of_nodes(pos, edges, 0.09) or not edges_distinct(pos, edges, 20.0):
            continue
        spots = edge_label_spots(pos, edges)
        if spots is not None:
            return pos, edges, spots


def adjacency_statement(labels: list[str]) -> str:
    """How the LaTeX forms of the graph seeds introduce their adjacency matrix (one wording for all)."""
    listed = ", ".join(labels)
    return (
        f"An undirected graph has nodes {listed} and adjacency matrix $A$ ($A_{{ij}} = 1$ when nodes $i$ and "
        f"$j$ are joined by an edge); rows and columns are in the order {listed}."
    )


def node_letters(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]


# ---------------------------------------------------------------------------------------------- graph drawing


_WEIGHT_BOX = {"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "0.6", "linewidth": 0.6}


def graph_png(
    labels: Sequence[str],
    pos: Sequence[Sequence[float]],
    edges: Sequence[Sequence[int]],
    *,
    weights: Sequence[int] | None = None,
    spots: Sequence[Sequence[float]] | None = None,
    node_colors: Sequence[str] | None = None,
    title: str | None = None,
    node_radius: float = 0.055,
) -> bytes:
    """An undirected graph at fixed positions: edges as lines, nodes as labelled discs, optional weights.

    `weights[k]` is written at `spots[k]` on edge k in a white box; `node_colors` are hex fills
    (white by default).
    """
    n = len(labels)
    fills = list(node_colors) if node_colors is not None else ["#ffffff"] * n

    def draw(ax: Axes) -> None:
        for a, b in edges:
            ax.plot([pos[a][0], pos[b][0]], [pos[a][1], pos[b][1]], color="0.3", linewidth=1.8, zorder=1)
        if weights is not None and spots is not None:
            for w, (x, y) in zip(weights, spots, strict=True):
                ax.text(
                    x, y, str(w), ha="center", va="center", fontsize=11, color="#08306b", zorder=4,
                    bbox=_WEIGHT_BOX,
                )  # fmt: skip
        for i in range(n):
            x, y = pos[i]
            ax.add_patch(
                Circle((x, y), node_radius, facecolor=fills[i], edgecolor="black", linewidth=1.4, zorder=5)
            )
            ax.text(
                x, y, labels[i], ha="center", va="center", fontsize=12, fontweight="bold", zorder=6,
                color=text_color_on(fills[i]),
            )  # fmt: skip
        xs, ys = [p[0] for p in pos], [p[1] for p in pos]
        m = node_radius + 0.06
        ax.set_xlim(min(xs) - m, max(xs) + m)
        ax.set_ylim(min(ys) - m, max(ys) + m)
        ax.set_aspect("equal")
        ax.axis("off")
        if title:
            ax.set_title(title, fontsize=11)

    return render_png(draw)


def weighted_edges_latex(
    labels: Sequence[str], edges: Sequence[Sequence[int]], weights: Sequence[int]
) -> str:
    """A two-column table of the edges and their weights."""
    rows = [(f"{labels[a]}--{labels[b]}", w) for (a, b), w in zip(edges, weights, strict=True)]
    return latex_table(["Edge", "Weight"], rows, align="cr")


def weighted_edges_code(labels: Sequence[str], edges: Sequence[Sequence[int]], weights: Sequence[int]) -> str:
    lines = ["# Undirected weighted graph: (node, node, weight)", "edges = ["]
    lines += [f'    ("{labels[a]}", "{labels[b]}", {w}),' for (a, b), w in zip(edges, weights, strict=True)]
    lines.append("]")
    return "\n".join(lines) + "\n"
