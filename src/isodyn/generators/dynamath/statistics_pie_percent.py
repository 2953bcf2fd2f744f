"""Statistics: what percentage of the whole is the sector of a given colour in a pie chart?

Each sector shows its count and a legend names the categories; the question picks the sector by its
colour (colours change between variants). Totals are chosen so that every percentage is exact with at
most two decimals, and every sector is at least 6% of the pie, so its count fits inside it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.circle_charts import pie_png
from isodyn.modalities.formatting import fmt_number, latex_table
from isodyn.modalities.palette import CHART_COLORS

# title (with {total}), count noun, categories, unit of a count, possible totals
_CONTEXTS = (
    ("Favourite sports of {total} students", "students",
     ("Soccer", "Basketball", "Tennis", "Swimming", "Volleyball", "Running"), 1, (20, 25, 40, 50, 80, 100)),
    ("How {total} people travel to work", "people", ("Car", "Bus", "Bike", "Train", "Walk", "Tram"), 1,
     (40, 50, 80, 100, 200)),
    ("Fruit sold at a market stall ({total} kg)", "kg",
     ("Apples", "Bananas", "Oranges", "Pears", "Grapes", "Plums"), 1, (40, 50, 80, 100, 200)),
    ("A family's monthly budget (${total})", "dollars",
     ("Rent", "Food", "Transport", "Savings", "Leisure", "Bills"), 50, (2000, 2500, 4000, 5000)),
)  # fmt: skip
_COLOR_NAMES = ("red", "blue", "green", "orange", "purple", "yellow", "brown", "gray")


def percent(count: int, total: int) -> Fraction:
    return Fraction(100 * count, total)


def solution_text(params: dict) -> str:
    counts, colors, cats = params["counts"], params["colors"], params["categories"]
    i = params["asked"]
    total = sum(counts)
    steps = [
        f"The {colors[i]} sector is {cats[i]}, with a count of {counts[i]}.",
        f"The whole pie is the sum of all sectors: {' + '.join(map(str, counts))} = {total}.",
        f"Percentage = {counts[i]} / {total} x 100% = {fmt_number(percent(counts[i], total))}%.",
        f"Answer: {fmt_number(percent(counts[i], total))}",
    ]
    return "\n".join(steps)


class PiePercent(SeedProgram):
    seed_id = "dynamath_pie_percent"
    topic = Topic.STATISTICS
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.COLOR, VariationType.REAL_LIFE_CONTEXT)
    param_variation = {
        "context": VariationType.REAL_LIFE_CONTEXT,
        "categories": VariationType.REAL_LIFE_CONTEXT,
        "counts": VariationType.NUMERICAL_VALUE,
        "colors": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 4 contexts x ~5 totals x ~10^4 compositions x 8P5 colourings x 5 asked sectors
    variant_space = 4 * 5 * 10**4 * 6720 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        ctx = int(rng.integers(len(_CONTEXTS)))
        title, _, pool, unit, totals = _CONTEXTS[ctx]
        total = int(rng.choice(totals))
        k = int(rng.integers(4, 7))
        units = total // unit
        floor = -(-units * 6 // 100)  # every sector at least 6% of the pie
        # k - 1 different sizes need 0 + 1 + ... + (k - 2) units above the floors: 20 units fit only 5
        # sectors (with 6, the loop below could never end)
        while (k - 1) * (k - 2) // 2 > units - k * floor:
            k -= 1
        while True:
            weights = rng.dirichlet(np.full(k, 2.0))
            parts = [floor + int(x) for x in np.floor(weights * (units - k * floor))]
            parts[int(np.argmax(weights))] += units - sum(parts)
            if len(set(parts)) >= k - 1:  # mostly different sizes, so sectors do not look alike
                break
        counts = [p * unit for p in parts]
        cats = [pool[i] for i in sorted(rng.choice(len(pool), size=k, replace=False))]
        colors = [str(c) for c in rng.choice(_COLOR_NAMES, size=k, replace=False)]
        asked = int(rng.integers(k))
        params = {
            "context": ctx,
            "title": title.format(total=total),
            "categories": cats,
            "counts": counts,
            "colors": colors,
            "asked": asked,
            "answer_unit": "%",
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "rename"})
    truth_reads = ("counts", "colors", "asked")

    def redraw(self, params: dict[str, Any]) -> Draw:
        counts, asked = params["counts"], params["asked"]
        question = f"What percentage of the whole pie does the {params['colors'][asked]} sector represent?"
        answer = fmt_number(percent(counts[asked], sum(counts)))
        return Draw(params, question, answer, solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        cats, colors = params["categories"], params["colors"]
        j = int(rng.integers(len(cats)))
        n = int(rng.integers(2, 13))
        said = (
            f"The data behind the chart were collected over {n} weeks.",
            f"In the chart, {cats[j]} is drawn in {colors[j]}.",
            f"A similar pie chart made {n} years ago had {len(cats) + 1} sectors.",
            f"The {colors[j]} colour was chosen for {cats[j]} by the designer of the chart.",
            f"The chart was printed in a report of {n + 10} pages.",
        )
        return said[int(rng.integers(len(said)))]

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # other contexts' categories, and names that hint at a share ("Half", "Most") they need not be
        pool = [c for ctx in _CONTEXTS for c in ctx[2] if c not in params["categories"]]
        pool += ["Half", "Most", "A quarter", "Other"]
        names = [str(x) for x in rng.choice(pool, size=len(params["categories"]), replace=False)]
        return {**params, "categories": names}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        noun = _CONTEXTS[p["context"]][1]
        if modality is Modality.IMAGE:
            png = pie_png(p["counts"], [CHART_COLORS[c] for c in p["colors"]], p["categories"], p["title"])
            text = (
                f"The image shows a pie chart: {p['title']}. Each sector is labelled with its count ({noun}) "
                f"and the legend names the categories.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            rows = list(zip(p["categories"], p["colors"], p["counts"], strict=True))
            table = latex_table(["Category", "Sector colour", f"Count ({noun})"], rows, align="llr")
            text = (
                f"{p['title']}, shown as a pie chart whose sectors have these colours and "
                f"counts:\n\n{table}\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        raise AssertionError(f"unhandled modality {modality}")
