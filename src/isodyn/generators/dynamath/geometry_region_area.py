"""Area of the region enclosed by a parabola and a line (or a second parabola): a definite integral.

The two curves are labelled with their equations and meet at two marked points; the region between
them is shaded. Function-type variation: the second curve is a line or a parabola, and either curve
can be on top. Area = |k| (x2 - x1)^3 / 6 where f - g = k (x - x1)(x - x2).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.functions import X
from isodyn.modalities.geometry import COLORS, TICK_SIZE, fmt, point_text
from isodyn.modalities.images import render_png

_K = (Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2), Fraction(2), Fraction(-2))
_J = (Fraction(1, 2), Fraction(-1, 2), Fraction(1), Fraction(-1))


def coeffs(p: dict, name: str) -> list[Fraction]:
    """[a, b, c] of a x^2 + b x + c."""
    return [Fraction(v) for v in p[name]]


def poly(cs: list[Fraction]) -> sp.Expr:
    a, b, c = (sp.Rational(q.numerator, q.denominator) for q in cs)
    return a * X**2 + b * X + c


def poly_tex(cs: list[Fraction]) -> str:
    """`\\frac{1}{2}x^{2} - x + 2` with the coefficients written in front of the powers."""
    parts = []
    for coef, power in zip(cs, ("x^{2}", "x", ""), strict=True):
        if coef == 0:
            continue
        mag = abs(coef)
        num = (
            str(mag.numerator) if mag.denominator == 1 else f"\\frac{{{mag.numerator}}}{{{mag.denominator}}}"
        )
        body = power if (mag == 1 and power) else f"{num}{power}"
        sign = "-" if coef < 0 else "+"
        parts.append((sign, body))
    if not parts:
        return "0"
    head = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    return head + "".join(f" {sg} {b}" for sg, b in parts[1:])


def _value(cs: list[Fraction], x: Fraction) -> Fraction:
    return cs[0] * x * x + cs[1] * x + cs[2]


def solution_text(p: dict, area: Fraction) -> str:
    ft, gt = poly_tex(coeffs(p, "f")), poly_tex(coeffs(p, "g"))
    x1, x2 = p["x1"], p["x2"]
    diff = [a - b for a, b in zip(coeffs(p, "f"), coeffs(p, "g"), strict=True)]
    top, bottom = ("f", "g") if sp.Rational(str(p["k"])) < 0 else ("g", "f")
    # f - g = k (x - x1)(x - x2) is negative between the roots when k > 0, so g is on top there.
    return "\n".join(
        [
            f"The curves are $f(x) = {ft}$ and $g(x) = {gt}$.",
            f"They meet where $f(x) - g(x) = {poly_tex(diff)} = 0$, i.e. at x = {x1} and x = {x2}.",
            f"Between these points {top} lies above {bottom}, so the area is "
            f"$\\int_{{{x1}}}^{{{x2}}} |f(x) - g(x)|\\,dx = |k| \\frac{{(x_2 - x_1)^3}}{{6}}$ with "
            f"$f - g = k(x - x_1)(x - x_2)$, k = {p['k']}.",
            f"Area = {abs(Fraction(p['k']))} × {x2 - x1}³ / 6 = {area} ≈ {fmt(float(area))}.",
            f"Answer: {fmt(float(area))}",
        ]
    )


class RegionArea(SeedProgram):
    seed_id = "dynamath_region_area"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.FUNCTION_TYPE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "other": VariationType.FUNCTION_TYPE,
        "k": VariationType.NUMERICAL_VALUE,
        "x1": VariationType.NUMERICAL_VALUE,
        "x2": VariationType.NUMERICAL_VALUE,
        "g": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # ~30 root pairs x 6 k x (line: 35 | parabola: 4 x 35)
    variant_space = 30 * 6 * (35 + 140)

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            x1 = int(rng.integers(-4, 3))
            x2 = x1 + int(rng.integers(2, 7))
            if x2 > 5:
                continue
            k = _K[int(rng.integers(len(_K)))]
            other = "line" if rng.random() < 0.55 else "parabola"
            j = Fraction(0) if other == "line" else _J[int(rng.integers(len(_J)))]
            if j + k == 0:
                continue
            m, n = Fraction(int(rng.integers(-2, 3))), Fraction(int(rng.integers(-3, 4)))
            g = [j, m, n]
            f = [j + k, m - k * (x1 + x2), n + k * x1 * x2]
            ys = [_value(f, Fraction(x)) for x in (x1, x2)]
            if max(abs(y) for y in ys) <= 12 and abs(k) * (x2 - x1) ** 2 / 4 <= 14:
                break
        params = {
            "f": [str(c) for c in f],
            "g": [str(c) for c in g],
            "other": other,
            "k": str(k),
            "x1": x1,
            "x2": x2,
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("f", "g", "k", "x1", "x2")

    def redraw(self, params: dict) -> Draw:
        area = abs(Fraction(params["k"])) * Fraction((params["x2"] - params["x1"]) ** 3, 6)
        question = "What is the area of the region enclosed by the two curves?"
        return Draw(
            params=params, question=question, answer=fmt(float(area)), solution=solution_text(params, area)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        a = Fraction(params["f"][0])
        said = (
            f"The parabola $y = f(x)$ opens {'upwards' if a > 0 else 'downwards'}.",
            f"This is exercise {n} on a worksheet about definite integrals.",
            "Both curves are continuous for every real x.",
            f"The parabola $y = f(x)$ crosses the y axis at $y = {Fraction(params['f'][2])}$.",
            f"A student checked the picture by plotting {n * 10} points of each curve by hand.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # A vertical stretch: every coefficient of both curves (and k) times the factor; the
        # intersection points keep their x and the area is multiplied by the factor.
        def times(values: list[str]) -> list[str]:
            return [str(Fraction(v) * factor) for v in values]

        return {
            **params,
            "f": times(params["f"]),
            "g": times(params["g"]),
            "k": str(Fraction(params["k"]) * factor),
        }

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(Fraction(v)) for v in (*params["f"], *params["g"]))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        f, g = poly(coeffs(p, "f")), poly(coeffs(p, "g"))
        kind = "a line" if p["other"] == "line" else "a parabola"
        if modality is Modality.IMAGE:
            text = (
                f"The image shows the parabola y = f(x) and {kind} y = g(x), each labelled with its "
                "equation; their "
                "two intersection points are marked and the region they enclose is "
                f"shaded.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            text = (
                f"Consider the parabola $y = f(x)$ and {kind} $y = g(x)$, where\n\n$$ f(x) = "
                f"{poly_tex(coeffs(p, 'f'))}, "
                f"\\qquad g(x) = {poly_tex(coeffs(p, 'g'))}. $$\n\nThey intersect at exactly two points and "
                "enclose a bounded region."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text)
        if modality is Modality.CODE:
            code = (
                f'from sympy import Rational, Symbol\n\nx = Symbol("x", real=True)\n'
                f"f = {sp.sstr(f)}\ng = {sp.sstr(g)}\n"
            )
            text = (
                f"Consider the parabola $y = f(x)$ and {kind} $y = g(x)$, defined by this SymPy code:\n\n"
                f"```python\n{code}```\n\nThey intersect at exactly two points and enclose a bounded "
                "region.\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")


def _label_offset(
    x: float,
    y: float,
    side: int,
    text: str,
    xs: np.ndarray,
    curves: tuple[np.ndarray, ...],
    xlim: tuple[float, float],
    ylim: tuple[float, float],
) -> tuple[float, float]:
    """An offset (points) for a point's label, outside the region and clear of both curves."""
    w_pt, h_pt = 5.5 * 72 * 0.8, 4.4 * 72 * 0.72  # the plotting area, roughly

    def to_pt(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (px - xlim[0]) / (xlim[1] - xlim[0]) * w_pt, (py - ylim[0]) / (ylim[1] - ylim[0]) * h_pt

    cx, cy = to_pt(np.array([x]), np.array([y]))
    samples = [to_pt(xs, ys) for ys in curves]
    # The axes and their tick labels are obstacles too.
    ys_axis = np.linspace(ylim[0], ylim[1], 200)
    samples.append(to_pt(np.zeros_like(ys_axis), ys_axis))
    samples.append(to_pt(np.full_like(ys_axis, -0.25 * (xlim[1] - xlim[0]) / 12), ys_axis))
    samples.append(to_pt(xs, np.zeros_like(xs)))
    half_w, half_h = 0.3 * 11 * len(text) + 3, 9.0
    best, best_cost = (side * (half_w + 6), 0.0), np.inf
    for dx, dy in ((side, 0), (side, 1), (side, -1), (0, 1), (0, -1), (-side, 1), (-side, -1)):
        ox = dx * (half_w + 6)
        oy = dy * (half_h + 6)
        bx, by = cx[0] + ox, cy[0] + oy
        cost = 0.0
        for px, py in samples:
            cost += float(np.sum((np.abs(px - bx) < half_w) & (np.abs(py - by) < half_h)))
        if not (half_w <= bx <= w_pt - half_w and half_h <= by <= h_pt - half_h):
            cost += 1000
        if cost < best_cost:
            best, best_cost = (ox, oy), cost
    return best


def _draw(p: dict) -> bytes:
    fc, gc = coeffs(p, "f"), coeffs(p, "g")
    x1, x2 = p["x1"], p["x2"]
    lo, hi = x1 - 1.5, x2 + 1.5
    xs = np.linspace(lo, hi, 600)

    def ev(cs: list[Fraction], t: np.ndarray) -> np.ndarray:
        return float(cs[0]) * t**2 + float(cs[1]) * t + float(cs[2])

    fy, gy = ev(fc, xs), ev(gc, xs)
    inner = (xs >= x1) & (xs <= x2)
    core = np.concatenate([fy[inner], gy[inner], [0.0]])
    span = max(core.max() - core.min(), 4.0)
    ylo, yhi = core.min() - 0.45 * span, core.max() + 0.45 * span
    f_tex, g_tex = poly_tex(fc), poly_tex(gc)
    pts = [(x1, float(_value(fc, Fraction(x1)))), (x2, float(_value(fc, Fraction(x2))))]

    def draw(ax: Axes) -> None:
        ax.fill_between(xs[inner], fy[inner], gy[inner], color="#f6c28b", alpha=0.7, zorder=1)
        ax.plot(xs, fy, color=COLORS["blue"], lw=2.2, label=f"$y = {f_tex}$", zorder=3)
        ax.plot(xs, gy, color=COLORS["red"], lw=2.2, label=f"$y = {g_tex}$", zorder=3)
        for (x, y), side in zip(pts, (-1, 1), strict=True):
            ax.plot(x, y, "o", color="black", ms=6, zorder=5)
            text = point_text(x, y).replace("-", "\u2212")
            dx, dy = _label_offset(x, y, side, text, xs, (fy, gy), (lo, hi), (ylo, yhi))
            ax.annotate(
                text,
                (x, y),
                xytext=(dx, dy),
                textcoords="offset points",
                ha="center",
                va="center",
                fontsize=11,
                zorder=6,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6, "alpha": 0.85},
            )
        ax.set_xlim(lo, hi)
        ax.set_ylim(ylo, yhi)
        ax.grid(True, color="0.88", lw=0.6)
        ax.set_axisbelow(True)
        for spine in ("top", "right"):
            ax.spines[spine].set_visible(False)
        # Axes through the origin unless it is at the very edge of the window (tick labels would clip).
        if lo + 0.6 <= 0 <= hi - 0.6:
            ax.spines["left"].set_position(("data", 0))
        if ylo + 0.1 * (yhi - ylo) <= 0 <= yhi - 0.1 * (yhi - ylo):
            ax.spines["bottom"].set_position(("data", 0))
        ax.tick_params(labelsize=TICK_SIZE)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
        ax.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.16), ncol=2, fontsize=11, frameon=False)

    return render_png(draw, size=(5.5, 4.4))
