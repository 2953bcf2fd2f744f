"""Graph theory: the shortest path between two nodes of a weighted graph, given as the list of its nodes.

A planar weighted graph on 6 to 9 lettered nodes (structure and weights change between variants). The
start and end are at least two edges apart and the shortest path is unique. Half of the variants are
drawn so that the shortest path uses more edges than the path with the fewest edges, which rules out
"fewest hops" as a shortcut. The answer is free-form text: `[A, D, C, F]`.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.generators.graph_util import planar_weighted_layout
from isodyn.modalities.formatting import code_block
from isodyn.modalities.graphs import (
    DYNAMATH_LOOK,
    graph_png,
    node_letters,
    weighted_edges_code,
    weighted_edges_latex,
)

ANSWER_FORMAT = "the list of nodes on the path in order from the start node to the end node, e.g. [A, C, D]"


def _adjacency(n: int, edges: list[list[int]], weights: list[int]) -> list[list[tuple[int, int]]]:
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for (a, b), w in zip(edges, weights, strict=True):
        adj[a].append((b, w))
        adj[b].append((a, w))
    return adj


def dijkstra(
    n: int, edges: list[list[int]], weights: list[int], src: int
) -> tuple[list[float], list[int], list[int]]:
    """Distances, one predecessor per node, and the number of shortest paths from src to each node."""
    adj = _adjacency(n, edges, weights)
    dist, pred, count = [float("inf")] * n, [-1] * n, [0] * n
    dist[src], count[src] = 0, 1
    heap = [(0, src)]
    done = [False] * n
    while heap:
        d, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w in adj[u]:
            if d + w < dist[v]:
                dist[v], pred[v], count[v] = d + w, u, count[u]
                heapq.heappush(heap, (d + w, v))
            elif d + w == dist[v]:
                count[v] += count[u]
    return dist, pred, count


def hops(n: int, edges: list[list[int]], src: int) -> list[int]:
    adj = _adjacency(n, edges, [1] * len(edges))
    seen, frontier, depth = {src: 0}, [src], 0
    while frontier:
        depth += 1
        nxt = [v for u in frontier for v, _ in adj[u] if v not in seen]
        for v in nxt:
            seen.setdefault(v, depth)
        frontier = list(dict.fromkeys(nxt))
    return [seen.get(i, -1) for i in range(n)]


def path_to(pred: list[int], t: int) -> list[int]:
    out = [t]
    while pred[out[-1]] != -1:
        out.append(pred[out[-1]])
    return out[::-1]


def solution_text(params: dict) -> str:
    n, edges, weights = params["n"], params["edges"], params["weights"]
    s, t = params["source"], params["target"]
    labels = node_letters(n)
    dist, pred, _ = dijkstra(n, edges, weights, s)
    order = sorted(range(n), key=lambda v: (dist[v], v))
    steps = [
        f"Run Dijkstra's algorithm from {labels[s]}: repeatedly settle the unsettled node with the smallest "
        "tentative distance and relax the edges leaving it.",
        "Final shortest distances (with the node each is reached from): "
        + ", ".join(
            f"{labels[v]} = {int(dist[v])}" + (f" (via {labels[pred[v]]})" if pred[v] != -1 else "")
            for v in order
        )
        + ".",
    ]
    path = path_to(pred, t)
    legs = " + ".join(str(weights[_edge_index(edges, a, b)]) for a, b in itertools.pairwise(path))
    steps.append(
        f"Following the predecessors back from {labels[t]} gives the path "
        f"{'-'.join(labels[v] for v in path)} "
        f"with length {legs} = {int(dist[t])}; no other path is as short."
    )
    answer = "[" + ", ".join(labels[v] for v in path) + "]"
    steps.append(f"Answer: {answer}")
    return "\n".join(steps)


def _edge_index(edges: list[list[int]], a: int, b: int) -> int:
    return next(i for i, e in enumerate(edges) if set(e) == {a, b})


class ShortestPath(SeedProgram):
    seed_id = "dynamath_shortest_path"
    topic = Topic.GRAPH_THEORY
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "edges": VariationType.GRAPH_STRUCTURE,
        "weights": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    variant_space = 10**9  # random planar graphs on 6-9 nodes x weights 1-12 x node pairs

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.integers(6, 10))
        detour = rng.random() < 0.5  # the shortest path must use more edges than the fewest-edge path
        while True:
            pos, edges, spots = planar_weighted_layout(rng, n, keep=0.6)
            edge_list = [list(e) for e in edges]
            weights = [int(w) for w in rng.integers(1, 13, size=len(edges))]
            s = int(rng.integers(n))
            h = hops(n, edge_list, s)
            far = [v for v in range(n) if h[v] >= 2]
            if not far:
                continue
            t = int(rng.choice(far))
            _, pred, count = dijkstra(n, edge_list, weights, s)
            if count[t] != 1:
                continue
            if detour and len(path_to(pred, t)) - 1 <= h[t]:
                continue
            break
        params = {
            "n": n,
            "pos": pos,
            "edges": edge_list,
            "weights": weights,
            "spots": spots,
            "source": s,
            "target": t,
            "answer_format": ANSWER_FORMAT,
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("n", "edges", "weights", "source", "target")

    def redraw(self, params: dict[str, Any]) -> Draw:
        n, s, t = params["n"], params["source"], params["target"]
        labels = node_letters(n)
        _, pred, _ = dijkstra(n, params["edges"], params["weights"], s)
        question = (
            f"The weight of each edge is its length. What is the shortest path from node {labels[s]} to node "
            f"{labels[t]}? List its nodes in order."
        )
        answer = "[" + ", ".join(labels[v] for v in path_to(pred, t)) + "]"
        return Draw(params, question, answer, solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        labels, edges = node_letters(params["n"]), params["edges"]
        a, b = (labels[x] for x in edges[int(rng.integers(len(edges)))])
        other = labels[int(rng.integers(params["n"]))]
        k = int(rng.integers(2, 13))
        said = (
            "The lengths are measured in kilometres.",
            f"The edge between {a} and {b} was drawn {k} minutes after the others.",
            f"Node {other} was the first one placed, {k} centimetres from the edge of the page.",
            f"The map was drawn by a surveyor in {k} days.",
            f"The graph has {len(edges)} edges in total.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        return {**params, "weights": [w * factor for w in params["weights"]]}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(w) for w in params["weights"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        labels = node_letters(p["n"])
        if modality is Modality.IMAGE:
            png = graph_png(
                labels, p["pos"], p["edges"], weights=p["weights"], spots=p["spots"], look=DYNAMATH_LOOK
            )
            text = (
                f"The image shows an undirected weighted graph with nodes {', '.join(labels)}; each edge is "
                "labelled with its weight.\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            table = weighted_edges_latex(labels, p["edges"], p["weights"])
            text = (
                f"An undirected weighted graph has nodes {', '.join(labels)} and exactly these edges "
                "(the weight "
                f"of an edge is its length):\n\n{table}\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.CODE:
            code = f"nodes = {labels!r}\n" + weighted_edges_code(labels, p["edges"], p["weights"])
            text = f"{code_block(code)}\n\n{variant.question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
