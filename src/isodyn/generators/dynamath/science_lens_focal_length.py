"""Scientific figure: the focal length of a thin converging lens from a ray diagram with marked distances.

The object and the image it forms are drawn with two principal rays (through the centre, and parallel
to the axis then refracted); the object and image distances are marked in cm. The image is real and
inverted on the far side, or virtual and upright on the object's side (then 1/f = 1/d_o - 1/d_i), and
the whole diagram may be mirrored so the object stands to the right: geometric variations that
change the arithmetic a reader must do. The focal point itself is not marked.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Ellipse, FancyArrowPatch

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import fmt_exact, fmt_number, latex_quantity
from isodyn.modalities.images import render_png

_RAY = "#e6550d"


def focal(params: dict) -> Fraction:
    do, di = params["d_o"], params["d_i"]
    return Fraction(do * di, do + di) if params["image"] == "real" else Fraction(do * di, di - do)


def solution_text(params: dict) -> str:
    do, di = params["d_o"], params["d_i"]
    f = focal(params)
    steps = [
        "Thin-lens equation (real-is-positive convention): 1/f = 1/d_o + 1/d_i, where a virtual image has a "
        "negative image distance.",
        f"From the figure: the object is {do} cm from the lens.",
    ]
    if params["image"] == "real":
        steps += [
            f"The image is real (inverted, on the other side of the lens), {di} cm from the lens: d_i "
            f"= +{di} cm.",
            f"1/f = 1/{do} + 1/{di} = {fmt_exact(Fraction(1, do) + Fraction(1, di))}, so f = "
            f"{fmt_exact(f)} cm.",
        ]
    else:
        steps += [
            f"The image is virtual (upright, on the same side as the object), {di} cm from the lens: "
            f"d_i = -{di} cm.",
            f"1/f = 1/{do} - 1/{di} = {fmt_exact(Fraction(1, do) - Fraction(1, di))}, so f = "
            f"{fmt_exact(f)} cm.",
        ]
    if f.denominator > 1 and fmt_exact(f) != fmt_number(f):
        steps.append(f"{fmt_exact(f)} = {fmt_number(f)} to three decimals.")
    steps.append(f"Answer: {fmt_number(f)}")
    return "\n".join(steps)


def lens_png(params: dict) -> bytes:
    do, di, real = params["d_o"], params["d_i"], params["image"] == "real"
    s = -1 if params["mirrored"] else 1  # s = 1: object on the left
    h = 1.0
    m = di / do
    xo, xi = -s * do, (s * di if real else -s * di)
    hi_ = -m * h if real else m * h
    top = max(h, abs(hi_))
    far = max(do, di) * 1.25

    def draw(ax: Axes) -> None:
        left, right = (-far, far) if real else ((-far, 0.45 * far) if s > 0 else (-0.45 * far, far))
        ax.plot([left, right], [0, 0], color="black", linewidth=1.0)  # optical axis
        ax.add_patch(Ellipse((0, 0), far * 0.05, 2.5 * top, facecolor="#c6dbef", edgecolor="#08519c", lw=1.5))
        arrow_kw: dict[str, Any] = {"arrowstyle": "-|>", "mutation_scale": 16, "linewidth": 2.6}
        ax.add_patch(FancyArrowPatch((xo, 0), (xo, h), color="black", **arrow_kw, zorder=4))
        ax.add_patch(
            FancyArrowPatch(
                (xi, 0), (xi, hi_), color="#6a51a3", linestyle="-" if real else "--", **arrow_kw, zorder=4
            )
        )
        # labels under the feet of upright arrows (rays pass above them); beside an inverted real image, on
        # the side away from the lens and above its tip (the rays cross at the tip and continue below it)
        ax.text(xo, -0.07 * top, "object", ha="center", va="top", fontsize=11)
        if real:
            away = 1 if xi > 0 else -1
            ax.text(
                xi + away * 0.02 * far, hi_ / 2, "image", ha="left" if away > 0 else "right", va="center",
                fontsize=11, color="#6a51a3",
            )  # fmt: skip
        else:
            ax.text(xi, -0.07 * top, "virtual image", ha="center", va="top", fontsize=11, color="#6a51a3")
        # Ray 1: through the centre, undeviated. Ray 2: parallel to the axis, then refracted.
        end = right if s > 0 else left
        slope1 = h / xo  # the line through the object's tip and the lens centre (0, 0)
        ax.plot([xo, end], [h, h + slope1 * (end - xo)], color=_RAY, linewidth=1.3)
        if real:
            slope2 = (hi_ - h) / xi
            ax.plot([xo, 0, end], [h, h, h + slope2 * end], color=_RAY, linewidth=1.3)
        else:
            slope2 = (hi_ - h) / xi  # the refracted ray seems to come from the virtual image's tip
            ax.plot([xo, 0, end], [h, h, h + slope2 * end], color=_RAY, linewidth=1.3)
            ax.plot([xi, 0], [hi_, h], color=_RAY, linewidth=1.0, linestyle=":")
            ax.plot([xi, 0], [hi_, 0], color=_RAY, linewidth=1.0, linestyle=":")
        # distance markers under everything
        base = -top * 1.35 if real else -top * 0.5

        def dim(x0: float, x1: float, y: float, text: str) -> None:
            ax.add_patch(
                FancyArrowPatch((x0, y), (x1, y), arrowstyle="<|-|>", mutation_scale=12, color="0.2", lw=1.1)
            )
            for x in (x0, x1):
                ax.plot([x, x], [y - 0.08 * top, y + 0.08 * top], color="0.2", linewidth=1.0)
            ax.text(
                (x0 + x1) / 2, y, text, ha="center", va="center", fontsize=11,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
            )  # fmt: skip

        dim(xo, 0, base, f"{do} cm")
        dim(xi, 0, base - (0.45 * top if not real else 0), f"{di} cm")
        ax.set_xlim(left, right)
        ax.set_ylim(min(base - 0.7 * top, -1.5 * top), 1.5 * top)
        ax.axis("off")

    return render_png(draw, size=(6, 4))


def setup_text(params: dict) -> str:
    side, other = ("left", "right") if not params["mirrored"] else ("right", "left")
    do, di = latex_quantity(params["d_o"], "cm"), latex_quantity(params["d_i"], "cm")
    text = f"An object stands {do} to the {side} of a thin converging lens, upright on the optical axis. "
    if params["image"] == "real":
        text += f"The lens forms a real, inverted image {di} to the {other} of the lens."
    else:
        text += f"The lens forms a virtual, upright image {di} to the {side} of the lens "
        text += "(on the object's side)."
    return text


class LensFocalLength(SeedProgram):
    seed_id = "dynamath_lens_focal_length"
    topic = Topic.SCIENTIFIC_FIGURE
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GEOMETRIC_TRANSFORMATION)
    param_variation = {
        "d_o": VariationType.NUMERICAL_VALUE,
        "d_i": VariationType.NUMERICAL_VALUE,
        "image": VariationType.GEOMETRIC_TRANSFORMATION,
        "mirrored": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # ~300 real and ~150 virtual distance pairs x 2 mirror images
    variant_space = 450 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        image = "real" if rng.random() < 0.6 else "virtual"
        while True:
            if image == "real":
                do, di = (int(x) for x in rng.choice(np.arange(10, 62, 2), size=2))
                ok = 0.4 <= di / do <= 2.5
            else:
                do = int(rng.choice(np.arange(6, 32, 2)))
                di = int(rng.choice(np.arange(do + 6, 3 * do + 1, 2)))
                ok = di <= 60
            if ok:
                break
        params = {"d_o": do, "d_i": di, "image": image, "mirrored": bool(rng.random() < 0.4)}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("d_o", "d_i", "image")

    def redraw(self, params: dict[str, Any]) -> Draw:
        question = "What is the focal length of the lens, in cm?"
        return Draw(params, question, fmt_number(focal(params)), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 10))
        said = (
            f"The object is {k} cm tall.",
            f"The lens has a diameter of {k} cm.",
            f"The experiment was repeated {k} times and gave the same distances each time.",
            f"The lens is made of glass and was bought {k} years ago.",
            f"The lens is held in a clamp {k} cm above the bench.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # the ray diagram is drawn to scale, so larger distances give the same picture, relabelled
        return {**params, "d_o": params["d_o"] * factor, "d_i": params["d_i"] * factor}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return (float(params["d_o"]), float(params["d_i"]))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                "The image shows a ray diagram for a thin converging lens: an object, the image the "
                "lens forms "
                "(dashed if virtual), two rays from the tip of the object, and the object and image "
                "distances "
                f"from the lens marked in cm.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=lens_png(p))
        if modality is Modality.LATEX:
            latex = setup_text(p)
            text = f"{latex}\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": latex})
        raise AssertionError(f"unhandled modality {modality}")
