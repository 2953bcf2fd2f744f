"""Statistics: the interquartile range of one of two box plots, picked by its colour.

Two groups share one value axis; each box is filled with a colour named in the question. All five
summary values sit on labelled ticks (the tick step is 1, 2 or 5), the plots are drawn vertically or
horizontally, and the two IQRs differ, so taking the wrong box gives a wrong answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_table
from isodyn.modalities.palette import CHART_COLORS
from isodyn.modalities.stat_charts import box_plot_png

# title, the two groups, value axis label
_CONTEXTS = (
    ("Test scores of two classes", ("Class A", "Class B"), "Score (points)"),
    ("Commute times", ("Morning", "Evening"), "Time (minutes)"),
    ("Battery life of two phone brands", ("Brand X", "Brand Y"), "Battery life (hours)"),
    ("Daily cups of coffee sold", ("2023", "2024"), "Cups sold"),
    ("Heights of sunflowers", ("Field 1", "Field 2"), "Height (cm)"),
)
_TICKS = 12  # the axis spans 12 steps; the five values sit on steps 1..11
_COLOR_NAMES = ("red", "blue", "green", "orange", "purple", "yellow", "brown")
_LABELS = ("minimum", "first quartile Q1", "median", "third quartile Q3", "maximum")


def solution_text(params: dict) -> str:
    i = params["asked"]
    name, color = params["groups"][i], params["colors"][i]
    mn, q1, med, q3, mx = params["summaries"][i]
    steps = [
        f"The {color} box plot belongs to {name}.",
        f"In a box plot the left and right (or lower and upper) edges of the box are the quartiles. "
        f"Reading the axis: minimum {mn}, Q1 = {q1}, median {med}, Q3 = {q3}, maximum {mx}.",
        f"IQR = Q3 - Q1 = {q3} - {q1} = {q3 - q1}.",
        f"Answer: {q3 - q1}",
    ]
    return "\n".join(steps)


class BoxIqr(SeedProgram):
    seed_id = "dynamath_box_iqr"
    topic = Topic.STATISTICS
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.COLOR,
        VariationType.GEOMETRIC_TRANSFORMATION,
    )
    param_variation = {
        "summaries": VariationType.NUMERICAL_VALUE,
        "step": VariationType.NUMERICAL_VALUE,
        "colors": VariationType.COLOR,
        "horizontal": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 5 contexts x 3 steps x ~20 bases x C(11,5)^2 summaries x 42 colour pairs x 2 orientations x 2 asked
    variant_space = 5 * 3 * 20 * 462 * 462 * 42 * 4

    def sample(self, rng: np.random.Generator) -> Draw:
        ctx = int(rng.integers(len(_CONTEXTS)))
        title, groups, axis = _CONTEXTS[ctx]
        step = int(rng.choice([1, 2, 5]))
        base = step * int(rng.integers(0, 60 // step + 1))
        while True:
            idx = [sorted(int(k) for k in rng.choice(np.arange(1, _TICKS), 5, replace=False)) for _ in groups]
            if idx[0][3] - idx[0][1] != idx[1][3] - idx[1][1]:
                break
        summaries = [[base + step * k for k in ks] for ks in idx]
        colors = [str(c) for c in rng.choice(_COLOR_NAMES, size=2, replace=False)]
        asked = int(rng.integers(2))
        params = {
            "title": title,
            "groups": list(groups),
            "axis": axis,
            "step": step,
            "lo": base,
            "hi": base + step * _TICKS,
            "summaries": summaries,
            "colors": colors,
            "asked": asked,
            "horizontal": bool(rng.random() < 0.5),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("summaries", "colors", "asked")

    def redraw(self, params: dict[str, Any]) -> Draw:
        asked, summaries, colors = params["asked"], params["summaries"], params["colors"]
        q1, q3 = summaries[asked][1], summaries[asked][3]
        question = f"What is the interquartile range (IQR) of the data shown by the {colors[asked]} box plot?"
        return Draw(params, question, str(q3 - q1), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        groups, colors = params["groups"], params["colors"]
        i = int(rng.integers(2))
        k = int(rng.integers(12, 41))
        said = (
            f"Both groups, {groups[0]} and {groups[1]}, were measured in the same week.",
            f"The data for {groups[i]} were collected by {k // 4} different helpers.",
            f"The {colors[i]} colour was picked for {groups[i]} at random.",
            f"The {colors[1 - i]} box plot was the last one added to the chart.",
            f"Each group has {k} observations in total.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # the axis, its ticks and every summary value scale together, so each still sits on a tick
        summaries = [[x * factor for x in s] for s in params["summaries"]]
        return {
            **params,
            "summaries": summaries,
            "lo": params["lo"] * factor,
            "hi": params["hi"] * factor,
            "step": params["step"] * factor,
        }

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(x) for s in params["summaries"] for x in s)

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # other groups' names, sometimes one that suggests the spread ("Narrow", "Wide") is elsewhere
        pool = [g for _, groups, _ in _CONTEXTS for g in groups if g not in params["groups"]]
        pool += ["Wide range", "Narrow range", "Spread out", "Consistent"]
        names = [str(x) for x in rng.choice(pool, size=2, replace=False)]
        return {**params, "groups": names}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            png = box_plot_png(
                p["groups"],
                [CHART_COLORS[c] for c in p["colors"]],
                p["summaries"],
                horizontal=p["horizontal"],
                axis_label=p["axis"],
                lo=p["lo"],
                hi=p["hi"],
                step=p["step"],
                title=p["title"],
            )
            names = " and ".join(f"{g} ({c})" for g, c in zip(p["groups"], p["colors"], strict=True))
            text = (
                f"The image shows two box plots on one axis ({p['axis']}): {names}. Whiskers reach the "
                f"minimum and maximum.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            rows = [(g, c, *s) for g, c, s in zip(p["groups"], p["colors"], p["summaries"], strict=True)]
            table = latex_table(["Group", "Box colour", "Min", "$Q_1$", "Median", "$Q_3$", "Max"], rows)
            text = (
                f"{p['title']}: two box plots on one axis ({p['axis']}) are given by their five-number "
                f"summaries ({', '.join(_LABELS)}):\n\n{table}\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        raise AssertionError(f"unhandled modality {modality}")
