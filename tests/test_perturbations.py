"""Text perturbations (issue 41), the checks every supporting seed shares: `redraw` gives back what
`sample` drew, a noop clause touches nothing the truth reads and leaves the truth as it was (asked
again with the clause), magnitude multiplies the declared quantities and changes the text, rename
keeps the truth and changes the text. Each seed's truth under magnitude is also checked by an
independent computation in its own test (tests/test_perturbation_truths_*.py)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from isodyn.core import Modality
from isodyn.generators import all_seeds, get_seed
from isodyn.generators.perturb import (
    NOOP_KEY,
    PERTURBATIONS,
    Perturbation,
    PerturbationError,
    number_digits,
    parse_perturbation,
    perturb,
    supports,
)

VARIANTS = 40


def supporting(kind: str) -> list[str]:
    return sorted(s for s, seed in all_seeds().items() if kind in seed.perturbations)


def test_the_kinds_are_registered_in_order() -> None:
    assert list(PERTURBATIONS) == ["none", "noop", "magnitude", "rename"]


@pytest.mark.parametrize(
    ("text", "label"),
    [("none", "none"), ("noop", "noop"), ("magnitude", "magnitude"), ("magnitude:1000", "magnitude:1000"),
     ("magnitude:digits=5", "magnitude:digits=5"), ("rename", "rename")],
)  # fmt: skip
def test_names_parse_and_print_back(text: str, label: str) -> None:
    assert parse_perturbation(text).label == label


@pytest.mark.parametrize(
    "text", ["nope", "magnitude:7", "magnitude:1", "magnitude:digits=0", "noop:3", "magnitude:x"]
)
def test_bad_names_are_refused(text: str) -> None:
    with pytest.raises(PerturbationError):
        parse_perturbation(text)


def test_at_least_thirty_seeds_across_six_topics_support_noop_and_magnitude() -> None:
    both = [s for s in supporting("noop") if s in supporting("magnitude")]
    topics = Counter(get_seed(s).topic for s in both)
    assert len(both) >= 30 and len(topics) >= 6, (len(both), topics)


@pytest.mark.parametrize(
    "seed_id", sorted({*supporting("noop"), *supporting("magnitude"), *supporting("rename")})
)
def test_redraw_gives_back_the_sampled_variant(seed_id: str) -> None:
    seed = get_seed(seed_id)
    for index in range(VARIANTS):
        variant = seed.variant(index)
        draw = seed.redraw(variant.params)
        assert (draw.question, draw.answer, draw.solution, draw.choices) == (
            variant.question, variant.answer, variant.solution, variant.choices,
        )  # fmt: skip


@pytest.mark.parametrize("seed_id", supporting("noop"))
def test_a_noop_clause_changes_nothing_the_truth_reads(seed_id: str) -> None:
    seed = get_seed(seed_id)
    assert seed.truth_reads and NOOP_KEY not in seed.truth_reads
    clauses = set()
    for index in range(VARIANTS):
        variant = seed.variant(index)
        noop = perturb(seed, variant, Perturbation("noop"))
        clause = noop.params[NOOP_KEY]
        clauses.add(clause)
        assert clause and noop.question == f"{clause} {variant.question}"
        # the truth reads the same values, and asked again from the perturbed params it is the same
        assert {k: noop.params.get(k) for k in seed.truth_reads} == {
            k: variant.params.get(k) for k in seed.truth_reads
        }
        assert seed.redraw(noop.params).answer == variant.answer == noop.answer
        assert {k: v for k, v in noop.params.items() if k != NOOP_KEY} == variant.params
        for modality in seed.modalities:
            if modality is not Modality.IMAGE:  # the text forms carry the clause
                assert clause in seed.representation(noop, modality).text
    assert len(clauses) > VARIANTS // 4  # drawn, not one fixed sentence


@pytest.mark.parametrize("seed_id", supporting("magnitude"))
def test_magnitude_multiplies_the_quantities_and_asks_again(seed_id: str) -> None:
    seed = get_seed(seed_id)
    changed_answers = 0
    for index in range(VARIANTS):
        variant = seed.variant(index)
        for factor in (10, 1000):
            scaled = perturb(seed, variant, Perturbation("magnitude", factor=factor))
            before, after = seed.numbers(variant.params), seed.numbers(scaled.params)
            assert len(before) == len(after) > 0
            for x, y in zip(before, after, strict=True):
                assert math.isclose(y, x * factor, rel_tol=1e-9, abs_tol=1e-9), (x, y, factor)
            assert scaled.answer == seed.redraw(scaled.params).answer
            shown = [seed.representation(scaled, m).text for m in seed.modalities if m is not Modality.IMAGE]
            plain = [seed.representation(variant, m).text for m in seed.modalities if m is not Modality.IMAGE]
            assert shown != plain or Modality.IMAGE in seed.modalities
            changed_answers += scaled.answer != variant.answer
        digits = perturb(seed, variant, parse_perturbation("magnitude:digits=6"))
        assert number_digits(seed, digits.params) == max(6, number_digits(seed, variant.params) or 0)
    assert changed_answers > 0 or seed.answer_type.value in ("multiple_choice", "text")


@pytest.mark.parametrize("seed_id", supporting("rename"))
def test_rename_keeps_the_truth_and_changes_the_names(seed_id: str) -> None:
    seed = get_seed(seed_id)
    differed = 0
    for index in range(VARIANTS):
        variant = seed.variant(index)
        renamed = perturb(seed, variant, Perturbation("rename"))
        assert renamed.answer == variant.answer == seed.redraw(renamed.params).answer
        differed += renamed.params != variant.params
    assert differed >= VARIANTS * 3 // 4


def test_the_same_perturbation_twice_is_the_same_variant() -> None:
    for seed_id in supporting("noop")[:5] + supporting("rename")[:5]:
        seed = get_seed(seed_id)
        for kind in seed.perturbations:
            once, again = (perturb(seed, seed.variant(2), Perturbation(kind)) for _ in range(2))
            assert once == again


def test_a_seed_without_a_perturbation_is_refused_and_none_is_itself() -> None:
    plain = [s for s, seed in all_seeds().items() if not seed.perturbations]
    seed = get_seed(plain[0])
    variant = seed.variant(0)
    assert perturb(seed, variant, Perturbation()) is variant and supports(seed, Perturbation())
    assert not supports(seed, Perturbation("noop"))
    with pytest.raises(PerturbationError, match=plain[0]):
        perturb(seed, variant, Perturbation("noop"))
