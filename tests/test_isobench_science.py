"""Tests for the IsoBench science seeds: solute concentration, magnet force, circuit current.

The truth is recomputed here from the parameters without the seeds' own code: exact fractions for
concentrations and currents, and for the magnets both the textbook rule (written out again below) and a
point-pole (Gilbert) model of two collinear bar magnets computed in exact arithmetic. The STORY text is
parsed back into numbers, and the drawn figures are inspected (their texts and dots) before rasterizing.
The checks every seed shares (each modality renders, determinism) are in test_every_seed.py.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from fractions import Fraction
from functools import cache

import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from isodyn.core import AnswerType, Modality, Topic, Variant
from isodyn.generators import get_seed as registry_seed
from isodyn.generators.base import SeedProgram, format_choices
from isodyn.generators.isobench.circuit_current import CircuitCurrent
from isodyn.generators.isobench.magnet_force import MagnetForce
from isodyn.generators.isobench.solute_concentration import SoluteConcentration
from isodyn.modalities import science

CONC, MAGNET, CIRCUIT = "isobench_solute_concentration", "isobench_magnet_force", "isobench_circuit_current"
SEEDS = (CONC, MAGNET, CIRCUIT)
N = 200
CLASSES: dict[str, type[SeedProgram]] = {
    CONC: SoluteConcentration,
    MAGNET: MagnetForce,
    CIRCUIT: CircuitCurrent,
}


def get_seed(seed_id: str) -> SeedProgram:
    """The seed straight from its module (importing every other seed is slow and not under test here)."""
    return CLASSES[seed_id]()


@cache
def variants(seed_id: str, count: int = N, base_seed: int = 0) -> tuple[Variant, ...]:
    seed = get_seed(seed_id)
    return tuple(seed.variant(i, base_seed) for i in range(count))


def chosen(v: Variant) -> str:
    return v.choices["ABC".index(v.answer)]


def drawn(draw, *args) -> tuple[list[str], list[Circle]]:
    """Run a science drawing function on a bare axes; return its texts and its circles."""
    ax = Figure().add_subplot()
    draw(ax, *args)
    return [t.get_text() for t in ax.texts], [p for p in ax.patches if isinstance(p, Circle)]


def num(s: str) -> Fraction:
    return Fraction(s)


# ---------------------------------------------------------------------------------------------- metadata


def test_seeds_are_registered() -> None:
    for seed_id, cls in CLASSES.items():
        assert isinstance(registry_seed(seed_id), cls)


@pytest.mark.parametrize("seed_id", SEEDS)
def test_metadata_and_question_shape(seed_id: str) -> None:
    seed = get_seed(seed_id)
    assert seed.seed_id == seed_id
    assert seed.topic is Topic.ISO_SCIENCE
    assert seed.answer_type is AnswerType.MULTIPLE_CHOICE
    assert seed.modalities == (Modality.IMAGE, Modality.STORY)
    assert seed.classes == ("A", "B", "C")
    for v in variants(seed_id):
        assert len(v.choices) == 3
        assert v.question.endswith(format_choices(v.choices))
        assert v.solution.rstrip().endswith(f"Answer: ({v.answer}) {chosen(v)}.")


@pytest.mark.parametrize("seed_id", SEEDS)
def test_classes_balanced(seed_id: str) -> None:
    counts = Counter(v.answer for v in variants(seed_id))
    assert sorted(counts.values()) == [66, 67, 67], counts  # index i has class i % 3


# ---------------------------------------------------------------------------------------------- concentration


def test_concentration_truth_by_fractions() -> None:
    labels = ("Solution A", "Solution B", "neither; their concentrations are equal")
    more_but_lower = 0
    for v in variants(CONC):
        a, b = v.params["solutions"]
        assert (a["label"], b["label"]) == ("A", "B")
        ca = Fraction(a["particle_count"]) / Fraction(a["volume_ml"])
        cb = Fraction(b["particle_count"]) / Fraction(b["volume_ml"])
        truth = labels[0] if ca > cb else labels[1] if cb > ca else labels[2]
        assert v.choices == labels
        assert chosen(v) == truth, v.params
        if ca != cb:  # no near-ties: the larger is at least 5/4 of the smaller
            assert max(ca, cb) >= Fraction(5, 4) * min(ca, cb), v.params
            hi, lo = (a, b) if ca > cb else (b, a)
            more_but_lower += hi["particle_count"] < lo["particle_count"]
        for s in (a, b):
            assert 2 <= s["particle_count"] <= 15 and 20 <= s["volume_ml"] <= 50
            assert len(s["particles"]) == s["particle_count"]
    assert more_but_lower >= 15  # "more dots wins" is often wrong, so counting alone does not answer


def test_concentration_regimes_vary_within_each_class() -> None:
    by_class: dict[str, set[str]] = {}
    for v in variants(CONC):
        a, b = v.params["solutions"]
        kind = (a["volume_ml"] == b["volume_ml"], a["particle_count"] == b["particle_count"])
        by_class.setdefault(v.answer, set()).add(str(kind))
    assert len(by_class["A"]) == 3 and len(by_class["B"]) == 3  # same volume, same count, both differ
    assert len(by_class["C"]) == 2  # identical, proportional


def test_particles_are_countable_non_overlapping_and_inside_the_liquid() -> None:
    r = science.DOT_RADIUS
    for v in variants(CONC):
        for s in v.params["solutions"]:
            height = s["volume_ml"] * science.LIQUID_HEIGHT_PER_ML
            for x, y in s["particles"]:
                assert r < x < science.BEAKER_WIDTH - r and r < y < height - r
            for (x1, y1), (x2, y2) in itertools.combinations(s["particles"], 2):
                assert math.hypot(x1 - x2, y1 - y2) >= 2 * r + 0.08  # a visible gap between dots


STORY_SOLUTION = re.compile(r"Solution ([AB]) has (\d+) (\w+) particles? in (\d+) mL of solvent\.")


def test_concentration_story_numbers_parse_back() -> None:
    seed = get_seed(CONC)
    for v in variants(CONC):
        text = seed.representation(v, Modality.STORY).text
        found = STORY_SOLUTION.findall(text)
        color = v.params["color"]
        expected = [
            (s["label"], str(s["particle_count"]), color, str(s["volume_ml"])) for s in v.params["solutions"]
        ]
        assert found == expected, text
        assert f"the {color} particles represent the solute" in text
        assert text.rstrip().endswith(v.question)


def test_concentration_picture_carries_counts_and_volumes() -> None:
    seed = get_seed(CONC)
    for v in variants(CONC)[:25]:
        texts, circles = drawn(science._draw_solutions, v.params["solutions"], v.params["color"])
        a, b = v.params["solutions"]
        split = (science.BEAKER_LEFTS[0] + science.BEAKER_WIDTH + science.BEAKER_LEFTS[1]) / 2
        assert sum(c.center[0] < split for c in circles) == a["particle_count"]
        assert sum(c.center[0] > split for c in circles) == b["particle_count"]
        assert {c.get_facecolor()[:3] for c in circles} == {_rgb(science.SOLUTE_COLORS[v.params["color"]])}
        for s in (a, b):
            assert f"Solution {s['label']}" in texts
            assert f"Solvent volume: {s['volume_ml']} mL" in texts
        if v.index < 3:
            image_text = seed.representation(v, Modality.IMAGE).text
            assert v.params["color"] in image_text and "image" in image_text.lower()
            assert f"{a['volume_ml']} mL" not in image_text  # the numbers are in the picture only


def _rgb(hex_color: str) -> tuple[float, float, float]:
    return tuple(int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------- magnets


def textbook_rule(p1: dict, p2: dict) -> int | None:
    """Index of the pair with the larger force, None if equal: closer is stronger for equal sizes, bigger
    is stronger at equal distances. Fails if both factors differ (the rule would not decide)."""
    same_size = p1["length_cm"] == p2["length_cm"]
    same_gap = p1["distance_cm"] == p2["distance_cm"]
    assert same_size or same_gap, (p1, p2)
    if same_size and same_gap:
        return None
    if same_size:
        return 0 if p1["distance_cm"] < p2["distance_cm"] else 1
    return 0 if p1["length_cm"] > p2["length_cm"] else 1


def gilbert_force(pair: dict) -> Fraction:
    """|force| on the right magnet from the left one, point poles at the magnet ends, pole strength
    proportional to the cross-section (same shape and material: length**2), Coulomb-like 1/r**2."""
    length, gap = num(str(pair["length_cm"])), num(str(pair["distance_cm"]))
    q = length**2

    def poles(x0: Fraction, orient: str) -> list[tuple[Fraction, Fraction]]:
        sign = {"N": 1, "S": -1}
        return [(x0, sign[orient[0]] * q), (x0 + length, sign[orient[1]] * q)]

    left, right = poles(Fraction(0), pair["left"]), poles(length + gap, pair["right"])
    total = Fraction(0)
    for xa, qa in left:
        for xb, qb in right:
            total += qa * qb / (xb - xa) ** 2  # positive pushes the right magnet away (repulsion)
    return abs(total)


def test_magnet_truth_by_rule_and_by_point_pole_model() -> None:
    for v in variants(MAGNET):
        p1, p2 = v.params["pairs"]
        word = v.params["asked"]
        assert word in ("larger", "smaller")
        assert v.choices[2] == "The magnitude of the magnetic force is the same in both pairs"
        for k in (0, 1):
            assert v.choices[k] == f"The magnitude of the magnetic force is {word} in Pair {k + 1}"
        strong = textbook_rule(p1, p2)
        f1, f2 = gilbert_force(p1), gilbert_force(p2)
        if strong is None:
            assert f1 == f2 and v.answer == "C", v.params
            continue
        assert (f1 > f2) == (strong == 0) and f1 != f2, v.params
        expected = strong if word == "larger" else 1 - strong
        assert v.answer == "AB"[expected], v.params


def test_magnet_attraction_is_a_distractor() -> None:
    facing_kinds: Counter = Counter()
    for v in variants(MAGNET):
        kinds = tuple(p["left"][1] != p["right"][0] for p in v.params["pairs"])
        facing_kinds[(v.answer, kinds[0] == kinds[1])] += 1
        for p in v.params["pairs"]:
            assert p["left"] in ("NS", "SN") and p["right"] in ("NS", "SN")
    for answer in "ABC":  # every class shows both matched and mixed attract/repel pairs
        assert facing_kinds[(answer, True)] >= 5 and facing_kinds[(answer, False)] >= 5, facing_kinds
    differs = Counter(v.params["differs"] for v in variants(MAGNET) if v.answer != "C")
    assert differs["distance"] >= 40 and differs["size"] >= 40


STORY_PAIR = re.compile(
    r"Pair (\d): both magnets are ([\d.]+) cm long\. The left magnet has ([NS]) on the left and ([NS]) on "
    r"the right; the right magnet has ([NS]) on the left and ([NS]) on the right\. Across the gap, the left "
    r"magnet's ([NS]) pole faces the right magnet's ([NS]) pole\. The distance between the magnets is "
    r"([\d.]+) cm\."
)


def test_magnet_story_numbers_parse_back() -> None:
    seed = get_seed(MAGNET)
    for v in variants(MAGNET):
        text = seed.representation(v, Modality.STORY).text
        found = STORY_PAIR.findall(text)
        assert [int(f[0]) for f in found] == [1, 2], text
        for f, p in zip(found, v.params["pairs"], strict=True):
            assert num(f[1]) == num(str(p["length_cm"]))
            assert f[2] + f[3] == p["left"] and f[4] + f[5] == p["right"]
            assert (f[6], f[7]) == (p["left"][1], p["right"][0])
            assert num(f[8]) == num(str(p["distance_cm"]))
        assert "same material" in text and text.rstrip().endswith(v.question)


def test_magnet_picture_carries_poles_distances_and_sizes() -> None:
    for v in variants(MAGNET)[:25]:
        texts, _ = drawn(science._draw_magnet_pairs, v.params["pairs"])
        assert [t for t in texts if t.startswith("Pair")] == ["Pair 1", "Pair 2"]
        poles = "".join(t for t in texts if t in ("N", "S"))
        assert poles == "".join(p["left"] + p["right"] for p in v.params["pairs"])
        for p in v.params["pairs"]:
            assert f"{science.fmt_number(p['distance_cm'])} cm" in texts
            assert f"each magnet is {science.fmt_number(p['length_cm'])} cm long" in texts


# ---------------------------------------------------------------------------------------------- circuits


def test_circuit_truth_by_ohms_law() -> None:
    higher_v_lower_i = 0
    for v in variants(CIRCUIT):
        c1, c2 = v.params["circuits"]
        i1 = Fraction(c1["voltage"]) / sum(Fraction(r) for r in c1["resistors"])
        i2 = Fraction(c2["voltage"]) / sum(Fraction(r) for r in c2["resistors"])
        truth = "Circuit 1" if i1 > i2 else "Circuit 2" if i2 > i1 else "neither; the currents are equal"
        assert chosen(v) == truth, v.params
        if i1 != i2:
            assert max(i1, i2) >= Fraction(5, 4) * min(i1, i2)
            higher_v_lower_i += (c1["voltage"] > c2["voltage"]) == (i1 < i2) and c1["voltage"] != c2[
                "voltage"
            ]
        for c in (c1, c2):
            assert 1 <= len(c["resistors"]) <= 3
    assert higher_v_lower_i >= 15  # "bigger battery wins" is often wrong


STORY_CIRCUIT = re.compile(
    r"Circuit (\d): a battery of ([\d.]+) V on the left wire .*? with (\d+) resistors?: (.*?)\.\n?"
)
STORY_RESISTOR = re.compile(r"a resistor of ([\d.]+) Ω on the (top|right|bottom) wire")


def test_circuit_story_numbers_parse_back() -> None:
    seed = get_seed(CIRCUIT)
    for v in variants(CIRCUIT):
        text = seed.representation(v, Modality.STORY).text
        found = STORY_CIRCUIT.findall(text)
        assert [int(f[0]) for f in found] == [1, 2], text
        for f, c in zip(found, v.params["circuits"], strict=True):
            assert num(f[1]) == c["voltage"]
            assert int(f[2]) == len(c["resistors"])
            parsed = STORY_RESISTOR.findall(f[3])
            assert [num(r) for r, _ in parsed] == c["resistors"]
            assert [w for _, w in parsed] == ["top", "right", "bottom"][: len(c["resistors"])]
        assert text.rstrip().endswith(v.question)


def test_circuit_picture_carries_voltages_and_resistances() -> None:
    for v in variants(CIRCUIT)[:25]:
        texts, _ = drawn(science._draw_circuits, v.params["circuits"])
        expected = ["Circuit 1", "Circuit 2"]
        for c in v.params["circuits"]:
            expected += [f"{c['voltage']} V"] + [f"{r} Ω" for r in c["resistors"]]
        assert sorted(t for t in texts if t != "+") == sorted(expected)


# ---------------------------------------------------------------------------------------------- variation


@pytest.mark.parametrize("seed_id", SEEDS)
def test_variants_differ(seed_id: str) -> None:
    """Other indices, and another base seed, give other variants."""
    contents = {json.dumps([v.params, v.answer], sort_keys=True) for v in variants(seed_id)[:60]}
    assert len(contents) >= 57
    others = variants(seed_id, 60, 1)
    assert sum(a.params != b.params for a, b in zip(variants(seed_id)[:60], others, strict=True)) >= 55
