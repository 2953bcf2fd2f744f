"""Solve an inequality f(x) <= 0 (or <, >=, >) from the graph of f; the answer is an interval.

Function-type variation: a quadratic k(x - a)(x - b), a rational function k(x - a)/(x - b) (the pole
is never included, so the answer is half-open), an absolute value k(|x - h| - c), and a square root
k(sqrt(x - s) - c) (the domain's end is included). The inequality sign varies (symbolic substitution)
and is always chosen so the solution is a single bounded interval; every endpoint is an integer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.functions import X, function_latex, plot_expr_png

FAMILIES = ("quadratic", "rational", "absolute", "sqrt")
SIGN_LATEX = {"<=": "\\le", "<": "<", ">=": "\\ge", ">": ">"}
FORMS = {
    "quadratic": "f(x) = k(x - a)(x - b)",
    "rational": "f(x) = \\frac{k(x - a)}{x - b}",
    "absolute": "f(x) = k(|x - a| - b)",
    "sqrt": "f(x) = k(\\sqrt{x - a} - b)",
}
ANSWER_FORMAT = "an interval in bracket notation, e.g. [1, 3) or (-2, 4]"
HALF = 7


def build_expr(p: dict) -> sp.Expr:
    k = sp.Rational(*p["k"])
    u, v = p["u"], p["v"]
    fam = p["family"]
    if fam == "quadratic":
        return k * (X - u) * (X - v)
    if fam == "rational":
        return k * (X - u) / (X - v)
    if fam == "absolute":
        return k * (sp.Abs(X - u) - v)
    return k * (sp.sqrt(X - u) - v)


def solve(p: dict) -> tuple[int, int, bool, bool]:
    """(left, right, left_closed, right_closed) from the family's closed form."""
    u, v, strict = p["u"], p["v"], p["sign"] in ("<", ">")
    fam = p["family"]
    if fam == "quadratic":
        return min(u, v), max(u, v), not strict, not strict
    if fam == "rational":
        lo, hi = min(u, v), max(u, v)
        return lo, hi, (not strict) and lo == u, (not strict) and hi == u
    if fam == "absolute":
        return u - v, u + v, not strict, not strict
    return u, u + v * v, True, not strict


def interval_text(lo: int, hi: int, lc: bool, rc: bool) -> str:
    return f"{'[' if lc else '('}{lo}, {hi}{']' if rc else ')'}"


def solution_text(p: dict) -> str:
    k = sp.Rational(*p["k"])
    u, v, sign = p["u"], p["v"], p["sign"]
    fam = p["family"]
    strict = sign in ("<", ">")
    want = "negative" if sign.startswith("<") else "positive"
    lo, hi, lc, rc = solve(p)
    ans = interval_text(lo, hi, lc, rc)
    s = SIGN_LATEX[sign]
    lt = "<" if strict else "\\le"
    shift = sp.latex(X - u)  # x - 2, x + 3, or x
    steps = [
        f"We need all $x$ in the domain of $f$ with $f(x) {s} 0$: where $f$ is {want}"
        + ("" if strict else " or zero")
        + "."
    ]
    if fam == "quadratic":
        steps.append(
            f"$f(x) = {sp.latex(build_expr(p))}$ has zeros at $x = {min(u, v)}$ and $x = {max(u, v)}$. Since "
            f"$k = {sp.latex(k)}$ is {'positive' if k > 0 else 'negative'}, the parabola opens "
            f"{'upward' if k > 0 else 'downward'}, so it is {want} exactly between the zeros."
        )
    elif fam == "rational":
        steps.append(
            f"$f(x) = {sp.latex(build_expr(p))}$ is zero at $x = {u}$ and undefined at $x = {v}$ (vertical "
            "asymptote). These two points split the line into three parts, and the sign of $f$ changes at "
            f"each, so $f$ has one sign between {min(u, v)} and {max(u, v)} and the other outside; between "
            f"them it is {want} (test the midpoint $x = {sp.latex(sp.Rational(u + v, 2))}$)."
        )
        steps.append(
            f"$x = {v}$ is never included (f is undefined there); $x = {u}$ is included only for a "
            "non-strict inequality."
        )
    elif fam == "absolute":
        steps.append(
            f"$f(x) = {sp.latex(build_expr(p))}$. Since $k = {sp.latex(k)}$ is "
            f"{'positive' if k > 0 else 'negative'}, $f(x) {s} 0$ is the same as $|{shift}| {lt} {v}$, i.e. "
            f"${u - v} {lt} x {lt} {u + v}$."
        )
    else:
        steps.append(
            f"$f(x) = {sp.latex(build_expr(p))}$ is defined for $x \\ge {u}$. Since $k = {sp.latex(k)}$ is "
            f"{'positive' if k > 0 else 'negative'}, $f(x) {s} 0$ is the same as $\\sqrt{{{shift}}} {lt} "
            f"{v}$, i.e. ${shift} {lt} {v * v}$."
        )
        steps.append(
            f"Together with the domain this gives ${u} \\le x {lt} {u + v * v}$ (at $x = {u}$, $f = "
            f"{sp.latex(-k * v)}$, which satisfies the inequality)."
        )
    steps.append(f"Answer: {ans}")
    return "\n".join(steps).replace("x - -", "x + ")


