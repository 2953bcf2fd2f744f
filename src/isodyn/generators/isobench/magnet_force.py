"""IsoBench science, physics: in which pair of magnets is the magnetic force larger (or smaller)?

The ScienceQA/IsoBench magnet question (Fu et al. 2024, Section 4: "to determine which pair of magnets
in the given image has a larger magnetic force ... it is essential to consider both the distance between
the magnets and their sizes"): two pairs of bar magnets with labelled poles and a labelled gap. Every
magnet has the same shape and is made of the same material; both magnets of a pair have the same size.

The rule is ScienceQA's textbook simplification, stated in every worked solution:

- for magnets of the same size, the magnitude of the force is smaller when they are farther apart;
- at the same distance, smaller magnets (same shape and material) give a smaller force;
- whether a pair attracts or repels does not change the magnitude (flipping one magnet reverses the
  force but keeps its size).

So the answer is unambiguous, exactly one factor differs between the pairs (the distance, or the
magnet size) or neither does (equal magnitudes). Pole orientations are drawn independently of the
class, so attraction versus repulsion is a distractor. The question asks for the "larger" or the
"smaller" force (ScienceQA uses both); the answer class is drawn first.
"""

from __future__ import annotations

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.science import (
    NORTH_COLOR_NAME,
    SOUTH_COLOR_NAME,
    fmt_number,
    magnet_pairs_png,
)

LENGTHS_CM = (2, 3, 4, 5, 6)
DISTANCES_CM = (1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5)
MIN_LENGTH_DIFF_CM = 2
MIN_DISTANCE_DIFF_CM = 1
ORIENTATIONS = ("NS", "SN")  # poles from left to right

STATEMENT = "You are given a multiple-choice physics question about the magnetic force between magnets."
QUESTION_STEM = (
    "Think about the magnetic force between the magnets in each pair. "
    "Which of the following statements is true?"
)
RULE = (
    "Rule (for magnets of the same shape and material): the magnitude of the magnetic force between two "
    "magnets is smaller when the magnets are farther apart, and smaller when the magnets are smaller. "
    "Whether the magnets attract or repel does not change the magnitude."
)


def choices_for(word: str) -> tuple[str, str, str]:
    return (
        f"The magnitude of the magnetic force is {word} in Pair 1",
        f"The magnitude of the magnetic force is {word} in Pair 2",
        "The magnitude of the magnetic force is the same in both pairs",
    )


def facing(pair: dict) -> tuple[str, str]:
    """The two poles that face each other across the gap."""
    return pair["left"][1], pair["right"][0]


def attracts(pair: dict) -> bool:
    a, b = facing(pair)
    return a != b


def orientation_text(poles: str) -> str:
    return f"{poles[0]} on the left and {poles[1]} on the right"


def pair_description(k: int, pair: dict) -> str:
    a, b = facing(pair)
    return (
        f"Pair {k}: both magnets are {fmt_number(pair['length_cm'])} cm long. The left magnet has "
        f"{orientation_text(pair['left'])}; the right magnet has {orientation_text(pair['right'])}. "
        f"Across the gap, the left magnet's {a} pole faces the right magnet's {b} pole. "
        f"The distance between the magnets is {fmt_number(pair['distance_cm'])} cm."
    )


def stronger_pair(pairs: list[dict]) -> int | None:
    """0 or 1: the pair with the larger force, None if equal (only one factor ever differs)."""
    p1, p2 = pairs
    if p1["length_cm"] == p2["length_cm"]:
        if p1["distance_cm"] == p2["distance_cm"]:
            return None
        return 0 if p1["distance_cm"] < p2["distance_cm"] else 1
    if p1["distance_cm"] != p2["distance_cm"]:
        raise ValueError("both the size and the distance differ: the simple rule does not decide")
    return 0 if p1["length_cm"] > p2["length_cm"] else 1


def solution_text(params: dict) -> str:
    pairs, word = params["pairs"], params["asked"]
    steps = [RULE]
    for k, pair in enumerate(pairs, start=1):
        kind = "attract" if attracts(pair) else "repel"
        steps.append(
            f"Pair {k}: magnets {fmt_number(pair['length_cm'])} cm long, "
            f"{fmt_number(pair['distance_cm'])} cm apart; facing poles {' and '.join(facing(pair))}, "
            f"so they {kind}."
        )
    p1, p2 = pairs
    strong = stronger_pair(pairs)
    if strong is None:
        steps.append(
            "The magnets have the same size and are the same distance apart in both pairs, so the "
            "magnitude of the magnetic force is the same in both pairs."
        )
        ans = 2
    else:
        if p1["length_cm"] == p2["length_cm"]:
            near, far = (1, 2) if strong == 0 else (2, 1)
            d = {1: p1["distance_cm"], 2: p2["distance_cm"]}
            steps.append(
                f"The magnets are the same size in both pairs, so only the distance matters: Pair {near} "
                f"({fmt_number(d[near])} cm) is closer than Pair {far} ({fmt_number(d[far])} cm)."
            )
        else:
            big, small = (1, 2) if strong == 0 else (2, 1)
            n = {1: p1["length_cm"], 2: p2["length_cm"]}
            steps.append(
                f"The distance is the same in both pairs, so only the size matters: the magnets in Pair "
                f"{big} ({fmt_number(n[big])} cm) are larger than those in Pair {small} "
                f"({fmt_number(n[small])} cm)."
            )
        weak = 1 - strong
        steps.append(
            f"So the magnitude of the magnetic force is larger in Pair {strong + 1} and smaller in "
            f"Pair {weak + 1}."
        )
        ans = strong if word == "larger" else weak
    choices = choices_for(word)
    steps.append(f"Answer: ({letter(ans)}) {choices[ans]}.")
    return "\n".join(steps)


