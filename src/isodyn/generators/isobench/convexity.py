"""IsoBench "Convex & Concave Function" task (Appendix A.1): is f convex or concave on its stated domain?

IsoBench (Fu et al. 2024, "IsoBench", Appendix A.1) samples convex functions as weighted sums of the
operations {x^p, |x|, -log x, exp x} and concave ones as their negatives, and states in the prompt the
domain on which the property holds. Here a function is

    f(x) = sum_i w_i g_i(x) + a x + b        on the closed interval [lo, hi],

with building blocks g in {x^p (p = 2, 3, 4, 3/2, 5/2, -1), |x|, -log x, exp(k x)} and two-decimal
weights. Each block has a known curvature on the domain (x^3 and 1/x bend downward for x < 0, so the
domain matters); a convex draw gives every weighted block an upward bend (f'' >= 0) and a concave draw
is the exact negative construction. |x| on a one-sided domain is linear there and gets either sign (a
distractor, as in IsoBench's own example `0.31x - 1.73 log(x) + 1.13|x| - 0.63` for x > 0). Linear and
constant parts take either sign.

Visibility: the largest gap between the curve and its chord must be at least 12% of the plotted y
window, so the bend is plain to see; the plot shows exactly [lo, hi], which every form states.

params: {"terms": [{"op": "power", "p": 2 | 3 | 4 | 1.5 | 2.5 | -1, "w": w} | {"op": "abs", "w": w}
| {"op": "neglog", "w": w} (meaning w * (-log x)) | {"op": "exp", "k": k, "w": w}], "linear": a,
"constant": b, "domain": [lo, hi], "expr": the SymPy string of f}.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.functions import (
    X,
    auto_ylim,
    domain_latex,
    expr_latex,
    format_number,
    function_code_block,
    function_latex,
    plot_curve_png,
    sample_function,
)

CHOICES = ("convex", "concave")

# IsoBench's convexity prompt (Appendix B, Figures 9 and 10), with the domain written into the task and
# the definitions, minus the final answer-format instruction (the prompting strategy supplies that).
STATEMENT = (
    "You are given a real-valued, scalar function $f(x)$, defined for ${dom}$.\n\n"
    "YOUR TASK is to determine whether $f(x)$ is a convex function or a concave function on this domain.\n\n"
    "- Definition of a convex function: A function such that for all $x$, $y$ in the domain and "
    "$0 \\le t \\le 1$, $f(tx + (1 - t)y) \\le t f(x) + (1 - t) f(y)$.\n"
    "- Definition of a concave function: A function such that for all $x$, $y$ in the domain and "
    "$0 \\le t \\le 1$, $f(tx + (1 - t)y) \\ge t f(x) + (1 - t) f(y)$."
)

# Domains by kind: straddling 0, positive, negative (the negative ones mirror the positive ones).
_STRADDLE = ((-4, 4), (-3, 3), (-5, 5), (-2, 2), (-2, 4), (-4, 2), (-3, 5), (-5, 3), (-6, 4), (-4, 6))
_POSITIVE = ((0.5, 3), (0.5, 4), (0.5, 5), (0.5, 6), (1, 4), (1, 5), (1, 6), (1, 8), (2, 6), (2, 8))
_NEGATIVE = tuple((-hi, -lo) for lo, hi in _POSITIVE)

# Building blocks allowed on each kind of domain: ("power", p), ("abs",), ("neglog",), ("exp",).
Block = tuple[str] | tuple[str, float]  # only a power carries a second entry, its exponent
_BLOCKS: dict[str, tuple[Block, ...]] = {
    "straddle": (("power", 2), ("power", 4), ("abs",), ("exp",)),
    "positive": (
        ("power", 2),
        ("power", 3),
        ("power", 4),
        ("power", 1.5),
        ("power", 2.5),
        ("power", -1),
        ("abs",),
        ("neglog",),
        ("exp",),
    ),
    "negative": (("power", 2), ("power", 3), ("power", 4), ("power", -1), ("abs",), ("exp",)),
}
_EXP_RATES = (1, 0.5, -0.5, -1)
_MIN_BEND = 0.12  # curve-to-chord gap, as a fraction of the plotted y window


# ---------------------------------------------------------------------------------------------- numbers


def _num(value: float | int) -> sp.Expr:
    """Display form: integers stay integers, decimals print as written (1.13, not 113/100)."""
    return sp.Integer(int(value)) if float(value).is_integer() else sp.Float(repr(float(value)))


def _rat(value: float | int) -> Fraction:
    return Fraction(str(value))


def _dec(q: Fraction) -> str:
    """An exact decimal when it has at most 6 places (always, for this seed's numbers)."""
    if q.denominator == 1:
        return str(q.numerator)
    scaled = q * 10**6
    if scaled.denominator == 1:
        return format_number(float(q))
    return f"{float(q):.4g}"


def _weight(rng: np.random.Generator) -> int | float:
    """A magnitude 0.2 .. 3.0 with two decimals (an integer when it happens to be one)."""
    cents = int(rng.integers(20, 301))
    return cents // 100 if cents % 100 == 0 else cents / 100


def _signed(rng: np.random.Generator, low: int, high: int) -> int | float:
    """A nonzero two-decimal number with |value| in [low/100, high/100] and a random sign."""
    cents = int(rng.integers(low, high + 1)) * (1 if rng.random() < 0.5 else -1)
    return cents // 100 if cents % 100 == 0 else cents / 100


# ---------------------------------------------------------------------------------------------- blocks


def domain_kind(domain: list) -> str:
    lo, hi = domain
    return "straddle" if lo < 0 < hi else "positive" if lo > 0 else "negative"


def block_bend(term: dict, domain: list) -> int:
    """+1 if the unweighted block is convex on the domain, -1 if concave, 0 if linear there."""
    kind = domain_kind(domain)
    op = term["op"]
    if op == "abs":
        return 1 if kind == "straddle" else 0
    if op in ("neglog", "exp"):
        return 1
    p = term["p"]
    if p in (2, 4, 1.5, 2.5):
        return 1
    return 1 if kind == "positive" else -1  # x^3 and 1/x: convex for x > 0, concave for x < 0


def block_expr(term: dict) -> sp.Expr:
    """g(x) for one term (unweighted)."""
    op = term["op"]
    if op == "power":
        return X ** sp.Rational(str(term["p"]))
    if op == "abs":
        return sp.Abs(X)
    if op == "neglog":
        return -sp.log(X)
    return sp.exp(_num(term["k"]) * X)


def build_expr(params: dict) -> sp.Expr:
    """f from params, in display form (decimal weights print as written)."""
    expr = sp.Add(*(_num(t["w"]) * block_expr(t) for t in params["terms"]))
    return expr + _num(params["linear"]) * X + _num(params["constant"])


def evaluate(params: dict, xs: np.ndarray) -> np.ndarray:
    """f on a numpy grid, straight from the parameters (used for the visibility check)."""
    ys = params["linear"] * xs + params["constant"]
    for t in params["terms"]:
        op = t["op"]
        if op == "power":
            g = np.abs(xs) ** t["p"] if t["p"] in (1.5, 2.5) else xs ** float(t["p"])
        elif op == "abs":
            g = np.abs(xs)
        elif op == "neglog":
            g = -np.log(xs)
        else:
            g = np.exp(t["k"] * xs)
        ys = ys + t["w"] * g
    return ys


def bend(params: dict) -> float:
    """Largest gap between the graph and the chord joining its end points, relative to the y window."""
    lo, hi = params["domain"]
    xs = np.linspace(lo, hi, 801)
    ys = evaluate(params, xs)
    chord = ys[0] + (ys[-1] - ys[0]) * (xs - lo) / (hi - lo)
    y0, y1 = auto_ylim(ys)
    return float(np.max(np.abs(ys - chord)) / (y1 - y0))


# ---------------------------------------------------------------------------------------------- sampling


def _draw(rng: np.random.Generator, sign: int) -> dict:
    """One candidate: `sign` = +1 for convex, -1 for concave."""
    u = rng.random()
    kind = "straddle" if u < 0.4 else "positive" if u < 0.8 else "negative"
    pool = {"straddle": _STRADDLE, "positive": _POSITIVE, "negative": _NEGATIVE}[kind]
    lo, hi = pool[rng.integers(len(pool))]
    domain = [lo, hi]
    reach = max(abs(lo), abs(hi))
    blocks = [
        b
        for b in _BLOCKS[kind]
        if not (len(b) == 2 and reach ** b[1] > 1000)  # keep one power from dwarfing the others
    ]
    count = int(rng.choice([1, 2, 3], p=[0.3, 0.45, 0.25]))
    picked = sorted(rng.choice(len(blocks), size=min(count, len(blocks)), replace=False))
    terms = []
    for i in picked:
        block = blocks[int(i)]
        term: dict = {"op": block[0]}
        if len(block) == 2:  # ("power", p)
            term["p"] = block[1]
        if block[0] == "exp":
            rates = [k for k in _EXP_RATES if abs(k) * reach <= 5]
            term["k"] = rates[rng.integers(len(rates))]
        b = block_bend(term, domain)
        direction = sign * b if b else (1 if rng.random() < 0.5 else -1)
        term["w"] = direction * _weight(rng)
        terms.append(term)
    linear = _signed(rng, 10, 300) if rng.random() < 0.6 else 0
    constant = _signed(rng, 10, 500) if rng.random() < 0.7 else 0
    return {"terms": terms, "linear": linear, "constant": constant, "domain": domain}


# ---------------------------------------------------------------------------------------------- solution


def _term_latex(term: dict) -> str:
    return expr_latex(_num(term["w"]) * block_expr(term))


def _second_derivative(term: dict, domain: list) -> tuple[str, str]:
    """(LaTeX of the term's second derivative, why its sign is what it is on the domain)."""
    w = _rat(term["w"])
    op = term["op"]
    below = domain_kind(domain) == "negative"
    if op == "neglog":
        sign = "-" if w < 0 else ""
        coef, d2, factor = w, f"{sign}\\frac{{{_dec(abs(w))}}}{{x^{{2}}}}", "$x^{2} > 0$"
    elif op == "exp":
        k = _rat(term["k"])
        coef = w * k * k
        d2 = expr_latex(_num(float(coef)) * block_expr(term))
        factor = f"${expr_latex(block_expr(term))} > 0$"
    else:
        p = Fraction(str(term["p"]))
        coef, power = w * p * (p - 1), p - 2
        if power == 0:
            return _dec(coef), f"it is the constant ${_dec(coef)}$"
        d2 = expr_latex(_num(float(coef)) * X ** sp.Rational(power.numerator, power.denominator))
        factor = {
            Fraction(2): "$x^{2} \\ge 0$",
            Fraction(1): "$x < 0$ there" if below else "$x > 0$ there",
            Fraction(-1, 2): "$\\sqrt{x} > 0$",
            Fraction(1, 2): "$\\sqrt{x} \\ge 0$",
            Fraction(-3): "$x^{3} < 0$ there" if below else "$x^{3} > 0$ there",
        }[power]
    return d2, f"its coefficient ${_dec(coef)}$ is {'positive' if coef > 0 else 'negative'} and {factor}"


def solution_text(params: dict, sign: int) -> str:
    lo = params["domain"][0]
    dom = domain_latex(params["domain"])
    word = "convex" if sign > 0 else "concave"
    up = "\\ge 0" if sign > 0 else "\\le 0"
    steps = [
        f"On ${dom}$ we have $f(x) = {expr_latex(build_expr(params))}$. A function is convex where its "
        f"graph bends upward ($f''(x) \\ge 0$) and concave where it bends downward ($f''(x) \\le 0$); "
        "linear terms and constants do not bend, so only the other terms matter."
    ]
    for t in params["terms"]:
        b = block_bend(t, params["domain"])
        term = _term_latex(t)
        if t["op"] == "abs" and b == 0:
            side = "x" if lo > 0 else "-x"
            steps.append(f"On this domain $|x| = {side}$, so ${term}$ is linear and does not bend.")
            continue
        if t["op"] == "abs":
            w = _rat(t["w"])
            steps.append(
                f"The term ${term}$ is linear on each side of $x = 0$; at $x = 0$ its slope jumps from "
                f"${_dec(-w)}$ to ${_dec(w)}$, a {'rise' if w > 0 else 'drop'}, so the corner bends "
                f"{'upward' if w > 0 else 'downward'}."
            )
            continue
        d2, why = _second_derivative(t, params["domain"])
        positive = _rat(t["w"]) * b > 0
        steps.append(
            f"The term ${term}$ has second derivative ${d2}$, which is "
            f"{'nonnegative' if positive else 'nonpositive'} for ${dom}$ because {why}."
        )
    steps.append(
        f"Every term bends the same way, so $f''(x) {up}$ on the whole domain ${dom}$ (and the bend is "
        f"strict somewhere): $f$ is {word} there."
    )
    ans = CHOICES.index(word)
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


# ---------------------------------------------------------------------------------------------- seed


class Convexity(SeedProgram):
    seed_id = "isobench_convexity"
    topic = Topic.ISO_MATH
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.FUNCTION_TYPE)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    variant_space = 10**8  # block subsets x two-decimal weights x domains: effectively unbounded

    classes = ("A", "B")  # convex, concave

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        sign = 1 if answer == "A" else -1
        while True:
            params = _draw(rng, sign)
            if bend(params) >= _MIN_BEND:
                break
        params["expr"] = str(build_expr(params))
        question = f"Is $f(x)$ convex or concave on ${domain_latex(params['domain'])}$? " + format_choices(
            CHOICES
        )
        return Draw(
            params=params,
            question=question,
            answer=answer,
            solution=solution_text(params, sign),
            choices=CHOICES,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        dom = domain_latex(p["domain"])
        statement = STATEMENT.format(dom=dom)
        expr = build_expr(p)
        if modality is Modality.IMAGE:
            corners = [0.0] if any(t["op"] == "abs" for t in p["terms"]) else []
            xs, ys = sample_function(expr, tuple(p["domain"]), extra_points=corners)
            png = plot_curve_png(xs, ys, p["domain"])
            text = (
                f"{statement}\n\nHere is the graph of $f(x)$ on its whole domain ${dom}$, shown in the image."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            latex = function_latex(expr)
            text = (
                f"{statement}\n\nHere is the expression of $f(x)$, defined for ${dom}$:\n\n$$ {latex} $$\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"latex": latex})
        if modality is Modality.CODE:
            code = function_code_block(expr, domain=p["domain"])
            text = (
                f"{statement}\n\nHere is the definition of $f(x)$ as SymPy code; `domain` is the interval "
                f"${dom}$ on which $f$ is defined:\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
