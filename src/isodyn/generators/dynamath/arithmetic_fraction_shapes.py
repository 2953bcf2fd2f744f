"""Fractions as shaded shapes: which shape has the largest (or smallest) part shaded in the named colour?

Four shapes (a circle cut into equal sectors, a bar cut into equal strips, a grid of equal squares, a
regular polygon cut into equal triangles) each have some parts in the asked colour, some in a second
colour and the rest white. Colour variation (the asked colour is named, and a second colour must be
ignored), geometric transformation (shape kinds, rotations, bar orientation, scattered parts), and
numerical value (the fractions). Multiple choice over Shape 1-4; the answer moves with the extremum.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Polygon, Rectangle, Wedge

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.canvas import png
from isodyn.modalities.palette import PALETTE, pick_colors

SHADE_COLORS = ("red", "blue", "green", "orange", "purple")
KINDS = ("circle", "bar", "grid", "polygon")
CHOICES = ("Shape 1", "Shape 2", "Shape 3", "Shape 4")
KIND_WORDS = {"circle": "circle", "bar": "rectangle", "grid": "rectangle", "polygon": "regular polygon"}


def parts(shape: dict) -> int:
    return shape["rows"] * shape["cols"] if shape["kind"] == "grid" else shape["n"]


def describe(shape: dict, color: str, other: str) -> str:
    n = parts(shape)
    if shape["kind"] == "circle":
        head = f"a circle divided into {n} equal sectors"
    elif shape["kind"] == "bar":
        head = (
            f"a rectangle divided into {n} equal {'vertical' if shape['vertical'] else 'horizontal'} strips"
        )
    elif shape["kind"] == "grid":
        head = (
            f"a rectangle divided into a grid of {shape['rows']} rows and {shape['cols']} columns of equal "
            "squares"
        )
    else:
        head = f"a regular {n}-sided polygon divided into {n} equal triangles meeting at its centre"
    k1, k2 = len(shape["main"]), len(shape["other"])
    white = n - k1 - k2
    return f"{head}; {_count(k1)} {color}, {_count(k2)} {other} and {_count(white)} white"


def _count(k: int) -> str:
    return {0: "no part is", 1: "1 part is"}.get(k, f"{k} parts are")


def _sample_shape(rng: np.random.Generator) -> dict:
    kind = KINDS[int(rng.integers(len(KINDS)))]
    shape: dict = {"kind": kind}
    if kind == "circle":
        shape["n"] = int(rng.integers(3, 11))
        shape["rotation"] = int(rng.integers(0, 360))
    elif kind == "bar":
        shape["n"] = int(rng.integers(2, 9))
        shape["vertical"] = bool(rng.random() < 0.5)
    elif kind == "grid":
        shape["rows"], shape["cols"] = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    else:
        shape["n"] = int(rng.choice([5, 6, 8]))
        shape["rotation"] = int(rng.integers(0, 360))
    n = parts(shape)
    k1 = int(rng.integers(1, n))
    k2 = int(rng.integers(0, n - k1 + 1)) if n - k1 > 0 else 0
    order = [int(i) for i in rng.permutation(n)]
    shape["main"] = sorted(order[:k1])
    shape["other"] = sorted(order[k1 : k1 + k2])
    return shape


def solution_text(p: dict) -> str:
    color, other = p["color"], p["other_color"]
    fracs = [Fraction(len(s["main"]), parts(s)) for s in p["shapes"]]
    steps = [
        f"For each shape, count the {color} parts and all the equal parts; the {other} parts do not count."
    ]
    for i, (s, f) in enumerate(zip(p["shapes"], fracs, strict=True)):
        steps.append(
            f"Shape {i + 1}: {len(s['main'])} of the {parts(s)} parts "
            f"{'is' if len(s['main']) == 1 else 'are'} {color}, so the fraction is "
            f"{len(s['main'])}/{parts(s)}"
            + (f" = {f}" if f.denominator != parts(s) else "")
            + f" (about {float(f):.3f})."
        )
    best = (
        max(range(4), key=lambda i: fracs[i])
        if p["extreme"] == "largest"
        else min(range(4), key=lambda i: fracs[i])
    )
    steps.append(f"The {p['extreme']} of these fractions is {fracs[best]}, for Shape {best + 1}.")
    steps.append(f"Answer: ({letter(best)}) {CHOICES[best]}")
    return "\n".join(steps)


class FractionShapes(SeedProgram):
    seed_id = "dynamath_fraction_shapes"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (
        VariationType.COLOR,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "shapes": VariationType.NUMERICAL_VALUE,
        "color": VariationType.COLOR,
        "other_color": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # four shapes, each about 4 kinds x 8 sizes x 20 shadings, x colour pairs x largest/smallest
    variant_space = 640**4 * 20 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            shapes = [_sample_shape(rng) for _ in range(4)]
            fracs = [Fraction(len(s["main"]), parts(s)) for s in shapes]
            if len(set(fracs)) == 4:
                break
        color, other = pick_colors(rng, 2, SHADE_COLORS)
        extreme = "largest" if rng.random() < 0.6 else "smallest"
        p = {"shapes": shapes, "color": color, "other_color": other, "extreme": extreme}
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("shapes", "extreme")

    def redraw(self, params: dict[str, Any]) -> Draw:
        shapes, extreme = params["shapes"], params["extreme"]
        fracs = [Fraction(len(s["main"]), parts(s)) for s in shapes]
        best = fracs.index(max(fracs) if extreme == "largest" else min(fracs))
        question = (
            f"Each shape is divided into equal parts. Which shape has the {extreme} fraction of its area "
            f"shaded {params['color']}? " + format_choices(CHOICES)
        )
        return Draw(
            params=params,
            question=question,
            answer=letter(best),
            solution=solution_text(params),
            choices=CHOICES,
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        color, other = params["color"], params["other_color"]
        k = int(rng.integers(2, 9))
        said = (
            f"The {other} parts were coloured in first, {k} minutes before the {color} ones.",
            f"A pupil needed {k} minutes to colour all four shapes.",
            f"The four shapes were cut out of card {k} mm thick.",
            f"The shapes hang on the classroom wall next to {k} other drawings.",
            f"The {color} pencil used for the shading was {k + 8} cm long.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            fills = {p["color"]: PALETTE[p["color"]], p["other_color"]: PALETTE[p["other_color"]]}

            def fill_of(shape: dict, i: int) -> str:
                if i in shape["main"]:
                    return fills[p["color"]]
                if i in shape["other"]:
                    return fills[p["other_color"]]
                return "white"

            def draw_one(ax: Axes, shape: dict, cx: float, cy: float) -> None:
                r = 1.0
                style: dict[str, Any] = {"edgecolor": "black", "lw": 1.6}
                if shape["kind"] == "circle":
                    n = shape["n"]
                    for i in range(n):
                        a0 = shape["rotation"] + 360 * i / n
                        ax.add_patch(
                            Wedge((cx, cy), r, a0, a0 + 360 / n, facecolor=fill_of(shape, i), **style)
                        )
                elif shape["kind"] == "polygon":
                    n = shape["n"]
                    corners = [
                        (
                            cx + r * math.cos(math.radians(shape["rotation"] + 360 * i / n)),
                            cy + r * math.sin(math.radians(shape["rotation"] + 360 * i / n)),
                        )
                        for i in range(n)
                    ]
                    for i in range(n):
                        tri = [(cx, cy), corners[i], corners[(i + 1) % n]]
                        ax.add_patch(Polygon(tri, closed=True, facecolor=fill_of(shape, i), **style))
                elif shape["kind"] == "bar":
                    n = shape["n"]
                    w, h = (1.9, 1.2) if shape["vertical"] else (1.2, 1.9)
                    for i in range(n):
                        if shape["vertical"]:
                            rect = (cx - w / 2 + i * w / n, cy - h / 2), w / n, h
                        else:
                            rect = (cx - w / 2, cy - h / 2 + i * h / n), w, h / n
                        ax.add_patch(Rectangle(*rect, facecolor=fill_of(shape, i), **style))
                else:
                    rows, cols = shape["rows"], shape["cols"]
                    cell = 1.8 / max(rows, cols)
                    x0, y0 = cx - cols * cell / 2, cy - rows * cell / 2
                    for i in range(rows * cols):
                        rr, cc = divmod(i, cols)
                        ax.add_patch(
                            Rectangle(
                                (x0 + cc * cell, y0 + rr * cell),
                                cell,
                                cell,
                                facecolor=fill_of(shape, i),
                                **style,
                            )
                        )

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.2, 10.2)
                ax.set_ylim(-0.9, 2.4)
                ax.set_aspect("equal")
                ax.set_axis_off()
                for k, shape in enumerate(p["shapes"]):
                    cx = 1.25 + 2.55 * k
                    draw_one(ax, shape, cx, 1.1)
                    ax.text(
                        cx, -0.45, f"Shape {k + 1}", ha="center", va="center", fontsize=13, fontweight="bold"
                    )

            image = png(draw, size=(8.4, 3.0))
            text = (
                "The image shows four shapes, numbered 1 to 4, each divided into equal parts; some parts "
                f"are shaded {p['color']}, some {p['other_color']}, and the rest are "
                f"white.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            lines = [
                f"Shape {k + 1} is {describe(s, p['color'], p['other_color'])}."
                for k, s in enumerate(p["shapes"])
            ]
            story = "A worksheet shows four shapes. " + " ".join(lines)
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