def _spread(rng: np.random.Generator, values: tuple, min_diff: float) -> tuple:
    """Two values from `values` at least `min_diff` apart, in random order."""
    options = [(a, b) for a in values for b in values if abs(a - b) >= min_diff]
    return options[int(rng.integers(len(options)))]


class MagnetForce(SeedProgram):
    seed_id = "isobench_magnet_force"
    topic = Topic.ISO_SCIENCE
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GEOMETRIC_TRANSFORMATION)
    modalities = (Modality.IMAGE, Modality.STORY)
    # (sizes, distances) of both pairs times 16 pole orientations times larger/smaller.
    variant_space = 2 * 16 * (5 * 56 + 9 * 12 + 5 * 9)

    classes = ("A", "B", "C")  # Pair 1, Pair 2, the same

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        word = ("larger", "smaller")[int(rng.integers(2))]
        if answer == "C":
            kind = "same"
            length = LENGTHS_CM[int(rng.integers(len(LENGTHS_CM)))]
            distance = DISTANCES_CM[int(rng.integers(len(DISTANCES_CM)))]
            lengths, distances = (length, length), (distance, distance)
        else:
            kind = ("distance", "size")[int(rng.integers(2))]
            if kind == "distance":
                length = LENGTHS_CM[int(rng.integers(len(LENGTHS_CM)))]
                lengths, distances = (length, length), _spread(rng, DISTANCES_CM, MIN_DISTANCE_DIFF_CM)
                stronger = 0 if distances[0] < distances[1] else 1
            else:
                distance = DISTANCES_CM[int(rng.integers(len(DISTANCES_CM)))]
                lengths, distances = _spread(rng, LENGTHS_CM, MIN_LENGTH_DIFF_CM), (distance, distance)
                stronger = 0 if lengths[0] > lengths[1] else 1
            target = 0 if answer == "A" else 1  # the pair the asked word must pick
            wanted_stronger = target if word == "larger" else 1 - target
            if stronger != wanted_stronger:
                lengths, distances = lengths[::-1], distances[::-1]
        pairs = [
            {
                "length_cm": lengths[i],
                "distance_cm": distances[i],
                "left": ORIENTATIONS[int(rng.integers(2))],
                "right": ORIENTATIONS[int(rng.integers(2))],
            }
            for i in range(2)
        ]
        params = {"asked": word, "differs": kind, "pairs": pairs}
        choices = choices_for(word)
        return Draw(
            params=params,
            question=f"{QUESTION_STEM} " + format_choices(choices),
            answer=answer,
            solution=solution_text(params),
            choices=choices,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        pairs = variant.params["pairs"]
        shared = (
            "All four magnets have the same shape and are made of the same material; the two magnets of a "
            "pair have the same size. The magnets in different pairs do not affect each other."
        )
        if modality is Modality.IMAGE:
            text = (
                f"{STATEMENT}\n\nThe image shows two pairs of bar magnets, Pair 1 (top) and Pair 2 (bottom), "
                f"drawn to scale. {shared} In each pair the two magnets lie end to end in a row; each "
                f"magnet's north (N) half is shaded {NORTH_COLOR_NAME} and its south (S) half "
                f"{SOUTH_COLOR_NAME}. The distance between the magnets is labelled above the gap, and the "
                f"length of the magnets is written below each pair.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=magnet_pairs_png(pairs))
        if modality is Modality.STORY:
            lines = [
                f"There are two pairs of bar magnets. {shared} In each pair the two magnets lie end to end "
                "in a row, with a gap between their facing ends."
            ]
            lines += [pair_description(k, pair) for k, pair in enumerate(pairs, start=1)]
            description = "\n".join(lines)
            text = f"{STATEMENT}\n\n{description}\n\n{variant.question}"
            return Representation(modality, text, extra={"description": description})
        raise AssertionError(f"unhandled modality {modality}")
