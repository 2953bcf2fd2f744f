"""A cubic through four tabled points: find one named coefficient.

The cubic f(x) = a x^3 + b x^2 + c x + d has small integer coefficients; a table gives f at four
distinct integers in [-3, 3]. The coefficient letters vary (a, b, c, d / p, q, r, s / k, m, n, t) and so
does which one is asked (symbolic substitution). The worked solution eliminates one unknown at a time
(successive differences divided by the x gaps), so every intermediate number is an integer.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_array
from isodyn.modalities.tables import table_png

NAME_SETS = (("a", "b", "c", "d"), ("p", "q", "r", "s"), ("k", "m", "n", "t"))
_LEADING = (-2, -1, 1, 2)


def form_latex(names: list[str]) -> str:
    a, b, c, d = names
    return f"f(x) = {a}x^3 + {b}x^2 + {c}x + {d}"


def form_code(names: list[str]) -> str:
    a, b, c, d = names
    return f"f(x) = {a}*x**3 + {b}*x**2 + {c}*x + {d}"


def _term(coef: Fraction, name: str, first: bool) -> str:
    if coef == 0:
        return ""
    mag = abs(coef)
    body = name if mag == 1 else f"{mag}{name}"
    if first:
        return body if coef > 0 else f"-{body}"
    return f" + {body}" if coef > 0 else f" - {body}"


def equation(coeffs: list[Fraction], names: list[str], rhs: Fraction) -> str:
    """`8a + 4b + 2c + d = 17` with zero terms dropped and unit coefficients left implicit."""
    out = ""
    for coef, name in zip(coeffs, names, strict=True):
        piece = _term(coef, name, not out)
        out += piece
    return f"{out or '0'} = {rhs}"


def solution_text(params: dict) -> str:
    xs, ys, names = params["xs"], params["ys"], params["names"]
    target = params["asked"]
    rows = [
        [Fraction(x) ** 3, Fraction(x) ** 2, Fraction(x), Fraction(1), Fraction(y)]
        for x, y in zip(xs, ys, strict=True)
    ]
    steps = [
        f"Write $f(x) = {form_latex(names)[7:]}$ and substitute the four points of the table; each gives one "
        "linear equation in the four unknown coefficients:"
    ]
    steps += [
        f"  $f({x}) = {y}$:  ${equation(r[:4], names, r[4])}$" for x, y, r in zip(xs, ys, rows, strict=True)
    ]

    def reduce(rs: list[list[Fraction]], gaps: list[int]) -> list[list[Fraction]]:
        base = rs[0]
        return [
            [(v - b) / g for v, b in zip(r, base, strict=True)] for r, g in zip(rs[1:], gaps, strict=True)
        ]

    r1 = reduce(rows, [xs[i] - xs[0] for i in (1, 2, 3)])
    steps.append(
        "Subtract the first equation from each of the others and divide by the difference of the x values "
        f"({', '.join(str(xs[i] - xs[0]) for i in (1, 2, 3))}); ${names[3]}$ cancels:"
    )
    steps += [f"  ${equation(r[:4], names, r[4])}$" for r in r1]
    r2 = reduce(r1, [xs[i] - xs[1] for i in (2, 3)])
    steps.append(
        f"Repeat with these three equations, dividing by {xs[2] - xs[1]} and {xs[3] - xs[1]}; ${names[2]}$ "
        "cancels:"
    )
    steps += [f"  ${equation(r[:4], names, r[4])}$" for r in r2]
    r3 = reduce(r2, [xs[3] - xs[2]])[0]
    a = r3[4] / r3[0]
    steps.append(f"Once more (divide by {xs[3] - xs[2]}): ${equation(r3[:4], names, r3[4])}$.")
    if r3[0] != 1:
        steps.append(f"So ${names[0]} = {a}$.")
    b = (r2[0][4] - r2[0][0] * a) / r2[0][1]
    steps.append(f"Back-substitute into ${equation(r2[0][:4], names, r2[0][4])}$: ${names[1]} = {b}$.")
    c = (r1[0][4] - r1[0][0] * a - r1[0][1] * b) / r1[0][2]
    steps.append(f"Then ${equation(r1[0][:4], names, r1[0][4])}$ gives ${names[2]} = {c}$.")
    d = rows[0][4] - rows[0][0] * a - rows[0][1] * b - rows[0][2] * c
    steps.append(f"Finally the first equation gives ${names[3]} = {d}$.")
    values = [a, b, c, d]
    constant = "" if d == 0 else (" + " if d > 0 else " - ") + str(abs(d))
    poly = f"{_term(a, 'x^3', True)}{_term(b, 'x^2', False)}{_term(c, 'x', False)}{constant}"
    steps.append(f"So $f(x) = {poly}$; it reproduces every value in the table.")
    steps.append(f"Answer: {values[target]}")
    return "\n".join(steps)


class CubicTable(SeedProgram):
    seed_id = "dynamath_cubic_table"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.SYMBOLIC_SUBSTITUTION)
    param_variation = {
        "coeffs": VariationType.NUMERICAL_VALUE,
        "xs": VariationType.NUMERICAL_VALUE,
        "names": VariationType.SYMBOLIC_SUBSTITUTION,
        "asked": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # leading x three other coefficients x x-sets x letter sets x asked coefficient
    variant_space = 4 * 11**3 * 35 * 3 * 4

    def sample(self, rng: np.random.Generator) -> Draw:
        coeffs = [int(rng.choice(_LEADING))] + [int(v) for v in rng.integers(-5, 6, size=3)]
        xs = sorted(int(v) for v in rng.choice(np.arange(-3, 4), size=4, replace=False))
        ys = [sum(c * x ** (3 - k) for k, c in enumerate(coeffs)) for x in xs]
        names = list(NAME_SETS[int(rng.integers(len(NAME_SETS)))])
        # The constant term is only asked when it cannot be read off at x = 0.
        asked = int(rng.integers(4)) if 0 not in xs else int(rng.integers(3))
        params = {"coeffs": coeffs, "xs": xs, "ys": ys, "names": names, "asked": asked}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("coeffs", "xs", "ys", "asked")

    def redraw(self, params: dict[str, Any]) -> Draw:
        names, asked = params["names"], params["asked"]
        question = (
            # the same words under a picture, a LaTeX array and a Python dict: no "table" here
            f"The function $f$ is the cubic polynomial ${form_latex(names)}$. What is the value of "
            f"${names[asked]}$?"
        )
        return Draw(
            params=params,
            question=question,
            answer=str(params["coeffs"][asked]),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        a, b, c, d = params["names"]
        n = int(rng.integers(2, 12))
        said = (
            f"A student worked out these {len(params['xs'])} values of $f$ by hand in {n} minutes.",
            f"The same cubic comes back in exercise {n} of the worksheet, where its graph is sketched.",
            f"The letters ${a}, {b}, {c}, {d}$ were picked by the teacher; any other letters would do.",
            f"Last week the class met a quadratic whose values were tabulated at {n} points.",
            f"The values of $f$ were checked twice with a calculator, {n} minutes apart.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # f is linear in its coefficients: scaling them all scales every value (still integers).
        return {
            **params,
            "coeffs": [c * factor for c in params["coeffs"]],
            "ys": [y * factor for y in params["ys"]],
        }

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(y) for y in params["ys"])

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Another letter set, or one read backwards (then the letter asked for "d" may be the leading
        # coefficient, which suggests the constant term).
        pool = [list(s) for s in NAME_SETS] + [list(reversed(s)) for s in NAME_SETS]
        others = [s for s in pool if s != params["names"]]
        return {**params, "names": others[int(rng.integers(len(others)))]}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        xs, ys = p["xs"], p["ys"]
        if modality is Modality.IMAGE:
            rows = [["x", *map(str, xs)], ["f(x)", *map(str, ys)]]
            image = table_png(rows, header_rows=0, header_cols=1, fontsize=14, title="Values of f(x)")
            text = (
                f"The image shows a table of values of a function $f$ at {len(xs)} "
                f"points.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            table = latex_array([["x", *map(str, xs)], ["f(x)", *map(str, ys)]])
            text = f"A function $f$ takes these values:\n\n$$\n{table}\n$$\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.CODE:
            pairs = ", ".join(f"{x}: {y}" for x, y in zip(xs, ys, strict=True))
            code = (
                f"# {form_code(p['names'])} is a cubic polynomial with these values\nf_values = {{{pairs}}}  "
                "# x: f(x)\n"
            )
            text = (
                "The Python code below gives values of a function "
                f"$f$.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
