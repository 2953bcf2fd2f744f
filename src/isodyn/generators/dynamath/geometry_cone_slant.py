"""Right circular cone: radius, height and slant height form a right triangle (l^2 = r^2 + h^2).

Two of the three are labelled (the radius sometimes as a diameter) and the third is asked; all are
whole numbers (scaled Pythagorean triples). Geometric transformation: the cone stands on its base or
points downwards like a funnel, and its proportions change from squat to tall.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_quantity
from isodyn.modalities.geometry import figure_png, label, side_label, unit
from isodyn.modalities.solids import View, horizontal_circle

_TRIPLES = ((3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (9, 12, 15))
_ASK = {
    "l": "What is the slant height l of the cone, in cm?",
    "h": "What is the height h of the cone, in cm?",
    "r": "What is the radius r of the base of the cone, in cm?",
}


def _known_text(p: dict) -> list[str]:
    out = []
    if p["asked"] != "r":
        diameter = p["diameter"]
        out.append(
            f"base diameter is {latex_quantity(2 * p['r'], 'cm', 'd')}"
            if diameter
            else f"base radius is {latex_quantity(p['r'], 'cm', 'r')}"
        )
    if p["asked"] != "h":
        out.append(f"height is {latex_quantity(p['h'], 'cm', 'h')}")
    if p["asked"] != "l":
        out.append(f"slant height is {latex_quantity(p['l'], 'cm', 'l')}")
    return out


def solution_text(p: dict) -> str:
    r, h, ell = p["r"], p["h"], p["l"]
    steps = []
    if p["diameter"] and p["asked"] != "r":
        steps.append(f"The radius is half the diameter: r = {2 * r} / 2 = {r} cm.")
    steps.append(
        "The height (from the apex to the centre of the base), a radius and the slant height form a right "
        "triangle with the slant height as hypotenuse: $l^2 = r^2 + h^2$."
    )
    if p["asked"] == "l":
        steps.append(
            f"$l = \\sqrt{{{r}^2 + {h}^2}} = \\sqrt{{{r * r} + {h * h}}} = \\sqrt{{{ell * ell}}} = {ell}$ cm."
        )
        value = ell
    elif p["asked"] == "h":
        steps.append(
            f"$h = \\sqrt{{{ell}^2 - {r}^2}} = \\sqrt{{{ell * ell} - {r * r}}} = \\sqrt{{{h * h}}} = {h}$ cm."
        )
        value = h
    else:
        steps.append(
            f"$r = \\sqrt{{{ell}^2 - {h}^2}} = \\sqrt{{{ell * ell} - {h * h}}} = \\sqrt{{{r * r}}} = {r}$ cm."
        )
        value = r
    steps.append(f"Answer: {value}")
    return "\n".join(steps)


class ConeSlant(SeedProgram):
    seed_id = "dynamath_cone_slant"
    topic = Topic.SOLID_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GEOMETRIC_TRANSFORMATION)
    param_variation = {
        "r": VariationType.NUMERICAL_VALUE,
        "h": VariationType.NUMERICAL_VALUE,
        "inverted": VariationType.GEOMETRIC_TRANSFORMATION,
        "elev": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # ~30 (r, h, l) triples x 3 asked x radius/diameter x 2 orientations x 3 elevations
    variant_space = 30 * 3 * 2 * 2 * 3

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            a, b, c = _TRIPLES[int(rng.integers(len(_TRIPLES)))]
            k = int(rng.integers(1, 5))
            if c * k > 40:
                continue
            r, h = (a * k, b * k) if rng.random() < 0.5 else (b * k, a * k)
            if 0.3 <= h / r <= 3.5:
                break
        asked = str(rng.choice(["l", "h", "r"]))
        params = {
            "r": r,
            "h": h,
            "l": c * k,
            "asked": asked,
            "diameter": bool(asked != "r" and rng.random() < 0.35),
            "inverted": bool(rng.random() < 0.4),
            "elev": float(rng.choice([14, 18, 22])),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("r", "h", "l", "asked")

    def redraw(self, params: dict) -> Draw:
        value = {"l": params["l"], "h": params["h"], "r": params["r"]}[params["asked"]]
        return Draw(
            params=params, question=_ASK[params["asked"]], answer=str(value), solution=solution_text(params)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        material = str(rng.choice(["wood", "clay", "card", "plaster"]))
        said = (
            f"The cone is made of {material} and was painted with {n} coats of varnish.",
            f"It is one of {n} identical cones made for a school display.",
            f"The cone was finished in {n} hours by a model maker.",
            f"A sticker with the number {n} is stuck on the side of the cone.",
            f"The cone is made of {material}.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        return {**params, **{k: params[k] * factor for k in ("r", "h", "l")}}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return (float(params["r"]), float(params["h"]), float(params["l"]))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                "The image shows a right circular cone; r is the base radius, d the base diameter, h the "
                "height "
                "(from the apex to the centre of the base) and l the slant height, in centimetres; the "
                "unknown "
                f"is marked '?'.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            pose = (
                "points downwards, its circular base on top"
                if p["inverted"]
                else "stands on its circular base"
            )
            known = " and its ".join(_known_text(p))
            text = (
                f"A right circular cone {pose}. Its {known}; the height is measured from the apex to the "
                "centre of "
                f"the base and the slant height from the apex to the rim of the base.\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    r, h = float(p["r"]), float(p["h"])
    view = View(-60.0, p["elev"])
    inv = p["inverted"]
    base_z = h if inv else 0.0
    apex3 = np.array([0.0, 0.0, 0.0 if inv else h])
    centre3 = np.array([0.0, 0.0, base_z])
    ring = horizontal_circle(view, centre3, r, 721)
    c2 = view.project([centre3])[0]
    apex2 = view.project([apex3])[0]
    a, b = r, r * math.sin(math.radians(p["elev"]))
    big_h = abs(apex2[1] - c2[1])
    ty = b * b / big_h
    tx = a * math.sqrt(1 - (ty / b) ** 2)
    sign = -1.0 if inv else 1.0  # the tangent points lie towards the apex
    tangents = [c2 + np.array([-tx, sign * ty]), c2 + np.array([tx, sign * ty])]
    rim2 = c2 + np.array([r, 0.0])  # the rim point whose radius is drawn (perpendicular to the view)
    known = {"r": f"r = {p['r']} cm", "h": f"h = {p['h']} cm", "l": f"l = {p['l']} cm"}
    if p["diameter"]:
        known["r"] = f"d = {2 * p['r']} cm"
    known[p["asked"]] = f"{p['asked']} = ?"
    colors = {"r": "#d62728", "h": "#1f5fbf", "l": "#2ca02c"}

    def draw(ax: Axes) -> None:
        # Body fill: the triangle between the silhouettes plus the base ellipse.
        body = np.vstack([tangents[0], apex2, tangents[1]])
        ax.fill(body[:, 0], body[:, 1], color="#f3e3c3", zorder=0)
        ax.fill(ring[:, 0], ring[:, 1], color="#f3e3c3" if not inv else "#ead2a4", zorder=0)
        for t in tangents:
            ax.plot([apex2[0], t[0]], [apex2[1], t[1]], color="black", lw=2, zorder=3)
        rel = ring[:, 1] - c2[1]
        if inv:
            ax.plot(ring[:, 0], ring[:, 1], color="black", lw=2, zorder=3)
        else:
            front = ring.copy()
            front[rel > ty + 1e-9] = np.nan
            back = ring.copy()
            back[rel < ty - 1e-9] = np.nan
            ax.plot(front[:, 0], front[:, 1], color="black", lw=2, zorder=3)
            ax.plot(back[:, 0], back[:, 1], color="0.35", lw=1.2, ls=(0, (4, 3)), zorder=3)
        # Height (hidden inside the cone unless the cone points down and we see it through the top).
        ax.plot([apex2[0], c2[0]], [apex2[1], c2[1]], color=colors["h"], lw=1.8, ls="--", zorder=4)
        m = 0.07 * min(r, h)
        d_up = unit(apex2 - c2) * m
        d_side = np.array([m, 0.0])
        sq = np.array([c2 + d_up, c2 + d_up + d_side * 0.9, c2 + d_side * 0.9])
        ax.plot(sq[:, 0], sq[:, 1], color=colors["h"], lw=1.2, zorder=4)
        # Radius or diameter.
        if p["diameter"]:
            left = c2 - np.array([r, 0.0])
            ax.plot([left[0], rim2[0]], [left[1], rim2[1]], color=colors["r"], lw=2, zorder=4)
        else:
            ax.plot([c2[0], rim2[0]], [c2[1], rim2[1]], color=colors["r"], lw=2, zorder=4)
        ax.plot(*c2, "o", color="black", ms=3.5, zorder=5)
        # Slant height along the generator through the marked rim point.
        ax.plot([apex2[0], rim2[0]], [apex2[1], rim2[1]], color=colors["l"], lw=2.4, zorder=4)
        away = np.array([-1.0, 0.0]) + c2
        side_label(ax, apex2, rim2, known["l"], away, at=0.5, gap=6, color=colors["l"])
        r_anchor = (c2 + rim2) / 2 if not p["diameter"] else c2
        label(ax, r_anchor, known["r"], offset=(0, -14 if not inv else 14), color=colors["r"], size=12)
        side_label(ax, apex2, c2, known["h"], c2 + np.array([1.0, 0.0]), at=0.5, gap=5, color=colors["h"])

    pts = np.vstack([ring, apex2[None, :]])
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    pad = 0.3 * (x1 - x0)
    return figure_png(draw, (x0 - pad, y0, x1 + pad, y1), margin=0.05)
