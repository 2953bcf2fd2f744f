"""Statistics: which category of a bar chart is the largest (or the smallest)?

Real-life contexts (books read, ice cream sold, rainfall, votes, museum visitors), 4 to 6 bars drawn
vertically or horizontally (a geometric transformation), and the question asks for the maximum or
the minimum. The extreme bar is unique and at least 2 units clear of the runner-up, so there is no
tie to argue about; the options are the categories in chart order, so the answer letter varies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.formatting import code_block, latex_table
from isodyn.modalities.palette import CHART_COLORS
from isodyn.modalities.stat_charts import bar_chart_png

_NAMES = ("Ana", "Ben", "Chloe", "Dev", "Ella", "Finn", "Gita", "Hugo")
_FLAVOURS = ("Mint", "Lemon", "Mango", "Cherry", "Vanilla", "Coffee", "Peach")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_ANIMALS = ("Owl", "Fox", "Bear", "Panda", "Tiger", "Otter", "Eagle")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

# title, category axis, value axis, pool, ordered pool?, max question, min question, value range
_CONTEXTS = (
    ("Books read in March", "Student", "Books read", _NAMES, False,
     "Which student read the most books?", "Which student read the fewest books?", (1, 20)),
    ("Ice cream cones sold on Saturday", "Flavour", "Cones sold", _FLAVOURS, False,
     "Which flavour sold the most cones?", "Which flavour sold the fewest cones?", (5, 60)),
    ("Monthly rainfall", "Month", "Rainfall (mm)", _MONTHS, True,
     "Which month had the most rainfall?", "Which month had the least rainfall?", (10, 120)),
    ("Votes for the class mascot", "Animal", "Votes", _ANIMALS, False,
     "Which animal got the most votes?", "Which animal got the fewest votes?", (1, 25)),
    ("Visitors to the science museum", "Day", "Visitors", _DAYS, True,
     "On which day did the museum have the most visitors?",
     "On which day did the museum have the fewest visitors?", (40, 300)),
)  # fmt: skip


def solution_text(params: dict, choices: tuple[str, ...]) -> str:
    cats, vals, kind = params["categories"], params["values"], params["kind"]
    pick = (max if kind == "max" else min)(range(len(vals)), key=vals.__getitem__)
    reading = ", ".join(f"{c}: {v}" for c, v in zip(cats, vals, strict=True))
    word = "longest" if kind == "max" else "shortest"
    steps = [
        f"Read the value of each bar: {reading}.",
        f"The {word} bar is {cats[pick]} with {vals[pick]}; every other bar is "
        f"{'smaller' if kind == 'max' else 'larger'}.",
        f"Answer: ({letter(pick)}) {choices[pick]}.",
    ]
    return "\n".join(steps)


class BarExtreme(SeedProgram):
    seed_id = "dynamath_bar_extreme"
    topic = Topic.STATISTICS
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.REAL_LIFE_CONTEXT,
    )
    param_variation = {
        "context": VariationType.REAL_LIFE_CONTEXT,
        "categories": VariationType.REAL_LIFE_CONTEXT,
        "values": VariationType.NUMERICAL_VALUE,
        "horizontal": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # 5 contexts x ~100 category lists x ~20^5 value lists x 2 orientations x max/min
    variant_space = 10**8

    def sample(self, rng: np.random.Generator) -> Draw:
        ctx = int(rng.integers(len(_CONTEXTS)))
        title, _, _, pool, ordered, _, _, (lo, hi) = _CONTEXTS[ctx]
        k = int(rng.integers(4, 7))
        if ordered:  # months / days stay in calendar order
            start = int(rng.integers(len(pool) - k + 1))
            cats = list(pool[start : start + k])
        else:
            cats = [pool[i] for i in sorted(rng.choice(len(pool), size=k, replace=False))]
        kind = "max" if rng.random() < 0.6 else "min"
        while True:
            vals = [int(v) for v in rng.integers(lo, hi + 1, size=k)]
            ranked = sorted(vals, reverse=kind == "max")
            if abs(ranked[0] - ranked[1]) >= 2:
                break
        params = {
            "context": ctx,
            "title": title,
            "categories": cats,
            "values": vals,
            "kind": kind,
            "horizontal": bool(rng.random() < 0.5),
            "color": str(rng.choice(list(CHART_COLORS))),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("categories", "values", "kind", "context")

    def redraw(self, params: dict[str, Any]) -> Draw:
        _, _, _, _, _, q_max, q_min, _ = _CONTEXTS[params["context"]]
        vals, kind = params["values"], params["kind"]
        choices = tuple(params["categories"])
        pick = (max if kind == "max" else min)(range(len(vals)), key=vals.__getitem__)
        question = f"{q_max if kind == 'max' else q_min} " + format_choices(choices)
        return Draw(params, question, letter(pick), solution_text(params, choices), choices)

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        _, cat_label, val_label, *_ = _CONTEXTS[params["context"]]
        cats = params["categories"]
        cat = cats[int(rng.integers(len(cats)))]
        k = int(rng.integers(2, 13))
        said = (
            f'The chart "{params["title"]}" was put on the notice board {k} days after the count.',
            f"The {cat_label.lower()} {cat} is shown in the chart's usual colour, like all the others.",
            f"The same kind of chart was also made {k} years ago.",
            f"The {val_label.lower()} were counted by a team of {k} volunteers.",
            f"The figure for {cat} was checked twice before the chart was printed.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        return {**params, "values": [v * factor for v in params["values"]]}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for v in params["values"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        _, cat_label, val_label, *_ = _CONTEXTS[p["context"]]
        cats, vals = p["categories"], p["values"]
        if modality is Modality.IMAGE:
            png = bar_chart_png(
                cats,
                vals,
                horizontal=p["horizontal"],
                color=CHART_COLORS[p["color"]],
                title=p["title"],
                category_label=cat_label,
                value_label=val_label,
            )
            text = f"The image shows a bar chart: {p['title'].lower()}.\n\n{variant.question}"
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            table = latex_table([cat_label, val_label], list(zip(cats, vals, strict=True)))
            text = f"{p['title']}:\n\n{table}\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.CODE:
            items = ", ".join(f'"{c}": {v}' for c, v in zip(cats, vals, strict=True))
            code = f"# {p['title']} ({val_label.lower()} per {cat_label.lower()})\ndata = {{{items}}}\n"
            text = f"{code_block(code)}\n\n{variant.question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
