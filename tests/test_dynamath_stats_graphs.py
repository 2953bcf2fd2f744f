"""Tests for the DynaMath statistics, scientific-figure and graph-theory seeds.

Every truth is recomputed here without the seeds' own code: the statistics module, numpy and Fraction
for the charts; matrix powers for Markov chains; fine-grid integration for velocity graphs; nodal
analysis of the printed netlist for circuits; ray geometry for lenses; networkx for graph questions.
The checks every seed shares (each modality renders, determinism) are in test_every_seed.py.
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
from collections import Counter
from fractions import Fraction
from functools import cache

import networkx as nx
import numpy as np
import pytest

from isodyn.core import AnswerType, Level, Modality, Topic, Variant, VariationType
from isodyn.generators import get_seed
from isodyn.generators.base import format_choices
from isodyn.scoring.answer_match import parse_number

STATS = (
    "dynamath_stem_leaf_mean", "dynamath_bar_extreme", "dynamath_box_iqr", "dynamath_venn_count",
    "dynamath_pie_percent", "dynamath_scatter_correlation", "dynamath_dot_plot_median",
    "dynamath_spinner_probability",
)  # fmt: skip
SCIENCE = (
    "dynamath_markov_two_step", "dynamath_velocity_displacement", "dynamath_circuit_resistance",
    "dynamath_projectile_motion", "dynamath_titration_concentration", "dynamath_lens_focal_length",
)  # fmt: skip
GRAPHS = (
    "dynamath_kruskal_edge", "dynamath_shortest_path", "dynamath_node_degree", "dynamath_bipartite",
    "dynamath_components", "dynamath_euler_path",
)  # fmt: skip
SEEDS = STATS + SCIENCE + GRAPHS
N = 100  # variants checked per seed


@cache
def variants(seed_id: str, count: int = N, base_seed: int = 0) -> tuple[Variant, ...]:
    seed = get_seed(seed_id)
    return tuple(seed.variant(i, base_seed) for i in range(count))


def number(v: Variant) -> float:
    value = parse_number(v.answer, percent_question=v.params.get("answer_unit") == "%")
    assert value is not None, (v.seed_id, v.answer)
    return value


def close(v: Variant, truth: float | Fraction, tol: float = 6e-4) -> None:
    """The answer equals the truth up to DynaMath's 3-decimal rounding."""
    assert abs(number(v) - float(truth)) <= tol, (v.seed_id, v.index, v.answer, float(truth), v.params)


def choice_text(v: Variant) -> str:
    return v.choices["ABCDEFGHIJ".index(v.answer)]


def run_code(text: str) -> dict:
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block is not None
    namespace: dict = {}
    exec(block.group(1), namespace)
    return namespace


def letters(n: int) -> list[str]:
    return [chr(65 + i) for i in range(n)]


def nx_graph(n: int, edges, weights=None) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for k, (a, b) in enumerate(edges):
        g.add_edge(a, b, **({"weight": weights[k]} if weights is not None else {}))
    return g


# ---------------------------------------------------------------------------------------------- catalogue


def test_catalogue_meets_the_brief() -> None:
    seeds = [get_seed(s) for s in SEEDS]
    assert len(seeds) == 20
    assert Counter(s.topic for s in seeds) == {
        Topic.STATISTICS: 8,
        Topic.SCIENTIFIC_FIGURE: 6,
        Topic.GRAPH_THEORY: 6,
    }
    assert {s.level for s in seeds} == set(Level)
    types = Counter(s.answer_type for s in seeds)
    assert (
        types[AnswerType.MULTIPLE_CHOICE] >= 3 and types[AnswerType.FLOAT] >= 3 and types[AnswerType.INT] >= 3
    )
    assert types[AnswerType.TEXT] >= 2
    usage = Counter(t for s in seeds for t in s.variation_types)
    assert all(usage[t] >= 2 for t in VariationType), usage
    assert sum(len(s.variation_types) >= 2 for s in seeds) >= 4
    for s in seeds:
        assert s.modalities[0] is Modality.IMAGE and len(s.modalities) >= 2, s.seed_id
        assert s.variant_space >= 10


# ---------------------------------------------------------------------------------------------- answers


