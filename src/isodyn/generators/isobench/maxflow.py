"""IsoBench "Maximum Flow" task (Appendix A.2): the maximum flow from a source to a sink.

As in IsoBench, a graph has 3, 4 or 5 nodes and every pair of nodes gets a capacity drawn uniformly
from 0 to 9 and a direction drawn by a fair coin; a zero capacity means "no edge" and is left out of
every rendering (so at most one edge joins two nodes, and the drawing never needs curved arrows).
Source and sink are two distinct random nodes. To keep the answer informative, a graph without a
directed source-to-sink path is redrawn unless the variant is one of the few (`ZERO_SHARE`) that
accept any graph, so a flow of 0 stays possible but rare.

The truth comes from the small Edmonds-Karp implementation below (deliberately not networkx, so the
tests can check it against networkx); the worked solution lists its augmenting paths and the
minimum cut that certifies the result.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.digraphs import SINK_NAME, SOURCE_NAME, digraph_png, weighted_adjacency_latex
from isodyn.modalities.graphs import city_names, node_order_text

MAX_CAPACITY = 9
ZERO_SHARE = 0.1  # share of variants whose graph need not contain a source-to-sink path
_MAX_TRIES = 10_000

STATEMENT = (
    "You are given a weighted directed graph with one source node and one sink node. Each directed edge "
    "has an integer capacity, the largest amount of flow it can carry, and flow may only travel along an "
    "edge in its direction. Flow starts at the source and ends at the sink: every other node passes on "
    "exactly as much flow as it receives. The maximum flow is the largest total amount that can be sent "
    "from the source to the sink while respecting every capacity."
)


def question_for(source: int, sink: int) -> str:
    return f"What is the maximum flow from the source node {source} to the sink node {sink}?"


# ---------------------------------------------------------------------------------------------- truth


def capacity_matrix(n: int, arcs: list[list[int]]) -> list[list[int]]:
    cap = [[0] * n for _ in range(n)]
    for a, b, c in arcs:
        cap[a][b] += c
    return cap


def _bfs_parents(residual: list[list[int]], s: int) -> list[int | None]:
    """Breadth-first search over arcs with spare capacity; parent[v] is v's predecessor (s: itself)."""
    n = len(residual)
    parent: list[int | None] = [None] * n
    parent[s] = s
    queue = deque([s])
    while queue:
        u = queue.popleft()
        for v in range(n):
            if parent[v] is None and residual[u][v] > 0:
                parent[v] = u
                queue.append(v)
    return parent


def edmonds_karp(
    n: int, arcs: list[list[int]], s: int, t: int
) -> tuple[int, list[tuple[list[int], int]], list[list[int]]]:
    """Maximum s-t flow value, the augmenting paths used (nodes, amount) and the final residual matrix.

    Each round pushes flow along a shortest path (fewest edges) in the residual network, where an
    edge u -> v has spare capacity cap(u, v) - f(u, v) + f(v, u) (the last term: flow that can be
    cancelled).
    """
    residual = capacity_matrix(n, arcs)
    total = 0
    paths: list[tuple[list[int], int]] = []
    while True:
        parent = _bfs_parents(residual, s)
        if parent[t] is None:
            return total, paths, residual
        path = [t]
        while path[-1] != s:
            prev = parent[path[-1]]
            assert prev is not None
            path.append(prev)
        path.reverse()
        amount = min(residual[u][v] for u, v in itertools.pairwise(path))
        for u, v in itertools.pairwise(path):
            residual[u][v] -= amount
            residual[v][u] += amount
        total += amount
        paths.append((path, amount))


def reachable(residual: list[list[int]], s: int) -> list[int]:
    """Nodes reachable from s along arcs with spare capacity (sorted)."""
    return [v for v, p in enumerate(_bfs_parents(residual, s)) if p is not None]


# ---------------------------------------------------------------------------------------------- sampling


def _random_arcs(rng: np.random.Generator, n: int) -> list[list[int]]:
    """IsoBench's graphs: each pair gets a capacity 0-9 and a random direction; zero means no edge."""
    arcs = []
    for i in range(n):
        for j in range(i + 1, n):
            c = int(rng.integers(0, MAX_CAPACITY + 1))
            forward = bool(rng.random() < 0.5)
            if c > 0:
                arcs.append([i, j, c] if forward else [j, i, c])
    return sorted(arcs)


def _arrow(path: list[int]) -> str:
    return " -> ".join(map(str, path))


