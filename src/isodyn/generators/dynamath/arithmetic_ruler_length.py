"""Measure an object against a centimetre ruler (it does not start at 0) and convert the length.

The object's ends sit exactly on millimetre marks, with dashed guides down to the ruler. The question
asks for the length in millimetres, centimetres or inches (1 in = 2.54 cm, stated). Real-life
context: pencil, nail, crayon, drinking straw, key; numerical value: the two end marks and the unit.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.patches import Circle, Polygon, Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.formatting import fmt_num, fmt_number

OBJECTS = ("pencil", "nail", "crayon", "straw", "key")
# (Metres are left out: DynaMath's absolute tolerance of 0.001 would accept a 1 mm misreading.)
UNITS = {
    "mm": ("millimetres", Fraction(1)),
    "cm": ("centimetres", Fraction(10)),
    "in": ("inches", Fraction(254, 10)),
}
RULER_CM = 12


def length_in(mm: int, unit: str) -> Fraction:
    return Fraction(mm) / UNITS[unit][1]


# Inches from a millimetre reading carry more digits than the reading justifies (1 mm = 0.039 in):
# the question states the rounding, and the answer is rounded so (half up) from the exact value.
INCH_PLACES = 2


def answer_text(mm: int, unit: str) -> str:
    value = length_in(mm, unit)
    return fmt_number(value, INCH_PLACES) if unit == "in" else fmt_num(value)


def mark_text(mm: int) -> str:
    return fmt_num(Fraction(mm, 10))


def solution_text(p: dict) -> str:
    a, b, unit = p["start_mm"], p["end_mm"], p["unit"]
    mm = b - a
    steps = [
        f"The left end of the {p['object']} is at {mark_text(a)} cm ({a // 10} cm and {a % 10} small mm "
        f"marks) and the right end at {mark_text(b)} cm ({b // 10} cm and {b % 10} mm). The ruler does not "
        "start at the object, so subtract:",
        f"length = {mark_text(b)} cm - {mark_text(a)} cm = {mark_text(mm)} cm = {mm} mm.",
    ]
    value = length_in(mm, unit)
    if unit == "mm":
        pass
    elif unit == "cm":
        steps.append(f"In centimetres that is {mm} / 10 = {fmt_num(value)} cm.")
    else:
        steps.append(
            f"1 inch = 2.54 cm, so {mark_text(mm)} cm = {mark_text(mm)} / 2.54 in = "
            f"{fmt_number(value, INCH_PLACES)} in (rounded to two decimal places, as asked)."
        )
    steps.append(f"Answer: {answer_text(mm, unit)}")
    return "\n".join(steps)


def draw_object(ax: Axes, kind: str, x0: float, x1: float, y: float, h: float) -> None:
    """The object between x0 and x1 (cm), centred on height y, thickness about h."""
    edge: dict[str, Any] = {"edgecolor": "black", "lw": 1.2}
    if kind == "pencil":
        tip = min(1.0, 0.15 * (x1 - x0))
        ax.add_patch(Rectangle((x0, y - h / 2), 0.35, h, facecolor="#e89bb5", **edge))
        ax.add_patch(Rectangle((x0 + 0.35, y - h / 2), x1 - x0 - 0.35 - tip, h, facecolor="#f2c230", **edge))
        ax.add_patch(
            Polygon([(x1 - tip, y - h / 2), (x1 - tip, y + h / 2), (x1, y)], facecolor="#f1d9b5", **edge)
        )
        ax.add_patch(
            Polygon([(x1 - tip / 3, y - h / 6), (x1 - tip / 3, y + h / 6), (x1, y)], facecolor="0.2")
        )
    elif kind == "nail":
        ax.add_patch(Rectangle((x0, y - h), 0.15, 2 * h, facecolor="0.55", **edge))
        tip = 0.5
        ax.add_patch(
            Rectangle((x0 + 0.15, y - h / 5), x1 - x0 - 0.15 - tip, 2 * h / 5, facecolor="0.7", **edge)
        )
        ax.add_patch(
            Polygon([(x1 - tip, y - h / 5), (x1 - tip, y + h / 5), (x1, y)], facecolor="0.7", **edge)
        )
    elif kind == "crayon":
        tip = 0.8
        ax.add_patch(Rectangle((x0, y - h / 2), x1 - x0 - tip, h, facecolor="#3a7bd5", **edge))
        ax.add_patch(
            Polygon(
                [
                    (x1 - tip, y - h / 2),
                    (x1 - tip, y + h / 2),
                    (x1 - 0.1, y + h / 6),
                    (x1, y + h / 6),
                    (x1, y - h / 6),
                    (x1 - 0.1, y - h / 6),
                ],
                facecolor="#3a7bd5",
                **edge,
            )
        )
    elif kind == "straw":
        ax.add_patch(Rectangle((x0, y - h / 3), x1 - x0, 2 * h / 3, facecolor="#e9f1f7", **edge))
        for k in range(int((x1 - x0) / 0.6)):
            xs = x0 + 0.3 + 0.6 * k
            if xs + 0.25 < x1:
                ax.add_patch(Rectangle((xs, y - h / 3), 0.25, 2 * h / 3, facecolor="#d9534f", lw=0))
    else:  # key: ring (bow) on the left, blade to the right
        bow = min(0.9, 0.3 * (x1 - x0))
        ax.add_patch(Circle((x0 + bow / 2, y), bow / 2, facecolor="#d4af37", **edge))
        ax.add_patch(Circle((x0 + bow / 2, y), bow / 6, facecolor="white", **edge))
        ax.add_patch(Rectangle((x0 + bow, y - h / 5), x1 - x0 - bow, 2 * h / 5, facecolor="#d4af37", **edge))
        ax.add_patch(
            Polygon(
                [(x1 - 0.6, y - h / 5), (x1 - 0.45, y - h / 2), (x1 - 0.3, y - h / 5)],
                facecolor="#d4af37",
                **edge,
            )
        )


class RulerLength(SeedProgram):
    seed_id = "dynamath_ruler_length"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.REAL_LIFE_CONTEXT)
    param_variation = {
        "start_mm": VariationType.NUMERICAL_VALUE,
        "end_mm": VariationType.NUMERICAL_VALUE,
        "unit": VariationType.NUMERICAL_VALUE,
        "object": VariationType.REAL_LIFE_CONTEXT,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # start marks x end marks x units x objects
    variant_space = 38 * 70 * 3 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        start = int(rng.integers(3, 41))
        end = int(rng.integers(start + 30, RULER_CM * 10 - 2))
        unit = str(rng.choice(list(UNITS)))
        obj = OBJECTS[int(rng.integers(len(OBJECTS)))]
        p = {"start_mm": start, "end_mm": end, "unit": unit, "object": obj}
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "rename"})
    truth_reads = ("start_mm", "end_mm", "unit")

    def redraw(self, params: dict[str, Any]) -> Draw:
        unit = params["unit"]
        extra = " (1 inch = 2.54 cm)" if unit == "in" else ""
        rounding = " Round to two decimal places." if unit == "in" else ""
        question = f"How long is the {params['object']}, in {UNITS[unit][0]}{extra}?{rounding}"
        answer = answer_text(params["end_mm"] - params["start_mm"], unit)
        return Draw(params=params, question=question, answer=answer, solution=solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        obj = params["object"]
        k = int(rng.integers(2, 9))
        said = (
            f"The {obj} was bought {k} days ago.",
            f"The ruler is made of clear plastic and is {k} mm thick.",
            f"The {obj} weighs about {k} grams.",
            f"There are {k} more rulers like this one in the classroom drawer.",
            f"The {obj} and the ruler lie on a desk by the window, {k} minutes before lunch.",
        )
        return said[int(rng.integers(len(said)))]

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Another object (it is drawn as that object, between the same two marks).
        return {**params, "object": str(rng.choice([o for o in OBJECTS if o != params["object"]]))}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        a, b = p["start_mm"] / 10, p["end_mm"] / 10
        if modality is Modality.IMAGE:

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.6, RULER_CM + 0.6)
                ax.set_ylim(-0.2, 3.0)
                ax.set_aspect("equal")
                ax.set_axis_off()
                ax.add_patch(
                    Rectangle((-0.4, 0), RULER_CM + 0.8, 1.5, facecolor="#f3e3b5", edgecolor="black", lw=1.2)
                )
                marks = []  # one collection for all ~300 marks: a Line2D each is slow to draw
                for mm in range(RULER_CM * 10 + 1):
                    x = mm / 10
                    size = 0.55 if mm % 10 == 0 else 0.38 if mm % 5 == 0 else 0.22
                    marks.append([(x, 1.5), (x, 1.5 - size)])
                    if mm % 10 == 0:
                        ax.text(x, 0.62, str(mm // 10), ha="center", va="center", fontsize=12)
                widths = [1.1 if mm % 10 == 0 else 0.7 for mm in range(len(marks))]
                ax.add_collection(LineCollection(marks, colors="black", linewidths=widths), autolim=False)
                ax.text(RULER_CM + 0.25, 0.22, "cm", ha="right", va="center", fontsize=11)
                draw_object(ax, p["object"], a, b, 2.25, 0.42)
                for x in (a, b):
                    ax.plot([x, x], [1.5, 2.55], color="#c0392b", ls="--", lw=1.0)

            image = png(draw, size=(9.5, 2.6))
            text = (
                f"The image shows a {p['object']} placed above a centimetre ruler with millimetre marks; "
                f"dashed lines go down from its two ends to the ruler.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            story = (
                f"A {p['object']} is lined up along a centimetre ruler with millimetre marks. Its left end "
                f"is at the {mark_text(p['start_mm'])} cm mark and its right end is at the "
                f"{mark_text(p['end_mm'])} cm mark."
            )
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
