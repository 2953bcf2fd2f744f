"""IsoBench "Even & Odd Function" task (Appendix A.1): is a rational function even, odd or neither?

A function is `f = N / D` with polynomials `N`, `D` whose coefficients are small integers or
two-decimal numbers, as in IsoBench's example `(7x^6 - 3x^5 + x^2 - 21.76)/(2x^6 + 4x^4 + 3x^2 + 11.34)`.
The class is drawn first (uniformly), then a construction for that class:

- even:    even N / even D (D a positive sum of even powers, so the plot has no poles);
- odd:     odd N / even D, or even N with N(0) != 0 over an odd D = x * (positive even) (a pole at 0);
- neither: mixed N / even D, pure or mixed N / a positive D with odd powers, or mixed N / odd D.

Because the denominator is not always even, reading the numerator alone does not answer the question.
The truth is computed exactly (polynomial identities over the rationals) and every draw is checked
against its intended class; a draw that is accidentally even or odd is resampled.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.functions import X, expr_latex, function_code, function_latex, plot_function_png

CHOICES = ("even", "odd", "neither")
QUESTION = "Is $f(x)$ an even function, an odd function, or neither? " + format_choices(CHOICES)

# The task statement of IsoBench's parity prompt (Fu et al. 2024, "IsoBench", Appendix B, parity
# sample prompt), minus its final answer-format instruction, which the prompting strategy supplies.
STATEMENT = (
    "You are given a real-valued, scalar function $f(x)$.\n\n"
    "YOUR TASK is to determine whether $f(x)$ is an even function, an odd function, or neither.\n\n"
    "- Definition of an even function: A function such that $f(x) = f(-x)$, where the value remains "
    "unchanged if the sign of the independent variable is reversed.\n"
    "- Definition of an odd function: A function such that $f(-x) = -f(x)$, where the sign is reversed "
    "but the absolute value remains the same if the sign of the independent variable is reversed.\n\n"
    "A function is neither even nor odd if it does not satisfy either condition."
)

Poly = list[Fraction]  # ascending powers: p[k] is the coefficient of x**k
Coeffs = list[int | float]  # the JSON form of a polynomial, same order

_HALF_WIDTHS = (3, 4, 5)


# ------------------------------------------------------------------------------------------ exact polynomials


def to_poly(coeffs: Coeffs) -> Poly:
    return [Fraction(str(c)) for c in coeffs]


def _trim(p: Poly) -> Poly:
    while p and p[-1] == 0:
        p = p[:-1]
    return p


def reflect(p: Poly) -> Poly:
    """p(-x)."""
    return [c if k % 2 == 0 else -c for k, c in enumerate(p)]


def mul(p: Poly, q: Poly) -> Poly:
    out = [Fraction(0)] * (len(p) + len(q) - 1) if p and q else []
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out


def add(p: Poly, q: Poly, sign: int = 1) -> Poly:
    n = max(len(p), len(q))
    p, q = p + [Fraction(0)] * (n - len(p)), q + [Fraction(0)] * (n - len(q))
    return _trim([a + sign * b for a, b in zip(p, q, strict=True)])


def evaluate(p: Poly, t: Fraction) -> Fraction:
    return sum((c * t**k for k, c in enumerate(p)), Fraction(0))


def poly_parity(p: Poly) -> str:
    """'even' / 'odd' for polynomials with only even / only odd powers, else 'mixed'."""
    has_even = any(c != 0 for k, c in enumerate(p) if k % 2 == 0)
    has_odd = any(c != 0 for k, c in enumerate(p) if k % 2 == 1)
    return "mixed" if has_even and has_odd else "odd" if has_odd else "even"


def rational_parity(num: Poly, den: Poly) -> str:
    """Parity of N/D from the identities N(-x)D(x) = +-N(x)D(-x) (both sides are polynomials)."""
    lhs, rhs = mul(reflect(num), den), mul(num, reflect(den))
    if not add(lhs, rhs, -1):
        return "even"
    if not add(lhs, rhs, +1):
        return "odd"
    return "neither"


# ---------------------------------------------------------------------------------------------- sampling


def _coef(rng: np.random.Generator, decimal: bool, positive: bool = False) -> int | float:
    """A nonzero coefficient: an integer 1..9, or a two-decimal number that is not an integer."""
    sign = 1 if positive or rng.random() < 0.5 else -1
    if not decimal:
        return sign * int(rng.integers(1, 10))
    while True:
        cents = int(rng.integers(10, 2500))
        if cents % 100:
            return sign * cents / 100


def _poly(
    rng: np.random.Generator, degree: int, powers: str, decimal_rate: float, *, positive: bool = False
) -> Coeffs:
    """Random polynomial of exactly `degree` using only 'even', only 'odd' or 'mixed' powers.

    `positive` makes every coefficient positive (for even denominators, which are then > 0).
    A 'mixed' draw always contains both parities; every draw has at least two terms when it can.
    """
    allowed = [k for k in range(degree + 1) if powers == "mixed" or (k % 2 == 0) == (powers == "even")]
    while True:
        chosen = {k for k in allowed if rng.random() < 0.6} | {degree}
        if positive:
            chosen.add(0)
        if len(chosen) < min(2, len(allowed)):
            continue
        if powers == "mixed" and len({k % 2 for k in chosen}) < 2:
            continue
        return [
            _coef(rng, rng.random() < decimal_rate, positive) if k in chosen else 0 for k in range(degree + 1)
        ]


def _positive_mixed(rng: np.random.Generator, degree: int, decimal_rate: float) -> Coeffs:
    """A polynomial with odd powers and no real roots (so f has no poles): rejection-sampled."""
    while True:
        p = _poly(rng, degree, "mixed", decimal_rate)
        p[0], p[-1] = abs(p[0]) or 1, abs(p[-1])
        if sp.Poly(list(reversed(to_poly(p))), X).count_roots() == 0:
            return p


def _shift_up(p: Coeffs) -> Coeffs:
    """x * p(x)."""
    return [0, *p]


def _draw_pair(rng: np.random.Generator, kind: str) -> tuple[str, Coeffs, Coeffs]:
    """(construction, numerator, denominator) intended to have parity `kind`."""
    decimal_rate = 0.0 if rng.random() < 0.5 else 0.3
    dd = int(rng.choice([2, 4, 6]))
    dn = int(rng.integers(1, dd + 2))  # numerator degree at most one above the denominator's

    def even_den() -> Coeffs:
        return _poly(rng, dd, "even", decimal_rate, positive=True)

    def odd_den() -> Coeffs:
        return _shift_up(_poly(rng, max(dd - 2, 2), "even", decimal_rate, positive=True))

    def num(powers: str, *, nonzero_constant: bool = False) -> Coeffs:
        deg = dn
        if powers == "even" and deg % 2:
            deg -= 1
        if powers == "odd" and deg % 2 == 0:
            deg += 1 if deg < dd else -1
        deg = max(deg, 3 if powers == "odd" else 2)  # at least two terms, so N prints as a sum
        while True:
            p = _poly(rng, deg, powers, decimal_rate)
            if not nonzero_constant or p[0] != 0:
                return p

    if kind == "even":
        return "even/even", num("even"), even_den()
    if kind == "odd":
        if rng.random() < 0.75:
            return "odd/even", num("odd"), even_den()
        return "even/odd", num("even", nonzero_constant=True), odd_den()
    u = rng.random()
    if u < 0.45:
        return "mixed/even", num("mixed"), even_den()
    if u < 0.8:
        powers = str(rng.choice(["even", "odd", "mixed"]))
        return f"{powers}/mixed", num(powers), _positive_mixed(rng, int(rng.choice([2, 4])), decimal_rate)
    return "mixed/odd", num("mixed", nonzero_constant=True), odd_den()


# ---------------------------------------------------------------------------------------------- expressions


def _display_number(c: int | float) -> sp.Expr:
    """Integers stay integers, decimals stay decimals (sympy prints Float('21.76') as 21.76)."""
    return sp.Integer(c) if isinstance(c, int) else sp.Float(repr(c))


def poly_expr(coeffs: Coeffs, exact: bool = False) -> sp.Expr:
    """The polynomial as a SymPy expression; `exact` uses Rationals instead of display Floats."""
    num = (lambda c: sp.Rational(str(c))) if exact else _display_number
    return sp.Add(*(num(c) * X**k for k, c in enumerate(coeffs) if c != 0))


def build_expr(params: dict, exact: bool = False) -> sp.Expr:
    """f = N / D from params (display form by default, exact Rationals with `exact=True`)."""
    return poly_expr(params["num"], exact) / poly_expr(params["den"], exact)


# ---------------------------------------------------------------------------------------------- solution


def _fmt(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{float(q):.4g}"


def _witness(num: Poly, den: Poly) -> tuple[Fraction, Fraction, Fraction] | None:
    """A point t with f(-t) clearly different from both f(t) and -f(t) (for a 'neither' function)."""
    for t in (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3), Fraction(3, 2)):
        dp, dm = evaluate(den, t), evaluate(den, -t)
        if dp == 0 or dm == 0:
            continue
        fp, fm = evaluate(num, t) / dp, evaluate(num, -t) / dm
        scale = max(abs(fp), abs(fm))
        if scale and min(abs(fm - fp), abs(fm + fp)) > Fraction(1, 100) * scale:
            return t, fp, fm
    return None


_PARITY_WORDS = {
    "even": ("only even powers of $x$", "{P}(-x) = {P}(x)"),
    "odd": ("only odd powers of $x$", "{P}(-x) = -{P}(x)"),
    "mixed": ("both even and odd powers of $x$", "{P}(-x)$ equals neither ${P}(x)$ nor $-{P}(x)"),
}


def solution_text(params: dict, kind: str) -> str:
    """Worked solution: the parity of numerator and denominator, then f(-x), then a check at a point."""
    num, den = to_poly(params["num"]), to_poly(params["den"])
    steps = [
        f"Write $f(x) = N(x)/D(x)$ with $N(x) = {expr_latex(poly_expr(params['num']))}$ and "
        f"$D(x) = {expr_latex(poly_expr(params['den']))}$. Replacing $x$ by $-x$ keeps even powers and "
        "flips the sign of odd powers."
    ]
    for name, p in (("N", num), ("D", den)):
        par = poly_parity(p)
        words, rule = _PARITY_WORDS[par]
        steps.append(f"${name}(x)$ contains {words}, so ${rule.format(P=name)}$.")
    if kind == "even":
        steps.append("Hence $f(-x) = N(-x)/D(-x) = N(x)/D(x) = f(x)$: $f$ is even.")
    elif kind == "odd":
        steps.append("Exactly one of numerator and denominator changes sign, so $f(-x) = -f(x)$: $f$ is odd.")
    else:
        w = _witness(num, den)
        if w is not None:
            t, fp, fm = w
            steps.append(
                f"Check a point: $f({_fmt(t)}) \\approx {_fmt(fp)}$ and $f(-{_fmt(t)}) \\approx {_fmt(fm)}$, "
                f"so $f(-x) \\neq f(x)$ and $f(-x) \\neq -f(x)$ there."
            )
        steps.append("So $f$ satisfies neither definition: it is neither even nor odd.")
    ans = CHOICES.index(kind)
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


# ---------------------------------------------------------------------------------------------- seed


class Parity(SeedProgram):
    seed_id = "isobench_parity"
    topic = Topic.ISO_MATH
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.FUNCTION_TYPE)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    variant_space = 10**9  # random coefficient lists: effectively unbounded

    classes = ("A", "B", "C")  # even, odd, neither

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        kind = CHOICES["ABC".index(answer)]
        while True:
            construction, num, den = _draw_pair(rng, kind)
            # Exact check: a "neither" draw can be accidentally even or odd (e.g. N a multiple of D).
            if rational_parity(to_poly(num), to_poly(den)) == kind:
                break
        half = int(_HALF_WIDTHS[rng.integers(len(_HALF_WIDTHS))])
        params = {
            "num": num,
            "den": den,
            "construction": construction,
            "domain": [-half, half],
        }
        params["expr"] = str(build_expr(params))
        ans = CHOICES.index(kind)
        return Draw(
            params=params,
            question=QUESTION,
            answer=letter(ans),
            solution=solution_text(params, kind),
            choices=CHOICES,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        expr = build_expr(p)
        lo, hi = p["domain"]
        if modality is Modality.IMAGE:
            png = plot_function_png(expr, (lo, hi), x_tick_step=1, label="y = f(x)")
            text = (
                f"{STATEMENT}\n\nHere is the graph of $f(x)$ for $x$ from {lo} to {hi}, shown in the image."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            latex = function_latex(expr)
            text = f"{STATEMENT}\n\nHere is the expression of $f(x)$:\n\n$$ {latex} $$\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": latex})
        if modality is Modality.CODE:
            code = function_code(expr)
            text = (
                f"{STATEMENT}\n\nHere is the definition of $f(x)$ as SymPy code:\n\n```python\n{code}```\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