@pytest.mark.parametrize("seed_id", SEEDS)
def test_answers_parse_as_their_type(seed_id: str) -> None:
    seed = get_seed(seed_id)
    for v in variants(seed_id):
        assert v.topic is seed.topic and v.answer_type is seed.answer_type
        if v.answer_type is AnswerType.MULTIPLE_CHOICE:
            assert v.answer in "ABCDEFGHIJ"[: len(v.choices)]
            assert v.question.endswith(format_choices(v.choices))
            assert v.solution.rstrip().endswith(f"Answer: ({v.answer}) {choice_text(v)}.")
        else:
            assert v.solution.rstrip().endswith(f"Answer: {v.answer}"), v.solution[-80:]
            assert "choices:" not in v.question
        if v.answer_type is AnswerType.INT:
            assert float(number(v)).is_integer()
        elif v.answer_type is AnswerType.FLOAT:
            number(v)
            assert len(v.answer.partition(".")[2]) <= 3  # DynaMath's three decimals
        elif v.answer_type is AnswerType.TEXT:
            assert v.params["answer_format"]


@pytest.mark.parametrize("seed_id", SEEDS)
def test_answers_vary(seed_id: str) -> None:
    answers = Counter(v.answer for v in variants(seed_id)[:50])
    assert len(answers) > 1, answers
    if get_seed(seed_id).answer_type is AnswerType.MULTIPLE_CHOICE:
        assert max(answers.values()) <= 40, answers  # no option dominates


@pytest.mark.parametrize(
    "seed_id", ["dynamath_scatter_correlation", "dynamath_bipartite", "dynamath_euler_path"]
)
def test_classification_seeds_are_balanced(seed_id: str) -> None:
    seed = get_seed(seed_id)
    k = len(seed.classes)
    counts = Counter(v.answer for v in variants(seed_id)[: 10 * k])
    assert counts == dict.fromkeys(seed.classes, 10)


# ------------------------------------------------------------------------------------------- statistics truth


def test_stem_leaf_mean() -> None:
    for v in variants("dynamath_stem_leaf_mean"):
        p = v.params
        scale = Fraction(p["scale"])
        data = [
            Fraction(10 * s + leaf) * scale
            for s, lv in zip(p["stems"], p["leaves"], strict=True)
            for leaf in lv
        ]
        assert 8 <= len(data) <= 16 and all(p["leaves"][i] for i in (0, -1))
        close(v, statistics.mean(data))


def test_bar_extreme() -> None:
    for v in variants("dynamath_bar_extreme"):
        vals = np.array(v.params["values"])
        assert v.choices == tuple(v.params["categories"])
        pick = int(np.argmax(vals) if v.params["kind"] == "max" else np.argmin(vals))
        assert choice_text(v) == v.params["categories"][pick]
        ordered = np.sort(vals)
        gap = ordered[-1] - ordered[-2] if v.params["kind"] == "max" else ordered[1] - ordered[0]
        assert gap >= 2  # no tie, no near-tie
        assert ("most" in v.question) == (v.params["kind"] == "max")


def test_box_iqr() -> None:
    for v in variants("dynamath_box_iqr"):
        p = v.params
        stats = np.array(p["summaries"])
        assert (np.diff(stats, axis=1) > 0).all()
        assert ((stats - p["lo"]) % p["step"] == 0).all() and p["lo"] < stats.min() and stats.max() < p["hi"]
        iqr = stats[:, 3] - stats[:, 1]  # the box edges are the quartiles
        assert iqr[0] != iqr[1]  # the colour matters
        assert f"the {p['colors'][p['asked']]} box plot" in v.question
        assert int(v.answer) == iqr[p["asked"]]


def _venn_sets(p: dict) -> tuple[dict[str, set[int]], set[int]]:
    """Concrete elements: region r gets counts[r] fresh integers; sets are unions of regions."""
    k, letters_ = p["k"], p["letters"]
    sets: dict[str, set[int]] = {x: set() for x in letters_}
    universe: set[int] = set()
    nxt = 0
    for bits, count in zip(itertools.product((0, 1), repeat=k), p["counts"], strict=True):
        items = set(range(nxt, nxt + count))
        nxt += count
        universe |= items
        for x, b in zip(letters_, bits, strict=True):
            if b:
                sets[x] |= items
    return sets, universe


def test_venn_count() -> None:
    for v in variants("dynamath_venn_count"):
        sets, universe = _venn_sets(v.params)
        expr = re.search(r"\$(.*)\$", v.question).group(1)
        py = expr.replace(r"\cup", "|").replace(r"\cap", "&").replace(r"\setminus", "-")
        value = eval(py, {}, {**sets, "U": universe})  # the set expression, on real sets
        assert int(v.answer) == len(value), (expr, v.params)


