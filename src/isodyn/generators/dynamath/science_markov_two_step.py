"""Scientific figure: a two-step transition probability read from a Markov chain's state diagram.

Three states on a triangle; every transition with non-zero probability is a labelled arrow (opposite
directions curve to opposite sides, self-loops point away from the centre). Which transitions exist
changes between variants (graph structure), as do the probabilities (multiples of 0.1, each row
summing to 1) and the arrangement of the states. The truth is the (i, j) entry of P squared.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyArrowPatch
from matplotlib.path import Path
from matplotlib.transforms import Affine2D

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import fmt_number
from isodyn.modalities.images import render_png

_NODE_R = 0.3
_RAD = 0.22  # curvature of arrows between two states


def probs(params: dict) -> list[list[Fraction]]:
    return [[Fraction(x, 10) for x in row] for row in params["tenths"]]


def solution_text(params: dict) -> str:
    names, (i, j) = params["states"], params["query"]
    p = probs(params)
    terms = [(k, p[i][k] * p[k][j]) for k in range(3)]
    steps = [
        f"To be in {names[j]} two steps after {names[i]}, the chain goes {names[i]} -> k -> {names[j]} for "
        f"some middle state k, so P = sum over k of P({names[i]} -> k) x P(k -> {names[j]}).",
    ]
    for k, val in terms:
        a, b = p[i][k], p[k][j]
        steps.append(
            f"Via {names[k]}: {fmt_number(a)} x {fmt_number(b)} = {fmt_number(val)}"
            + (" (a missing arrow has probability 0)" if a == 0 or b == 0 else "")
            + "."
        )
    total = sum(v for _, v in terms)
    steps.append(f"Adding: {' + '.join(fmt_number(v) for _, v in terms)} = {fmt_number(total)}.")
    steps.append(f"Answer: {fmt_number(total)}")
    return "\n".join(steps)


def _positions(params: dict) -> list[tuple[float, float]]:
    """Triangle corners (apex up or down); state params['order'][c] sits at corner c."""
    up = params["apex_up"]
    corners = [(0.0, 1.1), (-1.4, -0.7), (1.4, -0.7)]
    if not up:
        corners = [(x, -y + 0.4) for x, y in corners]
    pos: list[tuple[float, float]] = [(0.0, 0.0)] * 3
    for c, s in enumerate(params["order"]):
        pos[s] = corners[c]
    return pos


def diagram_png(params: dict) -> bytes:
    names, p = params["states"], params["tenths"]
    pos = _positions(params)
    cx = sum(x for x, _ in pos) / 3
    cy = sum(y for _, y in pos) / 3

    def label(ax: Axes, x: float, y: float, value: int) -> None:
        ax.text(
            x, y, f"{value / 10:.1f}", ha="center", va="center", fontsize=12, zorder=6,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
        )  # fmt: skip

    def draw(ax: Axes) -> None:
        circles = []
        for s in range(3):
            c = Circle(pos[s], _NODE_R, facecolor="#c6dbef", edgecolor="black", linewidth=1.6, zorder=4)
            ax.add_patch(c)
            circles.append(c)
            ax.text(*pos[s], names[s], ha="center", va="center", fontsize=15, fontweight="bold", zorder=5)
        for a in range(3):
            for b in range(3):
                if p[a][b] == 0:
                    continue
                (x0, y0), (x1, y1) = pos[a], pos[b]
                if a == b:  # self-loop on the far side from the centre
                    ux, uy = x0 - cx, y0 - cy
                    norm = math.hypot(ux, uy)
                    ux, uy = ux / norm, uy / norm
                    r, d = 0.24, _NODE_R + 0.05  # loop radius; loop centre's distance from the node centre
                    lx, ly = x0 + ux * d, y0 + uy * d
                    # the loop meets the node circle at +-alpha from the direction back to the node centre
                    alpha = math.degrees(math.acos((d * d + r * r - _NODE_R**2) / (2 * d * r)))
                    phi = math.degrees(math.atan2(uy, ux))
                    arc = Path.arc(phi - 180 + alpha, phi + 180 - alpha)
                    ax.add_patch(
                        FancyArrowPatch(
                            path=arc.transformed(Affine2D().scale(r).translate(lx, ly)), arrowstyle="-|>",
                            mutation_scale=18, linewidth=1.5, color="black", shrinkA=0, shrinkB=0, zorder=3,
                        )
                    )  # fmt: skip
                    label(ax, lx + ux * (r + 0.17), ly + uy * (r + 0.17), p[a][b])  # just beyond the loop
                    continue
                arrow = FancyArrowPatch(
                    (x0, y0), (x1, y1), connectionstyle=f"arc3,rad={_RAD}", arrowstyle="-|>",
                    mutation_scale=18, linewidth=1.5, color="black", patchA=circles[a], patchB=circles[b],
                    zorder=2,
                )  # fmt: skip
                ax.add_patch(arrow)
                dx, dy = x1 - x0, y1 - y0
                # the label sits on its own curve, at the curve's midpoint: the chord midpoint moved by
                # rad/2 * (dy, -dx) (matplotlib's arc3 control point is rad * (dy, -dx) from it)
                label(ax, (x0 + x1) / 2 + _RAD / 2 * dy, (y0 + y1) / 2 - _RAD / 2 * dx, p[a][b])
        ax.set_xlim(-2.3, 2.3)
        ax.set_ylim(-1.75, 2.2)
        ax.set_aspect("equal")
        ax.axis("off")

    return render_png(draw, size=(5.2, 4.5))


def matrix_latex(params: dict) -> str:
    rows = [" & ".join(fmt_number(x) for x in row) for row in probs(params)]
    return "P = \\begin{bmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{bmatrix}"


class MarkovTwoStep(SeedProgram):
    seed_id = "dynamath_markov_two_step"
    topic = Topic.SCIENTIFIC_FIGURE
    level = Level.UNDERGRADUATE
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GRAPH_STRUCTURE)
    param_variation = {"tenths": VariationType.NUMERICAL_VALUE}
    modalities = (Modality.IMAGE, Modality.LATEX)
    # ~(7 supports x ~30 compositions)^3 matrices x 9 queries x 12 arrangements
    variant_space = 200**3 * 9 * 12

    def sample(self, rng: np.random.Generator) -> Draw:
        # letters only: numbered states could be mistaken for the probabilities written beside them
        names = [["A", "B", "C"], ["S", "T", "U"], ["X", "Y", "Z"]][int(rng.choice(3, p=[0.5, 0.25, 0.25]))]
        while True:
            tenths = []
            for _ in range(3):
                size = int(rng.choice([1, 2, 2, 3, 3, 3]))
                support = sorted(int(s) for s in rng.choice(3, size=size, replace=False))
                cuts = sorted(int(c) for c in rng.choice(np.arange(1, 10), size=size - 1, replace=False))
                parts = [b - a for a, b in zip([0, *cuts], [*cuts, 10], strict=True)]
                row = [0, 0, 0]
                for s, x in zip(support, parts, strict=True):
                    row[s] = x
                tenths.append(row)
            i, j = (int(x) for x in rng.integers(3, size=2))
            params = {"states": names, "tenths": tenths, "query": [i, j]}
            p = probs(params)
            value = sum(p[i][k] * p[k][j] for k in range(3))
            # a non-zero answer that needs at least two paths, so it is not one product off the picture
            if value > 0 and sum(p[i][k] * p[k][j] > 0 for k in range(3)) >= 2:
                break
        params["order"] = [int(x) for x in rng.permutation(3)]
        params["apex_up"] = bool(rng.random() < 0.5)
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # noop only: the numbers are probabilities, which do not scale
    perturbations = frozenset({"noop"})
    truth_reads = ("tenths", "query")

    def redraw(self, params: dict[str, Any]) -> Draw:
        names, (i, j) = params["states"], params["query"]
        p = probs(params)
        value = sum(p[i][k] * p[k][j] for k in range(3))
        question = (
            f"The chain starts in state {names[i]}. What is the probability that it is in state {names[j]} "
            f"after exactly two steps?"
        )
        return Draw(params, question, fmt_number(value), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        names = params["states"]
        name = names[int(rng.integers(3))]
        k = int(rng.integers(2, 20))
        said = (
            f"The transition probabilities were estimated from {k * 10} days of records.",
            f"The chain was simulated {k} times on a computer to check the diagram.",
            f"State {name} was the first state added to the model.",
            f"The model was built by a team of {k} students.",
            f"Each step of the chain stands for {k} minutes.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        names = p["states"]
        if modality is Modality.IMAGE:
            text = (
                f"The image shows the state diagram of a Markov chain with states {', '.join(names)}. The "
                f"number on the arrow from one state to another (or on a loop) is the probability of that "
                f"transition in one step; a missing arrow means probability 0.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=diagram_png(p))
        if modality is Modality.LATEX:
            matrix = matrix_latex(p)
            text = (
                f"A Markov chain has states {', '.join(names)} and one-step transition matrix $P$, where "
                f"$P_{{ij}}$ is the probability of moving from state $i$ to state $j$; rows and "
                f"columns are in "
                f"the order {', '.join(names)}.\n\n$$\n{matrix}\n$$\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": matrix})
        raise AssertionError(f"unhandled modality {modality}")
