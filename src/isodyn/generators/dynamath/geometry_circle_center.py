"""The centre of a circle: read from its graph, or (in text) found by completing the square.

A circle with whole-number centre and radius is drawn on a grid (the centre is not marked). The text
form gives the same circle in general form x^2 + y^2 + Dx + Ey + F = 0. Geometric transformation: the
circle moves and grows or shrinks. The answer is the coordinate pair (h, k).
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.coordinate_grid import grid_png
from isodyn.modalities.geometry import COLORS

XLIM, YLIM = (-7.5, 7.5), (-6.0, 6.0)


def _signed(coef: int, var: str) -> str:
    if coef == 0:
        return ""
    body = var if abs(coef) == 1 else f"{abs(coef)}{var}"
    if not var:
        body = str(abs(coef))
    return f" - {body}" if coef < 0 else f" + {body}"


def general_form(h: int, k: int, r: int) -> str:
    """x^2 + y^2 + Dx + Ey + F = 0 in LaTeX."""
    d, e, f = -2 * h, -2 * k, h * h + k * k - r * r
    return f"x^{{2}} + y^{{2}}{_signed(d, 'x')}{_signed(e, 'y')}{_signed(f, '')} = 0"


def solution_text(p: dict) -> str:
    h, k, r = p["h"], p["k"], p["r"]
    d, e, f = -2 * h, -2 * k, h * h + k * k - r * r
    return "\n".join(
        [
            f"In general form the circle is ${general_form(h, k, r)}$, i.e. D = {d}, E = {e}, F = {f}.",
            "Completing the square: $(x + D/2)^2 + (y + E/2)^2 = D^2/4 + E^2/4 - F$.",
            f"So the centre is (-D/2, -E/2) = ({h}, {k}) and the radius is √({h * h + k * k - f}) = {r}.",
            f"On the graph, the circle reaches from x = {h - r} to x = {h + r} and from y = {k - r} to y = "
            f"{k + r}; "
            f"the midpoints are x = {h} and y = {k}.",
            f"Answer: ({h}, {k})",
        ]
    )


class CircleCenter(SeedProgram):
    seed_id = "dynamath_circle_center"
    topic = Topic.ANALYTIC_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.GEOMETRIC_TRANSFORMATION, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "h": VariationType.GEOMETRIC_TRANSFORMATION,
        "k": VariationType.GEOMETRIC_TRANSFORMATION,
        "r": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # ~70 centres x 4 radii (those that fit)
    variant_space = 70 * 4

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            h, k = int(rng.integers(-5, 6)), int(rng.integers(-4, 5))
            r = int(rng.integers(2, 6))
            if (h, k) != (0, 0) and abs(h) + r <= 7 and abs(k) + r <= 5:
                break
        params = {"h": h, "k": k, "r": r, "answer_format": "a coordinate pair (x, y)"}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("h", "k", "r")

    def redraw(self, params: dict) -> Draw:
        question = "What are the coordinates of the centre of the circle?"
        answer = f"({params['h']}, {params['k']})"
        return Draw(params=params, question=question, answer=answer, solution=solution_text(params))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        said = (
            "The circle was drawn with a compass on graph paper.",
            f"This is exercise {n} on a worksheet about circles.",
            f"A student traced the circle {n} times with a pencil before inking it.",
            "The radius of the circle is a whole number of units.",
            f"The drawing was shown to a class of {n + 20} students.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # The figure keeps its grid; each grid line then stands for `factor` times as much.
        scaled = {key: params[key] * factor for key in ("h", "k", "r")}
        return {**params, **scaled, "grid_unit": params.get("grid_unit", 1) * factor}

    def numbers(self, params: dict) -> tuple[float, ...]:
        return (float(params["h"]), float(params["k"]), float(params["r"]))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            unit = p.get("grid_unit", 1)
            apart = "1 unit" if unit == 1 else f"{unit} units"
            text = (
                f"The image shows a circle drawn on a coordinate grid with lines {apart} apart; its centre "
                "and radius "
                f"are whole numbers.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            eq = general_form(p["h"], p["k"], p["r"])
            text = f"A circle in the coordinate plane has the equation\n\n$$ {eq} $$\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": eq})
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    unit = p.get("grid_unit", 1)

    def draw(ax: Axes) -> None:
        ax.add_patch(
            Circle(
                (p["h"] / unit, p["k"] / unit),
                p["r"] / unit,
                fill=False,
                color=COLORS["blue"],
                lw=2.4,
                zorder=4,
            )
        )

    return grid_png(draw, XLIM, YLIM, unit=unit)
