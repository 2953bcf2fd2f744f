"""Similar triangles from a parallel line: find the missing length.

Two configurations (a geometric transformation of the same idea): a triangle ABC cut by a segment
DE parallel to BC ("nested", triangles ADE ~ ABC), or two segments AC and BD crossing at O with
AB parallel to CD ("hourglass", triangles OAB ~ OCD). Three lengths are labelled, one is asked. The
figure is drawn to scale (1 unit = 1 cm), rotated and possibly mirrored.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_quantity
from isodyn.modalities.geometry import (
    bounds_of,
    clearance,
    figure_png,
    fit_in_angle,
    fmt,
    label,
    parallel_mark,
    side_label,
    vertex_label,
)

# which three lengths are given and which is asked
_NESTED_MODES = (("AD", "DB", "DE", "BC"), ("AD", "DB", "BC", "DE"), ("AD", "DE", "BC", "DB"))
_HOUR_MODES = (("AO", "OC", "AB", "CD"), ("AO", "OC", "CD", "AB"), ("AO", "AB", "CD", "OC"))


def _transform(points: dict[str, np.ndarray], rotation: float, mirror: bool) -> dict[str, list[float]]:
    t = math.radians(rotation)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    centre = np.mean(list(points.values()), axis=0)
    out = {}
    for name, p in points.items():
        q = p - centre
        if mirror:
            q = np.array([-q[0], q[1]])
        q = rot @ q
        out[name] = [round(float(q[0]), 6), round(float(q[1]), 6)]
    return out


def _nested(rng: np.random.Generator, asked: str) -> tuple[dict, dict] | None:
    """Triangle ABC with DE parallel to BC; the three given lengths are whole numbers."""
    ab: float  # the given lengths are whole numbers, the others need not be
    bc: float
    de: float
    db: float
    if asked == "BC":
        ad, db, de = (int(v) for v in rng.integers(2, 11, size=3))
        ab = ad + db
        bc = de * ab / ad
    elif asked == "DE":
        ad, db, bc = (int(v) for v in rng.integers(2, 13, size=3))
        ab = ad + db
        de = bc * ad / ab
    else:  # DB from AD, DE, BC
        ad, de, bc = (int(v) for v in rng.integers(2, 15, size=3))
        if de >= bc:
            return None
        ab = ad * bc / de
        db = ab - ad
    if not (0.8 <= ab / bc <= 2.2 and de >= 1.5 and 0.35 <= ad / ab <= 0.8 and bc <= 24 and ab <= 24):
        return None
    theta_b = math.radians(float(rng.uniform(50, 78)))
    b = np.array([0.0, 0.0])
    c = np.array([float(bc), 0.0])
    a = b + ab * np.array([math.cos(theta_b), math.sin(theta_b)])
    angle_c = math.degrees(math.acos(np.dot(a - c, b - c) / (np.linalg.norm(a - c) * np.linalg.norm(b - c))))
    if not 35 <= angle_c <= 100:
        return None
    k = ad / ab
    d = a + k * (b - a)
    e = a + k * (c - a)
    lengths = {"AD": ad, "DB": ab - ad, "BC": bc, "DE": de}
    return {"A": a, "B": b, "C": c, "D": d, "E": e}, lengths


def _hourglass(rng: np.random.Generator, asked: str) -> tuple[dict, dict] | None:
    """Segments AC and BD crossing at O with AB parallel to CD; the given lengths are whole numbers."""
    ab: float  # the given lengths are whole numbers, the others need not be
    cd: float
    oc: float
    if asked == "CD":
        ao, oc, ab = (int(v) for v in rng.integers(2, 12, size=3))
        cd = ab * oc / ao
    elif asked == "AB":
        ao, oc, cd = (int(v) for v in rng.integers(2, 12, size=3))
        ab = cd * ao / oc
    else:  # OC from AO, AB, CD
        ao, ab, cd = (int(v) for v in rng.integers(2, 12, size=3))
        oc = ao * cd / ab
    if ao == oc or not (min(ab, cd, oc, ao) >= 3 and max(ab, cd, oc, ao) <= 20 and 0.4 <= oc / ao <= 2.5):
        return None
    bo = ao * float(rng.uniform(0.75, 1.35))
    cos_phi = (ao**2 + bo**2 - ab**2) / (2 * ao * bo)
    if not -0.45 <= cos_phi <= 0.8:
        return None
    phi = math.acos(cos_phi)
    k = oc / ao
    o = np.array([0.0, 0.0])
    a = np.array([-float(ao), 0.0])
    b = bo * np.array([-math.cos(phi), math.sin(phi)])
    c = -k * a
    d = -k * b
    # Turn so that AB is horizontal and on top before the random rotation.
    pts = {"A": a, "B": b, "C": c, "D": d, "O": o}
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    r = np.array([[math.cos(-ang), -math.sin(-ang)], [math.sin(-ang), math.cos(-ang)]])
    pts = {n: r @ q for n, q in pts.items()}
    if pts["A"][1] < pts["C"][1]:
        pts = {n: np.array([q[0], -q[1]]) for n, q in pts.items()}
    lengths = {"AO": ao, "OC": oc, "AB": ab, "CD": cd}
    return pts, lengths


def missing_length(p: dict) -> float:
    """The asked length from the three given ones (the same ratios the figure was built with)."""
    g, asked = p["given"], p["asked"]
    if p["config"] == "nested":
        if asked == "BC":
            return g["DE"] * (g["AD"] + g["DB"]) / g["AD"]
        if asked == "DE":
            return g["BC"] * g["AD"] / (g["AD"] + g["DB"])
        return g["AD"] * g["BC"] / g["DE"] - g["AD"]
    if asked == "CD":
        return g["AB"] * g["OC"] / g["AO"]
    if asked == "AB":
        return g["CD"] * g["AO"] / g["OC"]
    return g["AO"] * g["CD"] / g["AB"]


def _fact_text(p: dict) -> str:
    if p["config"] == "nested":
        return (
            "In triangle $ABC$, point $D$ lies on side $AB$ and point $E$ lies on side $AC$, with $DE$ "
            "parallel to $BC$."
        )
    return "Segments $AC$ and $BD$ intersect at point $O$, and $AB$ is parallel to $CD$."


def solution_text(p: dict, answer: float) -> str:
    g = p["given"]
    asked = p["asked"]
    if p["config"] == "nested":
        steps = [
            "Because DE is parallel to BC, angle ADE = angle ABC and angle AED = angle ACB (corresponding "
            "angles), so triangle ADE is similar to triangle ABC, with AD/AB = DE/BC.",
        ]
        if asked == "BC":
            ab = g["AD"] + g["DB"]
            steps.append(f"AB = AD + DB = {g['AD']} + {g['DB']} = {ab}.")
            steps.append(f"BC = DE * AB / AD = {g['DE']} * {ab} / {g['AD']} = {fmt(answer)}.")
        elif asked == "DE":
            ab = g["AD"] + g["DB"]
            steps.append(f"AB = AD + DB = {g['AD']} + {g['DB']} = {ab}.")
            steps.append(f"DE = BC * AD / AB = {g['BC']} * {g['AD']} / {ab} = {fmt(answer)}.")
        else:
            ab = g["AD"] * g["BC"] / g["DE"]
            steps.append(f"AB = AD * BC / DE = {g['AD']} * {g['BC']} / {g['DE']} = {fmt(ab)}.")
            steps.append(f"DB = AB - AD = {fmt(ab)} - {g['AD']} = {fmt(answer)}.")
    else:
        steps = [
            "Because AB is parallel to CD, angle OAB = angle OCD (alternate angles) and angle AOB = angle "
            "COD "
            "(vertical angles), so triangle OAB is similar to triangle OCD with AO/OC = AB/CD.",
        ]
        if asked == "CD":
            steps.append(f"CD = AB * OC / AO = {g['AB']} * {g['OC']} / {g['AO']} = {fmt(answer)}.")
        elif asked == "AB":
            steps.append(f"AB = CD * AO / OC = {g['CD']} * {g['AO']} / {g['OC']} = {fmt(answer)}.")
        else:
            steps.append(f"OC = AO * CD / AB = {g['AO']} * {g['CD']} / {g['AB']} = {fmt(answer)}.")
    steps.append(f"Answer: {fmt(answer)}")
    return "\n".join(steps)


class SimilarTriangles(SeedProgram):
    seed_id = "dynamath_similar_triangles"
    topic = Topic.PLANE_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GEOMETRIC_TRANSFORMATION)
    param_variation = {
        "config": VariationType.GEOMETRIC_TRANSFORMATION,
        "points": VariationType.GEOMETRIC_TRANSFORMATION,
        "given": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 2 configurations x 3 asked lengths x ~500 length triples x 7 rotations x 2 mirrors
    variant_space = 2 * 3 * 500 * 7 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        config = "nested" if rng.random() < 0.55 else "hourglass"
        modes = _NESTED_MODES if config == "nested" else _HOUR_MODES
        mode = modes[int(rng.integers(3))]
        asked = mode[3]
        while True:
            built = _nested(rng, asked) if config == "nested" else _hourglass(rng, asked)
            if built is not None:
                break
        pts, lengths = built
        given = {name: lengths[name] for name in mode[:3]}
        params = {
            "config": config,
            "given": {k: int(v) for k, v in given.items()},
            "asked": asked,
            "points": _transform(pts, float(rng.integers(-3, 4)) * 15, bool(rng.random() < 0.5)),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("config", "given", "asked")

    def redraw(self, params: dict) -> Draw:
        truth = missing_length(params)
        question = f"What is the length of {params['asked']}, in cm?"
        return Draw(
            params=params, question=question, answer=fmt(truth), solution=solution_text(params, truth)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        names = ("A", "B", "C", "D", "E") if params["config"] == "nested" else ("A", "B", "C", "D", "O")
        point = names[int(rng.integers(len(names)))]
        said = (
            f"Point ${point}$ was the first point of the figure to be drawn.",
            f"The drawing is exercise {n} on a worksheet about parallel lines.",
            f"A pupil traced the figure {n} times to practise drawing parallel lines.",
            f"The letters were written next to the points in {rng.choice(['red', 'blue', 'green'])} ink.",
            "All lengths were measured with the same ruler, and the figure was drawn with a sharp pencil.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        given = {k: v * factor for k, v in params["given"].items()}
        points = {n: [round(x * factor, 6), round(y * factor, 6)] for n, (x, y) in params["points"].items()}
        return {**params, "given": given, "points": points}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(v) for v in params["given"].values())

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                "The image shows a figure with parallel segments marked by arrowheads; labelled lengths are "
                "in "
                f"centimetres and the asked length is marked '?'. It is drawn to scale.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            given = ", ".join(latex_quantity(v, "cm", k) for k, v in p["given"].items())
            text = f"{_fact_text(p)} The known lengths are {given}.\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _label_in_widest_angle(ax: Axes, o: np.ndarray, rays: list[np.ndarray]) -> None:
    """Put the label O on the bisector of the widest of the four angles between the crossing segments."""
    dirs = sorted(math.atan2(r[1] - o[1], r[0] - o[0]) for r in rays)
    best, width = 0.0, -1.0
    for i, t in enumerate(dirs):
        nxt = dirs[(i + 1) % 4] + (2 * math.pi if i == 3 else 0)
        if nxt - t > width:
            best, width = (t + nxt) / 2, nxt - t
    d = np.array([math.cos(best), math.sin(best)])
    dist = clearance(d, "O", 14) / max(math.sin(width / 2), 0.3)
    label(ax, o, "O", offset=d * dist, size=14, box=False)


def _draw(p: dict) -> bytes:
    pts = {k: np.asarray(v, dtype=float) for k, v in p["points"].items()}
    names = list(pts)
    centre: np.ndarray = np.mean([pts[n] for n in names], axis=0)
    labels = {**{k: str(v) for k, v in p["given"].items()}, p["asked"]: "?"}
    if p["config"] == "nested":
        segments = [("A", "D"), ("D", "B"), ("B", "C"), ("C", "E"), ("E", "A"), ("D", "E")]
        parallels = [("D", "E"), ("B", "C")]
        tri_centre = (pts["A"] + pts["B"] + pts["C"]) / 3
        label_side = {"AD": tri_centre, "DB": tri_centre, "BC": pts["A"], "DE": pts["A"]}
    else:
        segments = [("A", "B"), ("C", "D"), ("A", "O"), ("O", "C"), ("B", "O"), ("O", "D")]
        parallels = [("A", "B"), ("D", "C")]  # CD runs against AB, so mark it from D to C
        label_side = {"AB": pts["O"], "CD": pts["O"], "AO": pts["B"], "OC": pts["D"]}

    def draw(ax: Axes) -> None:
        for u, v in segments:
            ax.plot([pts[u][0], pts[v][0]], [pts[u][1], pts[v][1]], color="black", lw=2, zorder=2)
        size = 0.025 * max(np.ptp([q[0] for q in pts.values()]), np.ptp([q[1] for q in pts.values()]))
        for u, v in parallels:
            parallel_mark(ax, pts[u], pts[v], 0.55, size)
        for n in names:
            ax.plot(*pts[n], "o", color="black", ms=4, zorder=5)
            if n == "O":
                _label_in_widest_angle(ax, pts["O"], [pts[k] for k in "ABCD"])
            elif p["config"] == "nested" and n in "DE":
                # Inside triangle ADE, on the bisector of its angle at D (or E): the outside of AB and AC
                # carries the length labels.
                other = pts["E"] if n == "D" else pts["D"]
                bis, need = fit_in_angle(pts["A"] - pts[n], other - pts[n], n, 14, gap=2)
                label(ax, pts[n], n, offset=bis * max(need, 12), size=14, box=False)
            else:
                vertex_label(ax, pts[n], n, pts.get("O", centre), distance=14, size=14)
        for seg, text in labels.items():
            u, v = seg[0], seg[1]
            inside = label_side[seg]
            shown = f"{text} cm" if text != "?" else "?"
            # Labels on AD / DB sit beside the vertex labels D; keep them near the middle of their part.
            side_label(ax, pts[u], pts[v], shown, inside, gap=9, color="#1f5fbf" if text == "?" else "black")

    return figure_png(draw, bounds_of(list(pts.values())), margin=0.14)
