"""Issue 41: the truths of perturbed statistics, science and graph variants, each recomputed by a method
of its own, never the seed's.

Magnitude (x10, x1000): the answer is read off the perturbed variant's text form where it carries the
data (the LaTeX table, the Python block: so the numbers a model sees are the numbers checked) and solved
with numpy, networkx, exact fractions, nodal analysis or ray geometry; it must match the perturbed
variant's answer. Noop: the same solvers, run on the variant with its clause, give the unperturbed
variant's answer (a clause with numbers in it must not leak into what the solver reads)."""

from __future__ import annotations

import itertools
import math
import re
import statistics
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from isodyn.core import AnswerType, Modality, Variant
from isodyn.generators import get_seed
from isodyn.generators.perturb import NOOP_KEY, Perturbation, perturb
from isodyn.scoring.answer_match import is_correct
from test_dynamath_stats_graphs import _nodal_resistance, _spinner_event, run_code

VARIANTS = 30
FACTORS = (10, 1000)


def text(v: Variant, modality: Modality) -> str:
    return get_seed(v.seed_id).representation(v, modality).text


def latex_rows(body: str) -> list[list[str]]:
    """The data rows of the first tabular in `body` (header and rules dropped)."""
    table = re.search(r"\\begin\{tabular\}\{[^}]*\}(.*?)\\end\{tabular\}", body, re.S)
    assert table is not None
    rows = [r.strip() for r in table.group(1).split("\\\\")]
    cells = [[c.strip() for c in r.replace("\\hline", "").split("&")] for r in rows if "&" in r]
    return cells[1:]  # the first row is the header


def letter_of(v: Variant, name: str) -> str:
    return "ABCDEFGHIJ"[v.choices.index(name)]


def number_text(value: float | Fraction) -> str:
    return f"{float(value):.6f}"


# ------------------------------------------------------------------------------------------- solvers
# Each takes a variant and returns the answer as text, computed from what its text form shows.


def solve_bar_extreme(v: Variant) -> str:
    data = run_code(text(v, Modality.CODE))["data"]
    names, values = list(data), np.array(list(data.values()))
    asked = re.search(r"\b(most|fewest|least)\b[^?]*\? choices", v.question)
    assert asked is not None
    most = asked.group(1) == "most"
    return letter_of(v, names[int(np.argmax(values) if most else np.argmin(values))])


def solve_box_iqr(v: Variant) -> str:
    colour = re.search(r"shown by the (\w+) box plot", v.question)
    assert colour is not None
    (row,) = [r for r in latex_rows(text(v, Modality.LATEX)) if r[1] == colour.group(1)]
    five = sorted(int(x) for x in row[2:])
    return str(five[3] - five[1])


def solve_scatter_correlation(v: Variant) -> str:
    code = run_code(text(v, Modality.CODE))
    r = float(np.corrcoef(code["x"], code["y"])[0, 1])
    return "A" if r > 0.5 else "B" if r < -0.5 else "C"


def solve_stem_leaf_mean(v: Variant) -> str:
    (values,) = [x for k, x in run_code(text(v, Modality.CODE)).items() if isinstance(x, list)]
    return number_text(statistics.mean(Fraction(str(x)) for x in values))


def solve_venn_count(v: Variant) -> str:
    """Real sets: every region of the LaTeX table gets that many fresh elements; the question's
    expression is then evaluated with Python's set operators."""
    rows = latex_rows(text(v, Modality.LATEX))
    letters_ = sorted({x for region, _ in rows for x in re.findall(r"[A-Z]", region)} - {"U"})
    universe: set[int] = set()
    sets: dict[str, set[int]] = {x: set() for x in letters_}
    fresh = itertools.count()
    for region, count in rows:
        items = {next(fresh) for _ in range(int(count))}
        universe |= items
        inside = _set_expression(region.strip("$"))
        # the region is the one membership pattern its expression keeps a lone element in
        (bits,) = [
            bits
            for bits in itertools.product((0, 1), repeat=len(letters_))
            if inside({x: {0} if b else set() for x, b in zip(letters_, bits, strict=True)}, {0})
        ]
        for x, b in zip(letters_, bits, strict=True):
            if b:
                sets[x] |= items
    asked = re.search(r"in the set \$(.*)\$\?", v.question)
    assert asked is not None
    return str(len(_set_expression(asked.group(1))(sets, universe)))


