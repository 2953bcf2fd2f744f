"""A linear system shown as two coloured lines, each through two labelled lattice points.

The intersection generally lies between grid points (coordinates with a terminating decimal, such as
(1.25, -2.5)), so it has to be computed from the equations rather than read off the picture. The two
colours vary and the question names them (colour variation); the points vary (numerical value).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.formatting import fmt_num
from isodyn.modalities.functions import integer_ticks
from isodyn.modalities.palette import PALETTE, pick_colors

LIM = 7
_GOOD_DENOMINATORS = {1, 2, 4, 5, 8, 10}
ANSWER_FORMAT = "an ordered pair (x, y) of exact numbers, e.g. (1.25, -2)"


def point_text(pt: list[int]) -> str:
    return f"({pt[0]}, {pt[1]})"


def intersection(l1: list[list[int]], l2: list[list[int]]) -> tuple[Fraction, Fraction] | None:
    """Intersection of line P1P2 and line Q1Q2 by Cramer's rule on a1 x + b1 y = c1 (None if parallel)."""

    def coeffs(line: list[list[int]]) -> tuple[int, int, int]:
        (x1, y1), (x2, y2) = line
        a, b = y2 - y1, x1 - x2
        return a, b, a * x1 + b * y1

    a1, b1, c1 = coeffs(l1)
    a2, b2, c2 = coeffs(l2)
    det = a1 * b2 - a2 * b1
    if det == 0:
        return None
    return Fraction(c1 * b2 - c2 * b1, det), Fraction(a1 * c2 - a2 * c1, det)


def line_equation(line: list[list[int]]) -> tuple[str, Fraction | None, Fraction]:
    """(`y = m x + k` or `x = k` as LaTeX, slope or None, intercept)."""
    (x1, y1), (x2, y2) = line
    if x1 == x2:
        return f"x = {x1}", None, Fraction(x1)
    m = Fraction(y2 - y1, x2 - x1)
    k = y1 - m * x1
    mtxt = "" if m == 1 else "-" if m == -1 else _frac_latex(m)
    if m == 0:
        return f"y = {_frac_latex(k)}", m, k
    rhs = f"{mtxt}x"
    if k != 0:
        rhs += f" {'+' if k > 0 else '-'} {_frac_latex(abs(k))}"
    return f"y = {rhs}", m, k


