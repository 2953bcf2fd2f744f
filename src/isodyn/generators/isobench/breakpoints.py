"""IsoBench "Counting Breakpoints" task (Appendix A.1): how many breakpoints has a piecewise-linear f?

IsoBench (Fu et al. 2024, "IsoBench", Appendix A.1) samples piecewise linear functions with 2 or 3
breakpoints, "sudden changes in slope at intersections of linear functions", and audits by hand that
the slope changes are visible. Here f is continuous on an integer interval [lo, hi] (lo < 0 < hi) and
made of k + 1 linear pieces, k in {2, 3}; slopes and the first intercept have one decimal, breakpoints
one decimal, so every later intercept (fixed by continuity) has at most two.

The hand audit becomes rules checked on every draw, in the coordinates of the plotted picture:

- every breakpoint is at least 12% of the domain's width from either end and from x = 0 by 4% (the
  y axis is drawn there), and neighbouring breakpoints are at least 18% of the width apart;
- at every breakpoint the line turns by at least 25 degrees as drawn (slopes measured after scaling
  x and y to the plotted window, whose height includes y = 0).

The LaTeX form is a `cases` environment and the code form a `sympy.Piecewise`, both stating [lo, hi].

params: {"domain": [lo, hi], "breakpoints": [b_1, ..., b_k], "slopes": [m_0, ..., m_k],
"intercepts": [c_0, ..., c_k]}; piece i is m_i x + c_i between its neighbouring edges.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy as sp

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.functions import (
    X,
    auto_ylim,
    domain_latex,
    format_number,
    function_code_block,
    plot_curve_png,
)

CHOICES = ("2", "3")

# IsoBench's breakpoint prompt (Appendix B, Figures 11 and 12) with the domain filled in, minus the
# final answer-format instruction (the prompting strategy supplies that).
STATEMENT = (
    "You are given a real-valued, scalar function $f(x)$, defined for ${dom}$.\n\n"
    "YOUR TASK is to count the number of breakpoints of $f(x)$. A breakpoint refers to a point "
    "on the function's domain at which the function changes its slope. You should IGNORE the left and "
    "right end points of the domain: $f$ is defined on $[{lo}, {hi}]$, so only consider the open interval "
    "$({lo}, {hi})$."
)

_EDGE = 0.12  # breakpoint distance from either end of the domain, as a fraction of its width
_GAP = 0.18  # distance between neighbouring breakpoints
_AXIS = 0.04  # distance from x = 0, where the y axis is drawn
_MIN_TURN = 25.0  # degrees the drawn line turns at each breakpoint
_AXES_ASPECT = 0.75  # height / width of the plotting area of a 5 x 4 inch figure with a title


# ---------------------------------------------------------------------------------------------- pieces


def _q(value: float | int) -> Fraction:
    return Fraction(str(value))


def _json(q: Fraction) -> int | float:
    return int(q) if q.denominator == 1 else float(q)


def vertices(params: dict) -> tuple[list[Fraction], list[Fraction]]:
    """Exact (x, y) of the domain ends and the breakpoints, left to right."""
    lo, hi = params["domain"]
    xs = [_q(lo), *(_q(b) for b in params["breakpoints"]), _q(hi)]
    ys = []
    for i, x in enumerate(xs):
        piece = min(i, len(params["slopes"]) - 1)  # the right end belongs to the last piece
        ys.append(_q(params["slopes"][piece]) * x + _q(params["intercepts"][piece]))
    return xs, ys


def turns(params: dict) -> list[float]:
    """Angle in degrees by which the drawn line turns at each breakpoint (in the plotted window)."""
    lo, hi = params["domain"]
    _, ys = vertices(params)
    y0, y1 = auto_ylim(np.array([float(y) for y in ys]))
    scale = (hi - lo) / (y1 - y0) * _AXES_ASPECT
    angles = [math.degrees(math.atan(float(s) * scale)) for s in params["slopes"]]
    return [abs(b - a) for a, b in itertools.pairwise(angles)]


def _display(value: float | int) -> sp.Expr:
    return sp.Integer(int(value)) if float(value).is_integer() else sp.Float(repr(float(value)))


def piece_expr(slope: float | int, intercept: float | int) -> sp.Expr:
    return _display(slope) * X + _display(intercept)


def build_expr(params: dict) -> sp.Piecewise:
    """f as a `sympy.Piecewise`: the first piece closed on both sides, the others `b_i < x <= b_{i+1}`."""
    lo, hi = params["domain"]
    edges = [_display(e) for e in (lo, *params["breakpoints"], hi)]
    args = []
    for i, (m, c) in enumerate(zip(params["slopes"], params["intercepts"], strict=True)):
        left = sp.Ge(X, edges[i]) if i == 0 else sp.Gt(X, edges[i])
        args.append((piece_expr(m, c), sp.And(left, sp.Le(X, edges[i + 1]))))
    return sp.Piecewise(*args)


def linear_latex(slope: float | int, intercept: float | int, times: str = "") -> str:
    """`2.5x + 3`, `-x - 0.4`, `x`, `-1.2` (plain, as a teacher writes a line); `times="*"` for code."""
    m, c = float(slope), float(intercept)
    head = "" if m == 0 else "x" if m == 1 else "-x" if m == -1 else f"{format_number(m)}{times}x"
    if not head:
        return format_number(c)
    if c == 0:
        return head
    return f"{head} {'+' if c > 0 else '-'} {format_number(abs(c))}"


def piecewise_code(params: dict) -> str:
    """`Piecewise(...)` source with one branch per line, conditions written left to right."""
    lo, hi = params["domain"]
    edges = [format_number(e) for e in (lo, *params["breakpoints"], hi)]
    rows = []
    for i, (m, c) in enumerate(zip(params["slopes"], params["intercepts"], strict=True)):
        line = linear_latex(m, c, times="*")
        left = f"x >= {edges[i]}" if i == 0 else f"x > {edges[i]}"
        rows.append(f"    ({line}, ({left}) & (x <= {edges[i + 1]})),")
    return "Piecewise(\n" + "\n".join(rows) + "\n)"


def cases_latex(params: dict) -> str:
    lo, hi = params["domain"]
    edges = [format_number(e) for e in (lo, *params["breakpoints"], hi)]
    rows = []
    for i, (m, c) in enumerate(zip(params["slopes"], params["intercepts"], strict=True)):
        left = f"{edges[i]} \\le x" if i == 0 else f"{edges[i]} < x"
        rows.append(f"{linear_latex(m, c)} & \\text{{for }} {left} \\le {edges[i + 1]}")
    return "f(x) = \\begin{cases} " + " \\\\ ".join(rows) + " \\end{cases}"


# ---------------------------------------------------------------------------------------------- sampling


def _draw(rng: np.random.Generator, k: int) -> dict | None:
    """One candidate with k breakpoints, or None when it breaks a visibility rule."""
    lo, hi = -int(rng.integers(3, 13)), int(rng.integers(3, 13))
    span = hi - lo
    if span < 8:
        return None
    first, last = math.ceil((lo + _EDGE * span) * 10), math.floor((hi - _EDGE * span) * 10)
    tenths = sorted(int(t) for t in rng.choice(np.arange(first, last + 1), size=k, replace=False))
    cuts = [Fraction(t, 10) for t in tenths]
    if any(b - a < _GAP * span for a, b in itertools.pairwise(cuts)):
        return None
    if any(abs(b) < _AXIS * span for b in cuts):
        return None
    slopes = [Fraction(int(rng.integers(-40, 41)), 10) for _ in range(k + 1)]
    intercepts = [Fraction(int(rng.integers(-50, 51)), 10)]
    for i, b in enumerate(cuts):  # continuity at b: m_i b + c_i = m_{i+1} b + c_{i+1}
        intercepts.append(intercepts[i] + (slopes[i] - slopes[i + 1]) * b)
    params = {
        "domain": [lo, hi],
        "breakpoints": [_json(b) for b in cuts],
        "slopes": [_json(m) for m in slopes],
        "intercepts": [_json(c) for c in intercepts],
    }
    # Shift the whole graph so its vertices average a small target level (the y window includes 0).
    _, ys = vertices(params)
    mean = sum(ys, Fraction(0)) / len(ys)
    shift = Fraction(round(float(mean) * 10), 10) - Fraction(int(rng.integers(-30, 31)), 10)
    params["intercepts"] = [_json(c - shift) for c in intercepts]
    if min(turns(params)) < _MIN_TURN:
        return None
    return params


# ---------------------------------------------------------------------------------------------- solution


def solution_text(params: dict) -> str:
    lo, hi = params["domain"]
    k = len(params["breakpoints"])
    _, ys = vertices(params)
    slopes, intercepts = params["slopes"], params["intercepts"]
    steps = [
        f"On ${domain_latex(params['domain'])}$ the function is made of {k + 1} linear pieces with slopes "
        + ", ".join(f"${format_number(m)}$" for m in slopes)
        + " from left to right. A breakpoint is an interior point where the slope changes."
    ]
    for i, b in enumerate(params["breakpoints"]):
        v = format_number(float(ys[i + 1]))
        steps.append(
            f"At $x = {format_number(b)}$ the pieces ${linear_latex(slopes[i], intercepts[i])}$ and "
            f"${linear_latex(slopes[i + 1], intercepts[i + 1])}$ both give $f = {v}$, so the graph "
            f"is unbroken, and the slope changes from ${format_number(slopes[i])}$ to "
            f"${format_number(slopes[i + 1])}$: a breakpoint."
        )
    steps.append(
        f"The end points $x = {format_number(lo)}$ and $x = {format_number(hi)}$ are not counted, so inside "
        f"$({format_number(lo)}, {format_number(hi)})$ the slope changes exactly {k} times: $f$ has {k} "
        "breakpoints."
    )
    ans = CHOICES.index(str(k))
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


# ---------------------------------------------------------------------------------------------- seed


class Breakpoints(SeedProgram):
    seed_id = "isobench_breakpoints"
    topic = Topic.ISO_MATH
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE,)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    variant_space = 10**9  # domains x breakpoint positions x slopes: effectively unbounded

    classes = ("A", "B")  # 2, 3

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        k = int(CHOICES["AB".index(answer)])
        while (params := _draw(rng, k)) is None:
            pass
        lo, hi = (format_number(e) for e in params["domain"])
        question = f"How many breakpoints does $f(x)$ have in the open interval $({lo}, {hi})$? " + (
            format_choices(CHOICES)
        )
        return Draw(
            params=params,
            question=question,
            answer=answer,
            solution=solution_text(params),
            choices=CHOICES,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        lo, hi = (format_number(e) for e in p["domain"])
        dom = domain_latex(p["domain"])
        statement = STATEMENT.format(dom=dom, lo=lo, hi=hi)
        if modality is Modality.IMAGE:
            xs, ys = vertices(p)
            png = plot_curve_png([float(x) for x in xs], [float(y) for y in ys], p["domain"])
            text = (
                f"{statement}\n\nHere is the graph of $f(x)$ on its whole domain ${dom}$, shown in the image."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            latex = cases_latex(p)
            text = (
                f"{statement}\n\nHere is the expression of $f(x)$, defined for ${dom}$:\n\n$$ {latex} $$\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"latex": latex})
        if modality is Modality.CODE:
            code = function_code_block(None, domain=p["domain"], body=piecewise_code(p))
            text = (
                f"{statement}\n\nHere is the definition of $f(x)$ as SymPy code; `domain` is the interval "
                f"${dom}$ on which $f$ is defined:\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
