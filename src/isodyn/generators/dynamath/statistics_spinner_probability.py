"""Statistics: the probability that a spinner with equal sectors lands on a described outcome.

Each sector has a colour and a number. The event changes form from variant to variant (a colour, a
parity, a threshold, primes, multiples, and colour-and-number or colour-or-number combinations: a
symbolic substitution), and the colours change too (the question names them). The event always has
at least one sector in and one out, so the probability is strictly between 0 and 1.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.circle_charts import spinner_png
from isodyn.modalities.formatting import article, fmt_number, join_words
from isodyn.modalities.palette import CHART_COLORS

_COLOR_NAMES = ("red", "blue", "green", "orange", "purple", "yellow")
_PRIMES = {2, 3, 5, 7, 11}
_KINDS = (
    "color",
    "even",
    "odd",
    "greater",
    "less",
    "prime",
    "multiple3",
    "color_and_even",
    "color_or_greater",
)


def describe(event: dict) -> str:
    kind, c, k = event["kind"], event.get("color"), event.get("k")
    return {
        "color": f"{article(str(c))} {c} sector",
        "even": "an even number",
        "odd": "an odd number",
        "greater": f"a number greater than {k}",
        "less": f"a number less than {k}",
        "prime": "a prime number",
        "multiple3": "a multiple of 3",
        "color_and_even": f"{article(str(c))} {c} sector whose number is even",
        "color_or_greater": f"a sector that is {c} or has a number greater than {k}",
    }[kind]


def hits(event: dict, colors: list[str], numbers: list[int]) -> list[bool]:
    kind, c, k = event["kind"], event.get("color"), event.get("k")
    out = []
    for col, num in zip(colors, numbers, strict=True):
        out.append(
            {
                "color": col == c,
                "even": num % 2 == 0,
                "odd": num % 2 == 1,
                "greater": k is not None and num > k,
                "less": k is not None and num < k,
                "prime": num in _PRIMES,
                "multiple3": num % 3 == 0,
                "color_and_even": col == c and num % 2 == 0,
                "color_or_greater": col == c or (k is not None and num > k),
            }[kind]
        )
    return out


def solution_text(params: dict) -> str:
    colors, numbers, event = params["colors"], params["numbers"], params["event"]
    n = len(colors)
    good = [f"{c} {x}" for c, x, h in zip(colors, numbers, hits(event, colors, numbers), strict=True) if h]
    p = Fraction(len(good), n)
    steps = [
        f"The spinner has {n} equal sectors, so each sector has probability 1/{n}.",
        f"The sectors showing {describe(event)} are: {join_words(good)} ({len(good)} sectors).",
        f"Probability = {len(good)}/{n} = {fmt_number(p)}.",
        f"Answer: {fmt_number(p)}",
    ]
    return "\n".join(steps)


class SpinnerProbability(SeedProgram):
    seed_id = "dynamath_spinner_probability"
    topic = Topic.STATISTICS
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.COLOR,
        VariationType.SYMBOLIC_SUBSTITUTION,
    )
    param_variation = {
        "colors": VariationType.COLOR,
        "numbers": VariationType.NUMERICAL_VALUE,
        "event": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # 4 sizes x n! numberings x ~4^n colourings x 9 event kinds: capped
    variant_space = 10**9

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.choice([6, 8, 10, 12]))
        palette = [str(c) for c in rng.choice(_COLOR_NAMES, size=int(rng.integers(3, 5)), replace=False)]
        while True:
            colors = [palette[int(i)] for i in rng.integers(len(palette), size=n)]
            # no two neighbouring sectors share a colour, so every sector is visibly its own
            if len(set(colors)) == len(palette) and all(colors[i] != colors[i - 1] for i in range(n)):
                break
        numbers = [int(x) + 1 for x in rng.permutation(n)]
        while True:
            kind = str(rng.choice(_KINDS))
            event: dict = {"kind": kind}
            if "color" in kind:
                event["color"] = str(rng.choice(palette))
            if kind in ("greater", "less", "color_or_greater"):
                event["k"] = int(rng.integers(2, n))
            count = sum(hits(event, colors, numbers))
            if 0 < count < n:
                break
        params = {"colors": colors, "numbers": numbers, "event": event, "pointer": int(rng.integers(0, 360))}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # noop only: the numbers decide parity, primes and thresholds, so scaling them changes the event
    perturbations = frozenset({"noop"})
    truth_reads = ("colors", "numbers", "event")

    def redraw(self, params: dict[str, Any]) -> Draw:
        colors, numbers, event = params["colors"], params["numbers"], params["event"]
        count = sum(hits(event, colors, numbers))
        question = f"The spinner is spun once. What is the probability that it lands on {describe(event)}?"
        return Draw(params, question, fmt_number(Fraction(count, len(colors))), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        colors, numbers = params["colors"], params["numbers"]
        j = int(rng.integers(len(colors)))
        k = int(rng.integers(2, 12))
        said = (
            f"The previous spin landed on the {colors[j]} sector numbered {numbers[j]}.",
            f"The spinner has been used in {k} games so far.",
            f"The game is played by {k} friends, taking turns.",
            f"The {colors[j]} paint on the spinner was touched up {k} weeks ago.",
            f"Last week the spinner landed on a {colors[j]} sector {k} times in a row.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n = len(p["colors"])
        if modality is Modality.IMAGE:
            png = spinner_png([CHART_COLORS[c] for c in p["colors"]], p["numbers"], p["pointer"])
            text = (
                f"The image shows a spinner divided into {n} equal sectors; each sector has a colour and a "
                f"number.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.STORY:
            sectors = ", ".join(f"{c} {x}" for c, x in zip(p["colors"], p["numbers"], strict=True))
            story = (
                f"A game uses a spinner divided into {n} equal sectors. Each sector is painted one "
                "colour and "
                f"carries one number. Going clockwise from the top, the sectors are: {sectors}."
            )
            text = f"{story}\n\n{variant.question}"
            return Representation(modality, text, extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
