"""Graph theory: which edge does Kruskal's algorithm add k-th (k = 1..4) to the minimum spanning tree?

A planar weighted graph on 5 to 8 lettered nodes (its structure changes between variants) with
distinct weights, so Kruskal's order is unique. For k >= 2 the k-th added edge is often not the k-th
lightest edge, because lighter edges that would close a cycle are skipped. The answer is free-form
text: the edge as two letters in alphabetical order, e.g. `B-E`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.generators.graph_util import UnionFind, planar_weighted_layout
from isodyn.modalities.formatting import code_block
from isodyn.modalities.graphs import (
    DYNAMATH_LOOK,
    graph_png,
    node_letters,
    weighted_edges_code,
    weighted_edges_latex,
)

ORDINALS = ("first", "second", "third", "fourth")
ANSWER_FORMAT = (
    "an edge written as its two endpoint letters in alphabetical order joined by a hyphen, e.g. A-C"
)


def kruskal_trace(n: int, edges: list[list[int]], weights: list[int]) -> list[tuple[int, bool]]:
    """(edge index, accepted?) for every edge examined, lightest first, until the tree is complete."""
    trees = UnionFind(n)
    trace, added = [], 0
    for k in sorted(range(len(edges)), key=weights.__getitem__):
        a, b = edges[k]
        ok = trees.union(a, b)  # False: the edge would close a cycle
        if ok:
            added += 1
        trace.append((k, ok))
        if added == n - 1:
            break
    return trace


def edge_name(labels: list[str], edge: list[int]) -> str:
    a, b = sorted(labels[i] for i in edge)
    return f"{a}-{b}"


def solution_text(params: dict) -> str:
    n, edges, weights, k = params["n"], params["edges"], params["weights"], params["k"]
    labels = node_letters(n)
    steps = [
        "Kruskal's algorithm examines the edges from lightest to heaviest and adds an edge unless it would "
        "close a cycle with the edges already chosen.",
    ]
    added = 0
    for idx, ok in kruskal_trace(n, edges, weights):
        name = edge_name(labels, edges[idx])
        if ok:
            added += 1
            steps.append(
                f"{name} (weight {weights[idx]}): joins two separate parts, added ({ORDINALS[added - 1]})."
            )
        else:
            steps.append(f"{name} (weight {weights[idx]}): both ends are already connected, skipped.")
        if added == k:
            steps.append(f"So the {ORDINALS[k - 1]} edge added is {name}.")
            steps.append(f"Answer: {name}")
            return "\n".join(steps)
    raise AssertionError("the tree has fewer edges than asked")


class KruskalEdge(SeedProgram):
    seed_id = "dynamath_kruskal_edge"
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
    variant_space = 10**9  # random planar graphs on 5-8 nodes x distinct weights from 1-20 x 4 ordinals

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.integers(5, 9))
        pos, edges, spots = planar_weighted_layout(rng, n, keep=0.65)
        k = min(int(rng.choice([1, 2, 3, 4], p=[0.1, 0.25, 0.35, 0.3])), n - 1)
        want_skip = k >= 3 and rng.random() < 0.5  # half the time a lighter edge must be skipped first
        for _ in range(100):
            weights = [int(w) for w in rng.choice(np.arange(1, 21), size=len(edges), replace=False)]
            trace = kruskal_trace(n, [list(e) for e in edges], weights)
            before = trace[: [i for i, (_, ok) in enumerate(trace) if ok][k - 1]]
            if not want_skip or not all(ok for _, ok in before):
                break
        params: dict[str, Any] = {
            "n": n,
            "pos": pos,
            "edges": [list(e) for e in edges],
            "weights": weights,
            "spots": spots,
            "k": k,
            "answer_format": ANSWER_FORMAT,
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("n", "edges", "weights", "k")

    def redraw(self, params: dict[str, Any]) -> Draw:
        labels = node_letters(params["n"])
        trace = kruskal_trace(params["n"], params["edges"], params["weights"])
        k = params["k"]
        kth = [idx for idx, ok in trace if ok][k - 1]
        question = (
            "Kruskal's algorithm is run on this weighted graph to build a minimum spanning tree. "
            "Which edge is "
            f"added {ORDINALS[k - 1]}?"
        )
        return Draw(params, question, edge_name(labels, params["edges"][kth]), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        labels, edges = node_letters(params["n"]), params["edges"]
        name = edge_name(labels, edges[int(rng.integers(len(edges)))])
        k = int(rng.integers(2, 13))
        said = (
            "The weights are the costs of laying cable, in thousands of dollars.",
            f"The edge {name} was the last one drawn.",
            f"The graph was drawn by {k} students working together.",
            f"A minimum spanning tree of this graph has {params['n'] - 1} edges.",
            f"The same graph was used in an exam {k} years ago.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # Kruskal's order depends only on the order of the weights, which a factor keeps
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
                f"The image shows an undirected graph with nodes {', '.join(labels)}; the number on "
                "each edge "
                f"is its weight.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            table = weighted_edges_latex(labels, p["edges"], p["weights"])
            text = (
                f"An undirected weighted graph has nodes {', '.join(labels)} and exactly these "
                f"edges:\n\n{table}"
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.CODE:
            code = f"nodes = {labels!r}\n" + weighted_edges_code(labels, p["edges"], p["weights"])
            text = f"{code_block(code)}\n\n{variant.question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