def test_pie_percent() -> None:
    for v in variants("dynamath_pie_percent"):
        p = v.params
        assert p["answer_unit"] == "%"
        counts = p["counts"]
        assert len(set(p["colors"])) == len(counts)
        assert all(Fraction(c, sum(counts)) >= Fraction(6, 100) for c in counts)
        assert f"the {p['colors'][p['asked']]} sector" in v.question
        truth = Fraction(100 * counts[p["asked"]], sum(counts))
        assert truth == Fraction(v.answer)  # exact: totals make every percentage terminate


def test_pie_percent_small_total_has_at_most_five_sectors() -> None:
    """20 students cannot fill 6 sectors of at least 6% with 5 different sizes; such a draw used to loop
    forever (variant 26 of base seed 3) and now has 5 sectors."""
    v = get_seed("dynamath_pie_percent").variant(26, 3)
    counts = v.params["counts"]
    assert sum(counts) == 20 and len(counts) == 5 and len(set(counts)) >= 4
    assert all(Fraction(c, 20) >= Fraction(6, 100) for c in counts)


def test_scatter_correlation() -> None:
    for v in variants("dynamath_scatter_correlation"):
        r = np.corrcoef(v.params["x"], v.params["y"])[0, 1]
        expected = "A" if r > 0.5 else "B" if r < -0.5 else "C" if abs(r) < 0.2 else None
        assert expected is not None and v.answer == expected, r


def test_dot_plot_median() -> None:
    for v in variants("dynamath_dot_plot_median"):
        data = [x for x, f in zip(v.params["values"], v.params["freqs"], strict=True) for _ in range(f)]
        close(v, statistics.median(data))


_PRIMES = {2, 3, 5, 7, 11, 13}


def _spinner_event(question: str):
    """The event, read from the question's words (not from the params' event encoding)."""
    ev = re.search(r"lands on (.*)\?$", question).group(1)
    assert not re.search(r"\ba [aeiou]", ev), ev  # "an orange sector", not "a orange sector"
    patterns = [
        (r"an? (\w+) sector whose number is even", lambda m, c, x: c == m[1] and x % 2 == 0),
        (
            r"a sector that is (\w+) or has a number greater than (\d+)",
            lambda m, c, x: c == m[1] or x > int(m[2]),
        ),
        (r"an? (\w+) sector", lambda m, c, x: c == m[1]),
        (r"an even number", lambda m, c, x: x % 2 == 0),
        (r"an odd number", lambda m, c, x: x % 2 == 1),
        (r"a number greater than (\d+)", lambda m, c, x: x > int(m[1])),
        (r"a number less than (\d+)", lambda m, c, x: x < int(m[1])),
        (r"a prime number", lambda m, c, x: x in _PRIMES),
        (r"a multiple of 3", lambda m, c, x: x % 3 == 0),
    ]
    for pattern, pred in patterns:
        if m := re.fullmatch(pattern, ev):
            return lambda c, x, m=m, pred=pred: pred(m, c, x)
    raise AssertionError(f"unknown event {ev!r}")


def test_spinner_probability() -> None:
    for v in variants("dynamath_spinner_probability"):
        colors, numbers = v.params["colors"], v.params["numbers"]
        assert sorted(numbers) == list(range(1, len(numbers) + 1))
        event = _spinner_event(v.question)
        hits = sum(event(c, x) for c, x in zip(colors, numbers, strict=True))
        assert 0 < hits < len(colors)
        close(v, Fraction(hits, len(colors)))


# ---------------------------------------------------------------------------------------------- science truth


def test_markov_two_step() -> None:
    for v in variants("dynamath_markov_two_step"):
        p = np.array(v.params["tenths"], dtype=float) / 10
        assert np.allclose(p.sum(axis=1), 1)
        i, j = v.params["query"]
        names = v.params["states"]
        assert f"starts in state {names[i]}" in v.question and f"in state {names[j]} after" in v.question
        close(v, np.linalg.matrix_power(p, 2)[i, j], tol=1e-9)


def test_velocity_displacement() -> None:
    for v in variants("dynamath_velocity_displacement"):
        pts = np.array(v.params["points"], dtype=float)
        a, b = v.params["interval"]
        t = np.linspace(a, b, 400_001)
        vel = np.interp(t, pts[:, 0], pts[:, 1])
        f = np.abs(vel) if v.params["kind"] == "distance" else vel
        area = float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(t)))
        assert f"t = {a} s and t = {b} s" in v.question
        assert ("distance" in v.question) == (v.params["kind"] == "distance")
        close(v, area, tol=1e-3)


