"""Area of a coloured ring between concentric circles (in the spirit of DynaMath's "area of the blue ring").

Two or three concentric circles with labelled radii; the rings between them are filled with named
colours and the question asks for the area of the ring of one colour, so the answer depends on reading
which two radii bound that colour. Area = pi * (R^2 - r^2).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_quantity
from isodyn.modalities.geometry import COLORS, FILL_COLORS, arrow, figure_png, fmt, label, side_label

_RING_COLORS = (*(c for c in FILL_COLORS if c != "yellow"), "yellow")


def _radii(rng: np.random.Generator, count: int) -> list[float]:
    """Increasing radii, far enough apart that every ring is clearly visible."""
    while True:
        half = rng.random() < 0.25
        outer = int(rng.integers(5, 16))
        values = sorted(int(v) for v in rng.choice(np.arange(1, outer), size=count - 1, replace=False))
        radii: list[float] = [*values, outer]
        gaps = np.diff([0, *radii])
        if min(gaps) >= 0.2 * outer and radii[0] >= 0.3 * outer:
            break
    if half:  # a numerical variation with half centimetres
        radii = [r + 0.5 for r in radii]
    return [float(r) if r != int(r) else int(r) for r in radii]


def _describe(p: dict) -> str:
    radii, colors = p["radii"], p["ring_colors"]
    count = len(radii)
    words = {2: "Two", 3: "Three"}[count]
    cm = [latex_quantity(fmt(r), "cm") for r in radii]
    rtext = ", ".join(cm[:-1]) + f" and {cm[-1]}"
    parts = [f"{words} concentric circles with common centre $O$ have radii {rtext}."]
    parts.append(f"The disc inside the circle of radius {cm[0]} is white.")
    for i, color in enumerate(colors):
        parts.append(f"The ring between the circles of radii {cm[i]} and {cm[i + 1]} is coloured {color}.")
    return " ".join(parts)


def solution_text(p: dict) -> str:
    radii, colors, asked = p["radii"], p["ring_colors"], p["asked"]
    i = colors.index(asked)
    r, big = radii[i], radii[i + 1]
    diff = big**2 - r**2
    area = math.pi * diff
    return "\n".join(
        [
            f"The {asked} ring lies between the circle of radius {fmt(r)} cm and the circle of radius "
            f"{fmt(big)} cm.",
            "Its area is the area of the larger disc minus the area of the smaller disc: "
            f"$\\pi \\cdot {fmt(big)}^2 - \\pi \\cdot {fmt(r)}^2 = \\pi ({fmt(big**2)} - {fmt(r**2)}) "
            f"= {fmt(diff)}\\pi$.",
            f"$ {fmt(diff)}\\pi \\approx {fmt(area)}$ square centimetres.",
            f"Answer: {fmt(area)}",
        ]
    )


def draw_rings(p: dict) -> bytes:
    radii, colors = p["radii"], p["ring_colors"]
    big = radii[-1]
    start = p["label_angle"]

    def draw(ax: Axes) -> None:
        for i in range(len(radii) - 1, -1, -1):
            fill = COLORS[colors[i - 1]] if i >= 1 else "white"
            ax.add_patch(Circle((0, 0), radii[i], facecolor=fill, edgecolor="black", lw=1.6, zorder=1))
        ax.plot([0], [0], "o", color="black", ms=4, zorder=7)
        label(ax, (0, 0), "O", offset=(-9, -9), size=12, box=True)
        step = 360 / len(radii) if len(radii) > 2 else 140
        for k, r in enumerate(radii):
            ang = math.radians(start + k * step)
            end = (r * math.cos(ang), r * math.sin(ang))
            arrow(ax, (0, 0), end, lw=1.6)
            # The label sits in the band just inside its own circle, beside the arrow.
            at = ((radii[k - 1] + r) / 2 if k else 0.55 * r) / r
            beside = (end[0] - math.sin(ang), end[1] + math.cos(ang))  # "inside" = the other side
            side_label(ax, (0, 0), end, f"{fmt(r)} cm", beside, at=at, size=12)

    return figure_png(draw, (-big, -big, big, big), margin=0.04)


class RingArea(SeedProgram):
    seed_id = "dynamath_ring_area"
    topic = Topic.PLANE_GEOMETRY
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.COLOR)
    param_variation = {
        "radii": VariationType.NUMERICAL_VALUE,
        "ring_colors": VariationType.COLOR,
        "asked": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # about 60 radius sets x 2 unit styles x ordered colour choices (6*5 or 6*5*4) x which ring
    variant_space = 60 * 2 * (30 + 120 * 2)

    def sample(self, rng: np.random.Generator) -> Draw:
        count = int(rng.choice([2, 3], p=[0.4, 0.6]))
        radii = _radii(rng, count)
        idx = rng.choice(len(_RING_COLORS), size=count - 1, replace=False)
        colors = [_RING_COLORS[int(i)] for i in idx]
        asked = colors[int(rng.integers(len(colors)))]
        params = {
            "radii": radii,
            "ring_colors": colors,
            "asked": asked,
            "label_angle": int(rng.choice([15, 35, 55, 75, 100, 130])),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("radii", "ring_colors", "asked")

    def redraw(self, params: dict) -> Draw:
        radii, colors, asked = params["radii"], params["ring_colors"], params["asked"]
        i = colors.index(asked)
        area = math.pi * (radii[i + 1] ** 2 - radii[i] ** 2)
        question = f"What is the area of the {asked} ring, in square centimetres?"
        return Draw(params=params, question=question, answer=fmt(area), solution=solution_text(params))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        colors = params["ring_colors"]
        color = colors[int(rng.integers(len(colors)))]
        n = int(rng.integers(2, 9))
        said = (
            f"The {color} paint used for the rings dries in about {n} hours.",
            f"The picture is one of {n} similar designs drawn for a school poster.",
            f"The circles were drawn with a compass whose needle left a tiny hole at O; this is drawing {n} "
            "of a set.",
            f"The pattern was coloured by {n} pupils, each taking a turn with the {color} crayon.",
            "The circles were drawn with a compass and their radii were checked with a ruler.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # half-centimetre radii times a power of ten are whole numbers; keep them as ints then
        radii = [r * factor for r in params["radii"]]
        return {**params, "radii": [int(r) if r == int(r) else float(r) for r in radii]}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(r) for r in params["radii"])

    def renamed(self, params: dict, rng: np.random.Generator) -> dict:
        # The ring colours change; the asked one keeps its position among the rings.
        colors = params["ring_colors"]
        fresh = [str(c) for c in rng.permutation([c for c in _RING_COLORS if c not in colors])]
        # sometimes swap two existing colours instead, so the asked name points at the wrong ring
        if len(colors) >= 2 and rng.random() < 0.5:
            new = list(colors)
            j = colors.index(params["asked"])
            k = (j + 1) % len(colors)
            new[j], new[k] = new[k], new[j]
        else:
            new = fresh[: len(colors)]
        return {**params, "ring_colors": new, "asked": new[colors.index(params["asked"])]}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            count = len(p["radii"])
            text = (
                f"The image shows {count} concentric circles with centre O; each arrow from O is a radius, "
                f"labelled with its length. The rings between the circles are coloured.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=draw_rings(p))
        if modality is Modality.LATEX:
            radii = p["radii"]
            eqs = ", ".join(latex_quantity(fmt(r), "cm", f"r_{i + 1}") for i, r in enumerate(radii))
            text = f"{_describe(p)} In symbols: {eqs}.\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")