def _set_expression(expr: str) -> Callable[[dict[str, set[int]], set[int]], set[int]]:
    code = expr.replace(r"\cup", "|").replace(r"\cap", "&").replace(r"\setminus", "-")
    return lambda sets, universe: eval(code, {}, {**sets, "U": universe})


def solve_circuit_resistance(v: Variant) -> str:
    return number_text(_nodal_resistance(run_code(text(v, Modality.CODE))["resistors"]))


def solve_lens_focal_length(v: Variant) -> str:
    """Ray geometry: the ray parallel to the axis leaves the lens at height h towards the image's tip;
    where it crosses the axis is the focal point."""
    body = text(v, Modality.LATEX)
    do, di = (Fraction(x) for x in re.findall(r"\$(\d+)\\,\\text\{cm\}\$", body))
    h = Fraction(1)
    tip = (di, -h * di / do) if "real, inverted" in body else (-di, h * di / do)
    slope = (tip[1] - h) / tip[0]
    return number_text(abs(h / slope))


def solve_velocity_displacement(v: Variant) -> str:
    pts = np.array(run_code(text(v, Modality.CODE))["points"], dtype=float)
    found = re.search(r"between t = (\d+) s and t = (\d+) s", v.question)
    assert found is not None
    a, b = (int(x) for x in found.groups())
    # exact on each straight piece: cut at every corner and every zero of v, then trapezoids
    cuts = {float(a), float(b)} | {t for t in pts[:, 0] if a < t < b}
    for (t0, v0), (t1, v1) in itertools.pairwise(pts):
        if v0 * v1 < 0 and a < (zero := t0 + v0 * (t1 - t0) / (v0 - v1)) < b:
            cuts.add(zero)
    ts = np.array(sorted(cuts))
    vs = np.interp(ts, pts[:, 0], pts[:, 1])
    areas = (vs[1:] + vs[:-1]) / 2 * np.diff(ts)
    distance = re.search(r"What is the total distance", v.question) is not None
    total = np.abs(areas).sum() if distance else areas.sum()
    return number_text(total)


def _weighted_graph(v: Variant) -> nx.Graph:
    g = nx.Graph()
    g.add_weighted_edges_from(run_code(text(v, Modality.CODE))["edges"])
    return g


def solve_kruskal_edge(v: Variant) -> str:
    ordinal = re.search(r"added (first|second|third|fourth)\?", v.question)
    assert ordinal is not None
    k = ("first", "second", "third", "fourth").index(ordinal.group(1))
    a, b = list(nx.minimum_spanning_edges(_weighted_graph(v), algorithm="kruskal", data=False))[k]
    return "-".join(sorted((a, b)))


def solve_shortest_path(v: Variant) -> str:
    ends = re.search(r"from node ([A-Z]) to node ([A-Z])", v.question)
    assert ends is not None
    path = nx.dijkstra_path(_weighted_graph(v), *ends.groups())
    return "[" + ", ".join(path) + "]"


def solve_dot_plot_median(v: Variant) -> str:
    rows = latex_rows(text(v, Modality.LATEX))
    data = [int(x) for x, f in rows for _ in range(int(f))]
    return number_text(statistics.median(data))


def solve_pie_percent(v: Variant) -> str:
    colour = re.search(r"does the (\w+) sector", v.question)
    assert colour is not None
    rows = latex_rows(text(v, Modality.LATEX))
    (count,) = [int(c) for _, col, c in rows if col == colour.group(1)]
    return number_text(Fraction(100 * count, sum(int(c) for *_, c in rows)))