def _nodal_resistance(netlist: list[tuple[str, str, str, int]]) -> Fraction:
    """R_AB by nodal analysis: V_A = 1, V_B = 0, Kirchhoff's current law at the other nodes."""
    nodes = sorted({x for _, a, b, _ in netlist for x in (a, b)} - {"A", "B"})
    idx = {x: i for i, x in enumerate(nodes)}
    m = len(nodes)
    mat = [[Fraction(0)] * (m + 1) for _ in range(m)]
    for _, a, b, r in netlist:
        g = Fraction(1, r)
        for x, y in ((a, b), (b, a)):
            if x in idx:
                mat[idx[x]][idx[x]] += g
                if y in idx:
                    mat[idx[x]][idx[y]] -= g
                elif y == "A":
                    mat[idx[x]][m] += g  # g * V_A moves to the right-hand side
    for c in range(m):  # Gauss-Jordan elimination over the rationals
        piv = next(r for r in range(c, m) if mat[r][c] != 0)
        mat[c], mat[piv] = mat[piv], mat[c]
        mat[c] = [x / mat[c][c] for x in mat[c]]
        for r in range(m):
            if r != c and mat[r][c] != 0:
                mat[r] = [x - mat[r][c] * y for x, y in zip(mat[r], mat[c], strict=True)]
    volts = {"A": Fraction(1), "B": Fraction(0)} | {x: mat[idx[x]][m] for x in nodes}
    current = sum((volts["A"] - volts[b if a == "A" else a]) / r for _, a, b, r in netlist if "A" in (a, b))
    return 1 / current


def test_circuit_resistance_by_nodal_analysis() -> None:
    seed = get_seed("dynamath_circuit_resistance")
    for v in variants("dynamath_circuit_resistance"):
        net = run_code(seed.representation(v, Modality.CODE).text)["resistors"]
        assert sorted(name for name, *_ in net) == sorted(f"R{i + 1}" for i in range(len(v.params["values"])))
        assert all(v.params["values"][int(name[1:]) - 1] == r for name, _, _, r in net)
        close(v, _nodal_resistance(net))


def test_projectile_motion() -> None:
    g_ = None
    for v in variants("dynamath_projectile_motion"):
        p = v.params
        g_ = p["g"]
        elev = math.radians(p["angle"] if p["reference"] == "horizontal" else 90 - p["angle"])
        vx, vy = p["speed"] * math.cos(elev), p["speed"] * math.sin(elev)
        roots = np.roots([-g_ / 2, vy, 0])  # y(t) = vy t - g t^2 / 2
        flight = float(max(roots.real))
        ts = np.linspace(0, flight, 200_001)
        truth = {"time": flight, "range": vx * flight, "height": float(np.max(vy * ts - g_ * ts**2 / 2))}
        close(v, truth[p["quantity"]], tol=1e-3)


def test_titration_concentration() -> None:
    seed = get_seed("dynamath_titration_concentration")
    for i, v in enumerate(variants("dynamath_titration_concentration")):
        p = v.params
        moles = Fraction(p["titrant_conc"]) * Fraction(p["veq_ml"], 1000)
        assert Fraction(v.answer) == moles / Fraction(p["sample_ml"], 1000)
        if i < 20:  # the curve's steepest step sits at the marked equivalence volume
            curve = run_code(seed.representation(v, Modality.CODE).text)["curve"]
            vols, ph = np.array(curve).T
            k = int(np.argmax(np.abs(np.diff(ph))))
            assert p["veq_ml"] in (vols[k], vols[k + 1])
            steps = np.diff(ph)
            assert (steps >= -1e-9).all() or (steps <= 1e-9).all()  # monotone one way or the other


def test_lens_focal_length_by_ray_geometry() -> None:
    for v in variants("dynamath_lens_focal_length"):
        do, di = Fraction(v.params["d_o"]), Fraction(v.params["d_i"])
        h = Fraction(1)
        # image tip: on the undeviated ray through the centre, at the image's distance
        tip = (di, -h * di / do) if v.params["image"] == "real" else (-di, h * di / do)
        # the ray parallel to the axis leaves the lens at (0, h) along the line through the image tip
        # (or its backward extension); where that line meets the axis is the focal point
        slope = (tip[1] - h) / tip[0]
        f = abs(-h / slope)
        close(v, f)


