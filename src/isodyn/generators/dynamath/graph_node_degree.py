"""Graph theory: the degree of the node drawn in a given colour.

A random graph on 6 to 9 lettered nodes at random, legible positions (edges may cross, but never run
through a node or lie nearly on top of each other). One node is filled with a colour named in the
question, all others are white; both the graph and the colour change between variants.
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
from isodyn.modalities.palette import CHART_COLORS

_COLOR_NAMES = ("red", "blue", "green", "orange", "purple", "yellow", "brown", "gray")


def solution_text(params: dict) -> str:
    labels = node_letters(params["n"])
    q = params["query"]
    nbrs = sorted(labels[b if a == q else a] for a, b in params["edges"] if q in (a, b))
    steps = [
        f"The {params['color']} node is {labels[q]}.",
        f"The degree of a node is the number of edges that end at it. The edges at {labels[q]} go to: "
        f"{', '.join(nbrs)}.",
        f"Counting them gives {len(nbrs)}.",
        f"Answer: {len(nbrs)}",
    ]
    return "\n".join(steps)


class NodeDegree(SeedProgram):
    seed_id = "dynamath_node_degree"
    topic = Topic.GRAPH_THEORY
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.COLOR)
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "edges": VariationType.GRAPH_STRUCTURE,
        "color": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    variant_space = 10**9  # labelled graphs on 6-9 nodes x query node x 8 colours

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.integers(6, 10))
        p = float(rng.uniform(0.25, 0.42))
        while True:
            pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
            edges = [[i, j] for (i, j), c in zip(pairs, rng.random(len(pairs)), strict=True) if c < p]
            degrees = [sum(v in e for e in edges) for v in range(n)]
            if not edges:
                continue
            # busier nodes are asked more often, so answers spread over 1 to 5 and more
            q = int(rng.choice(n, p=np.asarray(degrees, dtype=float) / sum(degrees)))
            pos = place_graph(rng, n, edges, attempts=60)
            if pos is not None:
                break
        color = str(rng.choice(_COLOR_NAMES))
        params = {"n": n, "edges": edges, "pos": pos, "query": q, "color": color}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "rename"})
    truth_reads = ("n", "edges", "query")

    def redraw(self, params: dict[str, Any]) -> Draw:
        q = params["query"]
        degree = sum(q in e for e in params["edges"])
        question = f"What is the degree of the {params['color']} node?"
        return Draw(params, question, str(degree), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        return network_noop(len(params["edges"]), rng)

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # the marked node takes another colour name (and is drawn in it)
        others = [c for c in _COLOR_NAMES if c != params["color"]]
        return {**params, "color": str(rng.choice(others))}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n, edges, q = p["n"], p["edges"], p["query"]
        labels = node_letters(n)
        if modality is Modality.IMAGE:
            fills = [CHART_COLORS[p["color"]] if v == q else "#ffffff" for v in range(n)]
            png = graph_png(labels, p["pos"], edges, node_colors=fills, look=DYNAMATH_LOOK)
            text = (
                f"The image shows an undirected graph with nodes {', '.join(labels)}; one node is filled "
                f"{p['color']}, all others are white.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            matrix = adjacency_latex(n, edges)
            text = (
                f"{adjacency_statement(labels)} Node {labels[q]} is coloured {p['color']}, "
                "all others white.\n\n"
                f"$$\n{matrix}\n$$\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": matrix})
        if modality is Modality.STORY:
            names = city_names(n)
            story = road_story(n, edges, names)
            # a story has no map to mark a town on
            question = noop_prefix(p) + f"How many roads end at {names[q]}?"
            text = f"{story}\n\n{question}"
            return Representation(modality, text, extra={"story": story, "names": names})
        raise AssertionError(f"unhandled modality {modality}")
