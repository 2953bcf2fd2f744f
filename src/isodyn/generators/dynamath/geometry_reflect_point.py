"""Reflect a point across a line: the axes, a vertical or horizontal line, or a 45-degree line.

Geometric transformation: the mirror line changes type and position (x = k, y = k, y = x + c,
y = -x + c, the axes included). The answer is the image point as a coordinate pair.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.coordinate_grid import grid_png, label_points
from isodyn.modalities.geometry import COLORS, label, point_text

XLIM, YLIM = (-7.5, 7.5), (-6.0, 6.0)


def line_text(kind: str, c: int) -> str:
    """The mirror line's equation in plain text: `x = 2`, `y = -1`, `y = x + 3`, `y = -x`."""
    if kind == "vertical":
        return f"x = {c}"
    if kind == "horizontal":
        return f"y = {c}"
    head = "y = x" if kind == "diagonal" else "y = -x"
    if c == 0:
        return head
    return f"{head} {'+' if c > 0 else '-'} {abs(c)}"


def reflect(kind: str, c: int, x: int, y: int) -> tuple[int, int]:
    if kind == "vertical":
        return 2 * c - x, y
    if kind == "horizontal":
        return x, 2 * c - y
    if kind == "diagonal":  # y = x + c
        return y - c, x + c
    return c - y, c - x  # y = -x + c


def solution_text(p: dict) -> str:
    kind, c, (x, y) = p["kind"], p["c"], p["point"]
    rx, ry = reflect(kind, c, x, y)
    line = line_text(kind, c)
    steps = [
        f"The mirror line is {line}; the image P' is as far beyond the line as P is in front of it, along "
        "the "
        "perpendicular through P."
    ]
    if kind == "vertical":
        steps.append(f"The line is vertical, so y stays {y} and x goes to 2·{c} - ({x}) = {rx}.")
    elif kind == "horizontal":
        steps.append(f"The line is horizontal, so x stays {x} and y goes to 2·{c} - ({y}) = {ry}.")
    elif kind == "diagonal":
        steps.append(
            "For y = x + c the reflection swaps the roles of the coordinates: (x, y) → (y - c, x + c) with "
            f"c = {c}, "
            f"giving ({y} - ({c}), {x} + ({c})) = ({rx}, {ry})."
        )
    else:
        steps.append(
            f"For y = -x + c the reflection is (x, y) → (c - y, c - x) with c = {c}, giving ({c} - ({y}), "
            f"{c} - ({x})) "
            f"= ({rx}, {ry})."
        )
    mx, my = (x + rx) / 2, (y + ry) / 2
    steps.append(f"Check: the midpoint ({mx:g}, {my:g}) of PP' lies on the line.")
    steps.append(f"Answer: ({rx}, {ry})")
    return "\n".join(steps)


