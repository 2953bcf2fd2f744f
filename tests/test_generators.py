"""Tests for the seed programs: variation, independent ground truth, balance, modalities, JSON.

Ground truth is re-derived here without the generators' own code: SymPy limits for the shifted
absolute value, SymPy rational-function algebra for parity, networkx for connectivity. The checks every
seed shares (each modality renders, determinism) are in test_every_seed.py.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import networkx as nx
import pytest
import sympy as sp

from isodyn.core import Level, Modality, Topic, Variant
from isodyn.generators import get_seed

SEEDS = ("dynamath_shifted_abs", "isobench_parity", "isobench_connectivity")
x = sp.Symbol("x", real=True)
h = sp.Symbol("h", real=True)


def variants(seed_id: str, count: int, base_seed: int = 0) -> list[Variant]:
    seed = get_seed(seed_id)
    return [seed.variant(i, base_seed) for i in range(count)]


def content(v: Variant) -> str:
    """What makes two variants the same question (index and base seed left out)."""
    return json.dumps([v.params, v.question, v.answer], sort_keys=True)


def num(c: float | int) -> sp.Rational:
    """JSON number -> exact rational (0.5 -> 1/2, 21.76 -> 544/25)."""
    return sp.Rational(str(c))


# ---------------------------------------------------------------------------------------------- variation


@pytest.mark.parametrize("seed_id", SEEDS)
def test_other_index_or_base_seed_gives_other_variant(seed_id: str) -> None:
    base0, base1 = variants(seed_id, 30, 0), variants(seed_id, 30, 1)
    by_base = sum(content(a) != content(b) for a, b in zip(base0, base1, strict=True))
    by_index = sum(content(a) != content(b) for a, b in itertools.pairwise(base0))
    assert by_base >= 25
    assert by_index >= 24
    assert len({content(v) for v in base0}) >= 25


# ---------------------------------------------------------------------------------------------- ground truth


def test_shifted_abs_truth_from_one_sided_limits() -> None:
    seed = get_seed("dynamath_shifted_abs")
    assert seed.topic is Topic.ALGEBRA and seed.level is Level.HIGH_SCHOOL
    cache: dict[tuple, bool] = {}
    for v in variants("dynamath_shifted_abs", 200):
        p = v.params
        key = (p["a"], p["b"], p["c"], p["d"])
        if key not in cache:
            a, b, c, d = (num(k) for k in key)

            def f(t: sp.Expr, a=a, b=b, c=c, d=d) -> sp.Expr:
                return c * sp.Abs(t - a) + d * t + b

            quotient = (f(h) - f(0)) / h
            right, left = sp.limit(quotient, h, 0, "+"), sp.limit(quotient, h, 0, "-")
            cache[key] = bool(right.is_finite and left.is_finite and sp.simplify(right - left) == 0)
        assert v.answer == ("A" if cache[key] else "B"), p
        assert v.choices == ("Yes", "No")


def parity_expr(params: dict) -> sp.Expr:
    def poly(coeffs: list) -> sp.Expr:
        return sum((num(c) * x**k for k, c in enumerate(coeffs)), sp.Integer(0))

    return poly(params["num"]) / poly(params["den"])


def sympy_parity(f: sp.Expr) -> str:
    # `cancel` puts a rational function in canonical form, so "== 0" is an exact zero test (and far
    # faster than `simplify` on degree-6 quotients).
    g = f.subs(x, -x)
    if sp.cancel(g - f) == 0:
        return "even"
    if sp.cancel(g + f) == 0:
        return "odd"
    return "neither"


def test_parity_truth_by_substitution() -> None:
    for v in variants("isobench_parity", 200):
        truth = sympy_parity(parity_expr(v.params))
        assert v.choices[ord(v.answer) - ord("A")] == truth, v.params
        # The stored expression string is the same function as the coefficient lists.
        stored = sp.sympify(v.params["expr"], locals={"x": x}, rational=True)
        assert sp.cancel(stored - parity_expr(v.params)) == 0


def test_connectivity_truth_with_networkx() -> None:
    for v in variants("isobench_connectivity", 200):
        p = v.params
        g = nx.Graph()
        g.add_nodes_from(range(p["n"]))
        g.add_edges_from(map(tuple, p["edges"]))
        assert 5 <= p["n"] <= 9
        assert all(0 <= a < p["n"] and 0 <= b < p["n"] and a != b for a, b in p["edges"])
        u, w = p["query"]
        assert u != w
        assert v.answer == ("A" if nx.has_path(g, u, w) else "B"), p


# ---------------------------------------------------------------------------------------------- balance


def test_shifted_abs_answers_vary() -> None:
    counts = Counter(v.answer for v in variants("dynamath_shifted_abs", 150))
    assert 0.2 <= counts["B"] / 150 <= 0.5  # a = 0 (answer No) about a third of the time


def test_parity_classes_balanced() -> None:
    counts = Counter(v.answer for v in variants("isobench_parity", 90))
    assert set(counts) == {"A", "B", "C"}
    for letter_ in "ABC":
        assert 0.20 <= counts[letter_] / 90 <= 0.47, counts


def test_connectivity_balanced() -> None:
    yes = sum(v.answer == "A" for v in variants("isobench_connectivity", 100))
    assert 35 <= yes <= 65


@pytest.mark.parametrize("seed_id", SEEDS)
def test_solution_ends_with_the_answer(seed_id: str) -> None:
    for v in variants(seed_id, 20):
        idx = ord(v.answer) - ord("A")
        assert v.solution.rstrip().endswith(f"Answer: ({v.answer}) {v.choices[idx]}.")
        assert "choices: (A)" in v.question


# ---------------------------------------------------------------------------------------------- modalities


@pytest.mark.parametrize(
    ("seed_id", "modality"),
    [
        ("dynamath_shifted_abs", Modality.CODE),
        ("dynamath_shifted_abs", Modality.STORY),
        ("isobench_parity", Modality.STORY),
        ("isobench_connectivity", Modality.CODE),
    ],
)
def test_modality_not_shown_isomorphically_is_not_declared(seed_id: str, modality: Modality) -> None:
    """(test_every_seed.py checks that every undeclared modality is refused.)"""
    assert modality not in get_seed(seed_id).modalities


def test_shifted_abs_text_modalities_carry_the_function() -> None:
    seed = get_seed("dynamath_shifted_abs")
    for i, v in enumerate(variants("dynamath_shifted_abs", 30)):
        p = v.params
        lo, hi = p["domain"]
        latex = seed.representation(v, Modality.LATEX).text
        inside = "x" if p["a"] == 0 else f"x {'-' if p['a'] > 0 else '+'} {abs(p['a'])}"
        assert f"\\left|{{{inside}}}\\right|" in latex
        assert f"${lo} \\le x \\le {hi}$" in latex
        if i < 8:  # images are slow to draw; a few suffice for the stated window
            assert f"from {lo} to {hi}" in seed.representation(v, Modality.IMAGE).text


def test_parity_code_and_latex_carry_the_function() -> None:
    seed = get_seed("isobench_parity")
    for i, v in enumerate(variants("isobench_parity", 40)):
        truth = parity_expr(v.params)
        code_rep = seed.representation(v, Modality.CODE)
        block = re.search(r"```python\n(.*?)```", code_rep.text, re.S)
        assert block is not None
        namespace: dict = {}
        exec(block.group(1), namespace)
        from_code = sp.nsimplify(namespace["f"], rational=True).subs(namespace["x"], x)
        assert sp.cancel(from_code - truth) == 0
        latex = seed.representation(v, Modality.LATEX).text
        assert "f(x) = \\frac{" in latex
        # Every coefficient and power of the function is written in the LaTeX.
        for coeffs in (v.params["num"], v.params["den"]):
            for k, c in enumerate(coeffs):
                if c == 0:
                    continue
                if abs(c) != 1 or k == 0:
                    assert str(abs(c)) in latex, (c, latex)
                if k >= 2:
                    assert f"x^{{{k}}}" in latex
        lo, hi = v.params["domain"]
        assert lo == -hi and hi > 0
        if i < 8:
            assert f"from {lo} to {hi}" in seed.representation(v, Modality.IMAGE).text


def matrix_rows(text: str) -> list[list[int]]:
    body = re.search(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", text, re.S)
    assert body is not None
    rows = [r.strip() for r in body.group(1).split("\\\\") if r.strip()]
    return [[int(c) for c in r.split("&")] for r in rows]


def test_connectivity_modalities_carry_the_graph() -> None:
    seed = get_seed("isobench_connectivity")
    for i, v in enumerate(variants("isobench_connectivity", 40)):
        n, edges, (u, w) = v.params["n"], v.params["edges"], v.params["query"]
        expected = [[0] * n for _ in range(n)]
        for a, b in edges:
            expected[a][b] = expected[b][a] = 1

        latex = seed.representation(v, Modality.LATEX).text
        assert matrix_rows(latex) == expected
        assert ", ".join(map(str, range(n))) in latex  # node order stated
        assert f"{u} and {w}" in latex

        story_rep = seed.representation(v, Modality.STORY)
        names = story_rep.extra["names"]
        assert len(set(names)) == n and all(name in story_rep.text for name in names)
        for a, b in edges:
            assert f"a road between {names[a]} and {names[b]}" in story_rep.text
        assert story_rep.text.count("a road between") == len(edges)
        assert f"from {names[u]} to {names[w]}" in story_rep.text

        if i < 8:
            image_text = seed.representation(v, Modality.IMAGE).text
            assert f"{n} nodes" in image_text and f"{u} and {w}" in image_text


# ---------------------------------------------------------------------------------------------- JSON
