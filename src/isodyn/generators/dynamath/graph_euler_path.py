"""Graph theory: can every edge be traversed exactly once, and if so, must the walk end where it began?

A connected graph on 5 to 8 nodes in a real-life setting (museum rooms and doorways, squares and
streets, islands and bridges, fountains and paths, or a plain graph). Three balanced classes: an Euler
circuit exists (all degrees even), only an Euler path exists (exactly two odd degrees), or neither
(four or more odd degrees). Variant i has answer A, B, C in turn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.generators.graph_util import place_graph
from isodyn.modalities.graphs import DYNAMATH_LOOK, graph_png, node_letters

# title, node noun (singular, plural), edge noun (singular, plural), who walks
_CONTEXTS = (
    ("Rooms of a museum and the doorways between them", ("room", "rooms"), ("doorway", "doorways"),
     "A guard"),
    ("Squares of a town and the streets between them", ("square", "squares"), ("street", "streets"),
     "A snow plough"),
    ("Islands and the bridges between them", ("island", "islands"), ("bridge", "bridges"), "A tourist"),
    ("Fountains in a park and the paths between them", ("fountain", "fountains"), ("path", "paths"),
     "A runner"),
    ("", ("node", "nodes"), ("edge", "edges"), "A walker"),
)  # fmt: skip


def choices_for(ctx: int) -> tuple[str, ...]:
    node = _CONTEXTS[ctx][1][1]
    return (
        "Yes, and the route can end where it started",
        f"Yes, but only starting and ending at two different {node}",
        "No",
    )


def question_for(ctx: int, choices: tuple[str, ...]) -> str:
    _, (node, _), (edge, _), who = _CONTEXTS[ctx]
    return (
        f"{who} wants a route that goes along every {edge} exactly once (passing through the same {node} "
        f"several times is allowed). Is such a route possible? " + format_choices(choices)
    )


def degrees(n: int, edges: list[list[int]]) -> list[int]:
    return [sum(v in e for e in edges) for v in range(n)]


def connected(n: int, edges: list[list[int]]) -> bool:
    reach, stack = {0}, [0]
    while stack:
        u = stack.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == u and y not in reach:
                    reach.add(y)
                    stack.append(y)
    return len(reach) == n


def classify(n: int, edges: list[list[int]]) -> int:
    odd = sum(d % 2 for d in degrees(n, edges))
    return 0 if odd == 0 else 1 if odd == 2 else 2


def solution_text(params: dict, choices: tuple[str, ...]) -> str:
    n, edges = params["n"], params["edges"]
    labels = node_letters(n)
    deg = degrees(n, edges)
    odd = [labels[v] for v in range(n) if deg[v] % 2]
    steps = [
        "Euler's theorem: a connected graph has a walk using every edge exactly once that returns to "
        "its start "
        "iff every node has even degree, and one that starts and ends at different nodes iff exactly "
        "two nodes "
        "have odd degree.",
        "The graph is connected. Degrees: " + ", ".join(f"{labels[v]} = {deg[v]}" for v in range(n)) + ".",
    ]
    cls = classify(n, edges)
    if cls == 0:
        steps.append("All degrees are even, so an Euler circuit exists: the route can end where it started.")
    elif cls == 1:
        steps.append(
            f"Exactly two nodes, {odd[0]} and {odd[1]}, have odd degree: an Euler path exists from one "
            "to the "
            "other, but no closed route."
        )
    else:
        steps.append(
            f"{len(odd)} nodes ({', '.join(odd)}) have odd degree, more than two: no such route exists."
        )
    steps.append(f"Answer: ({letter(cls)}) {choices[cls]}.")
    return "\n".join(steps)


class EulerPath(SeedProgram):
    seed_id = "dynamath_euler_path"
    topic = Topic.GRAPH_THEORY
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.REAL_LIFE_CONTEXT)
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "edges": VariationType.GRAPH_STRUCTURE,
        "context": VariationType.REAL_LIFE_CONTEXT,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    variant_space = 10**8  # connected labelled graphs on 5-8 nodes x 5 settings
    classes = ("A", "B", "C")

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        want = "ABC".index(answer)
        ctx = int(rng.integers(len(_CONTEXTS)))
        while True:
            n = int(rng.integers(5, 9))
            pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
            m = int(rng.integers(n, min(len(pairs), 2 * n) + 1))
            edges = [list(pairs[int(i)]) for i in sorted(rng.choice(len(pairs), size=m, replace=False))]
            if not connected(n, edges) or classify(n, edges) != want:
                continue
            pos = place_graph(rng, n, edges, attempts=60)
            if pos is not None:
                break
        params = {"n": n, "edges": edges, "pos": pos, "context": ctx}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("n", "edges")

    def redraw(self, params: dict[str, Any]) -> Draw:
        ctx = params["context"]
        choices = choices_for(ctx)
        answer = letter(classify(params["n"], params["edges"]))
        return Draw(params, question_for(ctx, choices), answer, solution_text(params, choices), choices)

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        _, (node, nodes), (_, edges), _ = _CONTEXTS[params["context"]]
        name = f"{node.capitalize()} {node_letters(params['n'])[int(rng.integers(params['n']))]}"
        k = int(rng.integers(2, 13))
        said = (
            f"The map of the {edges} was updated {k} weeks ago.",
            f"The {nodes} and {edges} were mapped {k} years ago.",
            f"{name} is the oldest of the {nodes}.",
            f"The {edges} were last repaired {k} months ago.",
            f"The map of the {nodes} was drawn by a student in {k} minutes.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n, edges, ctx = p["n"], p["edges"], p["context"]
        title, (node, nodes), (_, edge_pl), _ = _CONTEXTS[ctx]
        labels = node_letters(n)
        setting = f" The circles are {nodes} and the lines are {edge_pl}." if title else ""
        if modality is Modality.IMAGE:
            png = graph_png(labels, p["pos"], edges, title=title or None, look=DYNAMATH_LOOK)
            text = (
                f"The image shows a connected undirected graph with nodes {', '.join(labels)}.{setting}\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            rows = [
                " & ".join(str(int([a, b] in edges or [b, a] in edges)) for b in range(n)) for a in range(n)
            ]
            matrix = "A = \\begin{bmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{bmatrix}"
            where = f" ({nodes} joined by {edge_pl})" if title else ""
            text = (
                f"A connected undirected graph{where} has nodes {', '.join(labels)} and adjacency matrix $A$ "
                f"($A_{{ij}} = 1$ when $i$ and $j$ are joined); rows and columns are in the order "
                f"{', '.join(labels)}.\n\n$$\n{matrix}\n$$\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": matrix})
        if modality is Modality.STORY:
            names = [f"{node.capitalize()} {x}" for x in labels]
            links = "; ".join(f"one between {names[a]} and {names[b]}" for a, b in edges)
            intro = title or "A graph"
            story = (
                f"{intro}: there are {n} {nodes}, {', '.join(names)}, and {len(edges)} {edge_pl} (each "
                "usable in "
                f"both directions), exactly these: {links}."
            )
            text = f"{story}\n\n{variant.question}"
            return Representation(modality, text, extra={"story": story, "names": names})
        raise AssertionError(f"unhandled modality {modality}")
