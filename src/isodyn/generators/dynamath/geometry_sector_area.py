"""Area of a coloured sector of a circle, answered as a multiple of pi (multiple choice).

A circle of labelled radius is cut into two or three sectors by radii; every sector is filled with a
named colour and its central angle is marked. The question names one colour. Distractors are the
other sectors' areas, the arc length and the area with the angle doubled.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Wedge

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.formatting import article, latex_quantity
from isodyn.modalities.geometry import COLORS, FILL_COLORS, figure_png, label, side_label


def pi_text(q: Fraction) -> str:
    """A rational multiple of pi as text: `12π`, `25π/2`, `π`, `3π/4`."""
    num = "" if q.numerator == 1 else str(q.numerator)
    return f"{num}π" if q.denominator == 1 else f"{num}π/{q.denominator}"


def sector_area(angle: int, radius: int) -> Fraction:
    """Area divided by pi."""
    return Fraction(angle * radius * radius, 360)


def _angles(rng: np.random.Generator, count: int) -> list[int]:
    while True:
        cuts = sorted(int(v) for v in rng.choice(np.arange(1, 36), size=count - 1, replace=False))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, 36], strict=True)]
        if min(parts) >= 6 and all(p != 18 for p in parts):  # 60 degrees or more, no half circles
            return [10 * p for p in parts]


def solution_text(p: dict, choices: tuple[str, ...], answer: str) -> str:
    i = p["colors"].index(p["asked"])
    angle, r = p["angles"][i], p["radius"]
    area = sector_area(angle, r)
    idx = "ABCDEFGHIJ".index(answer)
    return "\n".join(
        [
            f"The {p['asked']} sector has central angle {angle}° in a circle of radius {r} cm.",
            "A sector is the fraction (angle / 360°) of the whole disc, whose area is $\\pi r^2$.",
            f"Area = ({angle}/360) × π × {r}² = ({angle}/360) × {r * r}π = {pi_text(area)} cm² "
            f"(about {area.numerator / area.denominator * math.pi:.3f} cm²).",
            f"Answer: ({answer}) {choices[idx]}.",
        ]
    )


class SectorArea(SeedProgram):
    seed_id = "dynamath_sector_area"
    topic = Topic.PLANE_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.COLOR,
        VariationType.GEOMETRIC_TRANSFORMATION,
    )
    param_variation = {
        "radius": VariationType.NUMERICAL_VALUE,
        "angles": VariationType.NUMERICAL_VALUE,
        "colors": VariationType.COLOR,
        "asked": VariationType.COLOR,
        "start": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 11 radii x ~300 angle splits x colour assignments (~100) x 12 rotations
    variant_space = 11 * 300 * 100 * 12

    def sample(self, rng: np.random.Generator) -> Draw:
        count = int(rng.choice([2, 3], p=[0.35, 0.65]))
        angles = _angles(rng, count)
        radius = int(rng.integers(2, 13))
        colors = [FILL_COLORS[int(i)] for i in rng.choice(len(FILL_COLORS), size=count, replace=False)]
        k = int(rng.integers(count))
        asked = colors[k]
        truth = sector_area(angles[k], radius)
        pool = [sector_area(a, radius) for j, a in enumerate(angles) if j != k]
        pool += [Fraction(angles[k] * radius, 180), 2 * truth, truth / 2, Fraction(radius * radius) - truth]
        distractors = []
        for v in pool:
            if v > 0 and v != truth and v not in distractors:
                distractors.append(v)
        for v in (3 * truth, truth * Fraction(3, 2), truth * Fraction(3, 4)):  # too few (a few variants)
            if len(distractors) >= 3:
                break
            if v not in distractors:
                distractors.append(v)
        picked_idx = rng.choice(len(distractors), size=3, replace=False)
        values = [truth, *(distractors[int(i)] for i in picked_idx)]
        order = rng.permutation(4)
        values = [values[int(i)] for i in order]
        choices = tuple(f"{pi_text(v)} cm²" for v in values)
        answer = letter(values.index(truth))
        params = {
            "radius": radius,
            "angles": angles,
            "colors": colors,
            "asked": asked,
            "start": int(rng.integers(0, 24)) * 15,
            "radius_on": int(rng.integers(count)),
        }
        question = f"What is the area of the {asked} sector? " + format_choices(choices)
        return Draw(
            params=params,
            question=question,
            answer=answer,
            solution=solution_text(params, choices, answer),
            choices=choices,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                "The image shows a circle divided by radii into coloured sectors; the central angle of "
                "each sector is written inside it and the length of the radius is "
                f"labelled.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            parts = [
                f"{article(c)} {c} sector with central angle ${a}^\\circ$"
                for c, a in zip(p["colors"], p["angles"], strict=True)
            ]
            listing = ", ".join(parts[:-1]) + f" and {parts[-1]}"
            text = (
                f"A circle with radius {latex_quantity(p['radius'], 'cm', 'r')} is divided by radii into "
                f"{len(parts)} sectors: {listing}.\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    r = 1.0
    bounds_at = p["start"]
    cuts = [bounds_at]
    for a in p["angles"]:
        cuts.append(cuts[-1] + a)

    def point(deg: float, rad: float = r) -> tuple[float, float]:
        return (rad * math.cos(math.radians(deg)), rad * math.sin(math.radians(deg)))

    def draw(ax: Axes) -> None:
        for i, color in enumerate(p["colors"]):
            ax.add_patch(
                Wedge((0, 0), r, cuts[i], cuts[i + 1], facecolor=COLORS[color], edgecolor="black", lw=1.8)
            )
        for i in range(len(p["colors"])):
            mid = cuts[i] + p["angles"][i] / 2
            label(ax, point(mid, 0.42), f"{p['angles'][i]}°", size=13)
        ax.plot(0, 0, "o", color="black", ms=4, zorder=6)
        j = p["radius_on"]
        end = point(cuts[j])
        # The radius label sits on the boundary radius, towards the rim, on the side of the larger sector.
        smaller = (
            point(cuts[j] + 10, 0.7) if p["angles"][j - 1] > p["angles"][j] else point(cuts[j] - 10, 0.7)
        )
        side_label(ax, (0, 0), end, f"{p['radius']} cm", smaller, at=0.7, size=13)

    return figure_png(draw, (-r, -r, r, r), margin=0.06)
