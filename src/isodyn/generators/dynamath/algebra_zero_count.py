"""How many zeros does the graphed function have on the shown interval?

Function-type variation over four families whose zeros are known in closed form: an expanded
polynomial (some roots fall outside the window, an irreducible quadratic factor hides others), a
shifted sine wave, a Gaussian bump minus a constant, and a damped oscillation. Variants whose crossings
would be hard to see (a root near the window's edge, a near-tangency, two roots too close) are redrawn.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import sympy as sp

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import fmt_num, sympy_code
from isodyn.modalities.functions import X, domain_latex, expr_latex, function_latex, plot_expr_png

FAMILIES = ("polynomial", "sine", "gaussian", "damped")
_OMEGAS = ((1, 1), (2, 1), (1, 2), (3, 2), (2, 3))  # omega = p/q (times pi/q' for some variants below)
_DAMPED_OMEGAS = ((1, 1), (3, 2), (2, 1), (4, 3))
_PHASES = (0, 1, 2, 3)  # multiples of pi/4


def _rat(v: list[int] | int) -> sp.Rational:
    return sp.Rational(v[0], v[1]) if isinstance(v, list) else sp.Integer(v)


def build_expr(p: dict) -> sp.Expr:
    fam = p["family"]
    if fam == "polynomial":
        expr = _rat(p["k"]) * sp.Mul(*[(X - _rat(r)) for r in p["roots"]])
        if p["quad"]:
            expr *= X**2 + p["quad"]
        return sp.expand(expr)
    if fam == "sine":
        omega = _rat(p["omega"]) * (sp.pi if p["pi"] else 1)
        return p["A"] * sp.sin(omega * X + sp.pi * p["phase"] / 4) + _rat(p["c"])
    if fam == "gaussian":
        return p["A"] * sp.exp(-((X - p["h"]) ** 2) / p["s"]) - _rat(p["c"])
    if fam == "damped":
        omega = _rat(p["omega"])
        return p["A"] * sp.exp(-X / 8) * sp.sin(omega * X)
    raise ValueError(fam)


def zeros(p: dict) -> list[float]:
    """All zeros in the closed domain, from the closed forms (sorted)."""
    lo, hi = p["domain"]
    fam = p["family"]
    out: list[float] = []
    if fam == "polynomial":
        out = [float(_rat(r)) for r in p["roots"]]
    elif fam == "sine":
        omega = float(_rat(p["omega"])) * (math.pi if p["pi"] else 1)
        phase = math.pi * p["phase"] / 4
        t0 = math.asin(-float(_rat(p["c"])) / p["A"]) if abs(float(_rat(p["c"]))) <= p["A"] else None
        if t0 is not None:
            for k in range(-40, 41):
                for t in (t0 + 2 * math.pi * k, math.pi - t0 + 2 * math.pi * k):
                    out.append((t - phase) / omega)
    elif fam == "gaussian":
        ratio = float(_rat(p["c"])) / p["A"]
        if 0 < ratio < 1:
            d = math.sqrt(-p["s"] * math.log(ratio))
            out = [p["h"] - d, p["h"] + d]
    elif fam == "damped":
        omega = float(_rat(p["omega"]))
        out = [math.pi * k / omega for k in range(-40, 41)]
    return sorted({round(z, 9) for z in out if lo <= z <= hi})


def _legible(p: dict) -> bool:
    """Every crossing visible: no zero within 0.3 of an edge, zeros at least 0.6 apart, and, farther
    than 0.3 from every zero, the curve at least 3% of the plotted height away from the axis."""
    lo, hi = p["domain"]
    zs = zeros(p)
    if any(min(z - lo, hi - z) < 0.3 for z in zs):
        return False
    if any(b - a < 0.6 for a, b in itertools.pairwise(zs)):
        return False
    fn = sp.lambdify(X, build_expr(p), "numpy")
    xs = np.linspace(lo, hi, 2001)
    ys = np.asarray(fn(xs), dtype=float) * np.ones_like(xs)
    if "ylim" in p:
        ys = np.clip(ys, *p["ylim"])
    span = max(ys.max(), 0) - min(ys.min(), 0)
    if span == 0:
        return False
    # Away from its zeros the curve stays visibly off the axis (no near-touching, no hugging).
    far = np.ones_like(xs, dtype=bool)
    for z in zs:
        far &= np.abs(xs - z) >= 0.3
    return bool(np.all(np.abs(ys[far]) >= 0.03 * span))


def _sample_params(rng: np.random.Generator) -> dict:
    half = int(rng.choice([5, 6]))
    fam = FAMILIES[int(rng.choice(len(FAMILIES), p=[0.4, 0.2, 0.2, 0.2]))]
    p: dict = {"family": fam, "domain": [-half, half]}
    if fam == "polynomial":
        n_in = int(rng.integers(1, 4))
        roots: list[list[int]] = []
        for _ in range(n_in):
            if rng.random() < 0.75:
                roots.append([int(rng.integers(-half + 1, half)), 1])
            else:
                roots.append([2 * int(rng.integers(-half + 1, half - 1)) + 1, 2])
        n_out = int(rng.integers(0, 2)) if n_in < 3 else 0
        for _ in range(n_out):
            roots.append([int(rng.choice([-1, 1]) * rng.integers(half + 1, half + 4)), 1])
        if len({tuple(r) for r in roots}) < len(roots):
            roots = roots[:1]  # a repeated root would touch the axis without crossing it
        p["roots"] = roots
        p["quad"] = int(rng.choice([0, 0, 1, 2, 4])) if len(roots) <= 3 else 0
        g = sp.lambdify(X, sp.Mul(*[(X - _rat(r)) for r in roots]) * (X**2 + p["quad"] if p["quad"] else 1))
        # Scale so the curve peaks at about 4 around its zeros; the window is clipped to [-8, 8].
        inner = [float(_rat(r)) for r in roots if -half < float(_rat(r)) < half]
        grid = np.linspace(max(-half, min(inner) - 1.5), min(half, max(inner) + 1.5), 401)
        peak = float(np.max(np.abs(g(grid))))
        scale = sp.Rational(2) ** (-round(math.log2(max(peak, 0.5) / 4)))
        sign = int(rng.choice([-1, 1]))
        p["k"] = [sign * int(scale.p), int(scale.q)]
        p["ylim"] = [-8.6, 8.6]
    elif fam == "sine":
        p["A"] = int(rng.integers(1, 4))
        p["pi"] = bool(rng.random() < 0.3)
        p["omega"] = [1, 2] if p["pi"] else list(_OMEGAS[int(rng.integers(len(_OMEGAS)))])
        p["phase"] = int(rng.choice(_PHASES))
        num = int(rng.choice([0, 1, -1, 3, -3]))  # c/A in {0, +-1/2, +-3/2}
        p["c"] = [num * p["A"], 2]
    elif fam == "gaussian":
        p["A"] = int(rng.integers(2, 6))
        p["h"] = int(rng.integers(-2, 3))
        p["s"] = int(rng.choice([2, 4, 8]))
        frac = [(1, 4), (1, 2), (3, 4), (5, 4), (3, 2)][int(rng.integers(5))]
        p["c"] = [frac[0] * p["A"], frac[1]]
    else:
        p["A"] = int(rng.integers(1, 4))
        p["omega"] = list(_DAMPED_OMEGAS[int(rng.integers(len(_DAMPED_OMEGAS)))])
    return p


def solution_text(p: dict) -> str:
    lo, hi = p["domain"]
    fam = p["family"]
    zs = zeros(p)
    listed = ", ".join(fmt_num(z) for z in zs)
    steps = [f"We need the solutions of $f(x) = 0$ with ${lo} \\le x \\le {hi}$."]
    if fam == "polynomial":
        factors = " ".join(f"(x - {fmt_num(float(_rat(r)))})".replace("- -", "+ ") for r in p["roots"])
        extra = f"(x^2 + {p['quad']})" if p["quad"] else ""
        steps.append(f"The polynomial factors as $f(x) = {sp.latex(_rat(p['k']))}\\,{factors}{extra}$.")
        if p["quad"]:
            steps.append(f"The factor $x^2 + {p['quad']}$ is always positive, so it has no real zeros.")
        allr = ", ".join(fmt_num(float(_rat(r))) for r in p["roots"])
        steps.append(f"The real zeros are {allr}; the ones inside $[{lo}, {hi}]$ are {listed or 'none'}.")
    elif fam == "sine":
        ratio = _rat(p["c"]) / p["A"]
        omega = _rat(p["omega"]) * (sp.pi if p["pi"] else 1)
        arg = sp.latex(omega * X + sp.pi * p["phase"] / 4)
        steps.append(
            f"$f(x) = 0$ means ${p['A']}\\sin({arg}) = {sp.latex(-_rat(p['c']))}$, i.e. $\\sin({arg}) = "
            f"{sp.latex(-ratio)}$."
        )
        if abs(ratio) > 1:
            steps.append(f"But $|\\sin| \\le 1 < {sp.latex(abs(ratio))}$, so there is no solution at all.")
        else:
            steps.append(
                "In each period the sine takes this value "
                + ("twice" if abs(ratio) < 1 else "once")
                + f"; solving for $x$ and keeping the solutions in $[{lo}, {hi}]$ gives "
                f"x = {listed or 'none'}."
            )
    elif fam == "gaussian":
        ratio = _rat(p["c"]) / p["A"]
        shift = sp.latex(X - p["h"])
        steps.append(f"$f(x) = 0$ means $e^{{-({shift})^2/{p['s']}}} = {sp.latex(ratio)}$.")
        if ratio >= 1:
            steps.append(
                f"The left side is at most 1 (its peak at $x = {p['h']}$), which is less than "
                f"{sp.latex(ratio)}, so there is no solution."
            )
        else:
            steps.append(
                f"So $({shift})^2 = {p['s']}\\ln({sp.latex(1 / ratio)})$, i.e. $x = {p['h']} \\pm "
                f"\\sqrt{{{p['s']}\\ln({sp.latex(1 / ratio)})}}$; in $[{lo}, {hi}]$ these are x = "
                f"{listed or 'none'}."
            )
    else:
        steps.append(
            "The factor $e^{-x/8}$ is positive, so $f(x) = 0$ exactly when "
            f"$\\sin({sp.latex(_rat(p['omega']) * X)}) = 0$, i.e. $x = "
            f"{sp.latex(sp.Symbol('k') * sp.pi / _rat(p['omega']))}$ for integers $k$."
        )
        steps.append(f"Those in $[{lo}, {hi}]$ are x = {listed}.")
    steps.append(
        f"Counting them gives {len(zs)} zero{'s' if len(zs) != 1 else ''}; the graph crosses the x-axis "
        "exactly there."
    )
    steps.append(f"Answer: {len(zs)}")
    return "\n".join(steps)


class ZeroCount(SeedProgram):
    seed_id = "dynamath_zero_count"
    topic = Topic.ALGEBRA
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.INT
    variation_types = (VariationType.FUNCTION_TYPE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "family": VariationType.FUNCTION_TYPE,
        "domain": VariationType.NUMERICAL_VALUE,
        "roots": VariationType.NUMERICAL_VALUE,
        "quad": VariationType.NUMERICAL_VALUE,
        "k": VariationType.NUMERICAL_VALUE,
        "A": VariationType.NUMERICAL_VALUE,
        "omega": VariationType.NUMERICAL_VALUE,
        "phase": VariationType.NUMERICAL_VALUE,
        "h": VariationType.NUMERICAL_VALUE,
        "s": VariationType.NUMERICAL_VALUE,
        "c": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # polynomial root sets + sine + gaussian + damped parameter grids, times two windows
    variant_space = (3000 + 3 * 6 * 4 * 5 + 4 * 5 * 3 * 5 + 3 * 5) * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            p = _sample_params(rng)
            if _legible(p):
                break
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("family", "domain", "roots", "quad", "k", "A", "omega", "phase", "h", "s", "c")

    def redraw(self, params: dict[str, Any]) -> Draw:
        lo, hi = params["domain"]
        question = (
            f"How many zeros does the function $f$ have on the interval $[{lo}, {hi}]$? (A zero is an $x$ "
            "with $f(x) = 0$.)"
        )
        return Draw(
            params=params, question=question, answer=str(len(zeros(params))), solution=solution_text(params)
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 12))
        said = (
            f"This function is exercise {k} in a chapter on graphs of functions.",
            f"A plotting program evaluates $f$ at {k * 100} points to draw its graph.",
            f"Yesterday a student counted the zeros of a different function in {k} minutes.",
            f"The teacher chose $f$ from a list of {k + 10} functions.",
            f"The same function $f$ comes back in exercise {k + 1}, where its maximum is asked.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        lo, hi = p["domain"]
        expr = build_expr(p)
        if modality is Modality.IMAGE:
            ylim = tuple(p["ylim"]) if "ylim" in p else None
            image = plot_expr_png(
                expr, (lo, hi), ylim=ylim, y_tick_step=2 if ylim else None, title="$y = f(x)$"
            )
            text = f"The image shows the graph of $y = f(x)$ for $x$ from {lo} to {hi}.\n\n{variant.question}"
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            latex = function_latex(expr)
            text = (
                f"Consider the function $y = f(x)$ for ${domain_latex((lo, hi))}$, where\n\n$$ {latex} "
                f"$$\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": latex, "expr": expr_latex(expr)})
        if modality is Modality.CODE:
            code = sympy_code(expr)
            text = (
                f"The SymPy code below defines a function $f(x)$, considered for $x$ from {lo} to "
                f"{hi}.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