# ---------------------------------------------------------------------------------------------- graph truth


def test_kruskal_edge() -> None:
    for v in variants("dynamath_kruskal_edge"):
        p = v.params
        assert len(set(p["weights"])) == len(p["weights"])  # distinct: Kruskal's order is unique
        g = nx_graph(p["n"], p["edges"], p["weights"])
        order = list(nx.minimum_spanning_edges(g, algorithm="kruskal", data=False))
        a, b = order[p["k"] - 1]
        name = "-".join(sorted(letters(p["n"])[x] for x in (a, b)))
        assert v.answer == name, (v.answer, name)
        assert re.fullmatch(r"[A-H]-[A-H]", v.answer)


def test_shortest_path() -> None:
    for v in variants("dynamath_shortest_path"):
        p = v.params
        g = nx_graph(p["n"], p["edges"], p["weights"])
        s, t = p["source"], p["target"]
        paths = list(nx.all_shortest_paths(g, s, t, weight="weight"))
        assert len(paths) == 1  # unique
        assert nx.shortest_path_length(g, s, t) >= 2  # not adjacent
        names = letters(p["n"])
        assert v.answer == "[" + ", ".join(names[x] for x in paths[0]) + "]"
        assert f"from node {names[s]} to node {names[t]}" in v.question


def test_node_degree() -> None:
    for v in variants("dynamath_node_degree"):
        p = v.params
        g = nx_graph(p["n"], p["edges"])
        assert f"the {p['color']} node" in v.question
        assert int(v.answer) == g.degree[p["query"]] >= 1


def test_bipartite() -> None:
    for v in variants("dynamath_bipartite"):
        g = nx_graph(v.params["n"], v.params["edges"])
        assert nx.is_connected(g)
        assert choice_text(v) == ("Yes" if nx.is_bipartite(g) else "No")


def test_components() -> None:
    counts = Counter()
    for v in variants("dynamath_components"):
        k = nx.number_connected_components(nx_graph(v.params["n"], v.params["edges"]))
        counts[k] += 1
        assert int(v.answer) == k
    assert set(counts) == {1, 2, 3, 4}


def test_euler_path() -> None:
    for v in variants("dynamath_euler_path"):
        g = nx_graph(v.params["n"], v.params["edges"])
        assert nx.is_connected(g)
        truth = "A" if nx.is_eulerian(g) else "B" if nx.has_eulerian_path(g) else "C"
        assert v.answer == truth


@pytest.mark.parametrize("seed_id", GRAPHS)
def test_graph_layouts_are_legible(seed_id: str) -> None:
    """Nodes apart; no edge passes through a node it does not end at (else it would look incident)."""
    for v in variants(seed_id)[:40]:
        pos = np.array(v.params["pos"])
        for a, b in itertools.combinations(range(len(pos)), 2):
            assert np.linalg.norm(pos[a] - pos[b]) >= 0.25
        for a, b in v.params["edges"]:
            d = pos[b] - pos[a]
            for c in set(range(len(pos))) - {a, b}:
                t = np.clip(np.dot(pos[c] - pos[a], d) / np.dot(d, d), 0, 1)
                assert np.linalg.norm(pos[a] + t * d - pos[c]) >= 0.08


# ---------------------------------------------------------------------------------------------- modalities


