"""Which equation describes the line through two marked points? (multiple choice)

Symbolic substitution: within a variant all options are written in one form, which changes between
variants: slope-intercept (y = mx + c), standard (ax + by = k) or point-slope (y - y1 = m(x - x1)).
Distractors flip the sign of the slope, invert it, or change the intercept.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.coordinate_grid import grid_png, label_points
from isodyn.modalities.geometry import COLORS, point_text

XLIM, YLIM = (-7.5, 7.5), (-6.0, 6.0)
FORMS = ("slope_intercept", "standard", "point_slope")


def tex_number(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return f"{sign}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def _term(coef: Fraction, var: str, first: bool) -> str:
    """`2x`, `- x`, `+ \\frac{1}{2}x` (empty for 0)."""
    if coef == 0:
        return ""
    mag = abs(coef)
    body = var if mag == 1 else f"{tex_number(mag)}{var}"
    if first:
        return f"-{body}" if coef < 0 else body
    return f" - {body}" if coef < 0 else f" + {body}"


def _const(c: Fraction, first: bool) -> str:
    if c == 0:
        return "0" if first else ""
    if first:
        return tex_number(c)
    return f" - {tex_number(-c)}" if c < 0 else f" + {tex_number(c)}"


def _shifted(var: str, v: int) -> str:
    """`x - 2`, `x + 3`, `x`."""
    if v == 0:
        return var
    return f"{var} - {v}" if v > 0 else f"{var} + {-v}"


def equation(m: Fraction, c: Fraction, form: str, anchor: tuple[int, int]) -> str:
    """The line y = m x + c written in `form` (LaTeX, without `$`)."""
    if form == "slope_intercept":
        rhs = _term(m, "x", True) + _const(c, m == 0)
        return f"y = {rhs}"
    if form == "standard":
        # m x - y = -c, scaled to coprime integers with a positive x coefficient.
        den = math.lcm(m.denominator, c.denominator)
        a, b, k = m * den, Fraction(-den), -c * den
        g = math.gcd(math.gcd(int(a), int(b)), int(k)) or 1
        a, b, k = a / g, b / g, k / g
        if a < 0 or (a == 0 and b < 0):
            a, b, k = -a, -b, -k
        return f"{_term(a, 'x', True)}{_term(b, 'y', a == 0)} = {tex_number(k)}"
    x1, y1 = anchor
    lhs = _shifted("y", y1)
    inner = _shifted("x", x1)
    if m == 1:
        rhs = inner
    elif m == -1:
        rhs = f"-({inner})"
    else:
        rhs = f"{tex_number(m)}({inner})"
    return f"{lhs} = {rhs}"


def solution_text(p: dict, choices: tuple[str, ...], answer: str) -> str:
    (x1, y1), (x2, y2) = p["points"]
    m = Fraction(y2 - y1, x2 - x1)
    c = Fraction(y1) - m * x1
    idx = "ABCDEFGHIJ".index(answer)
    steps = [
        f"Slope: m = ({y2} - ({y1})) / ({x2} - ({x1})) = {y2 - y1} / {x2 - x1} = {m}.",
        f"Intercept: c = y1 - m x1 = {y1} - ({m})({x1}) = {c}, so the line is $y = "
        f"{equation(m, c, 'slope_intercept', (x1, y1))[4:]}$.",
    ]
    if p["form"] == "standard":
        steps.append(f"Rearranged with whole-number coefficients: ${equation(m, c, 'standard', (x1, y1))}$.")
    elif p["form"] == "point_slope":
        steps.append(
            f"Through the point ({x1}, {y1}) with slope {m}: ${equation(m, c, 'point_slope', (x1, y1))}$."
        )
    steps.append(
        f"Check: both ({x1}, {y1}) and ({x2}, {y2}) satisfy option ({answer}), and each other option fails "
        "for "
        "at least one of them."
    )
    steps.append(f"Answer: ({answer}) {choices[idx]}.")
    return "\n".join(steps)


class LineEquation(SeedProgram):
    seed_id = "dynamath_line_equation"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.SYMBOLIC_SUBSTITUTION)
    param_variation = {
        "points": VariationType.NUMERICAL_VALUE,
        "form": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # ~3000 point pairs x 3 forms x option orders
    variant_space = 3000 * 3 * 24

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            x1, x2 = (int(v) for v in rng.integers(-6, 7, size=2))
            y1, y2 = (int(v) for v in rng.integers(-5, 6, size=2))
            if x1 == x2 or y1 == y2 or math.hypot(x2 - x1, y2 - y1) < 4:
                continue
            m = Fraction(y2 - y1, x2 - x1)
            if abs(m) <= 4 and m.denominator <= 4:
                break
        if x1 > x2:
            x1, y1, x2, y2 = x2, y2, x1, y1
        c = Fraction(y1) - m * x1
        form = FORMS[int(rng.integers(3))]
        anchor = (x1, y1)
        if form == "point_slope":
            slopes = (-m, 1 / m, -1 / m, m + 1, m - 1, 2 * m, m / 2, -2 * m, m + 2)
            cands = [(s, Fraction(y1) - s * x1) for s in slopes]
        else:
            cands = [(-m, c), (1 / m, c), (m, -c), (-m, -c), (m, c + 1), (m, c - 1), (1 / m, -c), (-1 / m, c)]
        distractors = []
        for cand in cands:
            if cand != (m, c) and cand not in distractors and cand[0] != 0:
                distractors.append(cand)
        picked = [distractors[int(i)] for i in rng.choice(len(distractors), size=3, replace=False)]
        lines = [(m, c), *picked]
        order = rng.permutation(4)
        lines = [lines[int(i)] for i in order]
        choices = tuple(f"${equation(a, b, form, anchor)}$" for a, b in lines)
        answer = letter(lines.index((m, c)))
        params = {"points": [[x1, y1], [x2, y2]], "form": form}
        question = "Which equation describes the line? " + format_choices(choices)
        return Draw(
            params=params,
            question=question,
            answer=answer,
            solution=solution_text(params, choices, answer),
            choices=choices,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        (x1, y1), (x2, y2) = p["points"]
        if modality is Modality.IMAGE:
            text = (
                "The image shows a line in the coordinate plane passing through two marked points, labelled "
                "with "
                f"their coordinates.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            text = (
                f"A line in the coordinate plane passes through the points $({x1}, {y1})$ and $({x2}, {y2})$."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    (x1, y1), (x2, y2) = p["points"]
    m = (y2 - y1) / (x2 - x1)
    xs = np.array(XLIM)
    ys = y1 + m * (xs - x1)

    def draw(ax: Axes) -> None:
        ax.plot(xs, ys, color=COLORS["blue"], lw=2.2, zorder=3)
        for x, y in ((x1, y1), (x2, y2)):
            ax.plot(x, y, "o", color="black", ms=7, zorder=5)
        texts = [point_text(x, y).replace("-", "\u2212") for x, y in ((x1, y1), (x2, y2))]
        line = ((xs[0], ys[0]), (xs[1], ys[1]))
        label_points(ax, [(x1, y1), (x2, y2)], texts, XLIM, YLIM, segments=[line])

    return grid_png(draw, XLIM, YLIM)
