"""Surface area of a cylinder in real-life objects: which faces count depends on the object.

Real-life context variation: a closed can (side and both ends), an open-top water tank or a drinking
glass (side and bottom), a cardboard tube (side only). The radius or the diameter is labelled.
Area = 2*pi*r*h + k*pi*r^2 with k = 2, 1 or 0 ends.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.geometry import dimension_line, figure_png, fmt, label
from isodyn.modalities.solids import View, ellipse_halves, horizontal_circle

# ends: how many circular ends are made of material; open: which ends are open (for the drawing)
OBJECTS: dict[str, dict] = {
    "can": {
        "ends": 2,
        "unit": "cm",
        "caption": "Closed can (top and bottom closed)",
        "question": "How much sheet metal is needed to make the closed can (side, top and bottom)",
        "r": (3, 6),
        "h": (8, 16),
        "story": "A factory makes closed cylindrical food cans out of sheet metal.",
    },
    "tank": {
        "ends": 1,
        "unit": "m",
        "caption": "Water tank with an open top",
        "question": "How much sheet metal is needed to make the tank (side and bottom, no lid)",
        "r": (1, 3),
        "h": (2, 5),
        "story": "A farmer orders a cylindrical water tank made of sheet metal. The tank has a bottom but no "
        "lid: its top is open.",
    },
    "glass": {
        "ends": 1,
        "unit": "cm",
        "caption": "Drinking glass (open top)",
        "question": "How much glass is needed to make the drinking glass (side and bottom), ignoring its "
        "thickness",
        "r": (3, 5),
        "h": (8, 15),
        "story": "A glassblower makes a cylindrical drinking glass, closed at the bottom and open at the "
        "top.",
    },
    "tube": {
        "ends": 0,
        "unit": "cm",
        "caption": "Cardboard tube (open at both ends)",
        "question": "How much cardboard is needed to make the tube (its curved side only)",
        "r": (2, 6),
        "h": (10, 24),
        "story": "A paper mill makes cylindrical cardboard tubes, open at both ends, for rolls of paper.",
    },
}


def area(p: dict) -> float:
    r, h, ends = p["r"], p["h"], OBJECTS[p["object"]]["ends"]
    return 2 * math.pi * r * h + ends * math.pi * r * r


def _size_text(p: dict) -> str:
    u = p["unit"]
    if p["shown"] == "diameter":
        return f"The diameter is {fmt(2 * p['r'])} {u} and the height is {fmt(p['h'])} {u}."
    return f"The radius is {fmt(p['r'])} {u} and the height is {fmt(p['h'])} {u}."


def solution_text(p: dict, value: float) -> str:
    r, h, u = p["r"], p["h"], p["unit"]
    ends = OBJECTS[p["object"]]["ends"]
    steps = []
    if p["shown"] == "diameter":
        steps.append(f"The radius is half the diameter: r = {fmt(2 * r)} / 2 = {fmt(r)} {u}.")
    words = {
        2: "the curved side plus two circular ends (top and bottom)",
        1: "the curved side plus one circular end (the bottom; the top is open)",
        0: "only the curved side (both ends are open)",
    }[ends]
    steps.append(f"The material covers {words}.")
    side = 2 * math.pi * r * h
    steps.append(f"Curved side: 2πrh = 2π × {fmt(r)} × {fmt(h)} = {fmt(2 * r * h)}π ≈ {fmt(side)} {u}².")
    if ends:
        disc = math.pi * r * r
        steps.append(f"Each end: πr² = π × {fmt(r)}² = {fmt(r * r)}π ≈ {fmt(disc)} {u}².")
        steps.append(
            f"Total: {fmt(2 * r * h)}π + {ends} × {fmt(r * r)}π = {fmt(2 * r * h + ends * r * r)}π ≈ "
            f"{fmt(value)} {u}²."
        )
    steps.append(f"Answer: {fmt(value)}")
    return "\n".join(steps)


class CylinderSurface(SeedProgram):
    seed_id = "dynamath_cylinder_surface"
    topic = Topic.SOLID_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.REAL_LIFE_CONTEXT, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "object": VariationType.REAL_LIFE_CONTEXT,
        "r": VariationType.NUMERICAL_VALUE,
        "h": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # 4 objects x ~60 (radius, height) pairs x radius-or-diameter labels
    variant_space = 4 * 60 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        obj = str(rng.choice(list(OBJECTS)))
        spec = OBJECTS[obj]
        while True:
            if obj == "tank":
                r = float(rng.integers(2, 7)) / 2  # half metres
                h = float(rng.integers(spec["h"][0] * 2, spec["h"][1] * 2 + 1)) / 2
            else:
                r = float(rng.integers(spec["r"][0], spec["r"][1] + 1))
                h = float(rng.integers(spec["h"][0], spec["h"][1] + 1))
            if 0.45 <= h / (2 * r) <= 3.2:
                break
        r = int(r) if r == int(r) else r
        h = int(h) if h == int(h) else h
        params = {
            "object": obj,
            "unit": spec["unit"],
            "r": r,
            "h": h,
            "shown": "diameter" if rng.random() < 0.4 else "radius",
            "view": [float(rng.choice([-60, -50, -40])), float(rng.choice([18, 22, 26]))],
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("object", "r", "h")

    def redraw(self, params: dict) -> Draw:
        spec = OBJECTS[params["object"]]
        value = area(params)
        question = f"{spec['question']}, in square {'metres' if spec['unit'] == 'm' else 'centimetres'}?"
        return Draw(
            params=params, question=question, answer=fmt(value), solution=solution_text(params, value)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        thing = {"can": "can", "tank": "tank", "glass": "glass", "tube": "tube"}[params["object"]]
        n = int(rng.integers(2, 12))
        said = (
            f"The {thing} will be delivered in {n} days.",
            f"The {thing} is one of an order of {n * 10} identical ones.",
            f"The maker has been making items like this {thing} for {n} years.",
            f"The finished {thing} will be stored on shelf number {n}.",
            f"The {thing} is meant to last at least {n} years.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # half metres times a power of ten are whole; keep whole numbers as ints as sample does
        out = dict(params)
        for key in ("r", "h"):
            value = params[key] * factor
            out[key] = int(value) if value == int(value) else value
        return out

    def numbers(self, params: dict) -> tuple[float, ...]:
        shown = 2 * params["r"] if params["shown"] == "diameter" else params["r"]
        return (float(shown), float(params["h"]))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        spec = OBJECTS[p["object"]]
        if modality is Modality.IMAGE:
            text = (
                f"The image shows a cylinder: {spec['caption'][0].lower() + spec['caption'][1:]}. Its "
                f"{p['shown']} (d = diameter, r = radius) and height h are labelled in "
                f"{'metres' if p['unit'] == 'm' else 'centimetres'}."
                f"\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.STORY:
            text = f"{spec['story']} The item is a cylinder. {_size_text(p)}\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    view = View(*p["view"])
    r, h = float(p["r"]), float(p["h"])
    spec = OBJECTS[p["object"]]
    ends = spec["ends"]
    top_c, bot_c = (0.0, 0.0, h), (0.0, 0.0, 0.0)
    top = horizontal_circle(view, top_c, r, 361)
    front, back = ellipse_halves(view, bot_c, r)
    tc = view.project([top_c])[0]
    bc = view.project([bot_c])[0]
    left = np.array([bc[0] - r, bc[1]])
    right = np.array([bc[0] + r, bc[1]])
    dz = tc - bc
    unit_name = p["unit"]

    def draw(ax: Axes) -> None:
        # Body: the band between the two silhouettes and the front half of the bottom ellipse.
        body = np.vstack([front, (front + dz)[::-1]])
        ax.fill(body[:, 0], body[:, 1], color="#c9dcef", zorder=1)
        ax.fill(top[:, 0], top[:, 1], color="#4a5a6a" if ends < 2 else "#dde8f3", zorder=2)
        ax.plot(top[:, 0], top[:, 1], color="black", lw=1.8, zorder=3)
        ax.plot(front[:, 0], front[:, 1], color="black", lw=1.8, zorder=3)
        ax.plot(back[:, 0], back[:, 1], color="0.35", lw=1.2, ls=(0, (4, 3)), zorder=3)
        for side in (left, right):
            ax.plot([side[0], side[0] + dz[0]], [side[1], side[1] + dz[1]], color="black", lw=1.8, zorder=3)
        size_color = "#d62728"
        if p["shown"] == "radius":
            end = tc + np.array([r, 0.0])
            ax.plot([tc[0], end[0]], [tc[1], end[1]], color=size_color, lw=1.8, zorder=4)
            ax.plot(*tc, "o", color=size_color, ms=3.5, zorder=5)
            label(ax, (tc + end) / 2, f"r = {fmt(r)} {unit_name}", offset=(0, 11), color=size_color, size=12)
        else:
            a, b = tc - np.array([r, 0.0]), tc + np.array([r, 0.0])
            ax.plot([a[0], b[0]], [a[1], b[1]], color=size_color, lw=1.8, zorder=4)
            label(ax, tc, f"d = {fmt(2 * r)} {unit_name}", offset=(0, 11), color=size_color, size=12)
        dimension_line(ax, right, right + dz, f"h = {fmt(h)} {unit_name}", (0.25 * r, 0.0), size=12)
        ax.set_title(spec["caption"], fontsize=12)

    pts = np.vstack([top, front, back])
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return figure_png(draw, (x0 - 0.2 * r, y0, x1 + 1.4 * r, y1 + 0.15 * r), margin=0.06)
