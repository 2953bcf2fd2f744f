"""Statistics: the mean of the data in a stem-and-leaf plot.

The plot has 3 to 5 consecutive stems (a middle stem may have no leaves) and 8 to 16 leaves. The
context changes what the numbers are and, for sprint times, what the key means (`12 | 4` is 12.4 s),
so reading the key is part of the task.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import code_block, fmt_number, latex_table
from isodyn.modalities.stat_charts import stem_leaf_png

# title, plural noun, unit, (lowest stem, highest stem), scale of "stem|leaf" (1: 7|3 = 73; 0.1: 12|4 = 12.4)
_CONTEXTS = (
    ("Test scores of a class", "test scores", "points", (5, 9), "1"),
    ("Heights of bean plants", "plant heights", "cm", (1, 5), "1"),
    ("Minutes spent reading", "reading times", "minutes", (1, 6), "1"),
    ("Ages of choir members", "ages", "years", (2, 7), "1"),
    ("100 m sprint times", "sprint times", "seconds", (11, 16), "0.1"),
    ("Weights of puppies", "puppy weights", "kg", (2, 8), "0.1"),
)


def values_of(params: dict) -> list[Fraction]:
    scale = Fraction(params["scale"])
    rows = zip(params["stems"], params["leaves"], strict=True)
    return [(10 * stem + leaf) * scale for stem, leaves in rows for leaf in leaves]


def key_text(params: dict) -> str:
    """The key, from a data value with a non-zero leaf where there is one (`5 | 3 means 53 points`)."""
    rows = [(s, leaf) for s, lv in zip(params["stems"], params["leaves"], strict=True) for leaf in lv]
    stem, leaf = next(((s, leaf) for s, leaf in rows if leaf), rows[0])
    places = 1 if params["scale"] == "0.1" else 0
    value = f"{float((10 * stem + leaf) * Fraction(params['scale'])):.{places}f}"
    return f"Key: {stem} | {leaf} means {value} {params['unit']}"


def solution_text(params: dict) -> str:
    vals = values_of(params)
    total = sum(vals, Fraction(0))
    mean = total / len(vals)
    listed = ", ".join(fmt_number(v) for v in vals)
    steps = [
        f"{key_text(params)}, so each leaf is joined to its stem to give one data value.",
        f"Reading the rows from top to bottom gives the {len(vals)} values: {listed}.",
        f"Their sum is {fmt_number(total)}.",
        f"Mean = sum / count = {fmt_number(total)} / {len(vals)} = {fmt_number(mean)} {params['unit']}.",
        f"Answer: {fmt_number(mean)}",
    ]
    return "\n".join(steps)


class StemLeafMean(SeedProgram):
    seed_id = "dynamath_stem_leaf_mean"
    topic = Topic.STATISTICS
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.REAL_LIFE_CONTEXT)
    param_variation = {
        "title": VariationType.REAL_LIFE_CONTEXT,
        "stems": VariationType.NUMERICAL_VALUE,
        "leaves": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # 6 contexts x ~3 stem windows x 10^(8..16) leaf choices: capped at a round, huge number
    variant_space = 10**9

    def sample(self, rng: np.random.Generator) -> Draw:
        title, noun, unit, (lo, hi), scale = _CONTEXTS[int(rng.integers(len(_CONTEXTS)))]
        n_stems = int(rng.integers(3, 6))
        n_stems = min(n_stems, hi - lo + 1)
        first = int(rng.integers(lo, hi - n_stems + 2))
        stems = list(range(first, first + n_stems))
        count = int(rng.integers(8, 17))
        # Every stem gets a leaf except possibly one middle stem; the rest fall anywhere.
        rows = [0] + [int(rng.integers(1, n_stems - 1)) for _ in range(n_stems >= 4)] + [n_stems - 1]
        rows += [int(rng.integers(n_stems)) for _ in range(count - len(rows))]
        leaves: list[list[int]] = [[] for _ in stems]
        for r in rows:
            leaves[r].append(int(rng.integers(10)))
        leaves = [sorted(x) for x in leaves]
        params: dict[str, Any] = {"title": title, "noun": noun, "unit": unit, "scale": scale}
        params |= {"stems": stems, "leaves": leaves}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("scale", "stems", "leaves")

    def redraw(self, params: dict[str, Any]) -> Draw:
        vals = values_of(params)
        mean = sum(vals, Fraction(0)) / len(vals)
        # each form says what it is (plot, LaTeX table, Python list); the question names no medium
        question = f"What is the mean of the {params['noun']}, in {params['unit']}?"
        return Draw(params=params, question=question, answer=fmt_number(mean), solution=solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        noun, stems = params["noun"], params["stems"]
        k = int(rng.integers(2, 15))
        said = (
            f"The {noun} were recorded over {k} days.",
            f"The plot was drawn by a teacher who has used stem-and-leaf plots for {k} years.",
            f"A copy of the plot was pinned up in room {k}.",
            f"{k} more {noun} will be recorded next month, after this plot was made.",
            f"The row with stem {stems[int(rng.integers(len(stems)))]} was the first one filled in.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # the key carries the scale: `7 | 3` means 730 instead of 73, and the plot keeps its shape
        scale = Fraction(params["scale"]) * factor
        return {**params, "scale": fmt_number(scale)}  # "0.1" -> "1" -> "10", as the key writes it

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for v in values_of(params))

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n = sum(len(x) for x in p["leaves"])
        if modality is Modality.IMAGE:
            rows = list(zip(p["stems"], p["leaves"], strict=True))
            png = stem_leaf_png(rows, p["title"] + f" ({p['unit']})", key_text(p))
            text = (
                f"The image shows a stem-and-leaf plot of {n} {p['noun']} with its key.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.LATEX:
            table = latex_table(
                ["Stem", "Leaf"],
                [(s, " ".join(map(str, lv))) for s, lv in zip(p["stems"], p["leaves"], strict=True)],
                align="r|l",
            )
            text = (
                f"{p['title']} ({p['unit']}), as a stem-and-leaf plot of {n} values. {key_text(p)}.\n\n"
                f"{table}\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.CODE:
            values = ", ".join(fmt_number(v) for v in values_of(p))
            name = p["noun"].replace(" ", "_")
            code = f"# {p['title']}, in {p['unit']} ({n} values)\n{name} = [{values}]\n"
            text = f"{code_block(code)}\n\n{variant.question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
