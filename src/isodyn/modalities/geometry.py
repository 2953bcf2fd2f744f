"""Drawing helpers shared by the geometry seeds: labelled figures drawn to scale (solids are
`modalities/solids.py`, coordinate grids `modalities/coordinate_grid.py`).

Everything is pure and deterministic: a figure is a function of its arguments. Plane figures use an
equal aspect and no axes; label offsets are given in typographic points (matplotlib's `offset points`),
so they read the same whatever the scale of the drawing. Solids use an orthographic view (`View`), with
hidden edges dashed. Coordinate-plane figures use a unit grid with tick labels of at least 10 pt.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Arc, FancyArrowPatch

from isodyn.modalities.images import render_png

# A point or direction in the plane (or in space, for solids): a pair (triple) of numbers or an array.
Point = Sequence[float] | np.ndarray
Points = Sequence[Point] | np.ndarray  # several points: a sequence of them or an (n, 2) / (n, 3) array

LABEL_SIZE = 13  # side lengths, angles, vertex names
TICK_SIZE = 10  # tick labels on coordinate grids (the minimum the seeds allow)
FIG_SIZE = (5.0, 4.0)

# Colour names shown to the model, with hues far apart (no light red that could be called pink).
COLORS: dict[str, str] = {
    "red": "#d62728",
    "blue": "#1f5fbf",
    "green": "#2ca02c",
    "orange": "#ff8c00",
    "purple": "#7e2f8e",
    "yellow": "#ffd700",
    "gray": "#8c8c8c",
}
LINE_COLORS = ("red", "blue", "green", "orange", "purple")  # yellow is too faint for thin lines
FILL_COLORS = ("red", "blue", "green", "orange", "purple", "yellow")


# -------------------------------------------------------------------------------------------------- numbers


def fmt(value: float, digits: int = 3) -> str:
    """A number as written in figures and text: `3`, `2.5`, `-0.125` (at most `digits` decimals)."""
    r = round(float(value), digits)
    if r == 0:
        return "0"
    if r == int(r):
        return str(int(r))
    return f"{r:.{digits}f}".rstrip("0").rstrip(".")


def point_text(x: float, y: float) -> str:
    """Coordinates as `(2, -1.5)`."""
    return f"({fmt(x)}, {fmt(y)})"


# -------------------------------------------------------------------------------------------- plane figures


def figure_png(
    draw: Callable[[Axes], None],
    bounds: tuple[float, float, float, float],
    *,
    size: tuple[float, float] = FIG_SIZE,
    margin: float = 0.08,
) -> bytes:
    """PNG of a plane figure: equal aspect, no axes, `bounds` = (xmin, ymin, xmax, ymax) plus a margin."""
    x0, y0, x1, y1 = fit_bounds(bounds, size=size, margin=margin)

    def _draw(ax: Axes) -> None:
        draw(ax)
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_aspect("equal", adjustable="box")
        ax.set_axis_off()

    return render_png(_draw, size=size)


def fit_bounds(
    bounds: tuple[float, float, float, float], *, size: tuple[float, float] = FIG_SIZE, margin: float = 0.08
) -> tuple[float, float, float, float]:
    """`bounds` plus a margin, widened in one direction to the figure's aspect ratio (equal units)."""
    x0, y0, x1, y1 = bounds
    m = margin * max(x1 - x0, y1 - y0)
    x0, y0, x1, y1 = x0 - m, y0 - m, x1 + m, y1 + m
    want = size[0] / size[1]
    w, h = x1 - x0, y1 - y0
    if w / h < want:
        extra = (h * want - w) / 2
        x0, x1 = x0 - extra, x1 + extra
    else:
        extra = (w / want - h) / 2
        y0, y1 = y0 - extra, y1 + extra
    return x0, y0, x1, y1