def _sample_params(rng: np.random.Generator) -> dict:
    fam = FAMILIES[int(rng.integers(len(FAMILIES)))]
    sign_k = int(rng.choice([-1, 1]))
    while True:
        if fam == "quadratic":
            u, v = sorted(int(t) for t in rng.choice(np.arange(-5, 6), size=2, replace=False))
            k = [sign_k, int(rng.choice([1, 2]))]
            if abs(k[0] / k[1]) * (v - u) ** 2 / 4 >= 1.5:
                break
        elif fam == "rational":
            u, v = (int(t) for t in rng.choice(np.arange(-5, 6), size=2, replace=False))
            k = [sign_k * int(rng.choice([1, 2])), 1]
            if abs(u - v) >= 2:
                break
        elif fam == "absolute":
            u, v = int(rng.integers(-3, 4)), int(rng.integers(1, 4))
            k = [sign_k * int(rng.choice([1, 2])), int(rng.choice([1, 1, 2]))]
            break
        else:
            v = int(rng.choice([1, 2]))
            u = int(rng.integers(-5, 6 - v * v))
            k = [sign_k * int(rng.choice([1, 2])), 1]
            break
    # The sign is chosen so the solution set is the bounded interval.
    strict = bool(rng.random() < 0.5)
    below = sign_k > 0
    sign = ("<" if below else ">") + ("" if strict else "=")
    return {"family": fam, "k": k, "u": u, "v": v, "sign": sign, "answer_format": ANSWER_FORMAT}


class InequalityInterval(SeedProgram):
    seed_id = "dynamath_inequality_interval"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (
        VariationType.FUNCTION_TYPE,
        VariationType.SYMBOLIC_SUBSTITUTION,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "family": VariationType.FUNCTION_TYPE,
        "k": VariationType.NUMERICAL_VALUE,
        "u": VariationType.NUMERICAL_VALUE,
        "v": VariationType.NUMERICAL_VALUE,
        "sign": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # quadratic 55x4 + rational 110x4 + absolute 7x3x6 + sqrt 14x4, times 2 strictness
    variant_space = (220 + 440 + 126 + 56) * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        p = _sample_params(rng)
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("family", "k", "u", "v", "sign")

    def redraw(self, params: dict[str, Any]) -> Draw:
        lo, hi, lc, rc = solve(params)
        question = (
            f"The function $f$ has the form ${FORMS[params['family']]}$ for some constants $k, a, b$. Solve "
            f"the inequality $f(x) {SIGN_LATEX[params['sign']]} 0$ and give the solution set as an interval."
        )
        return Draw(
            params=params,
            question=question,
            answer=interval_text(lo, hi, lc, rc),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 12))
        said = (
            f"This inequality is exercise {k} on the worksheet.",
            f"The same function $f$ comes back in exercise {k + 1}, where its derivative is asked.",
            f"Plotting $f$ on a graphing calculator takes about {k} seconds.",
            f"A classmate solved a similar inequality last week in {k} minutes.",
            f"The teacher chose the constants $k$, $a$ and $b$ from a list of {k + 10} sets.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        expr = build_expr(p)
        if modality is Modality.IMAGE:
            k = p["k"][0] / p["k"][1]

            def extra(ax: Axes) -> None:
                if p["family"] == "rational":
                    ax.axvline(p["v"], color="0.35", ls="--", lw=1.2)
                if p["family"] == "sqrt":
                    y0 = -k * p["v"]
                    ax.plot([p["u"]], [y0], "o", color="#1f5fbf", markersize=7, zorder=5)

            image = plot_expr_png(
                expr,
                (-HALF, HALF),
                ylim=(-8.6, 8.6),
                y_tick_step=2,
                title="$y = f(x)$",
                extra=extra,
            )
            note = " A dashed line marks the vertical asymptote." if p["family"] == "rational" else ""
            note += " A dot marks the left end of the graph." if p["family"] == "sqrt" else ""
            text = (
                f"The image shows the graph of $y = f(x)$ for $x$ from {-HALF} to {HALF}; the graph shows "
                f"all of the function's zeros and asymptotes.{note}\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            latex = function_latex(expr)
            text = f"Consider the function\n\n$$ {latex} $$\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": latex})
        raise AssertionError(f"unhandled modality {modality}")
