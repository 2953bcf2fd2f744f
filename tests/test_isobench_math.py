"""Tests for the IsoBench math seeds `isobench_convexity` and `isobench_breakpoints`.

Truth is re-derived here without the seeds' own labelling: convexity from the sign of SymPy's second
derivative on a dense grid of the stated domain (plus the slope jump at a corner) and from the
definition itself on random chords; breakpoints by counting slope changes of the function rebuilt from
the code and LaTeX renderings, on a fine grid. The checks every seed shares (each modality renders,
determinism) are in test_every_seed.py.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections import Counter

import numpy as np
import pytest
import sympy as sp

from isodyn.core import AnswerType, Level, Modality, Topic, Variant
from isodyn.generators import get_seed
from isodyn.generators.base import format_choices

SEEDS = ("isobench_convexity", "isobench_breakpoints")
x = sp.Symbol("x", real=True)


@functools.cache
def variants(seed_id: str, count: int, base_seed: int = 0) -> tuple[Variant, ...]:
    seed = get_seed(seed_id)
    return tuple(seed.variant(i, base_seed) for i in range(count))


def num(c: float | int) -> sp.Rational:
    """JSON number -> exact rational (0.5 -> 1/2, 1.13 -> 113/100)."""
    return sp.Rational(str(c))


def show(value: float | int) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def code_namespace(seed_id: str, v: Variant) -> dict:
    text = get_seed(seed_id).representation(v, Modality.CODE).text
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block is not None, text
    namespace: dict = {}
    exec(block.group(1), namespace)
    return namespace


# ---------------------------------------------------------------------------------------------- convexity


def _block(t: dict) -> tuple:
    return (t["op"], t.get("p"), t.get("k"))


@functools.cache
def block_expr(op: str, p: float | None, k: float | None) -> sp.Expr:
    """One unweighted building block, read from the schema by this test (exact rationals)."""
    if op == "abs":
        return sp.Abs(x)
    if op == "neglog":
        return -sp.log(x)
    if op == "exp":
        return sp.exp(num(k) * x)
    assert op == "power"
    return x ** num(p)


@functools.cache
def block_numeric(op: str, p: float | None, k: float | None) -> tuple:
    """numpy callables for the block g and SymPy's g' and g'' (|x|'' = 2 DiracDelta(x) taken as 0 off 0).

    f'' is linear in the blocks, so differentiating each distinct block once keeps this test fast.
    """
    g = block_expr(op, p, k)
    d1 = sp.diff(g, x)
    d2 = sp.diff(d1, x).replace(sp.DiracDelta, lambda *args: sp.S.Zero)

    def vec(e: sp.Expr):
        fn = sp.lambdify(x, e, "numpy")
        return lambda xs: np.asarray(fn(xs), dtype=float) * np.ones_like(xs)

    return vec(g), vec(d1), vec(d2)


def convexity_expr(params: dict) -> sp.Expr:
    """f rebuilt from the parameters with exact rationals (this test's own reading of the schema)."""
    f = sum((num(t["w"]) * block_expr(*_block(t)) for t in params["terms"]), sp.Integer(0))
    return f + num(params["linear"]) * x + num(params["constant"])


def numeric(params: dict, order: int, xs: np.ndarray) -> np.ndarray:
    """f (order 0), f' or f'' on a grid, summed from the blocks' SymPy derivatives."""
    out = np.zeros_like(xs)
    if order == 0:
        out = out + params["linear"] * xs + params["constant"]
    elif order == 1:
        out = out + params["linear"]
    for t in params["terms"]:
        out = out + t["w"] * block_numeric(*_block(t))[order](xs)
    return out


def curvature(params: dict) -> str:
    """'convex' / 'concave' / 'neither' on the domain from f'' on a dense grid and the slope jump at 0."""
    lo, hi = params["domain"]
    grid = np.linspace(lo, hi, 4001)
    grid = grid[np.abs(grid) > 1e-12]
    with np.errstate(all="raise"):
        second = numeric(params, 2, grid)
    assert np.all(np.isfinite(second))
    jump = 0.0
    if lo < 0 < hi:  # a corner of |x| at 0: the slope jumps up (convex) or down (concave)
        eps = np.array([-1e-9, 1e-9])
        left, right = numeric(params, 1, eps)
        jump = float(right - left)
    scale = 1e-9 * (1 + np.max(np.abs(second)))
    up = bool(np.all(second >= -scale) and jump >= -1e-6)
    down = bool(np.all(second <= scale) and jump <= 1e-6)
    strict = bool(np.max(np.abs(second)) > 1e-6 or abs(jump) > 1e-6)
    if up and strict and not down:
        return "convex"
    if down and strict and not up:
        return "concave"
    return "neither"


def chord_check(params: dict, rng: np.random.Generator) -> str:
    """The prompt's definition on 400 random chords: f(t a + (1 - t) b) vs t f(a) + (1 - t) f(b)."""
    lo, hi = params["domain"]
    a, b, t = rng.uniform(lo, hi, 400), rng.uniform(lo, hi, 400), rng.uniform(0, 1, 400)

    def fn(xs: np.ndarray) -> np.ndarray:
        return numeric(params, 0, xs)

    gap = t * fn(a) + (1 - t) * fn(b) - fn(t * a + (1 - t) * b)  # >= 0 for convex
    tol = 1e-9 * (1 + np.max(np.abs(fn(np.linspace(lo, hi, 101)))))
    if np.all(gap >= -tol):
        return "convex"
    if np.all(gap <= tol):
        return "concave"
    return "neither"


def test_convexity_truth_by_second_derivative() -> None:
    seed = get_seed("isobench_convexity")
    assert seed.topic is Topic.ISO_MATH and seed.answer_type is AnswerType.MULTIPLE_CHOICE
    assert seed.classes == ("A", "B")
    rng = np.random.default_rng(0)
    kinds = Counter()
    for v in variants("isobench_convexity", 200):
        assert v.choices == ("convex", "concave")
        lo, hi = v.params["domain"]
        assert lo < hi
        truth = curvature(v.params)
        assert truth != "neither", v.params
        assert v.choices["AB".index(v.answer)] == truth, v.params
        assert chord_check(v.params, rng) == truth, v.params
        f = convexity_expr(v.params)
        # The stored display string is the same function.
        stored = sp.sympify(v.params["expr"], locals={"x": x}, rational=True)
        assert sp.expand(stored - f) == 0, (stored, f)
        kinds["straddle" if lo < 0 < hi else "positive" if lo > 0 else "negative"] += 1
    assert min(kinds.values()) >= 20, kinds  # all three kinds of domain occur


def test_convexity_bend_is_visible() -> None:
    """The curve leaves its chord by a clear fraction of the plotted height (0 included, as drawn)."""
    for v in variants("isobench_convexity", 200):
        lo, hi = v.params["domain"]
        xs = np.linspace(lo, hi, 1001)
        ys = numeric(v.params, 0, xs)
        chord = ys[0] + (ys[-1] - ys[0]) * (xs - lo) / (hi - lo)
        height = max(ys.max(), 0) - min(ys.min(), 0)
        assert np.max(np.abs(ys - chord)) >= 0.1 * height, v.params


def test_convexity_code_and_latex_carry_function_and_domain() -> None:
    seed = get_seed("isobench_convexity")
    for i, v in enumerate(variants("isobench_convexity", 40)):
        p = v.params
        lo, hi = p["domain"]
        truth = convexity_expr(p)
        ns = code_namespace("isobench_convexity", v)
        from_code = sp.nsimplify(ns["f"], rational=True).subs(ns["x"], x)
        assert sp.expand(from_code - truth) == 0, (ns["f"], truth)
        assert (float(ns["domain"].start), float(ns["domain"].end)) == (lo, hi)
        domain_text = f"{show(lo)} \\le x \\le {show(hi)}"
        latex = seed.representation(v, Modality.LATEX).text
        assert f"defined for ${domain_text}$" in latex
        assert "f(x) = " in latex
        for t in p["terms"]:
            assert show(abs(t["w"])) in latex, (t, latex)
            marker = {"abs": "\\left|{x}\\right|", "neglog": "\\log", "exp": "e^{", "power": "x"}[t["op"]]
            assert marker in latex
        for c in (p["linear"], p["constant"]):
            if c:
                assert show(abs(c)) in latex
        if i < 6:
            assert f"${domain_text}$" in seed.representation(v, Modality.IMAGE).text


# ---------------------------------------------------------------------------------------------- breakpoints


def latex_piecewise(text: str) -> tuple[list[tuple[sp.Expr, float, float]], str]:
    """The pieces (expression, left, right) read back from the `cases` environment of the LaTeX text."""
    body = re.search(r"\\begin\{cases\}(.*?)\\end\{cases\}", text, re.S)
    assert body is not None, text
    pieces = []
    for row in body.group(1).split("\\\\"):
        line, cond = row.split("&")
        m = re.fullmatch(r"\s*\\text\{for \}\s*(\S+) (?:<|\\le) x \\le (\S+)\s*", cond)
        assert m is not None, cond
        expr = sp.sympify(re.sub(r"(\d)x", r"\1*x", line.strip()), locals={"x": x}, rational=True)
        pieces.append((expr, float(m.group(1)), float(m.group(2))))
    return pieces, body.group(1)


def count_slope_changes(fn, lo: float, hi: float, points: int = 20001) -> tuple[int, list[float], float]:
    """(number of slope changes inside (lo, hi), where they are, largest jump in value) on a grid."""
    xs = np.linspace(lo, hi, points)
    ys = np.asarray(fn(xs), dtype=float)
    slopes = np.diff(ys) / np.diff(xs)
    tol = 1e-6 * (1 + np.max(np.abs(slopes)))
    changed = np.nonzero(np.abs(np.diff(slopes)) > tol)[0]
    clusters: list[list[int]] = []
    for i in changed:  # a kink between grid points changes two neighbouring slopes
        if clusters and i - clusters[-1][-1] <= 2:
            clusters[-1].append(int(i))
        else:
            clusters.append([int(i)])
    where = [float(xs[c[0] + 1]) for c in clusters]
    # A step shows as one grid cell rising far more than its neighbours' slopes allow (a kink does not).
    steepest_neighbour = np.maximum(
        np.abs(np.r_[slopes[:1], slopes[:-1]]), np.abs(np.r_[slopes[1:], slopes[-1:]])
    )
    excess = np.abs(np.diff(ys)) - steepest_neighbour * np.diff(xs) * (1 + 1e-6)
    jump = float(max(np.max(excess), 0.0))
    return len(clusters), where, jump


def test_breakpoints_truth_by_counting_slope_changes() -> None:
    seed = get_seed("isobench_breakpoints")
    assert seed.topic is Topic.ISO_MATH and seed.answer_type is AnswerType.MULTIPLE_CHOICE
    assert seed.classes == ("A", "B")
    for v in variants("isobench_breakpoints", 200):
        assert v.choices == ("2", "3")
        lo, hi = v.params["domain"]
        ns = code_namespace("isobench_breakpoints", v)
        assert (float(ns["domain"].start), float(ns["domain"].end)) == (lo, hi)
        f = ns["f"]
        assert isinstance(f, sp.Piecewise)
        fn = sp.lambdify(ns["x"], f, "numpy")
        count, where, jump = count_slope_changes(fn, lo, hi)
        assert jump <= 1e-9, v.params  # continuous: no step anywhere
        assert v.choices["AB".index(v.answer)] == str(count), v.params
        # Visibility audit: kinks away from the ends, from each other, and turning clearly as drawn.
        span = hi - lo
        assert all(lo + 0.1 * span <= w <= hi - 0.1 * span for w in where), (where, v.params)
        assert all(b - a >= 0.15 * span for a, b in itertools.pairwise(where)), where
        values = fn(np.linspace(lo, hi, 2001))
        height = 1.12 * max(max(values.max(), 0) - min(values.min(), 0), 2)
        for w in where:
            left = (fn(w - 0.02 * span) - fn(w - 0.04 * span)) / (0.02 * span)
            right = (fn(w + 0.04 * span) - fn(w + 0.02 * span)) / (0.02 * span)
            shown = [np.degrees(np.arctan(s * span / height * 0.75)) for s in (left, right)]
            assert abs(shown[1] - shown[0]) >= 22, (w, v.params)


def test_breakpoints_latex_is_the_same_function() -> None:
    seed = get_seed("isobench_breakpoints")
    for i, v in enumerate(variants("isobench_breakpoints", 60)):
        lo, hi = v.params["domain"]
        text = seed.representation(v, Modality.LATEX).text
        pieces, _ = latex_piecewise(text)
        assert pieces[0][1] == lo and pieces[-1][2] == hi
        assert all(a[2] == b[1] for a, b in itertools.pairwise(pieces))  # edges chain up

        funcs = [(sp.lambdify(x, expr, "numpy"), a, b) for expr, a, b in pieces]

        def from_latex(ts: np.ndarray, funcs=funcs) -> np.ndarray:
            out = np.full(ts.shape, np.nan)
            for g, a, b in reversed(funcs):  # a shared edge takes the left piece, as `a < x <= b` says
                inside = (ts >= a) & (ts <= b)
                out[inside] = g(ts[inside]) * np.ones(int(inside.sum()))
            assert np.all(np.isfinite(out))
            return out

        ns = code_namespace("isobench_breakpoints", v)
        fn = sp.lambdify(ns["x"], ns["f"], "numpy")
        grid = np.linspace(lo, hi, 97)
        assert np.allclose(from_latex(grid), fn(grid), atol=1e-9)
        count, _, _ = count_slope_changes(from_latex, lo, hi, points=1501)
        assert v.choices["AB".index(v.answer)] == str(count)
        domain_text = f"{show(lo)} \\le x \\le {show(hi)}"
        assert f"defined for ${domain_text}$" in text
        assert f"$({show(lo)}, {show(hi)})$" in text  # the open interval the count is about
        if i < 6:
            image_text = seed.representation(v, Modality.IMAGE).text
            assert f"${domain_text}$" in image_text and f"$({show(lo)}, {show(hi)})$" in image_text


# ---------------------------------------------------------------------------------------------- both seeds


@pytest.mark.parametrize("seed_id", SEEDS)
def test_classes_balanced_in_every_window(seed_id: str) -> None:
    for base_seed in (0, 4):
        answers = [v.answer for v in variants(seed_id, 200 if base_seed == 0 else 60, base_seed)]
        for k in (1, 2, 5, 10):
            for start in range(len(answers) - 2 * k + 1):
                window = Counter(answers[start : start + 2 * k])
                assert window["A"] == window["B"] == k


@pytest.mark.parametrize("seed_id", SEEDS)
def test_variants_differ_and_solutions_end_with_answer(seed_id: str) -> None:
    vs = variants(seed_id, 200)
    assert len({json.dumps(v.params, sort_keys=True) for v in vs}) >= 195
    seed = get_seed(seed_id)
    assert seed.level in (Level.HIGH_SCHOOL, Level.UNDERGRADUATE)
    for v in vs[:30]:
        idx = "AB".index(v.answer)
        assert v.solution.rstrip().endswith(f"Answer: ({v.answer}) {v.choices[idx]}.")
        assert v.question.endswith(format_choices(v.choices))


@pytest.mark.parametrize("seed_id", SEEDS)
def test_modalities_are_image_latex_code(seed_id: str) -> None:
    """(That each renders, and the same inputs give the same renderings: test_every_seed.py.)"""
    assert get_seed(seed_id).modalities == (Modality.IMAGE, Modality.LATEX, Modality.CODE)