def bounds_of(points: Points) -> tuple[float, float, float, float]:
    arr = np.asarray(points, dtype=float)
    return (float(arr[:, 0].min()), float(arr[:, 1].min()), float(arr[:, 0].max()), float(arr[:, 1].max()))


def units_per_point(bounds: tuple[float, float, float, float], size: tuple[float, float] = FIG_SIZE) -> float:
    """Roughly how many data units one typographic point spans in a `figure_png` of these bounds."""
    x0, _, x1, _ = fit_bounds(bounds, size=size)
    return (x1 - x0) / (size[0] * 72 * 0.92)


def label(
    ax: Axes,
    xy: Point,
    text: str,
    *,
    offset: Point = (0.0, 0.0),
    size: float = LABEL_SIZE,
    color: str = "black",
    box: bool = True,
    weight: str = "normal",
    leader: bool = False,
) -> None:
    """Text centred at `xy` shifted by `offset` points, on a white box so lines behind it stay readable.

    With `leader`, a thin line joins the text to `xy` (for a label that had to move away from its mark).
    """
    bbox = {"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "none", "alpha": 0.9}
    arrowprops = (
        {"arrowstyle": "-", "color": color, "lw": 0.9, "shrinkA": 0, "shrinkB": 2} if leader else None
    )
    ax.annotate(
        text,
        xy=(float(xy[0]), float(xy[1])),
        xytext=(float(offset[0]), float(offset[1])),
        textcoords="offset points",
        ha="center",
        va="center",
        fontsize=size,
        color=color,
        fontweight=weight,
        bbox=bbox if box else None,
        arrowprops=arrowprops,
        zorder=10,
    )


def unit(v: Point) -> np.ndarray:
    arr = np.asarray(v, dtype=float)
    n = float(np.hypot(arr[0], arr[1]))
    return arr / n if n else arr


def outward_normal(p: Point, q: Point, inside: Point) -> np.ndarray:
    """The unit normal of segment pq pointing away from the point `inside`."""
    p, q, inside = (np.asarray(a, dtype=float) for a in (p, q, inside))
    d = unit(q - p)
    n = np.array([-d[1], d[0]])
    if np.dot(n, inside - (p + q) / 2) > 0:
        n = -n
    return n


def clearance(direction: Point, text: str, size: float = LABEL_SIZE, gap: float = 4) -> float:
    """How far (points) to move a label's centre along the unit `direction` so its box clears the anchor."""
    w, h = text_extent(text, size)
    return abs(direction[0]) * w / 2 + abs(direction[1]) * h / 2 + gap


def fit_in_angle(
    d1: Point, d2: Point, text: str, size: float = LABEL_SIZE, gap: float = 3
) -> tuple[np.ndarray, float]:
    """Where a label fits inside the angle between unit-ish directions d1 and d2 (less than 180 degrees).

    Returns the bisector direction and the distance (points) from the vertex along it at which the
    label's box clears both sides of the angle.
    """
    u1, u2 = unit(d1), unit(d2)
    bis = unit(u1 + u2)
    w, h = text_extent(text, size)
    need = 0.0
    for d in (u1, u2):
        n = np.array([-d[1], d[0]])
        sin_t = abs(float(bis[0] * d[1] - bis[1] * d[0]))
        support = abs(n[0]) * w / 2 + abs(n[1]) * h / 2 + gap
        need = max(need, support / max(sin_t, 0.05))
    return bis, need


def side_label(
    ax: Axes,
    p: Point,
    q: Point,
    text: str,
    inside: Point,
    *,
    at: float = 0.5,
    gap: float = 4,
    size: float = LABEL_SIZE,
    color: str = "black",
) -> None:
    """Label segment pq at fraction `at` of the way from p, just off the segment on the side away from
    the point `inside` (the box never touches the segment)."""
    n = outward_normal(p, q, inside)
    pos = np.asarray(p, dtype=float) + at * (np.asarray(q, dtype=float) - np.asarray(p, dtype=float))
    label(ax, pos, text, offset=n * clearance(n, text, size, gap), size=size, color=color)


def vertex_label(ax: Axes, p: Point, text: str, away_from: Point, *, distance: float = 12, **kw) -> None:
    """A vertex name placed `distance` points from `p`, on the side away from `away_from`."""
    d = unit(np.asarray(p, dtype=float) - np.asarray(away_from, dtype=float))
    label(ax, p, text, offset=d * distance, box=kw.pop("box", False), **kw)


def direction_deg(p: Point, q: Point) -> float:
    """Direction of q as seen from p, in degrees in [0, 360)."""
    return math.degrees(math.atan2(q[1] - p[1], q[0] - p[0])) % 360


def angle_arc(
    ax: Axes,
    vertex: Point,
    p1: Point,
    p2: Point,
    radius: float,
    *,
    text: str | None = None,
    text_radius: float | None = None,
    color: str = "black",
    lw: float = 1.4,
    size: float = LABEL_SIZE,
    reflex: bool = False,
    scale: float | None = None,
) -> None:
    """Mark the angle p1-vertex-p2 (the one below 180 degrees unless `reflex`) with an arc and a label.

    With `scale` (data units per point) the label moves out along the bisector until its box fits
    between the two rays, so a narrow angle's label does not cover its sides.
    """
    a1, a2 = direction_deg(vertex, p1), direction_deg(vertex, p2)
    sweep = (a2 - a1) % 360
    start, end = (a1, a2) if (sweep <= 180) != reflex else (a2, a1)
    span = (end - start) % 360
    ax.add_patch(
        Arc(
            tuple(vertex),
            2 * radius,
            2 * radius,
            theta1=start,
            theta2=start + span,
            color=color,
            lw=lw,
            zorder=4,
        )
    )
    if text is not None:
        mid = math.radians(start + span / 2)
        r = text_radius if text_radius is not None else radius * 1.9
        if scale is not None and span < 180:
            d1 = (math.cos(math.radians(start)), math.sin(math.radians(start)))
            d2 = (math.cos(math.radians(start + span)), math.sin(math.radians(start + span)))
            _, need = fit_in_angle(d1, d2, text, size)
            r = max(r, need * scale)
        pos = (vertex[0] + r * math.cos(mid), vertex[1] + r * math.sin(mid))
        label(ax, pos, text, size=size, color=color)


def right_angle_mark(ax: Axes, vertex: Point, p1: Point, p2: Point, size: float, **kw) -> None:
    """The small square that marks a right angle at `vertex` between the rays to p1 and p2."""
    v = np.asarray(vertex, dtype=float)
    d1 = unit(np.asarray(p1, dtype=float) - v) * size
    d2 = unit(np.asarray(p2, dtype=float) - v) * size
    pts = np.array([v + d1, v + d1 + d2, v + d2])
    ax.plot(pts[:, 0], pts[:, 1], color=kw.get("color", "black"), lw=kw.get("lw", 1.2), zorder=4)


def parallel_mark(ax: Axes, p: Point, q: Point, at: float, size: float, count: int = 1) -> None:
    """Arrowhead chevrons (`>`) on segment pq at fraction `at`, the textbook sign for parallel lines."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    d = unit(q - p)
    n = np.array([-d[1], d[0]])
    for k in range(count):
        tip = p + (q - p) * at + d * size * 0.8 * k
        wing1 = tip - d * size + n * size * 0.6
        wing2 = tip - d * size - n * size * 0.6
        pts = np.array([wing1, tip, wing2])
        ax.plot(pts[:, 0], pts[:, 1], color="black", lw=1.6, zorder=5)


def arrow(ax: Axes, p: Point, q: Point, *, color: str = "black", lw: float = 1.4) -> None:
    ax.add_patch(
        FancyArrowPatch(tuple(p), tuple(q), arrowstyle="-|>", mutation_scale=12, color=color, lw=lw, zorder=6)
    )


def dimension_line(
    ax: Axes,
    p: Point,
    q: Point,
    text: str,
    shift: Point,
    *,
    size: float = LABEL_SIZE,
) -> None:
    """An engineering dimension: a double-headed arrow parallel to pq, moved by `shift` (data units),
    with thin extension lines back to p and q and the label beside the arrow, away from pq."""
    p, q, shift = (np.asarray(a, dtype=float) for a in (p, q, shift))
    a, b = p + shift, q + shift
    for end, base in ((a, p), (b, q)):
        ext = end + 0.25 * shift
        ax.plot([base[0], ext[0]], [base[1], ext[1]], color="0.3", lw=0.8, zorder=2)
    ax.add_patch(
        FancyArrowPatch(
            tuple(a), tuple(b), arrowstyle="<|-|>", mutation_scale=10, color="black", lw=1.1, zorder=6
        )
    )
    n = unit(shift)
    label(ax, (a + b) / 2, text, offset=n * clearance(n, text, size, 3), size=size)


# ------------------------------------------------------------------------------------------ label placement


def text_extent(text: str, size: float = LABEL_SIZE) -> tuple[float, float]:
    """Approximate width and height of a one-line label, in points."""
    shown = text.replace("$", "").replace("\\", "")
    return 0.6 * size * max(len(shown), 1) + 4, 1.35 * size


def place_labels(
    anchors: Points,
    texts: Sequence[str],
    *,
    scale: float,
    segments: Sequence[tuple[Point, Point]] = (),
    bounds: tuple[float, float, float, float] | None = None,
    size: float = LABEL_SIZE,
    gap: float = 5,
) -> list[tuple[float, float]]:
    """Greedy placement of labels next to points, away from each other and from the given segments.

    Returns the label centres in data coordinates. `scale` is data units per point (see
    `units_per_point`). Each label tries eight positions around its anchor and keeps the one with
    the least overlap (ties: the first in a fixed order, so the result is deterministic).
    """
    dirs = [(1, 1), (-1, 1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)]
    seg_samples = [
        np.linspace(np.asarray(a, dtype=float), np.asarray(b, dtype=float), 40) for a, b in segments
    ]
    seg_pts = np.concatenate(seg_samples) if seg_samples else np.zeros((0, 2))
    anchor_pts = np.asarray(anchors, dtype=float).reshape(-1, 2)
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for (ax_, ay_), text in zip(anchor_pts, texts, strict=True):
        w, h = (v * scale for v in text_extent(text, size))
        g = gap * scale
        best, best_cost = None, math.inf
        for dx, dy in dirs:
            cx = ax_ + dx * (w / 2 + g)
            cy = ay_ + dy * (h / 2 + g)
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            cost = 0.0
            for other in placed:
                ox = max(0.0, min(box[2], other[2]) - max(box[0], other[0]))
                oy = max(0.0, min(box[3], other[3]) - max(box[1], other[1]))
                cost += 50 * ox * oy / (w * h)
            inside = (
                (seg_pts[:, 0] > box[0])
                & (seg_pts[:, 0] < box[2])
                & (seg_pts[:, 1] > box[1])
                & (seg_pts[:, 1] < box[3])
            )
            cost += float(inside.sum())
            near = (
                (anchor_pts[:, 0] > box[0] - g)
                & (anchor_pts[:, 0] < box[2] + g)
                & (anchor_pts[:, 1] > box[1] - g)
                & (anchor_pts[:, 1] < box[3] + g)
            )
            cost += 20 * float(near.sum())
            if bounds is not None:
                bx0, by0, bx1, by1 = bounds
                if box[0] < bx0 or box[2] > bx1 or box[1] < by0 or box[3] > by1:
                    cost += 100
            if cost < best_cost - 1e-9:
                best, best_cost = (cx, cy, box), cost
        assert best is not None
        placed.append(best[2])
        out.append((float(best[0]), float(best[1])))
    return out