def solve_spinner_probability(v: Variant) -> str:
    event = _spinner_event(v.question)
    sectors = re.search(r"the sectors are: (.*)\.\n", text(v, Modality.STORY))
    assert sectors is not None
    pairs = [s.split() for s in sectors.group(1).split(", ")]
    return number_text(Fraction(sum(event(c, int(x)) for c, x in pairs), len(pairs)))


def solve_markov_two_step(v: Variant) -> str:
    body = text(v, Modality.LATEX)
    matrix = re.search(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", body, re.S)
    assert matrix is not None
    p = np.array([[float(x) for x in r.split("&")] for r in matrix.group(1).strip().split("\\\\")])
    names = v.params["states"]
    found = re.search(r"starts in state (\w)\..* in state (\w) after", v.question)
    assert found is not None
    i, j = (names.index(x) for x in found.groups())
    return number_text(np.linalg.matrix_power(p, 2)[i, j])


def found(pattern: str, body: str) -> str:
    match = re.search(pattern, body)
    assert match is not None, (pattern, body)
    return match.group(1)


def solve_projectile_motion(v: Variant) -> str:
    body = text(v, Modality.LATEX)
    speed, g = float(found(r"v_0 = (\d+)", body)), float(found(r"g = ([\d.]+)", body))
    angle = float(found(r"\$(\d+)\^\\circ\$", body))
    elevation = math.radians(angle if "above the horizontal" in body else 90 - angle)
    vx, vy = speed * math.cos(elevation), speed * math.sin(elevation)
    flight = float(max(np.roots([-g / 2, vy, 0]).real))
    asked = found(r"what is the (horizontal distance|maximum height|time)", v.question)
    if asked == "time":
        return number_text(flight)
    if asked == "maximum height":  # the top of the parabola, by the vertex of vy t - g t^2 / 2
        return number_text(vy * (flight / 2) - g * (flight / 2) ** 2 / 2)
    return number_text(vx * flight)


def solve_titration_concentration(v: Variant) -> str:
    """Moles of titrant at the marked equivalence point over the sample's volume (all 1:1)."""
    body = text(v, Modality.CODE)
    sample = Fraction(found(r"A (\d+) mL sample", body))
    titrant = Fraction(found(r"titrated with ([\d.]+) mol/L", body))
    veq = Fraction(found(r"\(([\d.]+), [\d.]+\),  # equivalence point", body))
    return number_text(titrant * veq / sample)


def _plain_graph(v: Variant) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(v.params["n"]))
    g.add_edges_from(map(tuple, v.params["edges"]))
    return g


def solve_bipartite(v: Variant) -> str:
    return "A" if nx.is_bipartite(_plain_graph(v)) else "B"


def solve_components(v: Variant) -> str:
    return str(nx.number_connected_components(_plain_graph(v)))


def solve_euler_path(v: Variant) -> str:
    g = _plain_graph(v)
    return "A" if nx.is_eulerian(g) else "B" if nx.has_eulerian_path(g) else "C"


def solve_node_degree(v: Variant) -> str:
    body = text(v, Modality.LATEX)
    colour = re.search(r"Node ([A-Z]) is coloured (\w+)", body)
    assert colour is not None and colour.group(2) in v.question
    return str(_plain_graph(v).degree["ABCDEFGHIJ".index(colour.group(1))])


