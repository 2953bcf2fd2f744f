"""A geometric sequence drawn as a labelled bar chart: find a later term or a partial sum.

The first four (or five) terms a_1, a_2, ... are bars with their values printed on them; the ratio
may be a whole number, a fraction (1/2, 3/2) or negative, so bars can alternate below the axis. The
chart is drawn with vertical or horizontal bars (geometric transformation) in one of several colours
(colour variation, named in the question).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.formatting import fmt_num
from isodyn.modalities.palette import COLOR_NAMES, PALETTE

# (ratio, possible first terms): first terms chosen so the shown bars are whole numbers.
RATIOS: tuple[tuple[Fraction, tuple[int, ...]], ...] = (
    (Fraction(2), (1, 2, 3, 5)),
    (Fraction(3), (1, 2, 4)),
    (Fraction(-2), (1, 2, 3)),
    (Fraction(1, 2), (32, 48, 64, 80, 96)),
    (Fraction(-1, 2), (32, 64, 96)),
    (Fraction(3, 2), (8, 16, 24)),
    (Fraction(-3), (1, 2)),
    (Fraction(1, 4), (256, 512)),
)


def terms(first: int, ratio: Fraction, n: int) -> list[Fraction]:
    return [Fraction(first) * ratio**k for k in range(n)]


def solution_text(p: dict) -> str:
    first, ratio = Fraction(p["first"]), Fraction(p["ratio"])
    shown = terms(p["first"], ratio, p["shown"])
    steps = [
        f"The bars show $a_1, \\dots, a_{{{p['shown']}}}$ = {', '.join(fmt_num(t) for t in shown)}.",
        f"The ratio of consecutive terms is constant: $a_2 / a_1 = {fmt_num(shown[1])} / {fmt_num(shown[0])} "
        f"= {fmt_num(ratio)}$ (and the same for the other pairs), so $r = {fmt_num(ratio)}$ and $a_n = "
        f"{fmt_num(first)} \\cdot ({fmt_num(ratio)})^{{n-1}}$.",
    ]
    n = p["n"]
    if p["ask"] == "term":
        value = first * ratio ** (n - 1)
        steps.append(
            f"Then $a_{{{n}}} = {fmt_num(first)} \\cdot ({fmt_num(ratio)})^{{{n - 1}}} = {fmt_num(value)}$."
        )
    else:
        value = sum(terms(p["first"], ratio, n), Fraction(0))
        steps.append(
            f"The sum of the first {n} terms is $S_{{{n}}} = a_1 \\frac{{1 - r^{{{n}}}}}{{1 - r}} = "
            f"{fmt_num(first)} \\cdot \\frac{{1 - ({fmt_num(ratio)})^{{{n}}}}}{{1 - ({fmt_num(ratio)})}} = "
            f"{fmt_num(value)}$."
        )
        steps.append(
            "Check by adding the terms: "
            + " + ".join(fmt_num(t) for t in terms(p["first"], ratio, n)).replace("+ -", "- ")
            + f" = {fmt_num(value)}."
        )
    steps.append(f"Answer: {fmt_num(value)}")
    return "\n".join(steps)


class GeometricBars(SeedProgram):
    seed_id = "dynamath_geometric_bars"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.COLOR,
    )
    param_variation = {
        "first": VariationType.NUMERICAL_VALUE,
        "ratio": VariationType.NUMERICAL_VALUE,
        "shown": VariationType.NUMERICAL_VALUE,
        "n": VariationType.NUMERICAL_VALUE,
        "orientation": VariationType.GEOMETRIC_TRANSFORMATION,
        "color": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # (ratio, first) pairs x shown 4/5 x asked term/sum x n x orientation x colour
    variant_space = 26 * 2 * 2 * 4 * 2 * 6

    def sample(self, rng: np.random.Generator) -> Draw:
        ratio, firsts = RATIOS[int(rng.integers(len(RATIOS)))]
        first = int(rng.choice(firsts))
        if rng.random() < 0.3:
            first = -first  # a sequence of negative terms: all bars below the axis
        shown = int(rng.choice([4, 5]))
        ask = "term" if rng.random() < 0.6 else "sum"
        n = (
            int(rng.integers(shown + 2, shown + 5))
            if ask == "term"
            else int(rng.integers(shown + 1, shown + 4))
        )
        orientation = "vertical" if rng.random() < 0.6 else "horizontal"
        color = str(rng.choice(COLOR_NAMES))
        params = {
            "first": first,
            "ratio": str(ratio),
            "shown": shown,
            "ask": ask,
            "n": n,
            "orientation": orientation,
            "color": color,
            "values": [fmt_num(t) for t in terms(first, ratio, shown)],
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("first", "ratio", "ask", "n")

    def redraw(self, params: dict[str, Any]) -> Draw:
        first, ratio, n = params["first"], Fraction(params["ratio"]), params["n"]
        ask = params["ask"]
        value = first * ratio ** (n - 1) if ask == "term" else sum(terms(first, ratio, n), Fraction(0))
        target = (
            f"the {n}th term $a_{{{n}}}$"
            if ask == "term"
            else f"the sum of the first {n} terms, $a_1 + \\dots + a_{{{n}}}$"
        )
        question = (
            f"The {params['color']} bars show the first {params['shown']} terms $a_1, a_2, \\dots$ of a "
            f"geometric sequence. What is {target}?"
        )
        return Draw(params=params, question=question, answer=fmt_num(value), solution=solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        color, shown = params["color"], params["shown"]
        k = int(rng.integers(2, 12))
        said = (
            f"The {color} colour of the bars was picked so the chart reads well on a projector.",
            f"The same sequence comes back in exercise {k} of the chapter on sequences.",
            f"A student spotted the common ratio after looking at the chart for {k} seconds.",
            f"Another geometric sequence on the same worksheet starts with {k}, but it is not the one shown.",
            f"The chart shows only {shown} bars because the page had room for no more.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # The first term times factor multiplies every term (and the asked term or sum) by factor.
        first = params["first"] * factor
        values = [fmt_num(t) for t in terms(first, Fraction(params["ratio"]), params["shown"])]
        return {**params, "first": first, "values": values}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(Fraction(v)) for v in params["values"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        vals = [float(Fraction(v)) for v in p["values"]]
        if modality is Modality.IMAGE:
            hexc = PALETTE[p["color"]]
            labels = [f"$a_{{{k + 1}}}$" for k in range(len(vals))]
            top, bottom = max(max(vals), 0), min(min(vals), 0)
            pad = 0.16 * (top - bottom)

            def draw(ax: Axes) -> None:
                pos = np.arange(len(vals))
                for spine in ("top", "right"):
                    ax.spines[spine].set_visible(False)
                if p["orientation"] == "vertical":
                    ax.bar(pos, vals, color=hexc, edgecolor="black", width=0.6)
                    ax.axhline(0, color="black", lw=1)
                    ax.set_xticks(pos, labels, fontsize=13)
                    ax.set_ylim(bottom - (pad if bottom < 0 else 0), top + (pad if top > 0 else 0))
                    for x, (v, s) in enumerate(zip(vals, p["values"], strict=True)):
                        ax.annotate(  # a few points clear of the bar's end, never on its edge
                            s,
                            (x, v),
                            xytext=(0, 4 if v >= 0 else -4),
                            textcoords="offset points",
                            ha="center",
                            va="bottom" if v >= 0 else "top",
                            fontsize=12,
                            fontweight="bold",
                        )
                    ax.tick_params(axis="y", labelsize=10)
                    ax.spines["bottom"].set_visible(False)
                    ax.tick_params(axis="x", length=0)
                else:
                    ax.barh(pos, vals, color=hexc, edgecolor="black", height=0.6)
                    ax.axvline(0, color="black", lw=1)
                    ax.set_yticks(pos, labels, fontsize=13)
                    ax.invert_yaxis()
                    ax.set_xlim(bottom - (pad if bottom < 0 else 0), top + (pad if top > 0 else 0))
                    for y, (v, s) in enumerate(zip(vals, p["values"], strict=True)):
                        ax.annotate(
                            s,
                            (v, y),
                            xytext=(5 if v >= 0 else -5, 0),
                            textcoords="offset points",
                            ha="left" if v >= 0 else "right",
                            va="center",
                            fontsize=12,
                            fontweight="bold",
                        )
                    ax.tick_params(axis="x", labelsize=10)
                    ax.spines["left"].set_visible(False)
                    ax.tick_params(axis="y", length=0)
                ax.set_title("Terms of a geometric sequence", fontsize=12)

            image = png(draw, size=(5.5, 4.2))
            text = (
                f"The image shows a bar chart of the first {p['shown']} terms of a sequence; each "
                f"{p['color']} bar is labelled with its value.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            listed = ", \\quad ".join(f"a_{{{k + 1}}} = {v}" for k, v in enumerate(p["values"]))
            text = (
                f"A bar chart with {p['color']} bars shows the first {p['shown']} terms of a sequence:\n\n$$ "
                f"{listed} $$\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")
