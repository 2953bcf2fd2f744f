"""Distance between two coloured points on a coordinate grid.

Three or four points in named colours sit on grid intersections (their coordinates are read from the
grid); the question names two colours. Colour variation: the colours and which pair is asked change,
so the answer depends on reading the right points. Distance = sqrt(dx^2 + dy^2).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.coordinate_grid import grid_png
from isodyn.modalities.geometry import COLORS, LINE_COLORS, fmt

XLIM, YLIM = (-7.5, 7.5), (-6.0, 6.0)


def solution_text(p: dict, value: float) -> str:
    c1, c2 = p["asked"]
    pts = dict(zip(p["colors"], p["points"], strict=True))
    (x1, y1), (x2, y2) = pts[c1], pts[c2]
    dx, dy = x2 - x1, y2 - y1
    return "\n".join(
        [
            f"Reading the grid, the {c1} point is at ({x1}, {y1}) and the {c2} point is at ({x2}, {y2}).",
            f"Δx = {x2} - ({x1}) = {dx} and Δy = {y2} - ({y1}) = {dy}.",
            f"Distance = √(Δx² + Δy²) = √({dx * dx} + {dy * dy}) = √{dx * dx + dy * dy} ≈ {fmt(value)}.",
            f"Answer: {fmt(value)}",
        ]
    )


class PointDistance(SeedProgram):
    seed_id = "dynamath_point_distance"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.COLOR, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "points": VariationType.NUMERICAL_VALUE,
        "colors": VariationType.COLOR,
        "asked": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 143 grid points choose 3-4 positions x colour assignments x asked pair
    variant_space = 10**6

    def sample(self, rng: np.random.Generator) -> Draw:
        count = int(rng.choice([3, 4]))
        while True:
            xs = rng.integers(-6, 7, size=count)
            ys = rng.integers(-5, 6, size=count)
            pts = [(int(x), int(y)) for x, y in zip(xs, ys, strict=True)]
            gaps = [math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1 :]]
            on_axis = any(x == 0 or y == 0 for x, y in pts)
            if min(gaps) >= 2.5 and not on_axis:
                break
        colors = [LINE_COLORS[int(i)] for i in rng.choice(len(LINE_COLORS), size=count, replace=False)]
        i, j = (int(v) for v in rng.choice(count, size=2, replace=False))
        params = {"points": [list(q) for q in pts], "colors": colors, "asked": [colors[i], colors[j]]}
        value = math.dist(pts[i], pts[j])
        question = f"What is the distance between the {colors[i]} point and the {colors[j]} point?"
        return Draw(
            params=params, question=question, answer=fmt(value), solution=solution_text(params, value)
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                f"The image shows {len(p['points'])} coloured points on a coordinate grid with lines 1 unit "
                "apart; "
                f"every point has whole-number coordinates.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            listing = ", ".join(
                f"the {c} point $({x}, {y})$" for c, (x, y) in zip(p["colors"], p["points"], strict=True)
            )
            count = len(p["points"])
            text = f"In the coordinate plane there are {count} points: {listing}.\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    def draw(ax: Axes) -> None:
        for (x, y), c in zip(p["points"], p["colors"], strict=True):
            ax.plot(x, y, "o", color=COLORS[c], ms=12, markeredgecolor="black", markeredgewidth=0.8, zorder=5)

    return grid_png(draw, XLIM, YLIM)
