"""Volume of a right pyramid from a labelled drawing: V = (1/3) * base area * height.

Geometric transformation: the base is a square, a rectangle or an equilateral triangle, the solid is
seen from a different side each time, and for a square base the slant height (apex to the midpoint of
a base edge) may be given instead of the height, so Pythagoras comes first.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_quantity
from isodyn.modalities.geometry import bounds_of, figure_png, fmt, side_label, unit
from isodyn.modalities.solids import View, draw_convex_polyhedron


def base_vertices(p: dict) -> list[list[float]]:
    a = p["a"]
    if p["base"] == "square":
        b = a
    elif p["base"] == "rectangle":
        b = p["b"]
    else:
        r = a / math.sqrt(3)
        return [[r * math.cos(math.radians(t)), r * math.sin(math.radians(t)), 0.0] for t in (90, 210, 330)]
    return [[-a / 2, -b / 2, 0.0], [a / 2, -b / 2, 0.0], [a / 2, b / 2, 0.0], [-a / 2, b / 2, 0.0]]


def height(p: dict) -> float:
    return float(p["h"]) if p["given"] == "height" else math.sqrt(p["s"] ** 2 - (p["a"] / 2) ** 2)


def base_area(p: dict) -> float:
    if p["base"] == "square":
        return float(p["a"] ** 2)
    if p["base"] == "rectangle":
        return float(p["a"] * p["b"])
    return math.sqrt(3) / 4 * p["a"] ** 2


def describe(p: dict) -> str:
    if p["base"] == "square":
        base = f"a square base with side {latex_quantity(p['a'], 'cm')}"
    elif p["base"] == "rectangle":
        base = (
            f"a rectangular base measuring {latex_quantity(p['a'], 'cm')} by {latex_quantity(p['b'], 'cm')}"
        )
    else:
        base = f"an equilateral triangular base with side {latex_quantity(p['a'], 'cm')}"
    text = f"A right pyramid has {base}; its apex lies directly above the centre of the base."
    if p["given"] == "height":
        text += f" The height of the pyramid is {latex_quantity(p['h'], 'cm')}."
    else:
        text += (
            " The slant height, from the apex to the midpoint of a base edge, is "
            f"{latex_quantity(p['s'], 'cm')} (the height is "
            "not given)."
        )
    return text


def solution_text(p: dict, volume: float) -> str:
    steps = []
    if p["given"] == "slant":
        h = height(p)
        steps.append(
            f"The height, half the base side and the slant height form a right triangle: "
            f"$h = \\sqrt{{{p['s']}^2 - ({fmt(p['a'] / 2)})^2}} = "
            f"\\sqrt{{{fmt(p['s'] ** 2 - (p['a'] / 2) ** 2)}}} "
            f"\\approx {fmt(h, 4)}$ cm."
        )
    else:
        h = float(p["h"])
    if p["base"] == "square":
        steps.append(f"Base area = {p['a']}² = {p['a'] ** 2} cm².")
    elif p["base"] == "rectangle":
        steps.append(f"Base area = {p['a']} × {p['b']} = {p['a'] * p['b']} cm².")
    else:
        steps.append(f"Base area = (√3/4) × {p['a']}² ≈ {fmt(base_area(p), 4)} cm².")
    steps.append(
        f"V = (1/3) × base area × height = (1/3) × {fmt(base_area(p), 4)} × {fmt(h, 4)} ≈ {fmt(volume)} cm³."
    )
    steps.append(f"Answer: {fmt(volume)}")
    return "\n".join(steps)


class PyramidVolume(SeedProgram):
    seed_id = "dynamath_pyramid_volume"
    topic = Topic.SOLID_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GEOMETRIC_TRANSFORMATION)
    param_variation = {
        "base": VariationType.GEOMETRIC_TRANSFORMATION,
        "given": VariationType.GEOMETRIC_TRANSFORMATION,
        "view": VariationType.GEOMETRIC_TRANSFORMATION,
        "a": VariationType.NUMERICAL_VALUE,
        "b": VariationType.NUMERICAL_VALUE,
        "h": VariationType.NUMERICAL_VALUE,
        "s": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # (square: 10 sides x 12 heights x 2 given-kinds) + (rectangle: 90 x 12) + (triangle: 10 x 12), x 8 views
    variant_space = (240 + 1080 + 120) * 8

    def sample(self, rng: np.random.Generator) -> Draw:
        base = str(rng.choice(["square", "rectangle", "triangle"], p=[0.45, 0.3, 0.25]))
        a = int(rng.integers(3, 13))
        params: dict = {"base": base, "a": a}
        if base == "rectangle":
            while True:
                b = int(rng.integers(3, 13))
                if b != a:
                    break
            params["b"] = b
        given = "slant" if base == "square" and rng.random() < 0.45 else "height"
        params["given"] = given
        if given == "height":
            params["h"] = int(rng.integers(max(4, a // 2), 16))
        else:
            params["s"] = int(rng.integers(math.floor(a / 2) + 2, a // 2 + 14))
        azim = float(rng.choice([-70, -60, -50, -40, 40, 50, 60, 70]))
        if base == "triangle":
            azim += 15  # keep no face exactly edge-on
        params["view"] = [azim, float(rng.choice([18, 22, 26]))]
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("base", "a", "b", "given", "h", "s")

    def redraw(self, params: dict) -> Draw:
        volume = base_area(params) * height(params) / 3
        question = "What is the volume of the pyramid, in cubic centimetres?"
        return Draw(
            params=params, question=question, answer=fmt(volume), solution=solution_text(params, volume)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        faces = 3 if params["base"] == "triangle" else 4
        said = (
            f"The pyramid has {faces} triangular side faces and {faces + 1} faces in all.",
            f"The pyramid is a paperweight that has sat on the same desk for {n} years.",
            f"It is one of {n} wooden models in a mathematics classroom.",
            f"The pyramid was carved from a single block of stone in {n} days.",
            "The pyramid is solid all the way through.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        return {**params, **{k: params[k] * factor for k in ("a", "b", "h", "s") if k in params}}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(params[k]) for k in ("a", "b", "h", "s") if k in params)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            kind = {"square": "square", "rectangle": "rectangular", "triangle": "equilateral triangular"}[
                p["base"]
            ]
            what = (
                "h is the height, from the apex down to the centre of the base"
                if p["given"] == "height"
                else "s is the slant height, from the apex to the midpoint of a base edge"
            )
            text = (
                f"The image shows a right pyramid with a {kind} base (hidden edges dashed); lengths are in "
                f"centimetres and {what}.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            return Representation(modality, f"{describe(p)}\n\n{variant.question}")
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    view = View(*p["view"])
    base = np.array(base_vertices(p))
    h = height(p)
    apex = np.array([0.0, 0.0, h])
    verts = np.vstack([base, apex])
    n = len(base)
    faces = [list(range(n))] + [[i, (i + 1) % n, n] for i in range(n)]
    proj = view.project(verts)
    w = view.toward_viewer
    centre2d = view.project([[0, 0, 0]])[0]
    # A base edge is visible when its side face looks towards the viewer.
    visible = []
    for i in range(n):
        j = (i + 1) % n
        mid = (base[i] + base[j]) / 2
        normal_out = np.array([mid[0], mid[1], 0.0])
        face_n = np.cross(base[j] - base[i], apex - base[i])
        if np.dot(face_n, normal_out) < 0:
            face_n = -face_n
        if np.dot(face_n, w) > 0:
            visible.append(i)

    def draw(ax: Axes) -> None:
        draw_convex_polyhedron(ax, view, verts, faces, face_color="#f6d7a7", face_alpha=0.6)
        if p["base"] == "square":
            i = visible[0]
            side_label(ax, proj[i], proj[(i + 1) % n], f"{p['a']} cm", centre2d, gap=6)
        elif p["base"] == "rectangle":
            done = set()
            for i in visible:
                key = (
                    "a" if abs(base[i][1] - base[(i + 1) % n][1]) < 1e-9 else "b"
                )  # edges along x have length a
                length = p[key]
                if key in done:
                    continue
                done.add(key)
                side_label(ax, proj[i], proj[(i + 1) % n], f"{length} cm", centre2d, gap=6)
        else:
            i = visible[0]
            side_label(ax, proj[i], proj[(i + 1) % n], f"{p['a']} cm", centre2d, gap=6)
            for k in range(n):  # equal-length ticks on the three base edges
                m = (proj[k] + proj[(k + 1) % n]) / 2
                d = unit(proj[(k + 1) % n] - proj[k])
                nn = np.array([-d[1], d[0]]) * 0.03 * h
                ax.plot(
                    [m[0] - nn[0], m[0] + nn[0]],
                    [m[1] - nn[1], m[1] + nn[1]],
                    color="black",
                    lw=1.4,
                    zorder=5,
                )
        foot = np.zeros(3)
        if p["given"] == "height":
            top2d, foot2d = proj[n], view.project([foot])[0]
            ax.plot([top2d[0], foot2d[0]], [top2d[1], foot2d[1]], color="#1f5fbf", lw=1.6, ls="--", zorder=4)
            _right_angle_3d(ax, view, foot, np.array([0, 0, 1.0]), _front_dir(base, visible), 0.07 * h)
            side_label(
                ax,
                top2d,
                foot2d,
                f"h = {p['h']} cm",
                top2d + np.array([1.0, 0]),
                at=0.55,
                gap=5,
                color="#1f5fbf",
            )
        else:
            i = visible[0]
            mid3 = (base[i] + base[(i + 1) % n]) / 2
            top2d, mid2d = proj[n], view.project([mid3])[0]
            ax.plot([top2d[0], mid2d[0]], [top2d[1], mid2d[1]], color="#1f5fbf", lw=1.6, ls="--", zorder=4)
            _right_angle_3d(ax, view, mid3, unit3(apex - mid3), unit3(base[(i + 1) % n] - mid3), 0.06 * h)
            side_label(ax, top2d, mid2d, f"s = {p['s']} cm", centre2d, at=0.45, gap=5, color="#1f5fbf")

    pts = proj.tolist()
    return figure_png(draw, bounds_of(pts), margin=0.14)


def unit3(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _front_dir(base: np.ndarray, visible: list[int]) -> np.ndarray:
    i = visible[0]
    mid = (base[i] + base[(i + 1) % len(base)]) / 2
    return unit3(np.array([mid[0], mid[1], 0.0]))


def _right_angle_3d(
    ax: Axes, view: View, at: np.ndarray, d1: np.ndarray, d2: np.ndarray, size: float
) -> None:
    pts = view.project([at + size * d1, at + size * (d1 + d2), at + size * d2])
    ax.plot(pts[:, 0], pts[:, 1], color="#1f5fbf", lw=1.2, zorder=4)
