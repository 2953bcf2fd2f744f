"""IsoBench science, chemistry: "Which solution has a higher concentration of green particles?"

The ScienceQA/IsoBench figure (Fu et al. 2024, Appendix B, Figures 16-17; Table 7): two containers,
Solution A and Solution B, with the solvent volume written under each and the solute drawn as
coloured particles. The text representation states the particle counts and volumes.

A variant is two (particle count, solvent volume) pairs: 2-15 particles (few enough to count, drawn as
non-overlapping dots), 20-50 mL in steps of 5. Concentration is particles / volume. The class is drawn
first, then a comparison regime, so that no surface cue answers the question:

- A or B higher: same volume (compare counts), same count (the smaller volume wins), or both differ;
  when both differ, half the time the solution with *more* particles is the *less* concentrated one.
  Unequal concentrations differ by a factor of at least 5/4 (no near-ties).
- equal: identical solutions, or proportional ones (e.g. 4 particles in 20 mL and 6 in 30 mL).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.science import (
    SOLUTE_COLORS,
    count_word,
    equals_decimal,
    place_particles,
    solutions_png,
)

CHOICES = ("Solution A", "Solution B", "neither; their concentrations are equal")
VOLUMES_ML = (20, 25, 30, 35, 40, 45, 50)
MIN_PARTICLES, MAX_PARTICLES = 2, 15
MIN_RATIO = Fraction(5, 4)  # unequal concentrations differ at least this much

STATEMENT = "You are given a multiple-choice chemistry question about the concentration of two solutions."

Pair = tuple[tuple[int, int], tuple[int, int]]  # ((particles A, volume A), (particles B, volume B))


def question_for(color: str) -> str:
    return f"Which solution has a higher concentration of {color} particles? " + format_choices(CHOICES)


def concentration(particles: int, volume_ml: int) -> Fraction:
    return Fraction(particles, volume_ml)


def truth_class(pair: Pair) -> str:
    """ "A", "B" or "C" (equal) from the exact concentrations."""
    (na, va), (nb, vb) = pair
    ca, cb = concentration(na, va), concentration(nb, vb)
    return "A" if ca > cb else "B" if cb > ca else "C"


def regime(pair: Pair) -> str:
    (na, va), (nb, vb) = pair
    if va == vb and na == nb:
        return "identical"
    if va == vb:
        return "same_volume"
    if na == nb:
        return "same_particles"
    ca, cb = concentration(na, va), concentration(nb, vb)
    if ca == cb:
        return "proportional"
    # Both differ: does the solution with more particles also have the higher concentration?
    return "more_particles_higher" if (na > nb) == (ca > cb) else "more_particles_lower"


@cache
def candidates() -> dict[tuple[str, str], list[Pair]]:
    """Every allowed pair of solutions, grouped by (answer class, regime)."""
    sides = [(n, v) for n in range(MIN_PARTICLES, MAX_PARTICLES + 1) for v in VOLUMES_ML]
    groups: dict[tuple[str, str], list[Pair]] = {}
    for a in sides:
        for b in sides:
            pair = (a, b)
            ca, cb = concentration(*a), concentration(*b)
            if ca != cb and max(ca, cb) / min(ca, cb) < MIN_RATIO:
                continue
            groups.setdefault((truth_class(pair), regime(pair)), []).append(pair)
    return groups


REGIMES = {
    "A": ("same_volume", "same_particles", "both_differ"),
    "B": ("same_volume", "same_particles", "both_differ"),
    "C": ("identical", "proportional"),
}


def solution_text(params: dict) -> str:
    color = params["color"]
    a, b = params["solutions"]
    ca = concentration(a["particle_count"], a["volume_ml"])
    cb = concentration(b["particle_count"], b["volume_ml"])
    steps = [
        "The concentration of a solute is the number of solute particles divided by the volume of solvent.",
        f"Solution A: {a['particle_count']} {color} particles in {a['volume_ml']} mL, so its "
        f"concentration is {a['particle_count']}/{a['volume_ml']} {equals_decimal(ca)} particles per mL.",
        f"Solution B: {b['particle_count']} {color} particles in {b['volume_ml']} mL, so its "
        f"concentration is {b['particle_count']}/{b['volume_ml']} {equals_decimal(cb)} particles per mL.",
    ]
    lhs, rhs = a["particle_count"] * b["volume_ml"], b["particle_count"] * a["volume_ml"]
    steps.append(
        f"To compare exactly, cross-multiply: {a['particle_count']} × {b['volume_ml']} = {lhs} for A and "
        f"{b['particle_count']} × {a['volume_ml']} = {rhs} for B."
    )
    if ca > cb:
        steps.append(f"{lhs} > {rhs}, so Solution A has the higher concentration of {color} particles.")
        ans = 0
    elif cb > ca:
        steps.append(f"{lhs} < {rhs}, so Solution B has the higher concentration of {color} particles.")
        ans = 1
    else:
        steps.append(f"{lhs} = {rhs}, so the two concentrations are equal.")
        ans = 2
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


class SoluteConcentration(SeedProgram):
    seed_id = "isobench_solute_concentration"
    topic = Topic.ISO_SCIENCE
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.COLOR)
    modalities = (Modality.IMAGE, Modality.STORY)
    # ~8,000 admissible (count, volume) pairs of pairs times 5 colours times the particle layouts.
    variant_space = 10**6

    classes = ("A", "B", "C")  # Solution A, Solution B, equal

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        groups = candidates()
        kind = REGIMES[answer][int(rng.integers(len(REGIMES[answer])))]
        if kind == "both_differ":
            kind = ("more_particles_higher", "more_particles_lower")[int(rng.integers(2))]
        pool = groups[(answer, kind)]
        (na, va), (nb, vb) = pool[int(rng.integers(len(pool)))]
        colors = sorted(SOLUTE_COLORS)
        color = colors[int(rng.integers(len(colors)))]
        solutions = [
            {"label": label, "particle_count": n, "volume_ml": v, "particles": place_particles(rng, n, v)}
            for label, n, v in (("A", na, va), ("B", nb, vb))
        ]
        params = {"color": color, "regime": kind, "solutions": solutions}
        return Draw(
            params=params,
            question=question_for(color),
            answer=answer,
            solution=solution_text(params),
            choices=CHOICES,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        prm = variant.params
        color, (a, b) = prm["color"], prm["solutions"]
        question = variant.question
        if modality is Modality.IMAGE:
            text = (
                f"{STATEMENT}\n\nThe image shows two identical containers, Solution A (left) and Solution B "
                f"(right). In both, the {color} particles (dots) represent the solute, and the volume of "
                f"solvent in each container is written below it.\n\n{question}"
            )
            png = solutions_png(prm["solutions"], color)
            return Representation(modality, text, image_png=png)
        if modality is Modality.STORY:
            description = (
                f"Two identical containers hold Solution A and Solution B; the solvent fills each container "
                f"to a height proportional to its volume. In both, the {color} particles represent the "
                f"solute. Solution A has {count_word(a['particle_count'], color + ' particle')} in "
                f"{a['volume_ml']} mL of solvent. Solution B has "
                f"{count_word(b['particle_count'], color + ' particle')} in {b['volume_ml']} mL of solvent."
            )
            text = f"{STATEMENT}\n\n{description}\n\n{question}"
            return Representation(modality, text, extra={"description": description})
        raise AssertionError(f"unhandled modality {modality}")
