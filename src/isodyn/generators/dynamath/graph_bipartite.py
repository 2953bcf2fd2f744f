"""Graph theory: is the graph bipartite?

Both classes start from the same construction, a connected bipartite graph on 6 to 9 nodes, drawn at
random positions (never in two tidy columns, which would give the answer away). "No" graphs get one
extra edge inside a part, which closes an odd cycle; "Yes" graphs get one extra edge across, so edge
counts do not tell the classes apart. Classes alternate, so any consecutive variants are balanced.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
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

CHOICES = ("Yes", "No")
QUESTION = "Is this graph bipartite? " + format_choices(CHOICES)


def two_colouring(n: int, edges: list[list[int]]) -> tuple[list[int], list[int], tuple[int, int] | None]:
    """BFS 2-colouring: (colour per node, BFS parent per node, None), or the first edge whose ends clash."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    colour, parent = [-1] * n, [-1] * n
    for s in range(n):
        if colour[s] != -1:
            continue
        colour[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in sorted(adj[u]):
                if colour[v] == -1:
                    colour[v], parent[v] = 1 - colour[u], u
                    queue.append(v)
                elif colour[v] == colour[u]:
                    return colour, parent, (u, v)
    return colour, parent, None


def odd_cycle(parent: list[int], u: int, v: int) -> list[int]:
    """The clash edge u-v plus the BFS-tree paths from u and v to their common ancestor.

    u and v sit at the same BFS depth, so the two tree paths have equal length and the cycle is odd.
    """
    up_u, up_v = [u], [v]
    while up_u[-1] != up_v[-1]:
        up_u.append(parent[up_u[-1]])
        up_v.append(parent[up_v[-1]])
    return up_u + up_v[-2::-1]


def solution_text(params: dict) -> str:
    n, edges = params["n"], params["edges"]
    labels = node_letters(n)
    colour, parent, clash = two_colouring(n, edges)
    steps = [
        "A graph is bipartite exactly when its nodes can be split into two groups with every edge joining "
        "the two groups, i.e. when it has no cycle of odd length. Try to 2-colour it by breadth-first search."
    ]
    if clash is None:
        g0 = [labels[i] for i in range(n) if colour[i] == 0]
        g1 = [labels[i] for i in range(n) if colour[i] == 1]
        steps.append(f"The colouring succeeds: group 1 = {{{', '.join(g0)}}}, group 2 = {{{', '.join(g1)}}}.")
        steps.append("Every edge joins a node of group 1 to a node of group 2, so the graph is bipartite.")
        ans = 0
    else:
        cyc = odd_cycle(parent, *clash)
        loop = "-".join(labels[i] for i in [*cyc, cyc[0]])
        steps.append(
            f"The colouring fails: the cycle {loop} has {len(cyc)} edges, an odd number, so its nodes cannot "
            "alternate between two groups."
        )
        steps.append("A graph with an odd cycle is not bipartite.")
        ans = 1
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


class Bipartite(SeedProgram):
    seed_id = "dynamath_bipartite"
    topic = Topic.GRAPH_THEORY
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.GRAPH_STRUCTURE,)
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "edges": VariationType.GRAPH_STRUCTURE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    variant_space = 10**9  # connected labelled graphs on 6-9 nodes at random positions
    classes = ("A", "B")

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        want_bipartite = answer == "A"
        while True:
            n = int(rng.integers(6, 10))
            order = [int(v) for v in rng.permutation(n)]
            k = int(rng.integers(n // 2 - 1, n // 2 + 2))
            left, right = order[:k], order[k:]
            if not left or not right:
                continue
            side = {v: 0 for v in left} | {v: 1 for v in right}
            # a random spanning tree whose edges all cross between the parts
            tree: set[tuple[int, int]] = set()
            joined = [left[0]]
            rest = [v for v in order if v != left[0]]
            while rest:
                v = rest.pop(int(rng.integers(len(rest))))
                partners = [u for u in joined if side[u] != side[v]]
                if not partners:
                    rest.append(v)
                    continue
                u = partners[int(rng.integers(len(partners)))]
                tree.add((min(u, v), max(u, v)))
                joined.append(v)
            cross = [
                (a, b) for a in range(n) for b in range(a + 1, n) if side[a] != side[b] and (a, b) not in tree
            ]
            inner = [(a, b) for a in range(n) for b in range(a + 1, n) if side[a] == side[b]]
            n_extra = min(len(cross), int(rng.integers(0, 3)))
            extra = (
                [cross[int(i)] for i in rng.choice(len(cross), size=n_extra, replace=False)]
                if n_extra
                else []
            )
            edges = tree | set(extra)
            pool = [e for e in cross if e not in edges] if want_bipartite else inner
            if not pool:
                continue
            edges.add(pool[int(rng.integers(len(pool)))])
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
        _, _, clash = two_colouring(params["n"], params["edges"])
        ans = 0 if clash is None else 1
        return Draw(params, QUESTION, letter(ans), solution_text(params), CHOICES)

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        return network_noop(len(params["edges"]), rng)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n, edges = p["n"], p["edges"]
        labels = node_letters(n)
        if modality is Modality.IMAGE:
            png = graph_png(labels, p["pos"], edges, look=DYNAMATH_LOOK)
            text = (
                f"The image shows an undirected graph with nodes {', '.join(labels)}.\n\n{variant.question}"
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
                "Can the towns be split into two groups so that every road joins a town of one group "
                "to a town "
                "of the other? " + format_choices(variant.choices)
            )
            text = f"{story}\n\n{question}"
            return Representation(modality, text, extra={"story": story, "names": names})
        raise AssertionError(f"unhandled modality {modality}")
