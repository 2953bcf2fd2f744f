"""The angle between two coloured segments that meet at a vertex of a rectangular box (vectors).

Box ABCD-EFGH with labelled edge lengths; two segments from one vertex to two others (edges, face
diagonals or space diagonals) are drawn in named colours and the angle between them is asked. Colour
variation: the colours change and the question names them. Geometric transformation: which vertex and
which segments, and the viewing direction. Numerical value: the box dimensions.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_quantity
from isodyn.modalities.geometry import COLORS, LINE_COLORS, figure_png, fmt, label, side_label, unit
from isodyn.modalities.solids import View, draw_convex_polyhedron

NAMES = "ABCDEFGH"
FACES = [[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]


def vertices(a: float, b: float, c: float) -> dict[str, np.ndarray]:
    """A at the origin, AB along x (length a), AD along y (b), AE up (c); EFGH above ABCD."""
    base = {"A": (0, 0), "B": (a, 0), "C": (a, b), "D": (0, b)}
    out = {k: np.array([x, y, 0.0]) for k, (x, y) in base.items()}
    for low, high in zip("ABCD", "EFGH", strict=True):
        out[high] = out[low] + np.array([0.0, 0.0, c])
    return out


def kind(p: np.ndarray, q: np.ndarray) -> str:
    nonzero = int(np.count_nonzero(np.abs(q - p) > 1e-9))
    return {1: "an edge", 2: "a face diagonal", 3: "a space diagonal"}[nonzero]


def solution_text(p: dict, angle: float) -> str:
    v = vertices(p["a"], p["b"], p["c"])
    x, y, z = p["vertex"], p["ends"][0], p["ends"][1]
    u, w = v[y] - v[x], v[z] - v[x]
    dot = float(np.dot(u, w))
    nu, nw = float(np.linalg.norm(u)), float(np.linalg.norm(w))
    steps = [
        f"Put A at the origin with AB along x, AD along y and AE along z: "
        f"{x} = {tuple(fmt(t) for t in v[x])}, {y} = {tuple(fmt(t) for t in v[y])}, "
        f"{z} = {tuple(fmt(t) for t in v[z])}.".replace("'", ""),
        f"The {p['colors'][0]} segment {x}{y} is {kind(v[x], v[y])}: vector {tuple(fmt(t) for t in u)}, "
        "length "
        f"√{fmt(nu * nu)}.".replace("'", ""),
        f"The {p['colors'][1]} segment {x}{z} is {kind(v[x], v[z])}: vector {tuple(fmt(t) for t in w)}, "
        "length "
        f"√{fmt(nw * nw)}.".replace("'", ""),
        f"cos θ = (u · v) / (|u| |v|) = {fmt(dot)} / (√{fmt(nu * nu)} × √{fmt(nw * nw)}) ≈ "
        f"{dot / (nu * nw):.4f}.",
        f"θ = arccos({dot / (nu * nw):.4f}) ≈ {fmt(angle)}°.",
        f"Answer: {fmt(angle)}",
    ]
    return "\n".join(steps)


class CuboidAngle(SeedProgram):
    seed_id = "dynamath_cuboid_angle"
    topic = Topic.SOLID_GEOMETRY
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.FLOAT
    variation_types = (
        VariationType.COLOR,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "a": VariationType.NUMERICAL_VALUE,
        "b": VariationType.NUMERICAL_VALUE,
        "c": VariationType.NUMERICAL_VALUE,
        "vertex": VariationType.GEOMETRIC_TRANSFORMATION,
        "ends": VariationType.GEOMETRIC_TRANSFORMATION,
        "view": VariationType.GEOMETRIC_TRANSFORMATION,
        "colors": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 8 vertices x 18 segment pairs x 512 boxes x 20 colour pairs x 12 views
    variant_space = 8 * 18 * 512 * 20 * 12

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            a, b, c = (int(t) for t in rng.integers(3, 10, size=3))
            if max(a, b, c) <= 2.5 * min(a, b, c):
                break
        v = vertices(a, b, c)
        while True:
            x = NAMES[int(rng.integers(8))]
            others = [n for n in NAMES if n != x]
            y, z = (others[int(i)] for i in rng.choice(7, size=2, replace=False))
            u, w = v[y] - v[x], v[z] - v[x]
            if kind(v[x], v[y]) == "an edge" and kind(v[x], v[z]) == "an edge":
                continue  # two edges always meet at 90 degrees
            cosine = float(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w)))
            if abs(cosine) < 1e-12 and rng.random() < 0.7:
                continue  # right angles are allowed, but rarely
            break
        colors = [LINE_COLORS[int(i)] for i in rng.choice(len(LINE_COLORS), size=2, replace=False)]
        params = {
            "a": a,
            "b": b,
            "c": c,
            "vertex": x,
            "ends": [y, z],
            "colors": colors,
        }
        while True:  # a view in which no two vertices (or their labels) fall on top of each other
            view = View(float(rng.choice([-155, -145, -135, -125, -115])), float(rng.choice([18, 24, 30])))
            proj = view.project([v[n] for n in NAMES])
            gaps = [np.linalg.norm(proj[i] - proj[j]) for i in range(8) for j in range(i + 1, 8)]
            if min(gaps) >= 0.16 * float(np.max(np.ptp(proj, axis=0))):
                break
        params["view"] = [view.azim, view.elev]
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # No magnitude: scaling the box leaves every angle as it is.
    perturbations = frozenset({"noop", "rename"})
    truth_reads = ("a", "b", "c", "vertex", "ends")

    def redraw(self, params: dict) -> Draw:
        v = vertices(params["a"], params["b"], params["c"])
        x, (y, z) = params["vertex"], params["ends"]
        u, w = v[y] - v[x], v[z] - v[x]
        cosine = float(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w)))
        angle = math.degrees(math.acos(max(-1.0, min(1.0, cosine))))
        first, second = params["colors"]
        question = (
            f"The {first} segment and the {second} segment meet at a vertex of the box. "
            "What is the angle between them, in degrees?"
        )
        return Draw(
            params=params, question=question, answer=fmt(angle), solution=solution_text(params, angle)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        color = params["colors"][int(rng.integers(2))]
        said = (
            f"The box is made of cardboard and was sealed with {n} strips of tape.",
            f"The {color} segment was drawn with a {color} marker.",
            f"The box was one of {n * 10} boxes delivered to a shop.",
            "Every face of the box is a rectangle.",
            f"The box is labelled with the number {n} on its lid.",
        )
        return said[int(rng.integers(len(said)))]

    def renamed(self, params: dict, rng: np.random.Generator) -> dict:
        # Other colours for the two segments, or the two swapped (each still names its own segment).
        colors = params["colors"]
        if rng.random() < 0.4:
            return {**params, "colors": [colors[1], colors[0]], "ends": params["ends"][::-1]}
        fresh = [str(c) for c in rng.permutation([c for c in LINE_COLORS if c not in colors])]
        return {**params, "colors": fresh[:2]}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        x, (y, z) = p["vertex"], p["ends"]
        if modality is Modality.IMAGE:
            text = (
                "The image shows a rectangular box ABCD-EFGH (hidden edges dashed) with its edge lengths "
                "labelled "
                f"in centimetres, and two coloured segments.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            text = (
                "A rectangular box $ABCDEFGH$ has bottom face $ABCD$ and top face $EFGH$, with $E$, $F$, "
                "$G$, $H$ "
                f"directly above $A$, $B$, $C$, $D$. Its edges are {latex_quantity(p['a'], 'cm', 'AB')}, "
                f"{latex_quantity(p['b'], 'cm', 'AD')} and {latex_quantity(p['c'], 'cm', 'AE')}. "
                f"The {p['colors'][0]} segment joins ${x}$ and ${y}$; the "
                f"{p['colors'][1]} "
                f"segment joins ${x}$ and ${z}$.\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


_PARALLEL = {
    "a": (("A", "B"), ("D", "C"), ("E", "F"), ("H", "G")),
    "b": (("A", "D"), ("B", "C"), ("E", "H"), ("F", "G")),
    "c": (("A", "E"), ("B", "F"), ("C", "G"), ("D", "H")),
}


def _point_segment(q: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> float:
    t = float(np.clip(np.dot(q - s0, s1 - s0) / np.dot(s1 - s0, s1 - s0), 0, 1))
    return float(np.linalg.norm(q - (s0 + t * (s1 - s0))))


def _dimension_edges(p: dict, view: View, pos: dict[str, np.ndarray]) -> dict[str, tuple[str, str]]:
    """For each dimension, the visible edge whose label lands farthest from the coloured segments."""
    v = vertices(p["a"], p["b"], p["c"])
    centre3 = np.mean(list(v.values()), axis=0)
    w = view.toward_viewer
    facing = []
    for face in FACES:
        pts = [v[NAMES[i]] for i in face]
        n = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        if np.dot(n, np.mean(pts, axis=0) - centre3) < 0:
            n = -n
        facing.append(float(np.dot(n, w)) > 1e-9)
    visible = set()
    for face, vis in zip(FACES, facing, strict=True):
        if vis:
            for i in range(4):
                visible.add(frozenset((NAMES[face[i]], NAMES[face[(i + 1) % 4]])))
    x, ends = p["vertex"], p["ends"]
    segs = [(pos[x], pos[e]) for e in ends]
    used = {frozenset((x, e)) for e in ends}
    centre = np.mean(list(pos.values()), axis=0)
    span = float(np.max(np.ptp(np.array(list(pos.values())), axis=0)))
    out = {}
    for key, edges in _PARALLEL.items():
        best, best_score = edges[0], -math.inf
        for s, t in edges:
            if frozenset((s, t)) not in visible or frozenset((s, t)) in used:
                continue
            mid = (pos[s] + pos[t]) / 2
            d = unit(mid - centre)
            spot = mid + 0.08 * span * d
            near_seg = min(_point_segment(spot, a, b) for a, b in segs)
            near_vertex = min(float(np.linalg.norm(spot - q)) for q in pos.values())
            score = min(near_seg, near_vertex) + 0.3 * float(np.linalg.norm(pos[s] - pos[t]))
            if score > best_score + 1e-9:
                best, best_score = (s, t), score
        out[key] = best
    return out


def _draw(p: dict) -> bytes:
    v = vertices(p["a"], p["b"], p["c"])
    view = View(*p["view"])
    verts = np.array([v[n] for n in NAMES])
    proj = view.project(verts)
    centre = proj.mean(axis=0)
    pos = {n: proj[i] for i, n in enumerate(NAMES)}
    x, (y, z) = p["vertex"], p["ends"]

    def draw(ax: Axes) -> None:
        draw_convex_polyhedron(ax, view, verts, FACES, face_color="#e9eef5", face_alpha=0.7)
        for end, color in zip((y, z), p["colors"], strict=True):
            ax.plot([pos[x][0], pos[end][0]], [pos[x][1], pos[end][1]], color=COLORS[color], lw=3.2, zorder=6)
        for n in NAMES:
            d = unit(pos[n] - centre)
            label(ax, pos[n], n, offset=d * 13, size=13, box=False, weight="bold")
        for key, (s, t) in _dimension_edges(p, view, pos).items():
            side_label(ax, pos[s], pos[t], f"{p[key]} cm", centre, at=0.5, gap=6, size=12)

    span = proj.max(axis=0) - proj.min(axis=0)
    lo, hi = proj.min(axis=0) - 0.1 * span, proj.max(axis=0) + 0.1 * span
    return figure_png(draw, (lo[0], lo[1], hi[0], hi[1]), margin=0.08)
