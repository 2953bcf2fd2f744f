"""Scientific figure: range, maximum height or flight time of a projectile launched from level ground.

The figure shows the launch velocity as a labelled arrow and its angle, measured either from the
ground or from the vertical, and the launch goes to the right or (mirrored) to the left: geometric
transformations that change what the marked angle means. The object and the quantity asked vary with
the context (a kicked ball, a thrown stone, a water jet, a cannonball). g is 9.8 or 10 m/s^2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Arc, FancyArrowPatch

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import fmt_number
from isodyn.modalities.images import render_png

_CONTEXTS = (
    ("A ball is kicked from level ground", "ball"),
    ("A stone is thrown from level ground", "stone"),
    ("Water leaves a garden hose nozzle at ground level", "water"),
    ("A cannonball is fired from level ground", "cannonball"),
    ("An arrow is shot from ground level", "arrow"),
)
_QUANTITIES = {
    "range": ("the horizontal distance from the launch point to where the {obj} lands", "metres"),
    "height": ("the maximum height reached by the {obj}", "metres"),
    "time": ("the time the {obj} spends in the air", "seconds"),
}


def elevation(params: dict) -> int:
    """The launch angle above the horizontal, in degrees."""
    return params["angle"] if params["reference"] == "horizontal" else 90 - params["angle"]


def value_of(params: dict) -> float:
    v, g, th = params["speed"], params["g"], math.radians(elevation(params))
    vy, vx = v * math.sin(th), v * math.cos(th)
    return {"range": 2 * vx * vy / g, "height": vy * vy / (2 * g), "time": 2 * vy / g}[params["quantity"]]


def solution_text(params: dict) -> str:
    v, g, ang, q = params["speed"], params["g"], params["angle"], params["quantity"]
    th = elevation(params)
    steps = []
    if params["reference"] == "vertical":
        steps.append(
            f"The marked {ang}° is measured from the vertical, so the launch angle above the ground is "
            f"90° - {ang}° = {th}°."
        )
    else:
        steps.append(f"The marked angle is measured from the ground: the launch angle is {th}°.")
    vx, vy = v * math.cos(math.radians(th)), v * math.sin(math.radians(th))
    steps.append(
        f"Components: vx = {v} cos {th}° = {vx:.3f} m/s, vy = {v} sin {th}° = {vy:.3f} m/s (g = "
        f"{fmt_number(g)} m/s^2)."
    )
    t = 2 * vy / g
    if q == "time":
        steps.append(f"The height returns to 0 when vy t - g t^2 / 2 = 0, i.e. t = 2 vy / g = {t:.3f} s.")
    elif q == "height":
        steps.append(
            f"At the top the vertical velocity is 0, so H = vy^2 / (2 g) = {vy * vy / (2 * g):.3f} m."
        )
    else:
        steps.append(f"Time of flight t = 2 vy / g = {t:.3f} s; range = vx t = {vx * t:.3f} m.")
    ans = fmt_number(round(value_of(params), 3))
    steps.append(f"Answer: {ans}")
    return "\n".join(steps)


def projectile_png(params: dict) -> bytes:
    v, g, ang = params["speed"], params["g"], params["angle"]
    th = math.radians(elevation(params))
    sign = 1 if params["direction"] == "right" else -1
    rng_ = v * v * math.sin(2 * th) / g
    top = (v * math.sin(th)) ** 2 / (2 * g)
    scale = 1 / max(rng_, 2 * top)  # fit the path into about a unit box
    ts = np.linspace(0, 2 * v * math.sin(th) / g, 200)
    xs = sign * v * math.cos(th) * ts * scale
    ys = (v * math.sin(th) * ts - g * ts**2 / 2) * scale
    title = _CONTEXTS[params["context"]][0]

    def draw(ax: Axes) -> None:
        ax.plot(ground, [0, 0], color="#6b4f2a", linewidth=3)
        ax.plot(xs, ys, linestyle="--", color="0.45", linewidth=1.6)
        length = 0.42
        tip = (sign * length * math.cos(th), length * math.sin(th))
        ax.add_patch(
            FancyArrowPatch(
                (0, 0), tip, arrowstyle="-|>", mutation_scale=20, linewidth=2.4, color="#d62728", zorder=4
            )
        )
        ax.text(
            tip[0] + sign * 0.03, tip[1] + 0.03, f"$v_0$ = {v} m/s", ha="left" if sign > 0 else "right",
            va="bottom", fontsize=12, color="#d62728",
        )  # fmt: skip
        # the marked angle: from the ground (on the launch side) or from the vertical, to the arrow
        arrow_deg = math.degrees(th) if sign > 0 else 180 - math.degrees(th)
        if params["reference"] == "horizontal":
            ref_deg = 0.0 if sign > 0 else 180.0
        else:
            ref_deg = 90.0
            ax.plot([0, 0], [0, 0.5], linestyle=":", color="black", linewidth=1.4)
        lo, hi = sorted((arrow_deg, ref_deg))
        ax.add_patch(Arc((0, 0), 0.36, 0.36, theta1=lo, theta2=hi, color="black", linewidth=1.4))
        mid = math.radians((lo + hi) / 2)
        ax.text(0.3 * math.cos(mid), 0.3 * math.sin(mid), f"{ang}°", ha="center", va="center", fontsize=12)
        ax.plot([0], [0], marker="o", color="black", markersize=5)
        ax.text(
            0.98 if sign > 0 else 0.02, 0.97, f"g = {fmt_number(g)} m/s²", transform=ax.transAxes,
            ha="right" if sign > 0 else "left", va="top", fontsize=11,
        )  # fmt: skip
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(title, fontsize=12)

    ground = [min(0, sign * rng_ * scale) - 0.15, max(0, sign * rng_ * scale) + 0.15]
    xlim = (min(ground) - 0.3, max(ground) + 0.3)
    ylim = (-0.06, max(float(ys.max()), 0.55) + 0.12)
    height = 5.5 * (ylim[1] - ylim[0]) / (xlim[1] - xlim[0]) + 0.5  # equal aspect without empty bands
    return render_png(draw, size=(5.5, max(2.4, height)))


class ProjectileMotion(SeedProgram):
    seed_id = "dynamath_projectile_motion"
    topic = Topic.SCIENTIFIC_FIGURE
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.REAL_LIFE_CONTEXT,
    )
    param_variation = {
        "context": VariationType.REAL_LIFE_CONTEXT,
        "speed": VariationType.NUMERICAL_VALUE,
        "angle": VariationType.NUMERICAL_VALUE,
        "g": VariationType.NUMERICAL_VALUE,
        "reference": VariationType.GEOMETRIC_TRANSFORMATION,
        "direction": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 5 contexts x 26 speeds x 11 angles x 2 references x 2 directions x 3 quantities x 2 g
    variant_space = 5 * 26 * 11 * 2 * 2 * 3 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        ctx = int(rng.integers(len(_CONTEXTS)))
        angle = int(rng.choice([20, 25, 30, 35, 40, 50, 55, 60, 65, 70]))
        params: dict[str, Any] = {
            "context": ctx,
            "speed": int(rng.integers(5, 31)),
            "angle": angle,
            "reference": "horizontal" if rng.random() < 0.5 else "vertical",
            "direction": "right" if rng.random() < 0.5 else "left",
            "quantity": str(rng.choice(list(_QUANTITIES))),
            "g": 9.8 if rng.random() < 0.5 else 10,
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # noop only: a ball kicked at 300 or 30 000 m/s is no longer the same problem (nor level ground)
    perturbations = frozenset({"noop"})
    truth_reads = ("speed", "angle", "reference", "quantity", "g")

    def redraw(self, params: dict[str, Any]) -> Draw:
        obj = _CONTEXTS[params["context"]][1]
        what, unit = _QUANTITIES[params["quantity"]]
        question = f"Ignoring air resistance, what is {what.format(obj=obj)}, in {unit}?"
        return Draw(params, question, fmt_number(round(value_of(params), 3)), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        obj = _CONTEXTS[params["context"]][1]
        k = int(rng.integers(2, 10))
        said = (
            f"The {obj} was launched at {k} o'clock in the afternoon.",
            f"The launch was filmed by {k} people standing nearby.",
            f"It was {k + 12} degrees Celsius and sunny that afternoon.",
            f"The {obj} is painted {('red', 'white', 'yellow', 'green')[k % 4]}.",
            f"The same launch was repeated {k} times and looked the same each time.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        intro = _CONTEXTS[p["context"]][0]
        if modality is Modality.IMAGE:
            text = (
                f"The image shows the launch: {intro.lower()}. The red arrow is the launch velocity, "
                "the marked "
                f"angle gives its direction, and the dashed curve sketches the path.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=projectile_png(p))
        if modality is Modality.LATEX:
            ref = "above the horizontal ground" if p["reference"] == "horizontal" else "from the vertical"
            latex = (
                f"{intro}, moving to the {p['direction']}, with initial speed $v_0 = "
                f"{p['speed']}\\,\\text{{m/s}}$ "
                f"at an angle of ${p['angle']}^\\circ$ {ref}. Take $g = "
                f"{fmt_number(p['g'])}\\,\\text{{m/s}}^2$."
            )
            text = f"{latex}\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": latex})
        raise AssertionError(f"unhandled modality {modality}")