def _frac_latex(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return f"{sign}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def solution_text(params: dict) -> str:
    c1, c2 = params["colors"]
    l1, l2 = params["line1"], params["line2"]
    steps = []
    eqs = []
    for color, line in ((c1, l1), (c2, l2)):
        (x1, y1), (x2, y2) = line
        eq, m, k = line_equation(line)
        eqs.append((eq, m, k))
        if m is None:
            steps.append(
                f"The {color} line passes through {point_text(line[0])} and {point_text(line[1])}; both have "
                f"x = {x1}, so it is the vertical line ${eq}$."
            )
        else:
            steps.append(
                f"The {color} line passes through {point_text(line[0])} and {point_text(line[1])}: slope $m "
                f"= \\frac{{{y2} - ({y1})}}{{{x2} - ({x1})}} = {_frac_latex(m)}$, and using "
                f"{point_text(line[0])} the intercept is ${y1} - ({_frac_latex(m)})({x1}) = "
                f"{_frac_latex(k)}$, so the line is ${eq}$."
            )
    meet = intersection(l1, l2)
    assert meet is not None, "the sampler draws lines that meet"
    x, y = meet
    (e1, m1, k1), (e2, m2, k2) = eqs
    if m1 is None or m2 is None:
        vx = k1 if m1 is None else k2
        eq_other, m_o, k_o = (e2, m2, k2) if m1 is None else (e1, m1, k1)
        assert m_o is not None  # two vertical lines would not meet
        steps.append(
            f"Substitute $x = {vx}$ into ${eq_other}$: $y = {_frac_latex(m_o)} \\cdot {vx} + "
            f"({_frac_latex(k_o)}) = {_frac_latex(y)}$."
        )
    else:
        steps.append(
            f"At the solution both equations hold: ${_frac_latex(m1)}x + ({_frac_latex(k1)}) = "
            f"{_frac_latex(m2)}x + ({_frac_latex(k2)})$, so $({_frac_latex(m1 - m2)})x = "
            f"{_frac_latex(k2 - k1)}$ and $x = {_frac_latex(x)} = {fmt_num(x)}$."
        )
        steps.append(
            f"Then $y = {_frac_latex(m1)} \\cdot ({fmt_num(x)}) + ({_frac_latex(k1)}) = {fmt_num(y)}$."
        )
    steps.append(f"Answer: ({fmt_num(x)}, {fmt_num(y)})")
    return "\n".join(steps)


def _far(points: list[tuple], pt: tuple, gap: float) -> bool:
    return all((pt[0] - q[0]) ** 2 + (pt[1] - q[1]) ** 2 >= gap * gap for q in points)


class LineSystem(SeedProgram):
    seed_id = "dynamath_line_system"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.COLOR)
    param_variation = {
        "line1": VariationType.NUMERICAL_VALUE,
        "line2": VariationType.NUMERICAL_VALUE,
        "colors": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # four lattice points in a 13 x 13 grid (most pairs rejected) x ordered colour pairs
    variant_space = 200_000 * 30

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            pts = [tuple(int(v) for v in rng.integers(-6, 7, size=2)) for _ in range(4)]
            if not all(_far(pts[:i], pts[i], 3.0) for i in range(1, 4)):
                continue
            l1, l2 = [list(pts[0]), list(pts[1])], [list(pts[2]), list(pts[3])]
            if l1[0][0] > l1[1][0]:
                l1.reverse()
            if l2[0][0] > l2[1][0]:
                l2.reverse()
            cut = intersection(l1, l2)
            if cut is None:
                continue
            x, y = cut
            if not (-6 <= x <= 6 and -6 <= y <= 6):
                continue
            if x.denominator not in _GOOD_DENOMINATORS or y.denominator not in _GOOD_DENOMINATORS:
                continue
            if not _far(pts, (float(x), float(y)), 1.5):
                continue
            break
        colors = pick_colors(rng, 2)
        params = {"line1": l1, "line2": l2, "colors": colors, "answer_format": ANSWER_FORMAT}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("line1", "line2")

    def redraw(self, params: dict[str, Any]) -> Draw:
        colors = params["colors"]
        question = (
            f"The {colors[0]} line and the {colors[1]} line are the graphs of the two equations of a linear "
            "system in $x$ and $y$. What is the solution $(x, y)$ of the system?"
        )
        meet = intersection(params["line1"], params["line2"])
        assert meet is not None, "the sampler draws lines that meet"
        x, y = meet
        return Draw(params, question, f"({fmt_num(x)}, {fmt_num(y)})", solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        c1, c2 = params["colors"]
        k = int(rng.integers(2, 12))
        said = (
            f"The {c1} line was drawn first, {k} seconds before the {c2} one.",
            f"The teacher chose {c1} and {c2} so the two lines are easy to tell apart.",
            f"This system is exercise {k} on the worksheet.",
            f"{k} students in the class solved a similar system by substitution rather than elimination.",
            f"The {c2} line was drawn with a ruler {k + 10} cm long.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # Every coordinate times factor moves the crossing to factor times it; `unit` widens the axes.
        def grown(line: list[list[int]]) -> list[list[int]]:
            return [[x * factor, y * factor] for x, y in line]

        return {
            **params,
            "line1": grown(params["line1"]),
            "line2": grown(params["line2"]),
            "unit": params.get("unit", 1) * factor,
        }

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for line in (params["line1"], params["line2"]) for pt in line for v in pt)

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Two other colours, or the same two swapped between the lines.
        if rng.random() < 0.3:
            return {**params, "colors": list(reversed(params["colors"]))}
        while True:
            colors = pick_colors(rng, 2)
            if set(colors) != set(params["colors"]):
                return {**params, "colors": colors}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        lines = [(p["colors"][0], p["line1"]), (p["colors"][1], p["line2"])]
        if modality is Modality.IMAGE:
            unit = p.get("unit", 1)  # magnitude: the coordinates and the axes grow together
            lim, step = LIM * unit, unit if unit == 1 else 2 * unit

            def draw(ax: Axes) -> None:
                integer_ticks(ax, (-lim, lim), (-lim, lim), step=step)
                ax.set_aspect("equal")
                for color, ((x1, y1), (x2, y2)) in lines:
                    hexc = PALETTE[color]
                    if x1 == x2:
                        ax.plot([x1, x1], [-lim, lim], color=hexc, lw=2.2)
                    else:
                        m = (y2 - y1) / (x2 - x1)
                        xs = np.array([-lim, lim], dtype=float)
                        ax.plot(xs, y1 + m * (xs - x1), color=hexc, lw=2.2)
                    for px, py in ((x1, y1), (x2, y2)):
                        ax.plot([px], [py], "o", color=hexc, markersize=7, markeredgecolor="black", zorder=5)
                        dx = -8 if px > 3 * unit else 8
                        ax.annotate(
                            f"({px}, {py})",
                            (px, py),
                            xytext=(dx, 8 if py < 5 * unit else -14),
                            textcoords="offset points",
                            ha="right" if dx < 0 else "left",
                            fontsize=10,
                            color="black",
                            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": hexc, "alpha": 0.9},
                            zorder=6,
                        )

            image = png(draw, size=(5.6, 5.6))
            text = (
                f"The image shows a {p['colors'][0]} line and a {p['colors'][1]} line in the coordinate "
                "plane; two points with integer coordinates are marked and labelled on each "
                f"line.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            desc = " ".join(
                f"The {color} line passes through the points ${point_text(a)}$ and ${point_text(b)}$."
                for color, (a, b) in lines
            )
            text = f"Two straight lines are drawn in the $xy$-plane. {desc}\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")
