"""Statistics: the median of data shown as a dot plot (one dot per observation).

Contexts change what is counted (pets, goals, books, siblings, hours of sleep) and the value range;
between 9 and 25 observations, so the median is sometimes one value and sometimes the mean of two.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import fmt_number, latex_table
from isodyn.modalities.stat_charts import dot_plot_png

# title, axis label, question noun, who, singular/plural unit for the story, value range
_CONTEXTS = (
    ("Number of pets owned by students", "Number of pets", "number of pets", "students", ("pet", "pets"),
     (0, 5)),
    ("Goals scored per match this season", "Goals in a match", "number of goals", "matches",
     ("goal", "goals"), (0, 6)),
    ("Books read over the holidays", "Books read", "number of books read", "children", ("book", "books"),
     (1, 8)),
    ("Siblings of each student in a class", "Number of siblings", "number of siblings", "students",
     ("sibling", "siblings"), (0, 4)),
    ("Hours of sleep last night", "Hours of sleep", "number of hours of sleep", "people", ("hour", "hours"),
     (5, 10)),
)  # fmt: skip


def data_of(params: dict) -> list[int]:
    return [v for v, f in zip(params["values"], params["freqs"], strict=True) for _ in range(f)]


def median_of(params: dict) -> Fraction:
    data = data_of(params)
    n = len(data)
    return Fraction(data[n // 2]) if n % 2 else Fraction(data[n // 2 - 1] + data[n // 2], 2)


def solution_text(params: dict) -> str:
    data = data_of(params)
    n = len(data)
    counts = ", ".join(f"{v}: {f}" for v, f in zip(params["values"], params["freqs"], strict=True))
    steps = [
        f"Count the dots above each value: {counts}. In total there are {n} observations.",
        f"In order, the data are {', '.join(map(str, data))}.",
    ]
    if n % 2:
        steps.append(f"{n} is odd, so the median is the {n // 2 + 1}th value: {data[n // 2]}.")
    else:
        a, b = data[n // 2 - 1], data[n // 2]
        steps.append(
            f"{n} is even, so the median is the mean of the {n // 2}th and {n // 2 + 1}th values: "
            f"({a} + {b}) / 2 = {fmt_number(Fraction(a + b, 2))}."
        )
    steps.append(f"Answer: {fmt_number(median_of(params))}")
    return "\n".join(steps)


class DotPlotMedian(SeedProgram):
    seed_id = "dynamath_dot_plot_median"
    topic = Topic.STATISTICS
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.REAL_LIFE_CONTEXT)
    param_variation = {
        "context": VariationType.REAL_LIFE_CONTEXT,
        "freqs": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    # 5 contexts x 8^(5..8) frequency lists (kept to totals of 9-25)
    variant_space = 5 * 10**5

    def sample(self, rng: np.random.Generator) -> Draw:
        ctx = int(rng.integers(len(_CONTEXTS)))
        _, _, _, _, _, (lo, hi) = _CONTEXTS[ctx]
        values = list(range(lo, hi + 1))
        while True:
            freqs = [int(f) for f in rng.integers(0, 8, size=len(values))]
            if 9 <= sum(freqs) <= 25 and sum(f > 0 for f in freqs) >= 4:
                break
        params = {"context": ctx, "values": values, "freqs": freqs}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # noop only: the values are small counts (pets, goals, siblings) that do not scale meaningfully
    perturbations = frozenset({"noop"})
    truth_reads = ("values", "freqs")

    def redraw(self, params: dict[str, Any]) -> Draw:
        noun = _CONTEXTS[params["context"]][2]
        question = f"What is the median {noun}?"
        return Draw(params, question, fmt_number(median_of(params)), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        _, _, _, who, (_, many), _ = _CONTEXTS[params["context"]]
        k = int(rng.integers(2, 12))
        day = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")[int(rng.integers(5))]
        said = (
            f"The {who} were asked on a {day}.",
            f"The survey of the {who} took {k} minutes in all.",
            f"The dot plot was printed in the school newsletter {k} days later.",
            f"The {who} were asked about their {many} by {k} helpers.",
            f"The results were shared with the {who} {k} days later.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        title, axis, _, who, (one, many), _ = _CONTEXTS[p["context"]]
        n = sum(p["freqs"])
        if modality is Modality.IMAGE:
            png = dot_plot_png(p["values"], p["freqs"], axis, title)
            text = (
                f"The image shows a dot plot: {title.lower()}. Each dot stands for one of the {n} {who}.\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            table = latex_table([axis, f"Frequency ({who})"], list(zip(p["values"], p["freqs"], strict=True)))
            text = f"{title} ({n} {who}), as a frequency table:\n\n{table}\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.STORY:
            parts = [
                f"{f} with {v} {one if v == 1 else many}"
                for v, f in zip(p["values"], p["freqs"], strict=True)
                if f
            ]
            zero = [str(v) for v, f in zip(p["values"], p["freqs"], strict=True) if not f]
            story = f"{title}: a survey of {n} {who} found " + "; ".join(parts) + "."
            if zero:
                story += f" None had {' or '.join(zero)} {many}."
            text = f"{story}\n\n{variant.question}"
            return Representation(modality, text, extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