SOLVERS: dict[str, Callable[[Variant], str]] = {
    "dynamath_bar_extreme": solve_bar_extreme,
    "dynamath_box_iqr": solve_box_iqr,
    "dynamath_scatter_correlation": solve_scatter_correlation,
    "dynamath_stem_leaf_mean": solve_stem_leaf_mean,
    "dynamath_venn_count": solve_venn_count,
    "dynamath_circuit_resistance": solve_circuit_resistance,
    "dynamath_lens_focal_length": solve_lens_focal_length,
    "dynamath_velocity_displacement": solve_velocity_displacement,
    "dynamath_kruskal_edge": solve_kruskal_edge,
    "dynamath_shortest_path": solve_shortest_path,
    "dynamath_dot_plot_median": solve_dot_plot_median,
    "dynamath_pie_percent": solve_pie_percent,
    "dynamath_spinner_probability": solve_spinner_probability,
    "dynamath_markov_two_step": solve_markov_two_step,
    "dynamath_projectile_motion": solve_projectile_motion,
    "dynamath_titration_concentration": solve_titration_concentration,
    "dynamath_bipartite": solve_bipartite,
    "dynamath_components": solve_components,
    "dynamath_euler_path": solve_euler_path,
    "dynamath_node_degree": solve_node_degree,
}
MAGNITUDE = sorted(s for s in SOLVERS if "magnitude" in get_seed(s).perturbations)
NOOP = sorted(s for s in SOLVERS if "noop" in get_seed(s).perturbations)


def agrees(v: Variant, solved: str) -> bool:
    if v.answer_type in (AnswerType.FLOAT, AnswerType.INT):
        return bool(is_correct(solved, v.answer, v.answer_type))
    return solved == v.answer  # a letter, an edge, a path


def test_the_group_declares_what_it_should() -> None:
    # ten seeds scale their quantities; every seed of the group takes a noop clause
    assert len(MAGNITUDE) == 10 and len(NOOP) == 20


@pytest.mark.parametrize("seed_id", sorted(SOLVERS))
def test_the_solvers_agree_with_the_unperturbed_truth(seed_id: str) -> None:
    seed = get_seed(seed_id)
    for index in range(VARIANTS):
        v = seed.variant(index)
        assert agrees(v, SOLVERS[seed_id](v)), (seed_id, index, v.answer, SOLVERS[seed_id](v))


@pytest.mark.parametrize("seed_id", MAGNITUDE)
def test_magnitude_truth_by_an_independent_solver(seed_id: str) -> None:
    seed = get_seed(seed_id)
    moved = 0
    for index in range(VARIANTS):
        v = seed.variant(index)
        for factor in FACTORS:
            scaled = perturb(seed, v, Perturbation("magnitude", factor=factor))
            solved = SOLVERS[seed_id](scaled)
            assert agrees(scaled, solved), (seed_id, index, factor, scaled.answer, solved)
            if v.answer_type in (AnswerType.FLOAT, AnswerType.INT):
                # the quantity asked is a length, an area, a count or a resistance: it scales too
                assert math.isclose(float(solved), factor * float(SOLVERS[seed_id](v)), rel_tol=1e-6)
            else:  # which bar, which edge, which path, which correlation: scaling changes none of them
                assert scaled.answer == v.answer
            moved += scaled.answer != v.answer
    assert moved > 0 or seed.answer_type in (AnswerType.MULTIPLE_CHOICE, AnswerType.TEXT)


@pytest.mark.parametrize("seed_id", NOOP)
def test_noop_truth_by_an_independent_solver(seed_id: str) -> None:
    seed = get_seed(seed_id)
    for index in range(VARIANTS):
        v = seed.variant(index)
        noop = perturb(seed, v, Perturbation("noop"))
        assert noop.params[NOOP_KEY] in noop.question
        solved = SOLVERS[seed_id](noop)
        assert solved == SOLVERS[seed_id](v)  # the clause changes nothing the solver reads
        assert agrees(v, solved) and noop.answer == v.answer, (seed_id, index, solved, v.answer)


def test_a_solver_catches_a_wrong_scaled_truth() -> None:
    """The check can fail: a scaled variant whose answer was not recomputed disagrees with the solver."""
    seed = get_seed("dynamath_circuit_resistance")
    v = seed.variant(0)
    scaled = perturb(seed, v, Perturbation("magnitude", factor=10))
    stale = replace(scaled, answer=v.answer)
    assert not agrees(stale, SOLVERS[seed.seed_id](stale))