class ReflectPoint(SeedProgram):
    seed_id = "dynamath_reflect_point"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.GEOMETRIC_TRANSFORMATION, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "kind": VariationType.GEOMETRIC_TRANSFORMATION,
        "c": VariationType.GEOMETRIC_TRANSFORMATION,
        "point": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 4 line types x ~9 offsets x ~100 points
    variant_space = 4 * 9 * 100

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            kind = str(rng.choice(["vertical", "horizontal", "diagonal", "antidiagonal"]))
            c = int(rng.integers(-3, 4)) if rng.random() < 0.75 else 0
            x, y = int(rng.integers(-6, 7)), int(rng.integers(-5, 6))
            rx, ry = reflect(kind, c, x, y)
            if (rx, ry) == (x, y) or abs(rx) > 6 or abs(ry) > 5:
                continue
            if abs(rx - x) + abs(ry - y) < 3 or 0 in (x, y):
                continue
            break
        params = {"kind": kind, "c": c, "point": [x, y], "answer_format": "a coordinate pair (x, y)"}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("kind", "c", "point")

    def redraw(self, params: dict) -> Draw:
        rx, ry = reflect(params["kind"], params["c"], *params["point"])
        question = "The point P is reflected across the line ℓ. What are the coordinates of its image P'?"
        return Draw(params=params, question=question, answer=f"({rx}, {ry})", solution=solution_text(params))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        x, y = params["point"]
        quadrant = {(True, True): "first", (False, True): "second", (False, False): "third"}.get(
            (x > 0, y > 0), "fourth"
        )
        n = int(rng.integers(2, 10))
        said = (
            f"The point P lies in the {quadrant} quadrant.",
            f"P is {abs(y)} units {'above' if y > 0 else 'below'} the x axis.",
            "The line ℓ is also called the mirror line.",
            f"This is exercise {n} on a worksheet about reflections.",
            "A reflection keeps every distance and every angle the same.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # The figure keeps its grid; each grid line then stands for `factor` times as much. The line
        # keeps its slope (a 45-degree line stays one), only its offset is scaled.
        x, y = params["point"]
        unit = params.get("grid_unit", 1) * factor
        return {**params, "c": params["c"] * factor, "point": [x * factor, y * factor], "grid_unit": unit}

    def numbers(self, params: dict) -> tuple[float, ...]:
        x, y = params["point"]
        return (float(x), float(y), float(params["c"]))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        x, y = p["point"]
        line = line_text(p["kind"], p["c"])
        if modality is Modality.IMAGE:
            text = (
                "The image shows the point P, labelled with its coordinates, and the dashed line ℓ, "
                "labelled with "
                f"its equation, on a coordinate grid.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            setting = f"In the coordinate plane, $P = ({x}, {y})$ and $\\ell$ is the line ${line}$."
            text = f"{setting}\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _segment(kind: str, c: int) -> tuple[tuple[float, float], tuple[float, float]]:
    if kind == "vertical":
        return (c, YLIM[0]), (c, YLIM[1])
    if kind == "horizontal":
        return (XLIM[0], c), (XLIM[1], c)
    s = 1 if kind == "diagonal" else -1
    # y = s x + c, clipped to the window.
    xs = []
    for xb in XLIM:
        yb = s * xb + c
        if YLIM[0] <= yb <= YLIM[1]:
            xs.append(xb)
    for yb in YLIM:
        xb = (yb - c) / s
        if XLIM[0] <= xb <= XLIM[1]:
            xs.append(xb)
    x0, x1 = min(xs), max(xs)
    return (x0, s * x0 + c), (x1, s * x1 + c)


def _draw(p: dict) -> bytes:
    # Drawn in grid lines; the labels show the coordinates (a line may stand for more than 1, issue 41).
    unit = p.get("grid_unit", 1)
    kind, c, (x, y) = p["kind"], p["c"] // unit, (v // unit for v in p["point"])
    seg = _segment(kind, c)

    def draw(ax: Axes) -> None:
        (sx, sy), (ex, ey) = seg
        if kind in ("vertical", "horizontal") and c == 0:
            # on an axis: a wide band under it, so the axis and its ticks stay visible through the line
            ax.plot([sx, ex], [sy, ey], color=COLORS["purple"], lw=5, ls="--", alpha=0.8, zorder=1)
        else:
            ax.plot([sx, ex], [sy, ey], color=COLORS["purple"], lw=2.2, ls="--", zorder=3)
        ax.plot(x, y, "o", color=COLORS["red"], ms=8, markeredgecolor="black", markeredgewidth=0.6, zorder=5)
        label_points(
            ax,
            [(x, y)],
            [f"P{point_text(x * unit, y * unit)}".replace("-", "\u2212")],
            XLIM,
            YLIM,
            segments=[seg],
            colors=[COLORS["red"]],
        )
        # The line's name and equation near its end, inside the window.
        t = 0.86
        pos = (sx + t * (ex - sx), sy + t * (ey - sy))
        eq = "ℓ: " + line_text(kind, c * unit).replace("-", "\u2212")
        d = np.array([ex - sx, ey - sy], dtype=float)
        d /= np.linalg.norm(d)
        n = np.array([-d[1], d[0]])
        if n[0] < 0:
            n = -n
        if kind == "vertical":  # beside the line, on the side away from the y axis and its tick labels
            side = -1 if c < 0 else 1
            label(ax, (c, 4.6), eq, offset=(side * 38, 0), size=12, color=COLORS["purple"])
        elif kind == "horizontal":
            label(ax, (XLIM[1] - 2.2, c), eq, offset=(0, 12), size=12, color=COLORS["purple"])
        else:
            label(ax, pos, eq, offset=n * 34, size=12, color=COLORS["purple"])

    return grid_png(draw, XLIM, YLIM, unit=unit)
