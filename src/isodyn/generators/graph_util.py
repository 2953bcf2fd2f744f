"""What the graph seeds share: a union-find, and random node layouts that stay legible when drawn.

Layouts are sampled with the variant's `rng` and stored in its params, so the picture is drawn from
exactly the positions the sampler checked (with `graphs.graph_png` in `graphs.DYNAMATH_LOOK`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from isodyn.modalities.graphs import segment_distance, segments_cross


class UnionFind:
    """Disjoint sets of the nodes 0..n-1, each named by its smallest node (path halving, no ranks)."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        """The smallest node in the set of `i`."""
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(self, a: int, b: int) -> bool:
        """Join the sets of `a` and `b`; False if they were one set already."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[max(ra, rb)] = min(ra, rb)
        return True


# ---------------------------------------------------------------------------------------------- layouts


def spread_points(
    rng: np.random.Generator, n: int, *, width: float = 1.3, height: float = 1.0, min_dist: float = 0.26
) -> list[list[float]] | None:
    """n points in a width x height box, pairwise at least `min_dist` apart (None if it cannot fit)."""
    pts: list[list[float]] = []
    for _ in range(4000):
        p = [round(float(rng.uniform(0, width)), 3), round(float(rng.uniform(0, height)), 3)]
        if all(math.dist(p, q) >= min_dist for q in pts):
            pts.append(p)
            if len(pts) == n:
                return pts
    return None


def edges_clear_of_nodes(
    pos: Sequence[Sequence[float]], edges: Sequence[Sequence[int]], clearance: float
) -> bool:
    """No edge passes within `clearance` of a node it does not end at (it would look like it touches)."""
    for a, b in edges:
        for v, p in enumerate(pos):
            if v not in (a, b) and segment_distance(tuple(p), tuple(pos[a]), tuple(pos[b])) < clearance:
                return False
    return True


def delaunay_edges(pos: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """The edges of the Delaunay triangulation: a planar, well-shaped edge set on the points."""
    from scipy.spatial import Delaunay

    tri = Delaunay(np.asarray(pos, dtype=float))
    out = set()
    for simplex in tri.simplices:
        for i in range(3):
            a, b = int(simplex[i]), int(simplex[(i + 1) % 3])
            out.add((min(a, b), max(a, b)))
    return sorted(out)


def edge_label_spots(
    pos: Sequence[Sequence[float]],
    edges: Sequence[Sequence[int]],
    *,
    node_radius: float = 0.055,
    edge_gap: float = 0.05,
    label_gap: float = 0.11,
) -> list[list[float]] | None:
    """A point on each edge for its weight label, or None when some label would be ambiguous.

    A spot is accepted only when it is at least `edge_gap` from every other edge, clear of every node
    and at least `label_gap` from the labels already placed, so each number sits on one edge only.
    """
    spots: list[list[float]] = []
    for k, (a, b) in enumerate(edges):
        pa, pb = pos[a], pos[b]
        for t in (0.5, 0.42, 0.58, 0.35, 0.65):
            s = (pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]))
            if any(math.dist(s, p) < node_radius + 0.06 for p in pos):
                continue
            if any(
                segment_distance(s, tuple(pos[c]), tuple(pos[d])) < edge_gap
                for j, (c, d) in enumerate(edges)
                if j != k
            ):
                continue
            if any(math.dist(s, q) < label_gap for q in spots):
                continue
            spots.append([round(s[0], 3), round(s[1], 3)])
            break
        else:
            return None
    return spots


def _angle_between(u: Sequence[float], v: Sequence[float]) -> float:
    """The angle between two directions, in degrees (0..180)."""
    dot = u[0] * v[0] + u[1] * v[1]
    norm = math.hypot(*u) * math.hypot(*v) or 1.0
    return math.degrees(math.acos(max(-1.0, min(1.0, dot / norm))))


def edges_distinct(
    pos: Sequence[Sequence[float]], edges: Sequence[Sequence[int]], min_angle: float = 15.0
) -> bool:
    """Edges at one node, and edges that cross, meet at `min_angle` degrees or more (never look merged)."""
    p = [tuple(q) for q in pos]
    for i, (a, b) in enumerate(edges):
        for c, d in edges[i + 1 :]:
            shared = {a, b} & {c, d}
            if shared:
                o = shared.pop()
                x, y = (b if a == o else a), (d if c == o else c)
                u = (p[x][0] - p[o][0], p[x][1] - p[o][1])
                v = (p[y][0] - p[o][0], p[y][1] - p[o][1])
                if _angle_between(u, v) < min_angle:
                    return False
            elif segments_cross(p[a], p[b], p[c], p[d]):
                u = (p[b][0] - p[a][0], p[b][1] - p[a][1])
                v = (p[d][0] - p[c][0], p[d][1] - p[c][1])
                ang = _angle_between(u, v)
                if min(ang, 180 - ang) < min_angle:
                    return False
    return True


def place_graph(
    rng: np.random.Generator, n: int, edges: Sequence[Sequence[int]], attempts: int = 400
) -> list[list[float]] | None:
    """Random node positions for a given edge set, legible: nodes apart, edges clear of other nodes,
    no two edges nearly on top of each other (None if no attempt succeeds)."""
    scale = max(1.0, math.sqrt(n / 8))
    for _ in range(attempts):
        pos = spread_points(rng, n, width=1.3 * scale, height=1.0 * scale, min_dist=0.27)
        if pos is not None and edges_clear_of_nodes(pos, edges, 0.085) and edges_distinct(pos, edges):
            return pos
    return None


def planar_weighted_layout(
    rng: np.random.Generator, n: int, keep: float
) -> tuple[list[list[float]], list[tuple[int, int]], list[list[float]]]:
    """Positions, a connected planar edge set and a label spot per edge, for a weighted-graph figure.

    The edges are a random spanning tree of the Delaunay triangulation plus each other Delaunay edge
    with probability `keep`; layouts whose edges graze a node or whose labels cannot be placed
    unambiguously are redrawn.
    """
    while True:
        pos = spread_points(rng, n, min_dist=0.3)
        if pos is None:
            continue
        tri = delaunay_edges(pos)
        sets = UnionFind(n)
        edges = []
        for k in rng.permutation(len(tri)):
            a, b = tri[int(k)]
            if sets.union(a, b) or rng.random() < keep:
                edges.append((a, b))
        edges.sort()
        if not edges_clear_of_nodes(pos, edges, 0.09) or not edges_distinct(pos, edges, 20.0):
            continue
        spots = edge_label_spots(pos, edges)
        if spots is not None:
            return pos, edges, spots


def network_noop(edge_count: int, rng: np.random.Generator) -> str:
    """A sentence about a graph that changes nothing asked of it (issue 41's noop): neutral enough to
    read well before a question about a drawn graph, its adjacency matrix or a story of towns and roads."""
    k = int(rng.integers(2, 13))
    said = (
        f"This network was first sketched {k} years ago.",
        f"{k} students were given the same network as an exercise this week.",
        f"The network has {edge_count} links in total.",
        f"Drawing the network took about {k} minutes.",
        f"A copy of the network hangs on the wall of room {k + 100}.",
    )
    return said[int(rng.integers(len(said)))]


def noop_prefix(params: dict) -> str:
    """The noop clause and a space, for a text form that asks its own question instead of the
    variant's (a perturbed variant keeps its clause in params["noop"]); empty when there is none."""
    clause = params.get("noop")
    return f"{clause} " if clause else ""