def solution_text(params: dict) -> tuple[str, int]:
    """A worked Edmonds-Karp solution ending with the answer, and the answer itself."""
    n, arcs, s, t = params["n"], params["arcs"], params["source"], params["sink"]
    cap = capacity_matrix(n, arcs)
    flow, paths, residual = edmonds_karp(n, arcs, s, t)
    steps = [
        f"The graph has nodes 0 to {n - 1}, source {s}, sink {t} and {len(arcs)} directed edges "
        "(capacity in brackets): " + ", ".join(f"{a} -> {b} ({c})" for a, b, c in arcs) + ".",
    ]
    if not paths:
        seen = reachable(residual, s)
        steps.append(
            f"Following edges in their direction, node {s} reaches only "
            f"{{{', '.join(map(str, seen))}}}; node {t} is not among them, so no flow can arrive at the sink."
        )
        steps.append("Answer: 0.")
        return "\n".join(steps), 0
    steps.append(
        "Use augmenting paths (Edmonds-Karp): repeatedly take a shortest path from the source to the "
        "sink along which every edge still has spare capacity, and push as much flow along it as its "
        "tightest edge allows. Sending flow backwards against an edge cancels flow already sent on it."
    )
    running = 0
    residual_now = capacity_matrix(n, arcs)
    for k, (path, amount) in enumerate(paths, start=1):
        parts = []
        for u, v in itertools.pairwise(path):
            spare = residual_now[u][v]
            if cap[u][v] > 0:
                parts.append(f"{u} -> {v} has {spare} spare")
            else:
                parts.append(f"{u} -> {v} cancels up to {spare} of the flow on {v} -> {u}")
        for u, v in itertools.pairwise(path):
            residual_now[u][v] -= amount
            residual_now[v][u] += amount
        running += amount
        steps.append(
            f"Path {k}: {_arrow(path)} ({'; '.join(parts)}). Push {amount}; total flow so far {running}."
        )
    side = reachable(residual, s)
    cut = [(a, b, c) for a, b, c in arcs if a in side and b not in side]
    steps.append(
        f"No augmenting path is left: with the spare capacities that remain, node {s} reaches only "
        f"{{{', '.join(map(str, side))}}}."
    )
    steps.append(
        "The edges leaving this set, "
        + ", ".join(f"{a} -> {b} ({c})" for a, b, c in cut)
        + f", are all full and their capacities add up to {' + '.join(str(c) for *_, c in cut)} = "
        f"{sum(c for *_, c in cut)}, so no flow can be larger than {flow}, and {flow} is achieved."
    )
    steps.append(f"Answer: {flow}.")
    return "\n".join(steps), flow


def pipe_story(n: int, arcs: list[list[int]], source: int, sink: int, names: list[str]) -> str:
    """Towns joined by one-way water pipes: every node, every arc and every capacity is mentioned."""
    others = [names[i] for i in range(n) if i not in (source, sink)]
    text = (
        f"A water company serves {n} towns: {', '.join(names[:-1])} and {names[-1]}. "
        f"Its reservoir is at {names[source]}, and the water is needed in {names[sink]}. "
    )
    count = "one pipe" if len(arcs) == 1 else f"{len(arcs)} pipes"
    text += (
        f"The towns are linked by {count}, and there are no others. Each pipe carries water in one "
        "direction only and has a capacity, the most water it can carry, in litres per second: "
        + "; ".join(
            f"a pipe from {names[a]} to {names[b]} that carries at most {c} "
            f"{'litre' if c == 1 else 'litres'} per second"
            for a, b, c in arcs
        )
        + "."
    )
    if len(others) == 1:
        text += f" {others[0]} stores no water: it sends on exactly as much water as it receives."
    else:
        text += (
            f" {', '.join(others[:-1])} and {others[-1]} store no water: each of them sends on exactly as "
            "much water as it receives."
        )
    return text


class MaxFlow(SeedProgram):
    seed_id = "isobench_maxflow"
    topic = Topic.ISO_ALGORITHMS
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.INT
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.NUMERICAL_VALUE)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    # Per pair: no edge or 9 capacities in 2 directions (19 options); 5 nodes have 10 pairs and 20
    # ordered (source, sink) choices; times the ring orders of the drawing.
    variant_space = 19**10 * 20 * 24

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.integers(3, 6))
        source, sink = (int(i) for i in rng.choice(n, size=2, replace=False))
        accept_any = bool(rng.random() < ZERO_SHARE)
        for _ in range(_MAX_TRIES):
            arcs = _random_arcs(rng, n)
            if accept_any or sink in reachable(capacity_matrix(n, arcs), source):
                break
        else:  # pragma: no cover - more than a third of draws have a source-to-sink path
            raise RuntimeError("could not draw a graph with a source-to-sink path")
        params = {
            "n": n,
            "arcs": arcs,
            "source": source,
            "sink": sink,
            "order": [int(i) for i in rng.permutation(n)],  # drawing: nodes around a polygon
        }
        solution, flow = solution_text(params)
        return Draw(params=params, question=question_for(source, sink), answer=str(flow), solution=solution)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        prm = variant.params
        n, arcs, s, t = prm["n"], prm["arcs"], prm["source"], prm["sink"]
        if modality is Modality.IMAGE:
            caption = f"source: node {s} ({SOURCE_NAME}), sink: node {t} ({SINK_NAME})"
            png = digraph_png(n, arcs, order=prm["order"], source=s, sink=t, caption=caption)
            text = (
                f"{STATEMENT}\n\nThe image shows the graph: {n} nodes labelled 0 to {n - 1}, each directed "
                "edge drawn as an arrow with its capacity written on it; two nodes without an arrow "
                f"between them have no edge. The source is node {s} (drawn in {SOURCE_NAME}) and the sink "
                f"is node {t} (drawn in {SINK_NAME}).\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png, extra={"caption": caption})
        if modality is Modality.LATEX:
            matrix = weighted_adjacency_latex(n, arcs, name="C")
            text = (
                f"{STATEMENT}\n\nThe graph has {n} nodes labelled 0 to {n - 1} and is given by its capacity "
                "matrix $C$, where $C_{ij}$ is the capacity of the directed edge from node $i$ to node $j$, "
                f"and $C_{{ij}} = 0$ means there is no such edge. {node_order_text(n)}.\n\n$$\n{matrix}\n$$"
                f"\n\nThe source is node {s} and the sink is node {t}.\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": matrix})
        if modality is Modality.STORY:
            names = city_names(n)
            story = pipe_story(n, arcs, s, t, names)
            question = (
                f"What is the largest amount of water, in litres per second, that can flow from "
                f"{names[s]} to {names[t]} through these pipes?"
            )
            return Representation(modality, f"{story}\n\n{question}", extra={"story": story, "names": names})
        raise AssertionError(f"unhandled modality {modality}")
