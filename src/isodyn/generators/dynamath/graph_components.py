"""Graph theory: the number of connected components of a graph.

7 to 11 lettered nodes split at random into 1 to 4 groups (an isolated node is a group of its own);
each group is a random tree plus a few extra edges. Nodes of different groups are mixed across the
picture, so edges of different components may cross: the reader has to follow edges, not look for
clusters. Both the structure and the count change between variants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.generators.graph_util import network_noop, noop_prefix, place_graph
from isodyn.modalities.graphs import (
    DYNAMATH_LOOK,
    adjacency_latex,
    adjacency_statement,
    city_names,
    graph_png,
    node_letters,
    road_story,
)


def components(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Connected components by repeated depth-first search, each sorted, ordered by smallest node."""
    adj: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen: set[int] = set()
    out = []
    for s in range(n):
        if s in seen:
            continue
        stack, comp = [s], []
        seen.add(s)
        while stack:
            u = stack.pop()
            comp.append(u)
            for v in adj[u] - seen:
                seen.add(v)
                stack.append(v)
        out.append(sorted(comp))
    return out


def solution_text(params: dict) -> str:
    labels = node_letters(params["n"])
    comps = components(params["n"], params["edges"])
    steps = ["Start at a node not yet visited and mark everything reachable from it along edges; repeat."]
    for i, comp in enumerate(comps, start=1):
        desc = "an isolated node" if len(comp) == 1 else f"{len(comp)} nodes"
        steps.append(f"Component {i}: {{{', '.join(labels[v] for v in comp)}}} ({desc}).")
    counted = "is 1 connected component" if len(comps) == 1 else f"are {len(comps)} connected components"
    steps.append(f"Every node is now visited, so there {counted}.")
    steps.append(f"Answer: {len(comps)}")
    return "\n".join(steps)


class Components(SeedProgram):
    seed_id = "dynamath_components"
    topic = Topic.GRAPH_THEORY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "edges": VariationType.GRAPH_STRUCTURE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    variant_space = 10**9  # labelled forests-plus-edges on 7-11 nodes at random positions

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            n = int(rng.integers(7, 12))
            k = int(rng.integers(1, 5))
            order = [int(v) for v in rng.permutation(n)]
            cuts = sorted(int(c) for c in rng.choice(np.arange(1, n), size=k - 1, replace=False))
            groups = [order[a:b] for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
            edges: set[tuple[int, int]] = set()
            for g in groups:
                for i in range(1, len(g)):  # a random tree: each node attaches to an earlier one
                    u, v = g[i], g[int(rng.integers(i))]
                    edges.add((min(u, v), max(u, v)))
                inside = [(a, b) for a in g for b in g if a < b and (a, b) not in edges]
                for j in rng.permutation(len(inside))[: int(rng.integers(0, 3))]:
                    edges.add(inside[int(j)])
            edge_list = [list(e) for e in sorted(edges)]
            pos = place_graph(rng, n, edge_list, attempts=60)
            if pos is not None:
                break
        params = {"n": n, "edges": edge_list, "pos": pos}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("n", "edges")

    def redraw(self, params: dict[str, Any]) -> Draw:
        question = "How many connected components does this graph have?"
        count = len(components(params["n"], params["edges"]))
        return Draw(params, question, str(count), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        return network_noop(len(params["edges"]), rng)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n, edges = p["n"], p["edges"]
        labels = node_letters(n)
        if modality is Modality.IMAGE:
            png = graph_png(labels, p["pos"], edges, look=DYNAMATH_LOOK)
            text = (
                f"The image shows an undirected graph with {n} nodes labelled {labels[0]} to "
                f"{labels[-1]} (edges may "
                f"cross without meeting; nodes are only where the circles are).\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            matrix = adjacency_latex(n, edges)
            text = f"{adjacency_statement(labels)}\n\n$$\n{matrix}\n$$\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": matrix})
        if modality is Modality.STORY:
            names = city_names(n)
            story = road_story(n, edges, names)
            question = noop_prefix(p) + (
                "Group the towns so that two towns are in the same group exactly when one can drive "
                "from one to "
                "the other using these roads. How many groups are there?"
            )
            text = f"{story}\n\n{question}"
            return Representation(modality, text, extra={"story": story, "names": names})
        raise AssertionError(f"unhandled modality {modality}")
