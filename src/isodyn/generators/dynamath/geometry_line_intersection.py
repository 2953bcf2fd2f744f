"""Intersection point of two coloured lines, each given by two labelled points.

Two or three lines in named colours; each passes through two marked grid points whose coordinates are
written next to them. The question names two colours. Colour variation (which lines are asked) and
graph-structure variation (a third, distracting line). The answer is a coordinate pair, with halves or
quarters when the lines cross between grid points.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.coordinate_grid import grid_png, label_points
from isodyn.modalities.geometry import COLORS, LINE_COLORS, point_text

XLIM, YLIM = (-7.5, 7.5), (-6.0, 6.0)
Point = tuple[int, int]


def intersect(l1: tuple[Point, Point], l2: tuple[Point, Point]) -> tuple[Fraction, Fraction] | None:
    (x1, y1), (x2, y2) = l1
    (x3, y3), (x4, y4) = l2
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if den == 0:
        return None
    a = x1 * y2 - y1 * x2
    b = x3 * y4 - y3 * x4
    px = Fraction(a * (x3 - x4) - (x1 - x2) * b, den)
    py = Fraction(a * (y3 - y4) - (y1 - y2) * b, den)
    return px, py


def _point_line_distance(q: Point, line: tuple[Point, Point]) -> float:
    (x1, y1), (x2, y2) = line
    return abs((x2 - x1) * (q[1] - y1) - (y2 - y1) * (q[0] - x1)) / math.hypot(x2 - x1, y2 - y1)


def _angle(l1: tuple[Point, Point], l2: tuple[Point, Point]) -> float:
    d1 = np.subtract(l1[1], l1[0])
    d2 = np.subtract(l2[1], l2[0])
    c = abs(float(np.dot(d1, d2))) / float(np.linalg.norm(d1) * np.linalg.norm(d2))
    return math.degrees(math.acos(min(1.0, c)))


def _line_text(line: list[list[int]]) -> str:
    (x1, y1), (x2, y2) = line
    m = Fraction(y2 - y1, x2 - x1) if x2 != x1 else None
    if m is None:
        return f"x = {x1}"
    c = Fraction(y1) - m * x1
    if m == 0:
        return f"y = {c}"
    slope = "" if m == 1 else "-" if m == -1 else f"({m})" if m.denominator > 1 else str(m)
    tail = "" if c == 0 else f" + {c}" if c > 0 else f" - {-c}"
    return f"y = {slope}x{tail}"


def solution_text(p: dict, pt: tuple[Fraction, Fraction]) -> str:
    c0, c1 = p["asked"]
    l0, l1 = p["lines"][p["colors"].index(c0)], p["lines"][p["colors"].index(c1)]
    steps = []
    for color, line in ((c0, l0), (c1, l1)):
        (x1, y1), (x2, y2) = line
        if x1 == x2:
            steps.append(f"The {color} line through ({x1}, {y1}) and ({x2}, {y2}) is vertical: x = {x1}.")
        else:
            steps.append(
                f"The {color} line through ({x1}, {y1}) and ({x2}, {y2}) has slope ({y2} - ({y1}))/({x2} - "
                f"({x1})) "
                f"= {Fraction(y2 - y1, x2 - x1)}, so it is {_line_text(line)}."
            )
    steps.append(f"Solving the two equations together gives x = {pt[0]} and y = {pt[1]}.")
    answer = point_text(float(pt[0]), float(pt[1]))
    steps.append(f"Answer: {answer}")
    return "\n".join(steps)


class LineIntersection(SeedProgram):
    seed_id = "dynamath_line_intersection"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.COLOR, VariationType.GRAPH_STRUCTURE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "lines": VariationType.NUMERICAL_VALUE,
        "colors": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # pairs of lines through grid points (~10^6) x colour choices
    variant_space = 10**6

    def _random_line(self, rng: np.random.Generator) -> tuple[Point, Point]:
        while True:
            a = (int(rng.integers(-6, 7)), int(rng.integers(-5, 6)))
            b = (int(rng.integers(-6, 7)), int(rng.integers(-5, 6)))
            if math.dist(a, b) >= 3.5 and 0 not in a and 0 not in b:  # marked points off the axes
                return a, b

    def sample(self, rng: np.random.Generator) -> Draw:
        count = int(rng.choice([2, 3]))
        while True:
            lines = [self._random_line(rng) for _ in range(count)]
            pt = intersect(lines[0], lines[1])
            if pt is None or _angle(lines[0], lines[1]) < 25:
                continue
            if pt[0].denominator not in (1, 2, 4) or pt[1].denominator not in (1, 2, 4):
                continue
            if not (-6.5 <= pt[0] <= 6.5 and -5.5 <= pt[1] <= 5.5):
                continue
            marked = [q for line in lines for q in line]
            if any(math.dist(q, (float(pt[0]), float(pt[1]))) < 1.0 for q in marked):
                continue
            if min(math.dist(a, b) for i, a in enumerate(marked) for b in marked[i + 1 :]) < 1.5:
                continue
            # No marked point may sit on (or next to) another line: it would look like that line's point.
            if any(
                _point_line_distance(q, other) < 0.7
                for k, line in enumerate(lines)
                for q in line
                for j, other in enumerate(lines)
                if j != k
            ):
                continue
            if count == 3:
                if min(_angle(lines[2], lines[0]), _angle(lines[2], lines[1])) < 20:
                    continue
                others = [intersect(lines[2], lines[0]), intersect(lines[2], lines[1])]
                if any(
                    o is None or math.dist((float(o[0]), float(o[1])), (float(pt[0]), float(pt[1]))) < 1.5
                    for o in others
                ):
                    continue
            break
        colors = [LINE_COLORS[int(i)] for i in rng.choice(len(LINE_COLORS), size=count, replace=False)]
        params = {
            "lines": [[list(a), list(b)] for a, b in lines],
            "colors": colors,
            "asked": colors[:2],
            "answer_format": "a coordinate pair (x, y)",
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("lines", "colors", "asked")

    def redraw(self, params: dict) -> Draw:
        c0, c1 = params["asked"]
        lines = params["lines"]
        l0, l1 = (lines[params["colors"].index(c)] for c in (c0, c1))
        pt = intersect((tuple(l0[0]), tuple(l0[1])), (tuple(l1[0]), tuple(l1[1])))
        assert pt is not None  # sample draws crossing lines, and scaling keeps them crossing
        question = f"At which point do the {c0} line and the {c1} line intersect?"
        answer = point_text(float(pt[0]), float(pt[1]))
        return Draw(params=params, question=question, answer=answer, solution=solution_text(params, pt))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        k = int(rng.integers(len(params["colors"])))
        color, line = params["colors"][k], params["lines"][k]
        x, y = line[int(rng.integers(2))]
        n = int(rng.integers(2, 10))
        said = (
            f"The {color} line was drawn with a ruler through its two marked points.",
            f"The point ({x}, {y}) on the {color} line was the first point to be marked.",
            f"The {color} line goes on in both directions beyond its two given points.",
            f"This is exercise {n} on a worksheet about straight lines.",
            f"A student checked the picture by plotting {n} more points of the {color} line.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # The figure keeps its grid; each grid line then stands for `factor` times as much.
        lines = [[[x * factor, y * factor] for x, y in line] for line in params["lines"]]
        return {**params, "lines": lines, "grid_unit": params.get("grid_unit", 1) * factor}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(v) for line in params["lines"] for q in line for v in q)

    def renamed(self, params: dict, rng: np.random.Generator) -> dict:
        # Other line colours; the asked names follow their lines (a former colour may reappear elsewhere).
        new = [str(c) for c in rng.permutation(LINE_COLORS)[: len(params["colors"])]]
        swap = dict(zip(params["colors"], new, strict=True))
        return {**params, "colors": new, "asked": [swap[c] for c in params["asked"]]}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                f"The image shows {len(p['lines'])} coloured lines on a coordinate grid; each line passes "
                "through "
                f"two marked points labelled with their coordinates.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            parts = [
                f"the {c} line passes through $({a[0]}, {a[1]})$ and $({b[0]}, {b[1]})$"
                for c, (a, b) in zip(p["colors"], p["lines"], strict=True)
            ]
            text = "In the coordinate plane, " + "; ".join(parts) + f".\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _clip(a: list[int], b: list[int]) -> tuple[tuple[float, float], tuple[float, float]]:
    """The part of line ab inside the window."""
    (x1, y1), (x2, y2) = a, b
    ts = []
    dx, dy = x2 - x1, y2 - y1
    for bound, start, d in ((XLIM, x1, dx), (YLIM, y1, dy)):
        if d:
            ts += [(bound[0] - start) / d, (bound[1] - start) / d]
    ts.sort()
    inside = [
        t
        for t in ts
        if XLIM[0] - 1e-9 <= x1 + t * dx <= XLIM[1] + 1e-9 and YLIM[0] - 1e-9 <= y1 + t * dy <= YLIM[1] + 1e-9
    ]
    t0, t1 = min(inside), max(inside)
    return (x1 + t0 * dx, y1 + t0 * dy), (x1 + t1 * dx, y1 + t1 * dy)


def _draw(p: dict) -> bytes:
    # Drawn in grid lines; the labels show the coordinates (a line may stand for more than 1, issue 41).
    unit = p.get("grid_unit", 1)
    on_grid = [[[x // unit, y // unit] for x, y in line] for line in p["lines"]]
    segs = [_clip(a, b) for a, b in on_grid]

    def draw(ax: Axes) -> None:
        pts, texts, cols = [], [], []
        for (a, b), color, seg in zip(on_grid, p["colors"], segs, strict=True):
            (sx, sy), (ex, ey) = seg
            ax.plot([sx, ex], [sy, ey], color=COLORS[color], lw=2.2, zorder=3)
            for q in (a, b):
                ax.plot(
                    q[0],
                    q[1],
                    "o",
                    color=COLORS[color],
                    ms=7,
                    markeredgecolor="black",
                    markeredgewidth=0.6,
                    zorder=5,
                )
                pts.append(q)
                texts.append(point_text(q[0] * unit, q[1] * unit).replace("-", "\u2212"))
                cols.append(COLORS[color])
        label_points(ax, pts, texts, XLIM, YLIM, segments=segs, colors=cols, size=11)

    return grid_png(draw, XLIM, YLIM, unit=unit)
