"""IsoBench "Graph Isomorphism" task (Appendix A.2): are two graphs G and H isomorphic?

Both graphs have the same 5-8 nodes and the same number of edges (IsoBench's guard against counting
shortcuts). The answer class is drawn first (Yes/No balanced by `classes`):

- Yes:   H is G relabelled by a random permutation (`A_H = P A_G P^T`), never the identical edge set,
         and it is drawn with its own layout.
- No:    usually (`REWIRE_SHARE`) H comes from G by one to three degree-preserving edge swaps
         (a-b, c-d -> a-d, c-b) and is then relabelled, so G and H have the same degree sequence and
         counting degrees does not decide the question; otherwise H is drawn independently with the
         same node and edge counts, as in IsoBench. Either way the pair is checked to be non-isomorphic.

The truth comes from the small backtracking search below (degree-pruned, deliberately not networkx, so
the tests can check it against networkx). The worked solution gives an explicit isomorphism for Yes
and, for No, the first invariant that differs (degree sequence, component sizes, triangles, 4-cycles,
neighbour degrees), or the exhaustive search when none of them does.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.graphs import adjacency_latex, graph_pair_png, node_order_text

CHOICES = ("Yes", "No")
REWIRE_SHARE = 0.75  # share of "No" pairs built by degree-preserving swaps (same degree sequence)
_MAX_TRIES = 10_000
_REWIRE_TRIES = 500  # after this many failed rewirings, fall back to an independent H

STATEMENT = (
    "You are given two undirected graphs, G and H, with the same number of nodes and the same number of "
    "edges. Two graphs are isomorphic if there is a one-to-one correspondence between their nodes such "
    "that two nodes of G are joined by an edge exactly when the corresponding nodes of H are."
)
QUESTION = "Are the graphs G and H isomorphic? " + format_choices(CHOICES)

# Members of the two clubs in the story (all sixteen initials differ).
NAMES_G = ("Alice", "Ben", "Carla", "David", "Emma", "Felix", "Grace", "Henry")
NAMES_H = ("Iris", "Jack", "Kate", "Liam", "Maya", "Noah", "Olga", "Peter")

Edges = list[list[int]]


# ---------------------------------------------------------------------------------------------- truth


def neighbours(n: int, edges: Edges) -> list[set[int]]:
    nbrs: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        nbrs[a].add(b)
        nbrs[b].add(a)
    return nbrs


def find_isomorphism(n: int, edges_g: Edges, edges_h: Edges) -> list[int] | None:
    """A bijection `m` (node i of G -> node m[i] of H) preserving adjacency, or None if there is none.

    Backtracking: G's nodes are placed in an order where each node is, where possible, adjacent to one
    already placed; a node may only go to an unused node of H with the same degree whose adjacency to
    every placed node matches.
    """
    if len(edges_g) != len(edges_h):
        return None
    ng, nh = neighbours(n, edges_g), neighbours(n, edges_h)
    if sorted(map(len, ng)) != sorted(map(len, nh)):
        return None
    order: list[int] = []
    left = set(range(n))
    while left:  # highest degree first, then keep growing from placed nodes
        linked = [v for v in left if ng[v] & set(order)]
        pool = linked or list(left)
        v = max(pool, key=lambda u: (len(ng[u]), -u))
        order.append(v)
        left.remove(v)
    mapping = [-1] * n
    used = [False] * n

    def extend(k: int) -> bool:
        if k == n:
            return True
        v = order[k]
        for w in range(n):
            if used[w] or len(nh[w]) != len(ng[v]):
                continue
            if all((u in ng[v]) == (mapping[u] in nh[w]) for u in order[:k]):
                mapping[v], used[w] = w, True
                if extend(k + 1):
                    return True
                mapping[v], used[w] = -1, False
        return False

    return mapping if extend(0) else None


def degree_sequence(n: int, edges: Edges) -> list[int]:
    return sorted((len(s) for s in neighbours(n, edges)), reverse=True)


def component_sizes(n: int, edges: Edges) -> list[int]:
    nbrs, seen, sizes = neighbours(n, edges), set(), []
    for start in range(n):
        if start in seen:
            continue
        stack, size = [start], 0
        seen.add(start)
        while stack:
            u = stack.pop()
            size += 1
            for w in nbrs[u] - seen:
                seen.add(w)
                stack.append(w)
        sizes.append(size)
    return sorted(sizes, reverse=True)


def triangle_count(n: int, edges: Edges) -> int:
    nbrs = neighbours(n, edges)
    return sum(len(nbrs[a] & nbrs[b]) for a, b in edges) // 3


def four_cycle_count(n: int, edges: Edges) -> int:
    """Each 4-cycle a-x-b-y-a is counted once per diagonal pair {a, b} and once per {x, y}."""
    nbrs = neighbours(n, edges)
    pairs = sum(math.comb(len(nbrs[a] & nbrs[b]), 2) for a in range(n) for b in range(a + 1, n))
    return pairs // 2


def neighbour_degrees(n: int, edges: Edges) -> list[tuple[int, tuple[int, ...]]]:
    """For every node: its degree and the sorted degrees of its neighbours (as a sorted list)."""
    nbrs = neighbours(n, edges)
    return sorted(
        ((len(nbrs[v]), tuple(sorted((len(nbrs[w]) for w in nbrs[v]), reverse=True))) for v in range(n)),
        reverse=True,
    )


# ---------------------------------------------------------------------------------------------- sampling


def _norm(edges: list[tuple[int, int]] | Edges) -> Edges:
    return sorted([min(a, b), max(a, b)] for a, b in edges)


def _random_graph(rng: np.random.Generator, n: int, m: int) -> Edges:
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    picks = rng.choice(len(pairs), size=m, replace=False)
    return _norm([pairs[int(k)] for k in picks])


def _relabel(edges: Edges, perm: list[int]) -> Edges:
    return _norm([(perm[a], perm[b]) for a, b in edges])


def _rewire(rng: np.random.Generator, edges: Edges, swaps: int) -> Edges | None:
    """Up to `swaps` double-edge swaps a-b, c-d -> a-d, c-b that keep the graph simple (None: none)."""
    current = {(a, b) for a, b in edges}
    done = 0
    for _ in range(50 * swaps):
        if done == swaps:
            break
        lst = sorted(current)
        i, j = (int(k) for k in rng.choice(len(lst), size=2, replace=False))
        (a, b), (c, d) = lst[i], lst[j]
        if rng.random() < 0.5:
            c, d = d, c
        if len({a, b, c, d}) < 4:
            continue
        new1, new2 = (min(a, d), max(a, d)), (min(c, b), max(c, b))
        if new1 in current or new2 in current:
            continue
        current -= {lst[i], lst[j]}
        current |= {new1, new2}
        done += 1
    return _norm(list(current)) if done else None


def _edge_count_range(n: int) -> tuple[int, int]:
    """From a spanning-tree count to about 1.5 n edges, leaving room for non-isomorphic rewirings."""
    return n - 1, min(n + n // 2 + 1, n * (n - 1) // 2 - 4)


# ---------------------------------------------------------------------------------------------- solution


def _edge_list(edges: Edges) -> str:
    return ", ".join(f"{a}-{b}" for a, b in edges) if edges else "none"


def _listing(values: list) -> str:
    return "(" + ", ".join(map(str, values)) + ")"


def _distinguishing_invariant(n: int, eg: Edges, eh: Edges) -> str | None:
    """The first simple invariant on which G and H differ, as a sentence; None if they all agree."""
    dg, dh = degree_sequence(n, eg), degree_sequence(n, eh)
    if dg != dh:
        return (
            f"The degree sequences differ: G has {_listing(dg)} and H has {_listing(dh)}. An isomorphism "
            "keeps every node's degree, so isomorphic graphs have the same degree sequence."
        )
    steps = [f"Both graphs have the degree sequence {_listing(dg)}, so degrees alone do not decide."]
    cg, ch = component_sizes(n, eg), component_sizes(n, eh)
    if cg != ch:
        steps.append(
            f"The connected components differ: their sizes are {_listing(cg)} in G and {_listing(ch)} in "
            "H. An isomorphism maps components onto components of the same size."
        )
        return "\n".join(steps)
    tg, th = triangle_count(n, eg), triangle_count(n, eh)
    if tg != th:
        steps.append(
            f"G contains {tg} triangle{'s' if tg != 1 else ''} (three mutually adjacent nodes) and H "
            f"contains {th}. An isomorphism maps triangles onto triangles, so the counts would be equal."
        )
        return "\n".join(steps)
    qg, qh = four_cycle_count(n, eg), four_cycle_count(n, eh)
    if qg != qh:
        steps.append(
            f"Both have {tg} triangle{'s' if tg != 1 else ''}, but G contains {qg} "
            f"cycle{'s' if qg != 1 else ''} of length 4 and H contains {qh}. An isomorphism maps 4-cycles "
            "onto 4-cycles."
        )
        return "\n".join(steps)
    sg, sh = Counter(neighbour_degrees(n, eg)), Counter(neighbour_degrees(n, eh))
    if sg != sh:
        only_g = sorted((sg - sh).elements(), reverse=True)[0]
        deg, nd = only_g
        where = f"adjacent to nodes of degrees {_listing(list(nd))}" if nd else "with no neighbours"
        steps.append(
            f"They also agree on triangles ({tg}) and 4-cycles ({qg}). But look at each node's "
            f"neighbours: G has {sg[only_g]} node{'s' if sg[only_g] != 1 else ''} of degree {deg} {where}, "
            f"while H has {sh[only_g]}. An isomorphism keeps the degrees of a node's neighbours too."
        )
        return "\n".join(steps)
    return None


def solution_text(params: dict, answer: str) -> str:
    n, eg, eh = params["n"], params["edges_g"], params["edges_h"]
    steps = [
        f"G has nodes 0 to {n - 1} and {len(eg)} edges: {_edge_list(eg)}.",
        f"H has nodes 0 to {n - 1} and {len(eh)} edges: {_edge_list(eh)}.",
    ]
    mapping = find_isomorphism(n, eg, eh)
    if mapping is not None:
        steps.append(
            f"Both have degree sequence {_listing(degree_sequence(n, eg))}. Matching nodes of equal degree "
            "and checking adjacency one node at a time gives the correspondence "
            + ", ".join(f"{i} -> {mapping[i]}" for i in range(n))
            + " (node of G -> node of H)."
        )
        images = [f"{a}-{b} -> {min(mapping[a], mapping[b])}-{max(mapping[a], mapping[b])}" for a, b in eg]
        steps.append("It maps every edge of G to an edge of H: " + ", ".join(images) + ".")
        steps.append(
            f"These are {len(eg)} different edges of H, which has exactly {len(eh)}, so edges correspond to "
            "edges and non-edges to non-edges: G and H are isomorphic."
        )
    else:
        reason = _distinguishing_invariant(n, eg, eh)
        if reason is None:
            classes = Counter(degree_sequence(n, eg))
            candidates = math.prod(math.factorial(k) for k in classes.values())
            reason = (
                f"G and H agree on the degree sequence {_listing(degree_sequence(n, eg))}, on components, "
                "triangles, 4-cycles and neighbour degrees, so check correspondences directly: a node may "
                f"only go to a node of the same degree, which leaves {candidates} candidate correspondences, "
                "and trying them node by node, every one maps some edge of G to a non-edge of H."
            )
        steps.append(reason)
        steps.append("So no correspondence preserves the edges: G and H are not isomorphic.")
    ans = CHOICES.index("Yes" if mapping is not None else "No")
    assert letter(ans) == answer
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


# ---------------------------------------------------------------------------------------------- story


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def club_story(n: int, edges: Edges, names: tuple[str, ...], ordinal: str, label: str) -> str:
    members = list(names[:n])
    text = f"The {ordinal} club, {label}, has {n} members: {_join(members)}."
    if not edges:
        return text + " No two of them are friends."
    pairs = [f"{members[a]} and {members[b]}" for a, b in edges]
    count = "one pair" if len(pairs) == 1 else f"{len(pairs)} pairs"
    return text + f" Exactly {count} of them are friends (friendship is mutual): " + "; ".join(pairs) + "."


# ---------------------------------------------------------------------------------------------- seed


class Isomorphism(SeedProgram):
    seed_id = "isobench_isomorphism"
    topic = Topic.ISO_ALGORITHMS
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.GRAPH_STRUCTURE,)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    variant_space = 10**12  # pairs of labelled graphs on 5-8 nodes: effectively unbounded

    classes = ("A", "B")  # Yes, No

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        n = int(rng.integers(5, 9))
        lo, hi = _edge_count_range(n)
        m = int(rng.integers(lo, hi + 1))
        construction = (
            "relabel" if answer == "A" else "rewire" if rng.random() < REWIRE_SHARE else "independent"
        )
        for attempt in range(_MAX_TRIES):
            if construction == "rewire" and attempt == _REWIRE_TRIES:
                construction = "independent"  # degrees (nearly) determine the graph for this n, m
            eg = _random_graph(rng, n, m)
            if construction == "relabel":
                perm = [int(i) for i in rng.permutation(n)]
                eh = _relabel(eg, perm)
                if eh != eg:
                    break
                continue
            if construction == "rewire":
                rewired = _rewire(rng, eg, int(rng.integers(1, 4)))
                if rewired is None:
                    continue
                eh = _relabel(rewired, [int(i) for i in rng.permutation(n)])
            else:
                eh = _random_graph(rng, n, m)
            if find_isomorphism(n, eg, eh) is None:
                break
        else:  # pragma: no cover - non-isomorphic partners are found within a few tries
            raise RuntimeError("could not draw a pair of the requested class")
        # Half the drawings ask for a spring layout; `tidy_layout_positions` draws a disconnected graph
        # (or one without a clear spring layout) on a circle instead, and the first case is recorded here.
        coins = [bool(rng.random() < 0.5) for _ in range(2)]
        layouts = [
            "spring" if coin and component_sizes(n, edges) == [n] else "circular"
            for coin, edges in zip(coins, (eg, eh), strict=True)
        ]
        params = {
            "n": n,
            "edges_g": eg,
            "edges_h": eh,
            "construction": construction,
            "layouts": layouts,
            "layout_seeds": [int(rng.integers(2**31)), int(rng.integers(2**31))],
        }
        return Draw(
            params=params,
            question=QUESTION,
            answer=answer,
            solution=solution_text(params, answer),
            choices=CHOICES,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        prm = variant.params
        n, eg, eh = prm["n"], prm["edges_g"], prm["edges_h"]
        counts = f"each with {n} nodes labelled 0 to {n - 1} and {len(eg)} edges"
        if modality is Modality.IMAGE:
            png = graph_pair_png(
                n, eg, eh, layouts=tuple(prm["layouts"]), seeds=tuple(prm["layout_seeds"]), titles=("G", "H")
            )
            text = (
                f"{STATEMENT}\n\nThe image shows the two graphs side by side, G on the left and H on the "
                f"right, {counts}.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            mg, mh = adjacency_latex(n, eg, name="A_G"), adjacency_latex(n, eh, name="A_H")
            text = (
                f"{STATEMENT}\n\nThe graphs are given by their adjacency matrices $A_G$ and $A_H$, {counts}; "
                "an entry is 1 if the two nodes are joined by an edge and 0 otherwise. In both matrices, "
                f"{node_order_text(n)[0].lower()}{node_order_text(n)[1:]}.\n\n$$\n{mg}\n$$\n\n$$\n{mh}\n$$"
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": [mg, mh]})
        if modality is Modality.STORY:
            story_g = club_story(n, eg, NAMES_G, "first", "G")
            story_h = club_story(n, eh, NAMES_H, "second", "H")
            story = (
                f"Two clubs have {n} members each, and each club has the same number of friendships "
                f"({len(eg)}).\n\n{story_g}\n\n{story_h}"
            )
            question = (
                "Can the members of club G be paired one-to-one with the members of club H so that two "
                "members of G are friends exactly when their partners in H are friends? "
                + format_choices(variant.choices)
            )
            return Representation(
                modality,
                f"{story}\n\n{question}",
                extra={"story": story, "names": [list(NAMES_G[:n]), list(NAMES_H[:n])]},
            )
        raise AssertionError(f"unhandled modality {modality}")
