"""IsoBench "Graph Connectivity" task (Appendix A.2): are two query nodes of an undirected graph connected?

Graphs are Erdos-Renyi G(n, p) with 5-9 nodes. The answer class is drawn first and graphs/query pairs
are resampled until they match it, so Yes/No are balanced 50/50 as in IsoBench. Two shortcuts are
ruled out for both classes alike: the query nodes are never adjacent (otherwise "adjacent" would imply
"Yes") and neither is isolated (otherwise "isolated" would imply "No"); the graph has at least n - 2
edges. The truth comes from a small union-find (`graph_util.UnionFind`, deliberately not networkx, so
tests can check it against networkx).
"""

from __future__ import annotations

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.generators.graph_util import UnionFind
from isodyn.modalities.graphs import (
    HIGHLIGHT_COLOR,
    HIGHLIGHT_NAME,
    ISOBENCH_LOOK,
    NODE_COLOR,
    adjacency_latex,
    city_names,
    graph_png,
    layout_positions,
    node_order_text,
    normalize_edges,
    road_story,
)

CHOICES = ("Yes", "No")
_MAX_TRIES = 10_000


def question_for(u: int, v: int) -> str:
    return f"Is there a path between node {u} and node {v} in the graph? " + format_choices(CHOICES)


# ---------------------------------------------------------------------------------------------- truth


def components(n: int, edges: list[list[int]]) -> list[int]:
    """Union-find: a representative (the smallest node) of each node's connected component."""
    sets = UnionFind(n)
    for a, b in edges:
        sets.union(a, b)
    return [sets.find(i) for i in range(n)]


def bfs_order(n: int, edges: list[list[int]], start: int) -> list[list[int]]:
    """Breadth-first layers from `start` (for the worked solution): [[start], [its neighbours], ...]."""
    nbrs: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    seen, layer, layers = {start}, [start], []
    while layer:
        layers.append(layer)
        nxt = sorted({w for u in layer for w in nbrs[u] if w not in seen})
        seen.update(nxt)
        layer = nxt
    return layers


# ---------------------------------------------------------------------------------------------- sampling


def _er_graph(rng: np.random.Generator, n: int, p: float) -> list[list[int]]:
    """Each of the n(n-1)/2 pairs is an edge independently with probability p."""
    coins = rng.random(n * (n - 1) // 2)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    return [[i, j] for (i, j), c in zip(pairs, coins, strict=True) if c < p]


def _acceptable(n: int, edges: list[list[int]], u: int, v: int) -> bool:
    """No shortcut answers: u, v not adjacent, neither isolated; not a nearly empty graph."""
    touched = {w for e in edges for w in e}
    return len(edges) >= n - 2 and [min(u, v), max(u, v)] not in edges and {u, v} <= touched


def solution_text(params: dict, connected: bool) -> str:
    n, edges, (u, v) = params["n"], params["edges"], params["query"]
    steps = [
        f"The graph has nodes 0 to {n - 1} and {len(edges)} edge{'s' if len(edges) != 1 else ''}: "
        + (", ".join(f"{a}-{b}" for a, b in edges) if edges else "none")
        + ".",
        f"Search outward from node {u}, one layer of neighbours at a time (breadth-first search).",
    ]
    layers = bfs_order(n, edges, u)
    for depth, layer in enumerate(layers[1:], start=1):
        steps.append(f"Step {depth}: newly reached nodes {', '.join(map(str, layer))}.")
    reached = sorted(w for layer in layers for w in layer)
    steps.append(
        f"No new nodes can be reached, so the component of node {u} is {{{', '.join(map(str, reached))}}}."
    )
    if connected:
        steps.append(f"Node {v} is in this set, so there is a path between node {u} and node {v}.")
    else:
        steps.append(f"Node {v} is not in this set, so no path connects node {u} and node {v}.")
    ans = 0 if connected else 1
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


class Connectivity(SeedProgram):
    seed_id = "isobench_connectivity"
    topic = Topic.ISO_ALGORITHMS
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.GRAPH_STRUCTURE,)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    variant_space = 10**9  # labelled graphs on 5-9 nodes times query pairs: effectively unbounded

    classes = ("A", "B")  # Yes, No

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        want_connected = answer == "A"
        # n and p are fixed before the class is matched, so both classes see the same graph sizes and
        # densities; p spans the connectivity threshold ln(n)/n, where both answers are common.
        n = int(rng.integers(5, 10))
        p = round(float(rng.uniform(0.8, 1.5) * np.log(n) / n), 2)
        for _ in range(_MAX_TRIES):
            edges = _er_graph(rng, n, p)
            u, v = (int(i) for i in rng.choice(n, size=2, replace=False))
            if not _acceptable(n, edges, u, v):
                continue
            comp = components(n, edges)
            if (comp[u] == comp[v]) == want_connected:
                break
        else:  # pragma: no cover - the acceptance rate is far above 1/_MAX_TRIES
            raise RuntimeError("could not draw a graph of the requested class")
        params = {
            "n": n,
            "p": p,
            "edges": edges,
            "query": [u, v],
            "layout": "spring" if rng.random() < 0.5 else "circular",
            "layout_seed": int(rng.integers(2**31)),
        }
        ans = 0 if want_connected else 1
        return Draw(
            params=params,
            question=question_for(u, v),
            answer=letter(ans),
            solution=solution_text(params, want_connected),
            choices=CHOICES,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        prm = variant.params
        n, edges, (u, v) = prm["n"], prm["edges"], prm["query"]
        intro = "You are given an undirected graph. Determine whether the two query nodes are connected."
        if modality is Modality.IMAGE:
            caption = f"Query nodes {u} and {v} are shown in {HIGHLIGHT_NAME}"
            drawn = normalize_edges(edges)
            pos = layout_positions(n, drawn, prm["layout"], prm["layout_seed"])
            fills = [HIGHLIGHT_COLOR if i in (u, v) else NODE_COLOR for i in range(n)]
            labels = [str(i) for i in range(n)]
            png = graph_png(labels, pos, drawn, look=ISOBENCH_LOOK, node_colors=fills, title=caption)
            text = (
                f"{intro}\n\nThe image shows an undirected graph with {n} nodes labelled 0 to {n - 1}; "
                f"the query nodes {u} and {v} are drawn in {HIGHLIGHT_NAME}.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png, extra={"caption": caption})
        if modality is Modality.LATEX:
            matrix = adjacency_latex(n, edges)
            text = (
                f"{intro}\n\nThe graph has {n} nodes labelled 0 to {n - 1} and is given by its adjacency "
                f"matrix $A$, where $A_{{ij}} = 1$ if nodes $i$ and $j$ are joined by an edge and 0 "
                f"otherwise. {node_order_text(n)}.\n\n$$\n{matrix}\n$$\n\n"
                f"The query nodes are {u} and {v}.\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": matrix})
        if modality is Modality.STORY:
            names = city_names(n)
            story = road_story(n, edges, names)
            question = (
                f"Using only these roads, is it possible to drive from {names[u]} to {names[v]}? "
                + format_choices(variant.choices)
            )
            text = f"{story}\n\n{question}"
            return Representation(modality, text, extra={"story": story, "names": names})
        raise AssertionError(f"unhandled modality {modality}")
