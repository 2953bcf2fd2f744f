"""Helpers for problems about a small graph: draw it, write its adjacency matrix or edge list, tell a story.

A graph is given as a node count `n` (nodes are 0..n-1) and an edge list of `(i, j)` pairs; all its
renderings are computed from exactly that, so they carry the same information. Drawings: one
undirected graph (`graph_png`, at given positions) and two side by side (`graph_pair_png`); a weighted
directed graph is `modalities/digraphs.py`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.patches import Circle

from isodyn.modalities.formatting import join_words, latex_table
from isodyn.modalities.images import render_png
from isodyn.modalities.palette import text_color_on

Edge = tuple[int, int]

NODE_COLOR = "#9ecae1"  # light blue
HIGHLIGHT_COLOR = "#fd8d3c"  # orange
HIGHLIGHT_NAME = "orange"
NODE_COLOR_NAME = "light blue"

# Fictional town names (distinct initials, so a reader never confuses two of them).
CITY_NAMES: tuple[str, ...] = (
    "Ashford", "Brookvale", "Cedarton", "Dunmore", "Elmstead", "Foxhill", "Glenrock", "Harwick",
    "Ironbridge", "Juniper Falls", "Kingsport", "Larkspur",
)  # fmt: skip


def normalize_edges(edges: Iterable[Sequence[int]]) -> list[Edge]:
    """Sorted, de-duplicated edges with the smaller endpoint first (self-loops dropped)."""
    out = {(min(a, b), max(a, b)) for a, b in ((int(e[0]), int(e[1])) for e in edges) if a != b}
    return sorted(out)


def adjacency_matrix(n: int, edges: Iterable[Sequence[int]]) -> list[list[int]]:
    """Symmetric 0/1 matrix with `A[i][j] = 1` iff `{i, j}` is an edge."""
    mat = [[0] * n for _ in range(n)]
    for a, b in normalize_edges(edges):
        mat[a][b] = mat[b][a] = 1
    return mat


def adjacency_latex(n: int, edges: Iterable[Sequence[int]], name: str = "A") -> str:
    """`A = \\begin{bmatrix} ... \\end{bmatrix}`, one matrix row per source line."""
    rows = [" & ".join(str(v) for v in row) + r" \\" for row in adjacency_matrix(n, edges)]
    rows[-1] = rows[-1].removesuffix(r" \\")
    return f"{name} = \\begin{{bmatrix}}\n" + "\n".join(rows) + "\n\\end{bmatrix}"


def node_order_text(n: int) -> str:
    """The sentence that pins rows/columns of the matrix to node labels."""
    return f"Rows and columns are indexed by the nodes in the order {', '.join(str(i) for i in range(n))}"


def adjacency_statement(labels: list[str]) -> str:
    """How the LaTeX forms of the graph seeds introduce their adjacency matrix (one wording for all)."""
    listed = ", ".join(labels)
    return (
        f"An undirected graph has nodes {listed} and adjacency matrix $A$ ($A_{{ij}} = 1$ when nodes $i$ and "
        f"$j$ are joined by an edge); rows and columns are in the order {listed}."
    )


def node_letters(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]


def weighted_edges_latex(
    labels: Sequence[str], edges: Sequence[Sequence[int]], weights: Sequence[int]
) -> str:
    """A two-column table of the edges and their weights."""
    rows = [(f"{labels[a]}--{labels[b]}", w) for (a, b), w in zip(edges, weights, strict=True)]
    return latex_table(["Edge", "Weight"], rows, align="cr")


def weighted_edges_code(labels: Sequence[str], edges: Sequence[Sequence[int]], weights: Sequence[int]) -> str:
    lines = ["# Undirected weighted graph: (node, node, weight)", "edges = ["]
    lines += [f'    ("{labels[a]}", "{labels[b]}", {w}),' for (a, b), w in zip(edges, weights, strict=True)]
    lines.append("]")
    return "\n".join(lines) + "\n"


def city_names(n: int) -> list[str]:
    if n > len(CITY_NAMES):
        raise ValueError(f"at most {len(CITY_NAMES)} cities are named")
    return list(CITY_NAMES[:n])


def road_story(n: int, edges: Iterable[Sequence[int]], names: Sequence[str] | None = None) -> str:
    """A description of the graph as towns and two-way roads: every node and every edge is mentioned."""
    names = list(names) if names is not None else city_names(n)
    edges = normalize_edges(edges)
    text = f"A region has {n} towns: {join_words(names)}."
    if not edges:
        return text + " There are no roads between any of the towns."
    roads = [f"{names[a]} and {names[b]}" for a, b in edges]
    count = "one two-way road" if len(roads) == 1 else f"{len(roads)} two-way roads"
    text += f" The towns are linked by {count}, and there are no other roads: "
    text += "; ".join(f"a road between {r}" for r in roads) + "."
    return text


# ---------------------------------------------------------------------------------------------- drawing


def _components(n: int, edges: list[Edge]) -> list[list[int]]:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    return sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0])


def _polygon(nodes: list[int]) -> dict[int, tuple[float, float]]:
    """Nodes on a regular polygon with unit side (first node on top, then clockwise)."""
    m = len(nodes)
    if m == 1:
        return {nodes[0]: (0.0, 0.0)}
    r = 0.5 / math.sin(math.pi / m) if m > 2 else 0.5
    return {
        v: (r * math.sin(2 * math.pi * i / m), r * math.cos(2 * math.pi * i / m)) for i, v in enumerate(nodes)
    }


def segment_distance(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    """Distance from point p to the segment ab."""
    (px, py), (ax_, ay), (bx, by) = p, a, b
    dx, dy = bx - ax_, by - ay
    t = max(0.0, min(1.0, ((px - ax_) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1.0)))
    return math.dist(p, (ax_ + t * dx, ay + t * dy))


def segments_cross(a: Sequence[float], b: Sequence[float], c: Sequence[float], d: Sequence[float]) -> bool:
    """Do the open segments ab and cd cross?"""

    def orient(p: Sequence[float], q: Sequence[float], r: Sequence[float]) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0


def _component_spring(nodes: list[int], edges: list[Edge], seed: int) -> dict[int, tuple[float, float]]:
    """Seeded spring layout of one component, scaled so neighbours sit about one unit apart.

    Falls back to a polygon when the spring layout puts two nodes on top of each other or runs an
    edge through a third node (polygon vertices are convex, so neither can happen there).
    """
    if len(nodes) <= 2:
        return _polygon(nodes)
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(e for e in edges if e[0] in g and e[1] in g)
    raw = nx.spring_layout(g, seed=seed, iterations=200)
    pos = {int(v): (float(p[0]), float(p[1])) for v, p in raw.items()}
    lengths = [math.dist(pos[a], pos[b]) for a, b in g.edges]
    unit = sum(lengths) / len(lengths)
    pos = {v: (x / unit, y / unit) for v, (x, y) in pos.items()}
    closest = min(math.dist(pos[a], pos[b]) for i, a in enumerate(nodes) for b in nodes[i + 1 :])
    # An edge drawn through a third node would look like two edges meeting at that node.
    grazing = min(
        (segment_distance(pos[v], pos[a], pos[b]) for a, b in g.edges for v in nodes if v not in (a, b)),
        default=math.inf,
    )
    return pos if closest >= 0.6 and grazing >= 0.3 else _polygon(nodes)


def layout_positions(
    n: int, edges: Iterable[Sequence[int]], layout: str = "circular", seed: int = 0
) -> dict[int, tuple[float, float]]:
    """Node coordinates, a pure function of the arguments.

    `circular`: all nodes on one regular polygon (0 on top, then clockwise, like a clock face).
    `spring`: each connected component gets its own seeded spring layout and the components are
    placed side by side on a grid; a single spring layout of a disconnected graph would push the
    components far apart and squash each into a clump of overlapping nodes.
    """
    edges = normalize_edges(edges)
    if layout == "circular":
        return _polygon(list(range(n)))
    if layout != "spring":
        raise ValueError(f"unknown layout {layout!r}")
    parts = [_component_spring(c, edges, seed + i) for i, c in enumerate(_components(n, edges))]
    boxes = []
    for part in parts:
        xs, ys = [p[0] for p in part.values()], [p[1] for p in part.values()]
        boxes.append((min(xs), max(xs), min(ys), max(ys)))
    cell = max(max(b[1] - b[0], b[3] - b[2]) for b in boxes) + 1.3
    cols = math.ceil(math.sqrt(len(parts) * 1.25))
    pos: dict[int, tuple[float, float]] = {}
    for i, (part, (x0, x1, y0, y1)) in enumerate(zip(parts, boxes, strict=True)):
        cx, cy = (i % cols) * cell, -(i // cols) * cell
        dx, dy = cx - (x0 + x1) / 2, cy - (y0 + y1) / 2
        pos.update({v: (x + dx, y + dy) for v, (x, y) in part.items()})
    return pos


Positions = Sequence[Sequence[float]] | Mapping[int, Sequence[float]]  # node i is at positions[i]


@dataclass(frozen=True)
class GraphLook:
    """How `draw_graph` and `graph_png` draw an undirected graph.

    The DynaMath and the IsoBench graph seeds each keep the look they were made with, so their
    pictures stay as they were: DynaMath's white discs sized in data units (its positions come from
    `generators.graph_util`, about one unit across), IsoBench's light blue markers of a fixed size in
    points (its positions from `layout_positions`, at any scale).
    """

    node_fill: str  # the fill of a node not given a colour of its own
    node_radius: float | None  # discs of this radius in data units; None: markers of NODE_MARKER_AREA
    node_edge_width: float
    edge_color: str
    edge_width: float
    title_size: float

    def margin(self, extent: float) -> float:
        """Room around the node centres: past a disc's rim, or a share of the drawing's `extent`."""
        if self.node_radius is not None:
            return self.node_radius + 0.06
        return 0.18 * max(extent, 1e-9)


NODE_MARKER_AREA = 520  # points^2 (radius about 13 pt)
DYNAMATH_LOOK = GraphLook("#ffffff", 0.055, 1.4, edge_color="0.3", edge_width=1.8, title_size=11)
ISOBENCH_LOOK = GraphLook(NODE_COLOR, None, 1.2, edge_color="0.25", edge_width=1.6, title_size=10)
_WEIGHT_BOX = {"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "0.6", "linewidth": 0.6}


def draw_graph(
    ax: Axes,
    labels: Sequence[str],
    pos: Positions,
    edges: Iterable[Sequence[int]],
    *,
    look: GraphLook,
    node_colors: Sequence[str] | None = None,
    weights: Sequence[int] | None = None,
    spots: Sequence[Sequence[float]] | None = None,
) -> None:
    """An undirected graph: edges as lines (in the order given), nodes as labelled discs, optional weights.

    Node i is labelled `labels[i]` and filled with `node_colors[i]` (hex; `look.node_fill` by default);
    `weights[k]` is written at `spots[k]` on edge k in a white box.
    """
    n = len(labels)
    fills = list(node_colors) if node_colors is not None else [look.node_fill] * n
    for a, b in edges:
        ax.plot(
            [pos[a][0], pos[b][0]], [pos[a][1], pos[b][1]], color=look.edge_color, linewidth=look.edge_width,
            zorder=1,
        )  # fmt: skip
    if weights is not None and spots is not None:
        for w, (x, y) in zip(weights, spots, strict=True):
            ax.text(
                x, y, str(w), ha="center", va="center", fontsize=11, color="#08306b", zorder=4,
                bbox=_WEIGHT_BOX,
            )  # fmt: skip
    for i in range(n):
        x, y = pos[i]
        if look.node_radius is None:
            ax.scatter(
                [x], [y], s=NODE_MARKER_AREA, c=fills[i], edgecolors="black", linewidths=look.node_edge_width,
                zorder=5,
            )  # fmt: skip
        else:
            ax.add_patch(
                Circle(
                    (x, y), look.node_radius, facecolor=fills[i], edgecolor="black",
                    linewidth=look.node_edge_width, zorder=5,
                )
            )  # fmt: skip
        ax.text(
            x, y, labels[i], ha="center", va="center", fontsize=12, fontweight="bold", zorder=6,
            color=text_color_on(fills[i]),
        )  # fmt: skip
    xs, ys = [pos[i][0] for i in range(n)], [pos[i][1] for i in range(n)]
    m = look.margin(max(max(xs) - min(xs), max(ys) - min(ys)))
    ax.set_xlim(min(xs) - m, max(xs) + m)
    ax.set_ylim(min(ys) - m, max(ys) + m)
    ax.set_aspect("equal")
    ax.axis("off")


def graph_png(
    labels: Sequence[str],
    pos: Positions,
    edges: Iterable[Sequence[int]],
    *,
    look: GraphLook,
    node_colors: Sequence[str] | None = None,
    weights: Sequence[int] | None = None,
    spots: Sequence[Sequence[float]] | None = None,
    title: str | None = None,
) -> bytes:
    """PNG of an undirected graph drawn by `draw_graph`, with `title` (e.g. a caption) above it."""

    def draw(ax: Axes) -> None:
        draw_graph(ax, labels, pos, edges, look=look, node_colors=node_colors, weights=weights, spots=spots)
        if title:
            ax.set_title(title, fontsize=look.title_size)

    return render_png(draw)


# ---------------------------------------------------------------------------------------- pairs of graphs


def _crossings(edges: list[Edge], pos: dict[int, tuple[float, float]]) -> int:
    """How many pairs of edges without a common endpoint cross."""
    count = 0
    for i, (a, b) in enumerate(edges):
        for c, d in edges[i + 1 :]:
            if len({a, b, c, d}) < 4:
                continue
            if segments_cross(pos[a], pos[b], pos[c], pos[d]):
                count += 1
    return count


ENOUGH_PLANAR_TRIES = 4


def tidy_layout_positions(
    n: int, edges: Iterable[Sequence[int]], layout: str = "circular", seed: int = 0, tries: int = 16
) -> dict[int, tuple[float, float]]:
    """Like `layout_positions`, but a `spring` layout must be easy to read or it is not used.

    Seeded spring layouts (seeds `seed`, `seed + 1`, ...) of a connected graph are kept only if, relative
    to the drawing's size, no two nodes are close and no edge passes close to a node it does not join;
    of those, the one with the fewest edge crossings wins (then the most spread out, then the earliest);
    the search stops after `ENOUGH_PLANAR_TRIES` once a drawing without crossings is among them.
    A disconnected graph, or one with no acceptable spring layout, is drawn on the circle (`circular`).
    """
    edges = normalize_edges(edges)
    circle = _polygon(list(range(n)))
    if layout == "circular":
        return circle
    if layout != "spring":
        raise ValueError(f"unknown layout {layout!r}")
    if n < 3 or len(_components(n, edges)) > 1:
        return circle
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    best, best_key = circle, None
    key: tuple[int, float]
    for k in range(tries):
        raw = nx.spring_layout(g, seed=seed + k, iterations=200)
        pos = {int(v): (float(p[0]), float(p[1])) for v, p in raw.items()}
        xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
        extent = max(max(xs) - min(xs), max(ys) - min(ys))
        closest = min(math.dist(pos[a], pos[b]) for a in range(n) for b in range(a + 1, n))
        grazing = min(
            (segment_distance(pos[v], pos[a], pos[b]) for a, b in edges for v in range(n) if v not in {a, b}),
            default=math.inf,
        )
        if closest < 0.24 * extent or grazing < 0.1 * extent:
            continue
        key = (_crossings(edges, pos), -round(closest / extent, 2))
        if best_key is None or key < best_key:
            best, best_key = pos, key
        if best_key is not None and best_key[0] == 0 and k + 1 >= ENOUGH_PLANAR_TRIES:
            break  # a drawing without crossings is already found; more tries only spread it a little
    return best


def graph_pair_png(
    n: int,
    edges_left: Iterable[Sequence[int]],
    edges_right: Iterable[Sequence[int]],
    *,
    layouts: tuple[str, str] = ("circular", "circular"),
    seeds: tuple[int, int] = (0, 0),
    titles: tuple[str, str] = ("G", "H"),
    size: tuple[float, float] = (8, 4),
    dpi: int = 100,
) -> bytes:
    """Two undirected graphs on the same node labels side by side, each titled (PNG, deterministic).

    Layouts as in `tidy_layout_positions`.
    """
    from isodyn.modalities.images import add_subplot, figure_png, new_figure

    fig = new_figure(size, dpi)
    for k, (edges, layout, seed, title) in enumerate(
        zip((edges_left, edges_right), layouts, seeds, titles, strict=True)
    ):
        ax = add_subplot(fig, 1, 2, k + 1)
        edges = normalize_edges(edges)
        pos = tidy_layout_positions(n, edges, layout, seed)
        draw_graph(ax, [str(i) for i in range(n)], pos, edges, look=ISOBENCH_LOOK)
        ax.set_title(title, fontsize=15, fontweight="bold")
    return figure_png(fig, w_pad=3.0)
