"""The period of a trigonometric function read from its graph (DynaMath's memorised "2π" failure).

y = A f(b(x - s)) + d with f = sin, cos or tan (function-type variation) and b from 1/2 to 4, so the
period 2π/b (π/b for tan) changes from variant to variant. The x axis is marked in fractions of π.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.functions import X, function_latex
from isodyn.modalities.geometry import TICK_SIZE, fmt
from isodyn.modalities.images import render_png

_B = (Fraction(1, 2), Fraction(2, 3), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3), Fraction(4))
_AMPS = (1, 2, 3, Fraction(1, 2), Fraction(3, 2), -1, -2)


def _frac(v: str | int | Fraction) -> Fraction:
    return Fraction(str(v))


def period_over_pi(p: dict) -> Fraction:
    b = _frac(p["b"])
    return (Fraction(1) if p["kind"] == "tan" else Fraction(2)) / b


def pi_label(q: Fraction) -> str:
    """A multiple of pi for a tick label: `0`, `π`, `-3π/2`, `π/4`."""
    if q == 0:
        return "0"
    sign = "\u2212" if q < 0 else ""
    q = abs(q)
    num = "" if q.numerator == 1 else str(q.numerator)
    return f"{sign}{num}π" if q.denominator == 1 else f"{sign}{num}π/{q.denominator}"


def build_expr(p: dict) -> sp.Expr:
    amp, b, d = (sp.Rational(str(p[k])) for k in ("A", "b", "d"))
    shift = sp.Rational(str(p["shift"])) * sp.pi
    fn = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan}[p["kind"]]
    # Unevaluated, so SymPy keeps tan(3x - 3pi/8) as written instead of turning it into a cotangent.
    return amp * fn(sp.UnevaluatedExpr(sp.expand(b * (X - shift)))) + d


def code_text(p: dict) -> str:
    """Runnable SymPy source for f."""
    return (
        f"from sympy import Symbol, pi, {p['kind']}\n\n"
        'x = Symbol("x", real=True)\n'
        f"f = {sp.sstr(build_expr(p))}\n"
    )


def solution_text(p: dict) -> str:
    t = period_over_pi(p)
    b = _frac(p["b"])
    base = "π" if p["kind"] == "tan" else "2π"
    value = float(t) * math.pi
    expr = build_expr(p)
    return "\n".join(
        [
            f"The function is $f(x) = {sp.latex(expr)}$.",
            f"The basic function {p['kind']} has period {base}; the amplitude factor, the horizontal shift "
            "and "
            "the vertical shift do not change the period.",
            f"The coefficient of x inside {p['kind']} is b = {b}, so the period is {base} / {b} = "
            f"{pi_label(t)} ≈ {fmt(value)}.",
            "On the graph, consecutive peaks (or consecutive zeros going the same way, or consecutive "
            "asymptotes "
            f"for tan) are {pi_label(t)} apart.",
            f"Answer: {fmt(value)}",
        ]
    )


class SinusoidPeriod(SeedProgram):
    seed_id = "dynamath_sinusoid_period"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.FUNCTION_TYPE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "kind": VariationType.FUNCTION_TYPE,
        "A": VariationType.NUMERICAL_VALUE,
        "b": VariationType.NUMERICAL_VALUE,
        "shift": VariationType.NUMERICAL_VALUE,
        "d": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # 3 functions x 7 frequencies x 7 amplitudes x 8 shifts x 5 offsets
    variant_space = 3 * 7 * 7 * 8 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        kind = str(rng.choice(["sin", "cos", "tan"], p=[0.4, 0.4, 0.2]))
        b = _B[int(rng.integers(len(_B)))]
        amp = (
            _AMPS[int(rng.integers(len(_AMPS)))]
            if kind != "tan"
            else [1, 2, Fraction(1, 2)][int(rng.integers(3))]
        )
        params = {
            "kind": kind,
            "A": str(amp),
            "b": str(b),
            "shift": "0",
            "d": int(rng.integers(-2, 3)),
        }
        t = period_over_pi(params)
        params["shift"] = str(t * int(rng.integers(0, 8)) / 8)
        # Window: two periods (three for tan) centred on the origin.
        half = t * (Fraction(3, 2) if kind == "tan" else 1)
        params["window"] = [str(-half), str(half)]
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("kind", "b")

    def redraw(self, params: dict) -> Draw:
        t = period_over_pi(params)
        question = "What is the period of the function f(x)? Give the answer in radians."
        return Draw(
            params=params, question=question, answer=fmt(float(t) * math.pi), solution=solution_text(params)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        d = params["d"]
        said = [
            f"This is exercise {n} on a worksheet about trigonometric graphs.",
            f"Adding {n} to f(x) would move its whole graph {n} units up.",
            f"The picture of f was printed on page {n * 3} of a textbook.",
            f"A student plotted {n * 10} points of f by hand to check the picture.",
            f"The vertical shift of f is {d}.",
        ]
        if params["kind"] != "tan":
            top = Fraction(params["A"]) if Fraction(params["A"]) > 0 else -Fraction(params["A"])
            said.append(f"The largest value f reaches is {top + d}.")
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        lo, hi = (_frac(v) for v in p["window"])
        window = f"for x from {pi_label(lo).replace(chr(0x2212), '-')} to {pi_label(hi)}"
        expr = build_expr(p)
        if modality is Modality.IMAGE:
            text = (
                f"The image shows the graph of y = f(x) {window}; the x axis is marked in multiples of π."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            latex = function_latex(expr)
            lo_tex, hi_tex = (sp.latex(sp.Rational(v) * sp.pi) for v in (lo, hi))
            interval = f"${lo_tex} \\le x \\le {hi_tex}$"
            text = f"Consider the function $y = f(x)$ for {interval}, where\n\n$$ {latex} $$\n\n"
            text += variant.question
            return Representation(modality, text, extra={"latex": latex})
        if modality is Modality.CODE:
            code = code_text(p)
            text = (
                f"Consider the function $y = f(x)$ {window}, defined by this SymPy "
                f"code:\n\n```python\n{code}```\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    lo, hi = (_frac(v) for v in p["window"])
    t = period_over_pi(p)
    amp, b, d = float(_frac(p["A"])), float(_frac(p["b"])), float(p["d"])
    shift = float(_frac(p["shift"])) * math.pi
    xs = np.linspace(float(lo) * math.pi, float(hi) * math.pi, 4001)
    arg = b * (xs - shift)
    if p["kind"] == "tan":
        ys = amp * np.tan(arg) + d
        ys[np.abs(np.cos(arg)) < 0.02] = np.nan  # break the curve at the asymptotes
        ylim = (d - 4.5 * abs(amp) - 0.5, d + 4.5 * abs(amp) + 0.5)
    else:
        ys = (amp * np.sin(arg) if p["kind"] == "sin" else amp * np.cos(arg)) + d
        top = max(abs(d + amp), abs(d - amp), 1.0)
        ylim = (-top - 0.8, top + 0.8)
    ylo, yhi = min(ylim[0], -1.5), max(ylim[1], 1.5)
    step = t / 2 if p["kind"] == "tan" else t / 4  # at most nine tick labels
    ticks = []
    k = math.ceil(lo / step)
    while step * k <= hi:
        ticks.append(step * k)
        k += 1

    def draw(ax: Axes) -> None:
        ax.plot(xs, ys, color="#1f5fbf", lw=2)
        if p["kind"] == "tan":
            # Vertical asymptotes where b(x - s) = pi/2 + n pi.
            n0 = math.floor((float(lo) * math.pi - shift) * b / math.pi - 1)
            for n in range(n0, n0 + 12):
                xa = shift + (math.pi / 2 + n * math.pi) / b
                if float(lo) * math.pi < xa < float(hi) * math.pi:
                    ax.axvline(xa, color="0.5", lw=1, ls="--")
        ax.set_xlim(float(lo) * math.pi, float(hi) * math.pi)
        ax.set_ylim(ylo, yhi)
        ax.grid(True, color="0.85", lw=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.spines["left"].set_position(("data", 0))
        ax.spines["bottom"].set_position(("data", 0))
        ax.set_xticks([float(q) * math.pi for q in ticks])
        ax.set_xticklabels([pi_label(q) if q != 0 else "" for q in ticks], fontsize=TICK_SIZE)
        yt = [v for v in range(math.ceil(ylo), math.floor(yhi) + 1)]
        if len(yt) > 12:
            yt = [v for v in yt if v % 2 == 0]
        ax.set_yticks(yt)
        ax.set_yticklabels([str(v).replace("-", "\u2212") if v else "" for v in yt], fontsize=TICK_SIZE)
        for lab in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
            lab.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 0.5, "alpha": 0.85})
        ax.set_title("$y = f(x)$", fontsize=12)
        ax.annotate(
            "x",
            xy=(1.0, 0),
            xycoords=("axes fraction", "data"),
            xytext=(-2, 4),
            textcoords="offset points",
            ha="right",
            va="bottom",
            fontsize=12,
            style="italic",
        )

    return render_png(draw, size=(6, 4))
