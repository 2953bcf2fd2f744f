"""IsoBench science, physics ("Electric Circuit", one of the categories IsoBench added to ScienceQA,
Fu et al. 2024, Appendix A.4): which of two series circuits carries the larger current?

Each circuit is an ideal battery (3-24 V) in series with one to three resistors (1-10 Ω each), drawn on
the top, right and bottom wires. The current is I = V / R with R the sum of the resistances (Ohm's law
for a series circuit). The class is drawn first, then a regime so that no single cue answers it:

- Circuit 1 or 2 larger: same voltage (the smaller total resistance wins), same total resistance (the
  larger voltage wins), or both differ, in which case half the time the circuit with the *larger*
  voltage carries the *smaller* current. Unequal currents differ by a factor of at least 5/4.
- equal: the same voltage and total resistance (often split into different resistors), or both
  scaled by the same factor (6 V over 4 Ω and 9 V over 6 Ω).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.science import circuits_png, equals_decimal, fmt_number

CHOICES = ("Circuit 1", "Circuit 2", "neither; the currents are equal")
QUESTION = "Which circuit carries the larger current? " + format_choices(CHOICES)
VOLTAGES = (3, 4, 6, 9, 12, 18, 24)
RESISTANCES = (1, 2, 3, 4, 5, 6, 8, 10)
MIN_TOTAL, MAX_TOTAL = 2, 24
MIN_RATIO = Fraction(5, 4)
POSITIONS = ("top", "right", "bottom")  # where resistor i is drawn

STATEMENT = (
    "You are given a multiple-choice physics question about two electric circuits. The batteries and "
    "wires are ideal (no internal resistance)."
)

Side = tuple[int, int]  # (voltage, total resistance)


def current(voltage: int, total: int) -> Fraction:
    return Fraction(voltage, total)


def regime(pair: tuple[Side, Side]) -> str:
    (v1, r1), (v2, r2) = pair
    i1, i2 = current(v1, r1), current(v2, r2)
    if i1 == i2:
        return "same_totals" if (v1, r1) == (v2, r2) else "proportional"
    if v1 == v2:
        return "same_voltage"
    if r1 == r2:
        return "same_resistance"
    return "higher_voltage_higher_current" if (v1 > v2) == (i1 > i2) else "higher_voltage_lower_current"


@cache
def candidates() -> dict[tuple[str, str], list[tuple[Side, Side]]]:
    sides = [(v, r) for v in VOLTAGES for r in range(MIN_TOTAL, MAX_TOTAL + 1)]
    groups: dict[tuple[str, str], list[tuple[Side, Side]]] = {}
    for a in sides:
        for b in sides:
            ia, ib = current(*a), current(*b)
            if ia != ib and max(ia, ib) / min(ia, ib) < MIN_RATIO:
                continue
            cls = "A" if ia > ib else "B" if ib > ia else "C"
            groups.setdefault((cls, regime((a, b))), []).append((a, b))
    return groups


@cache
def splits(total: int) -> dict[int, list[tuple[int, ...]]]:
    """Ordered ways to write `total` as 1 to 3 resistances from RESISTANCES, by count."""
    out: dict[int, list[tuple[int, ...]]] = {}
    for k in range(1, len(POSITIONS) + 1):
        ways = [r for r in product(RESISTANCES, repeat=k) if sum(r) == total]
        if ways:
            out[k] = ways
    return out


REGIMES = {
    "A": ("same_voltage", "same_resistance", "both_differ"),
    "B": ("same_voltage", "same_resistance", "both_differ"),
    "C": ("same_totals", "proportional"),
}


def _ohms(values: list[int]) -> str:
    return " + ".join(f"{fmt_number(r)} Ω" for r in values)


def circuit_description(k: int, circuit: dict) -> str:
    rs = circuit["resistors"]
    parts = [
        f"a resistor of {fmt_number(r)} Ω on the {pos} wire" for r, pos in zip(rs, POSITIONS, strict=False)
    ]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    noun = "resistor" if len(rs) == 1 else "resistors"
    return (
        f"Circuit {k}: a battery of {fmt_number(circuit['voltage'])} V on the left wire (positive terminal "
        f"at the top) is connected in series with {len(rs)} {noun}: {listed}."
    )


def solution_text(params: dict) -> str:
    steps = [
        "In a series circuit the total resistance is the sum of the resistances, "
        "and the current is I = V / R."
    ]
    currents = []
    for k, c in enumerate(params["circuits"], start=1):
        total = sum(c["resistors"])
        i = current(c["voltage"], total)
        currents.append(i)
        r_text = f"{_ohms(c['resistors'])} = {total} Ω" if len(c["resistors"]) > 1 else f"{total} Ω"
        steps.append(
            f"Circuit {k}: R = {r_text}, so I = {fmt_number(c['voltage'])} V / {total} Ω "
            f"{equals_decimal(i)} A."
        )
    (v1, v2), (r1, r2) = (
        [c["voltage"] for c in params["circuits"]],
        [sum(c["resistors"]) for c in params["circuits"]],
    )
    steps.append(
        f"Compare exactly by cross-multiplying: {fmt_number(v1)} × {r2} = {v1 * r2} for Circuit 1 and "
        f"{fmt_number(v2)} × {r1} = {v2 * r1} for Circuit 2."
    )
    if currents[0] > currents[1]:
        steps.append(f"{v1 * r2} > {v2 * r1}, so Circuit 1 carries the larger current.")
        ans = 0
    elif currents[1] > currents[0]:
        steps.append(f"{v1 * r2} < {v2 * r1}, so Circuit 2 carries the larger current.")
        ans = 1
    else:
        steps.append(f"{v1 * r2} = {v2 * r1}, so the two currents are equal.")
        ans = 2
    steps.append(f"Answer: ({letter(ans)}) {CHOICES[ans]}.")
    return "\n".join(steps)


class CircuitCurrent(SeedProgram):
    seed_id = "isobench_circuit_current"
    topic = Topic.ISO_SCIENCE
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE,)
    modalities = (Modality.IMAGE, Modality.STORY)
    variant_space = 10**6  # ~2 x 10^4 (voltage, total) pairs of pairs times the ways to split each total

    classes = ("A", "B", "C")  # Circuit 1, Circuit 2, equal

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        kind = REGIMES[answer][int(rng.integers(len(REGIMES[answer])))]
        if kind == "both_differ":
            kind = ("higher_voltage_higher_current", "higher_voltage_lower_current")[int(rng.integers(2))]
        pool = candidates()[(answer, kind)]
        sides = pool[int(rng.integers(len(pool)))]
        circuits = []
        for voltage, total in sides:
            ways = splits(total)
            counts = sorted(ways)
            k = counts[int(rng.integers(len(counts)))]
            resistors = ways[k][int(rng.integers(len(ways[k])))]
            circuits.append({"voltage": voltage, "resistors": list(resistors)})
        params = {"regime": kind, "circuits": circuits}
        return Draw(
            params=params, question=QUESTION, answer=answer, solution=solution_text(params), choices=CHOICES
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        circuits = variant.params["circuits"]
        if modality is Modality.IMAGE:
            text = (
                f"{STATEMENT}\n\nThe image shows two series circuits, Circuit 1 (left) and Circuit 2 "
                "(right). In each, a battery on the left wire (long plate +, short plate -) is labelled "
                "with its voltage, and each resistor (zigzag) is labelled with its resistance.\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, image_png=circuits_png(circuits))
        if modality is Modality.STORY:
            description = "There are two separate series circuits.\n" + "\n".join(
                circuit_description(k, c) for k, c in enumerate(circuits, start=1)
            )
            text = f"{STATEMENT}\n\n{description}\n\n{variant.question}"
            return Representation(modality, text, extra={"description": description})
        raise AssertionError(f"unhandled modality {modality}")
