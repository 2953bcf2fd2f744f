"""The missing interior angle of a convex polygon (angle sum (n - 2) * 180).

Graph-structure variation: the polygon has 4 to 7 vertices, so the angle sum changes with the shape.
All interior angles but one are labelled; the remaining one is marked x. The polygon is built with
exactly these angles (side lengths solved so that it closes), rotated at random.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.geometry import (
    angle_arc,
    bounds_of,
    clearance,
    figure_png,
    fit_in_angle,
    label,
    units_per_point,
)

_NAMES = {4: "quadrilateral", 5: "pentagon", 6: "hexagon", 7: "heptagon"}


def _interior_angles(rng: np.random.Generator, n: int) -> list[int]:
    total = (n - 2) * 180
    lo, hi = (60, 150) if n == 4 else (80, 165)
    while True:
        raw = rng.uniform(lo, hi, size=n)
        raw = raw * total / raw.sum()
        angles = [round(float(a)) for a in raw]
        angles[-1] += total - sum(angles)
        if all(lo <= a <= hi for a in angles) and len(set(angles)) > 1:
            return angles


def _close_polygon(rng: np.random.Generator, angles: list[int]) -> np.ndarray | None:
    """Vertices of a convex polygon with these interior angles (counter-clockwise), or None."""
    n = len(angles)
    headings = [0.0]
    for a in angles[1:]:
        headings.append(headings[-1] + math.radians(180 - a))
    dirs = np.array([[math.cos(t), math.sin(t)] for t in headings])  # side i leaves vertex i
    lengths = rng.uniform(0.75, 1.3, size=n)
    # Solve for the last two sides so the polygon closes.
    rest = (lengths[:-2, None] * dirs[:-2]).sum(axis=0)
    mat = np.stack([dirs[-2], dirs[-1]], axis=1)
    if abs(np.linalg.det(mat)) < 0.2:
        return None
    last = np.linalg.solve(mat, -rest)
    if not (0.6 <= last[0] <= 1.5 and 0.6 <= last[1] <= 1.5):
        return None
    lengths[-2:] = last
    pts = [np.zeros(2)]
    for i in range(n - 1):
        pts.append(pts[-1] + lengths[i] * dirs[i])
    return np.array(pts)


def solution_text(p: dict) -> str:
    n, angles, k = p["n"], p["angles"], p["unknown"]
    known = [a for i, a in enumerate(angles) if i != k]
    total = (n - 2) * 180
    return "\n".join(
        [
            f"The {_NAMES[n]} has {n} vertices, so its interior angles add up to $({n} - 2) \\times 180° = "
            f"{total}°$.",
            f"The known angles add up to {' + '.join(map(str, known))} = {sum(known)}°.",
            f"So $x = {total} - {sum(known)} = {total - sum(known)}$.",
            f"Answer: {angles[k]}",
        ]
    )


class PolygonAngle(SeedProgram):
    seed_id = "dynamath_polygon_angle"
    topic = Topic.PLANE_GEOMETRY
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "angles": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 4 polygon sizes x thousands of angle tuples x which angle is unknown
    variant_space = 4 * 5000 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.choice([4, 5, 6, 7]))
        while True:
            angles = _interior_angles(rng, n)
            pts = _close_polygon(rng, angles)
            if pts is not None:
                break
        theta = math.radians(float(rng.integers(0, 360)))
        rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
        pts = (pts - pts.mean(axis=0)) @ rot.T
        unknown = int(rng.integers(n))
        params = {
            "n": n,
            "angles": angles,
            "unknown": unknown,
            "vertices": [[round(float(x), 6), round(float(y), 6)] for x, y in pts],
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # No magnitude: the numbers are angles, fixed by the angle sum.
    perturbations = frozenset({"noop"})
    truth_reads = ("n", "angles", "unknown")

    def redraw(self, params: dict) -> Draw:
        question = f"In the {_NAMES[params['n']]}, what is the value of x (in degrees)?"
        answer = str(params["angles"][params["unknown"]])
        return Draw(params=params, question=question, answer=answer, solution=solution_text(params))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 10))
        name = _NAMES[params["n"]]
        said = (
            f"The {name} was drawn on tracing paper.",
            f"This is exercise {k} on a worksheet about polygons.",
            f"The {name} is the outline of a garden bed with {k} rose bushes in it.",
            f"A pupil coloured the inside of the {name} {rng.choice(['red', 'blue', 'green', 'yellow'])}.",
            f"The {name} was drawn by a class of {k + 20} pupils as a warm-up.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                f"The image shows a convex {_NAMES[p['n']]} with its interior angles marked; one angle is "
                "labelled "
                f"x°.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            names = [chr(ord("A") + i) for i in range(p["n"])]
            polygon = "".join(names)
            parts = []
            for i, a in enumerate(p["angles"]):
                value = "x^\\circ" if i == p["unknown"] else f"{a}^\\circ"
                parts.append(f"$\\angle {names[i]} = {value}$")
            text = (
                f"A convex {_NAMES[p['n']]} ${polygon}$ has interior angles " + ", ".join(parts) + ".\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    pts = np.asarray(p["vertices"], dtype=float)
    n = len(pts)
    bounds = bounds_of(pts)
    scale = units_per_point(bounds)
    span = max(bounds[2] - bounds[0], bounds[3] - bounds[1])

    def draw(ax: Axes) -> None:
        closed = np.vstack([pts, pts[:1]])
        ax.fill(closed[:, 0], closed[:, 1], color="#eef4e6", zorder=0)
        ax.plot(closed[:, 0], closed[:, 1], color="black", lw=2, zorder=2)
        for i in range(n):
            prev, nxt = pts[i - 1], pts[(i + 1) % n]
            is_x = i == p["unknown"]
            text = "x°" if is_x else f"{p['angles'][i]}°"
            color = "#d62728" if is_x else "black"
            r = 0.055 * span
            angle_arc(ax, pts[i], prev, nxt, r, color=color)
            bis, fit = fit_in_angle(prev - pts[i], nxt - pts[i], text, 12)
            dist = max(r / scale + clearance(bis, text, 12, 3), fit)
            label(ax, pts[i], text, offset=bis * dist, size=12, color=color)

    return figure_png(draw, bounds, margin=0.08)
