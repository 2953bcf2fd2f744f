"""Angle chasing with two parallel lines and a transversal: find x.

Lines AB and CD are parallel; a transversal EF meets them at P and Q. Two of the eight angles at P
and Q are marked. Symbolic substitution: either one marked angle is a number and the other is x°, or
both are expressions in x such as (3x + 10)° and (5x - 30)°. Geometric transformation: the whole
figure is rotated and the transversal's slant changes, so the pair of marked angles is corresponding,
alternate, co-interior or vertical, and equal or supplementary depending on where they sit.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.geometry import (
    angle_arc,
    bounds_of,
    clearance,
    figure_png,
    label,
    parallel_mark,
    text_extent,
    unit,
    units_per_point,
    vertex_label,
)

# The eight angles, each named by its three points; rays are (sign along AB, sign along the transversal
# from P towards Q). Angle between ray s1*u and ray s2*t equals alpha when s1 == s2, else 180 - alpha.
ANGLES: dict[str, tuple[str, int, int]] = {
    "APE": ("P", -1, -1),
    "EPB": ("P", 1, -1),
    "BPQ": ("P", 1, 1),
    "QPA": ("P", -1, 1),
    "CQP": ("Q", -1, -1),
    "PQD": ("Q", 1, -1),
    "DQF": ("Q", 1, 1),
    "FQC": ("Q", -1, 1),
}


def measure(name: str, alpha: int) -> int:
    _, s1, s2 = ANGLES[name]
    return alpha if s1 == s2 else 180 - alpha


def relation(first: str, second: str) -> str:
    """The textbook name of the pair, or '' when it has none (then the solution goes through a third "
    "angle)."""
    v1, a1, b1 = ANGLES[first]
    v2, a2, b2 = ANGLES[second]
    if v1 == v2:
        return "vertical angles" if (a1, b1) == (-a2, -b2) else "a linear pair"
    interior1 = b1 == (1 if v1 == "P" else -1)  # rays towards the other line lie between the parallels
    if (a1, b1) == (a2, b2):
        return "corresponding angles"
    if (a1, b1) == (-a2, -b2):
        return "alternate interior angles" if interior1 else "alternate exterior angles"
    if a1 == a2:
        return "co-interior angles" if interior1 else "same-side exterior angles"
    return ""


def vertical_partner(name: str) -> str:
    v, a, b = ANGLES[name]
    return next(n for n, (w, c, d) in ANGLES.items() if w == v and (c, d) == (-a, -b))


def _expr(coef: int, const: int) -> str:
    head = "x" if coef == 1 else f"{coef}x"
    if const == 0:
        return head
    return f"{head} {'+' if const > 0 else '-'} {abs(const)}"


def solution_text(p: dict) -> str:
    first, second = p["marked"]
    alpha = p["alpha"]
    m1, m2 = measure(first, alpha), measure(second, alpha)
    rel = relation(first, second)
    equal = m1 == m2
    l1, l2 = p["labels"][first], p["labels"][second]
    if rel:
        steps = [
            f"AB ∥ CD. The marked angles ∠{first} and ∠{second} are {rel}, so they are "
            + ("equal." if equal else "supplementary (they add up to 180°).")
        ]
    else:
        z = vertical_partner(second)
        steps = [
            f"AB ∥ CD. ∠{second} and ∠{z} are vertical angles, so they are equal. ∠{first} and ∠{z} are "
            f"{relation(first, z)}, so they are "
            + ("equal." if equal else "supplementary (they add up to 180°).")
            + f" Hence ∠{first} and ∠{second} are "
            + ("equal." if equal else "supplementary.")
        ]
    if equal:
        steps.append(f"So {l1} = {l2}.")
    else:
        steps.append(f"So ({l1}) + ({l2}) = 180.")
    if p["mode"] == "numeric":
        steps.append(f"Hence x = {p['x']}.")
    else:
        c1, k1 = p["expr"][first]
        c2, k2 = p["expr"][second]
        if equal:
            steps.append(f"{c1 - c2}x = {k2 - k1}, so x = {p['x']}." if c1 != c2 else "")
        else:
            steps.append(f"{c1 + c2}x + {k1 + k2} = 180, so {c1 + c2}x = {180 - k1 - k2} and x = {p['x']}.")
        steps.append(f"Check: the angles are {m1}° and {m2}°.")
    steps.append(f"Answer: {p['x']}")
    return "\n".join(s for s in steps if s)


class ParallelAngles(SeedProgram):
    seed_id = "dynamath_parallel_angles"
    topic = Topic.PLANE_GEOMETRY
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.SYMBOLIC_SUBSTITUTION,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "alpha": VariationType.NUMERICAL_VALUE,
        "x": VariationType.NUMERICAL_VALUE,
        "beta": VariationType.GEOMETRIC_TRANSFORMATION,
        "marked": VariationType.GEOMETRIC_TRANSFORMATION,
        "mode": VariationType.SYMBOLIC_SUBSTITUTION,
        "expr": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 56 ordered pairs of angles x ~80 slants x (numeric or ~200 expression pairs) x 12 rotations
    variant_space = 56 * 80 * 100 * 12

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            alpha = int(rng.integers(48, 133))
            if abs(alpha - 90) >= 12:
                break
        names = list(ANGLES)
        first, second = (names[int(i)] for i in rng.choice(8, size=2, replace=False))
        m1, m2 = measure(first, alpha), measure(second, alpha)
        mode = "numeric" if rng.random() < 0.45 else "algebraic"
        if mode == "numeric":
            x = m2
            labels = {first: f"{m1}°", second: "x°"}
            expr = {}
        else:
            while True:
                x = int(rng.integers(6, 36))
                c1, c2 = (int(v) for v in rng.integers(1, 7, size=2))
                k1, k2 = m1 - c1 * x, m2 - c2 * x
                if m1 == m2 and c1 == c2:
                    continue
                if abs(k1) <= 80 and abs(k2) <= 80:
                    break
            labels = {first: f"({_expr(c1, k1)})°", second: f"({_expr(c2, k2)})°"}
            expr = {first: [c1, k1], second: [c2, k2]}
        beta = float(rng.integers(-4, 5)) * 10  # direction of AB
        params = {
            "alpha": alpha,
            "beta": beta,
            "marked": [first, second],
            "mode": mode,
            "labels": labels,
            "expr": expr,
            "x": x,
        }
        params["points"] = _points(alpha, beta)
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # No magnitude: the numbers are angles (and the algebra is built around them).
    perturbations = frozenset({"noop"})
    truth_reads = ("alpha", "marked", "mode", "expr", "x")

    def redraw(self, params: dict) -> Draw:
        question = "Lines AB and CD are parallel. What is the value of x?"
        return Draw(params=params, question=question, answer=str(params["x"]), solution=solution_text(params))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        said = (
            "Lines AB and CD were drawn with a ruler and a set square.",
            f"This is exercise {n} on a worksheet about angles.",
            "The transversal is a straight line that crosses both AB and CD.",
            f"A student traced the figure {n} times to practise drawing parallel lines.",
            "All angles in the figure are measured in degrees.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        first, second = p["marked"]
        if modality is Modality.IMAGE:
            text = (
                "The image shows lines AB and CD (marked parallel by arrowheads) cut by a transversal EF at "
                "P and "
                f"Q; two angles are marked with their measures.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:

            def tex(label_: str) -> str:
                return label_.replace("°", "^\\circ")

            text = (
                "Lines $AB$ and $CD$ are parallel. A transversal $EF$ meets $AB$ at $P$ and $CD$ at $Q$; the "
                "points lie on it in the order $E, P, Q, F$. On line $AB$, $P$ lies between $A$ and $B$; on "
                "$CD$, $Q$ lies between $C$ and $D$; $A$ and $C$ lie on the same side of $EF$. "
                f"$\\angle {first} = {tex(p['labels'][first])}$ and $\\angle {second} = "
                f"{tex(p['labels'][second])}$."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _points(alpha: int, beta: float) -> dict[str, list[float]]:
    """Named points: AB through P, CD through Q (parallel), transversal E-P-Q-F at angle alpha."""
    b = math.radians(beta)
    u = np.array([math.cos(b), math.sin(b)])
    t_ang = b - math.radians(alpha)  # the transversal goes from P down to Q
    t = np.array([math.cos(t_ang), math.sin(t_ang)])
    gap = 2.0  # distance between the parallel lines
    step = gap / math.sin(math.radians(alpha))
    pp = np.zeros(2)
    qq = pp + step * t
    half = 2.4
    pts = {
        "P": pp,
        "Q": qq,
        "A": pp - half * u,
        "B": pp + half * u,
        "C": qq - half * u,
        "D": qq + half * u,
        "E": pp - 1.3 * t,
        "F": qq + 1.3 * t,
    }
    centre = (pp + qq) / 2
    return {k: [round(float(v[0] - centre[0]), 6), round(float(v[1] - centre[1]), 6)] for k, v in pts.items()}


def _draw(p: dict) -> bytes:
    pts = {k: np.asarray(v, dtype=float) for k, v in p["points"].items()}
    bounds = bounds_of(list(pts.values()))
    scale = units_per_point(bounds)

    def ray_end(name: str, which: int) -> np.ndarray:
        vertex, s1, s2 = ANGLES[name]
        v = pts[vertex]
        if which == 0:
            return v + s1 * unit(pts["B"] - pts["A"])
        return v + s2 * unit(pts["Q"] - pts["P"])

    def draw(ax: Axes) -> None:
        for a, b in (("A", "B"), ("C", "D"), ("E", "F")):
            ax.plot([pts[a][0], pts[b][0]], [pts[a][1], pts[b][1]], color="black", lw=2, zorder=2)
        for a, b in (("A", "B"), ("C", "D")):
            parallel_mark(ax, pts[a], pts[b], 0.82, 0.1)
        for name in "ABCDEF":
            ax.plot(*pts[name], "o", color="black", ms=3.5, zorder=5)
        centre = (pts["P"] + pts["Q"]) / 2
        for name in "ABCD":
            vertex_label(ax, pts[name], name, pts["P"] if name in "AB" else pts["Q"], distance=11, size=13)
        for name in "EF":
            vertex_label(ax, pts[name], name, centre, distance=11, size=13)
        for name in ("P", "Q"):
            # The vertex name goes in the widest unmarked angle at that point.
            free = [n for n in ANGLES if ANGLES[n][0] == name and n not in p["marked"]]
            choice = max(free, key=lambda n: measure(n, p["alpha"]))
            bis = unit(ray_end(choice, 0) - pts[name] + ray_end(choice, 1) - pts[name])
            half = math.radians(measure(choice, p["alpha"]) / 2)
            label(
                ax,
                pts[name],
                name,
                offset=bis * clearance(bis, name, 13, 3) / math.sin(half),
                size=13,
                box=False,
            )
        colors = ("#1f5fbf", "#d62728")
        placed: list[tuple[np.ndarray, float, float]] = []  # label centres (data) and half sizes
        for k, name in enumerate(p["marked"]):
            vertex = ANGLES[name][0]
            a_end, b_end = ray_end(name, 0), ray_end(name, 1)
            r = 0.3 + 0.05 * k
            angle_arc(ax, pts[vertex], a_end, b_end, r, color=colors[k], lw=1.8)
            text = p["labels"][name]
            u1, u2 = unit(a_end - pts[vertex]), unit(b_end - pts[vertex])
            w, h = text_extent(text, 12)
            half_w, half_h = w / 2 * scale, h / 2 * scale
            # Candidate directions inside the angle (bisector first) and the distance at which the box
            # clears both sides; the nearest spot that does not overlap the other label wins.
            best = None
            for frac in (0.5, 0.4, 0.6, 0.3, 0.7):
                d = unit(u1 * (1 - frac) + u2 * frac)
                need = r / scale + clearance(d, text, 12, 3)
                for side in (u1, u2):
                    n = np.array([-side[1], side[0]])
                    sin_t = abs(float(d[0] * side[1] - d[1] * side[0]))
                    need = max(need, (abs(n[0]) * w / 2 + abs(n[1]) * h / 2 + 3) / max(sin_t, 0.05))
                for extra in range(0, 100, 4):
                    dist = need + extra
                    centre = pts[vertex] + d * dist * scale
                    clash = any(
                        abs(centre[0] - c[0]) < half_w + hw + 2 * scale
                        and abs(centre[1] - c[1]) < half_h + hh
                        for c, hw, hh in placed
                    )
                    if not clash:
                        if best is None or dist < best[1] - 1e-9:
                            best = (d, dist)
                        break
            assert best is not None
            bis, dist = best
            placed.append((pts[vertex] + bis * dist * scale, half_w, half_h))
            # A label pushed far out along a narrow angle gets a leader line back to its arc.
            far = dist - r / scale > 40
            label(
                ax,
                pts[vertex] + r * bis,
                text,
                offset=bis * (dist - r / scale),
                size=12,
                color=colors[k],
                leader=far,
            )

    return figure_png(draw, bounds, margin=0.1)
