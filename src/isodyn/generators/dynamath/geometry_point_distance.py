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
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("points", "colors", "asked")

    def redraw(self, params: dict) -> Draw:
        c1, c2 = params["asked"]
        where = dict(zip(params["colors"], params["points"], strict=True))
        value = math.dist(where[c1], where[c2])
        question = f"What is the distance between the {c1} point and the {c2} point?"
        return Draw(
            params=params, question=question, answer=fmt(value), solution=solution_text(params, value)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        k = int(rng.integers(len(params["colors"])))
        color, (x, y) = params["colors"][k], params["points"][k]
        quadrant = {(True, True): "first", (False, True): "second", (False, False): "third"}.get(
            (x > 0, y > 0), "fourth"
        )
        n = int(rng.integers(2, 10))
        said = (
            f"The {color} point lies in the {quadrant} quadrant.",
            f"The {color} point is {abs(x)} units to the {'right' if x > 0 else 'left'} of the y axis.",
            "None of the points lies on an axis.",
            f"The points were plotted on graph paper for exercise {n} of a worksheet.",
            f"The {color} point was the {('first', 'second', 'third', 'fourth')[k]} one to be plotted.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # The figure keeps its grid; each grid line then stands for `factor` times as much.
        points = [[x * factor, y * factor] for x, y in params["points"]]
        return {**params, "points": points, "grid_unit": params.get("grid_unit", 1) * factor}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(v) for q in params["points"] for v in q)

    def renamed(self, params: dict, rng: np.random.Generator) -> dict:
        # A permutation of the line colours: the asked names now label other points.
        new = [str(c) for c in rng.permutation(LINE_COLORS)[: len(params["colors"])]]
        swap = dict(zip(params["colors"], new, strict=True))
        return {**params, "colors": new, "asked": [swap[c] for c in params["asked"]]}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            unit = p.get("grid_unit", 1)
            apart = "1 unit" if unit == 1 else f"{unit} units"
            text = (
                f"The image shows {len(p['points'])} coloured points on a coordinate grid with lines {apart} "
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
    unit = p.get("grid_unit", 1)

    def draw(ax: Axes) -> None:
        for (x, y), c in zip(p["points"], p["colors"], strict=True):
            ax.plot(
                x / unit,
                y / unit,
                "o",
                color=COLORS[c],
                ms=12,
                markeredgecolor="black",
                markeredgewidth=0.8,
                zorder=5,
            )

    return grid_png(draw, XLIM, YLIM, unit=unit)
