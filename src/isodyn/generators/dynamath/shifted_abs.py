"""DynaMath seed 78 (the paper's Figure 1): is a shifted absolute value function differentiable at x = 0?

GPT-4o answers correctly when the corner sits at the origin and insists on "No" for most shifts, so
the corner position `a` is the variable that matters. The function is `c|x - a| + b` ("v" form) or,
as a function-type variation, `c|x - a| + d x + b` ("tilted" form, an asymmetric corner). Either way
the only non-differentiable point is x = a, so the truth is: differentiable at 0 iff a != 0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.functions import X, domain_latex, expr_latex, function_latex, plot_function_png

CHOICES = ("Yes", "No")
QUESTION = "Is the function differentiable at $x = 0$? " + format_choices(CHOICES)

_SHIFTS = (-4, -3, -2, -1, 1, 2, 3, 4)
_V_SCALES = (1, 1, 2, 3, -1, -2, 0.5, -0.5)  # 1 twice: the plain |x - a| of the original seed
_TILT_SCALES = (2, 3, -2, -3)
_TILTS = (1, -1, 0.5, -0.5)
_OFFSETS = (-3, -2, -1, 0, 0, 1, 2, 3)
_HALF_WIDTHS = (5, 6)


def _num(value: float | int) -> sp.Expr:
    """An exact SymPy number from a JSON number (0.5 -> 1/2)."""
    return sp.Rational(str(value))


def build_expr(params: dict) -> sp.Expr:
    """The function as a SymPy expression, rebuilt from params."""
    a, b, c, d = (_num(params[k]) for k in ("a", "b", "c", "d"))
    return c * sp.Abs(X - a) + d * X + b


def _fmt(q: Fraction) -> str:
    """A number as a teacher writes it: 2, -1, 0.5."""
    return str(q.numerator) if q.denominator == 1 else str(float(q))


def _linear(slope: Fraction, intercept: Fraction) -> str:
    """`m x + k` in plain LaTeX, omitting zero parts and unit slopes."""
    if slope == 0:
        return _fmt(intercept)
    head = "x" if slope == 1 else "-x" if slope == -1 else f"{_fmt(slope)}x"
    if intercept == 0:
        return head
    return f"{head} {'+' if intercept > 0 else '-'} {_fmt(abs(intercept))}"


def solution_text(params: dict) -> str:
    """A worked solution from the parameters: find the corner, then compare one-sided slopes at 0."""
    a, b, c, d = (Fraction(str(params[k])) for k in ("a", "b", "c", "d"))
    formula = f"$f(x) = {expr_latex(build_expr(params))}$"
    inside = "x" if a == 0 else f"x {'-' if a > 0 else '+'} {_fmt(abs(a))}"
    right_slope, left_slope = c + d, -c + d  # slopes for x > a and x < a
    steps = [
        f"The function is {formula}. The absolute value $|{inside}|$ is smooth everywhere except where "
        f"its inside changes sign, so the graph is made of two straight pieces meeting at a corner at "
        f"$x = {_fmt(a)}$.",
        f"For $x > {_fmt(a)}$ the piece is $y = {_linear(right_slope, b - c * a)}$ "
        f"(slope {_fmt(right_slope)}), and for $x < {_fmt(a)}$ it is $y = {_linear(left_slope, b + c * a)}$ "
        f"(slope {_fmt(left_slope)}).",
    ]
    if a == 0:
        steps.append(
            f"The corner is exactly at $x = 0$: the left-hand derivative there is {_fmt(left_slope)} and "
            f"the right-hand derivative is {_fmt(right_slope)}. They differ, so $f$ is not differentiable "
            f"at $x = 0$."
        )
    else:
        side, slope, piece = (
            ("left", left_slope, _linear(left_slope, b + c * a))
            if a > 0
            else ("right", right_slope, _linear(right_slope, b - c * a))
        )
        steps.append(
            f"The corner is at $x = {_fmt(a)} \\neq 0$, so $x = 0$ lies inside the {side} piece: near 0 the "
            f"graph is the straight line $y = {piece}$. A line is differentiable, so $f$ is differentiable "
            f"at $x = 0$ with $f'(0) = {_fmt(slope)}$."
        )
    ans = 1 if a == 0 else 0
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


class ShiftedAbs(SeedProgram):
    seed_id = "dynamath_shifted_abs"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.FUNCTION_TYPE)
    param_variation = {
        "form": VariationType.FUNCTION_TYPE,
        "a": VariationType.NUMERICAL_VALUE,
        "b": VariationType.NUMERICAL_VALUE,
        "c": VariationType.NUMERICAL_VALUE,
        "d": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 9 shifts x 7 offsets x (7 "v" scales + 4 x 4 tilted) x 2 windows
    variant_space = 9 * 7 * (7 + 16) * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        # a = 0 about a third of the time, so "No" is a real possibility and the answer varies.
        a = 0 if rng.random() < 1 / 3 else int(rng.choice(_SHIFTS))
        form = "tilted" if rng.random() < 0.35 else "v"
        c: float  # whole numbers or halves
        d: float
        if form == "v":
            c, d = _V_SCALES[rng.integers(len(_V_SCALES))], 0
        else:
            c, d = _TILT_SCALES[rng.integers(len(_TILT_SCALES))], _TILTS[rng.integers(len(_TILTS))]
        b = int(_OFFSETS[rng.integers(len(_OFFSETS))])
        half = int(_HALF_WIDTHS[rng.integers(len(_HALF_WIDTHS))])
        params = {"form": form, "a": a, "b": b, "c": c, "d": d, "domain": [-half, half]}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("form", "a", "b", "c", "d")

    def redraw(self, params: dict[str, Any]) -> Draw:
        ans = 1 if params["a"] == 0 else 0
        return Draw(
            params=params,
            question=QUESTION,
            answer=letter(ans),
            solution=solution_text(params),
            choices=CHOICES,
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 12))
        lo, hi = params["domain"]
        said = (
            f"A student sketched this function by hand in {k} minutes.",
            f"The function is example {k} in a chapter on derivatives.",
            f"A calculator evaluated $f$ at {k * 10} points between {lo} and {hi} to draw it.",
            f"The same function comes back in exercise {k}, where its integral is asked.",
            f"The teacher picked this function from a list of {k + 10} similar ones.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        lo, hi = p["domain"]
        expr = build_expr(p)
        if modality is Modality.IMAGE:
            png = plot_function_png(expr, (lo, hi), extra_points=[p["a"]], x_tick_step=1, label="y = f(x)")
            text = (
                f"The image shows the graph of the function $y = f(x)$ for $x$ from {lo} to {hi}.\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            latex = function_latex(expr)
            text = (
                f"Consider the function $y = f(x)$ for ${domain_latex((lo, hi))}$, where\n\n$$ {latex} $$\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"latex": latex})
        raise AssertionError(f"unhandled modality {modality}")