def _matrix(text: str) -> list[list[float]]:
    body = re.search(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", text, re.S).group(1)
    return [[float(c) for c in row.split("&")] for row in body.split("\\\\") if row.strip()]


def _adjacency(n: int, edges) -> list[list[float]]:
    m = [[0.0] * n for _ in range(n)]
    for a, b in edges:
        m[a][b] = m[b][a] = 1.0
    return m


def _carries_data(v: Variant, modality: Modality, text: str) -> None:
    """The text rendering states the object completely (checked against params)."""
    p = v.params
    sid = v.seed_id
    if sid == "dynamath_stem_leaf_mean":
        if modality is Modality.CODE:
            (values,) = [x for k, x in run_code(text).items() if not k.startswith("__")]
            scale = Fraction(p["scale"])
            want = [
                (10 * s + leaf) * scale for s, lv in zip(p["stems"], p["leaves"], strict=True) for leaf in lv
            ]
            assert [Fraction(str(x)) for x in values] == want
        else:
            for s, lv in zip(p["stems"], p["leaves"], strict=True):
                assert f"{s} & {' '.join(map(str, lv))}".rstrip() in text
    elif sid == "dynamath_bar_extreme":
        if modality is Modality.CODE:
            assert run_code(text)["data"] == dict(zip(p["categories"], p["values"], strict=True))
        else:
            assert all(f"{c} & {x}" in text for c, x in zip(p["categories"], p["values"], strict=True))
    elif sid == "dynamath_box_iqr":
        for g, c, s in zip(p["groups"], p["colors"], p["summaries"], strict=True):
            assert f"{g} & {c} & {' & '.join(map(str, s))}" in text
    elif sid == "dynamath_venn_count":
        assert f"{sum(p['counts'])} {p['noun']}" in text
        for c in p["counts"]:
            assert (f"& {c} \\\\" in text) if modality is Modality.LATEX else (f"{c} " in text)
        if modality is Modality.LATEX:
            assert text.count("\\\\") - 1 == 2 ** p["k"]
    elif sid == "dynamath_pie_percent":
        for cat, col, c in zip(p["categories"], p["colors"], p["counts"], strict=True):
            assert f"{cat} & {col} & {c}" in text
    elif sid == "dynamath_scatter_correlation":
        ns = run_code(text)
        assert ns["x"] == p["x"] and ns["y"] == p["y"]
    elif sid == "dynamath_dot_plot_median":
        for x, f in zip(p["values"], p["freqs"], strict=True):
            if modality is Modality.LATEX:
                assert f"{x} & {f}" in text
            elif f:
                assert re.search(rf"\b{f} with {x} \w+", text)
    elif sid == "dynamath_spinner_probability":
        listed = ", ".join(f"{c} {x}" for c, x in zip(p["colors"], p["numbers"], strict=True))
        assert listed in text and "clockwise from the top" in text
    elif sid == "dynamath_markov_two_step":
        assert np.allclose(_matrix(text), np.array(p["tenths"]) / 10)
        assert ", ".join(p["states"]) in text
    elif sid == "dynamath_velocity_displacement":
        assert [list(x) for x in run_code(text)["points"]] == p["points"]
    elif sid == "dynamath_circuit_resistance":
        assert len(run_code(text)["resistors"]) == len(p["values"])
    elif sid == "dynamath_projectile_motion":
        assert f"v_0 = {p['speed']}" in text and f"{p['angle']}^\\circ" in text and p["direction"] in text
        assert ("vertical" in text) == (p["reference"] == "vertical")
    elif sid == "dynamath_titration_concentration":
        assert f"{p['sample_ml']} mL" in text and "# equivalence point" in text
        assert len(run_code(text)["curve"]) == p["max_ml"] + 1
    elif sid == "dynamath_lens_focal_length":
        assert f"{p['d_o']}\\,\\text{{cm}}" in text and f"{p['d_i']}\\,\\text{{cm}}" in text
        assert p["image"] in text
    elif sid in ("dynamath_kruskal_edge", "dynamath_shortest_path"):
        names = letters(p["n"])
        triples = [(names[a], names[b], w) for (a, b), w in zip(p["edges"], p["weights"], strict=True)]
        if modality is Modality.CODE:
            assert run_code(text)["edges"] == triples
        else:
            assert all(f"{a}--{b} & {w}" in text for a, b, w in triples)
            assert text.count("--") == len(triples)
    elif modality is Modality.LATEX:  # unweighted graphs: the adjacency matrix
        assert _matrix(text) == _adjacency(p["n"], p["edges"])
        assert ", ".join(letters(p["n"])) in text
    else:  # unweighted graphs as a story: every edge is mentioned once
        names = get_seed(sid).representation(v, Modality.STORY).extra["names"]
        for a, b in p["edges"]:
            assert f"between {names[a]} and {names[b]}" in text
        mentioned = sum(text.count(f"between {x} and {y}") for x, y in itertools.permutations(names, 2))
        assert mentioned == len(p["edges"])


@pytest.mark.parametrize("seed_id", SEEDS)
def test_text_forms_carry_the_data(seed_id: str) -> None:
    """(That every modality renders, and the same inputs give the same renderings: test_every_seed.py.)"""
    seed = get_seed(seed_id)
    for v in variants(seed_id)[:30]:
        for modality in seed.modalities:
            if modality is not Modality.IMAGE:
                _carries_data(v, modality, seed.representation(v, modality).text)
