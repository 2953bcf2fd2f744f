"""The seed library as a whole: DynaMath's coverage requirements, and answers that really vary."""

import itertools
from collections import Counter

import pytest

from isodyn.core import AnswerType, Level, Modality, Topic, VariationType
from isodyn.generators import all_seeds
from isodyn.generators.base import format_choices

DYNAMATH_TOPICS = [t for t in Topic if not t.value.startswith("iso_")]
SEEDS = all_seeds()
DYNAMATH = {s: seed for s, seed in SEEDS.items() if seed.topic in DYNAMATH_TOPICS}


def test_dynamath_coverage() -> None:
    assert len(DYNAMATH) >= 60
    per_topic = Counter(seed.topic for seed in DYNAMATH.values())
    assert all(per_topic[t] >= 4 for t in DYNAMATH_TOPICS), per_topic
    assert {seed.level for seed in DYNAMATH.values()} == set(Level)
    assert {seed.answer_type for seed in DYNAMATH.values()} == set(AnswerType)
    per_variation = Counter(v for seed in DYNAMATH.values() for v in set(seed.variation_types))
    assert all(per_variation[v] >= 5 for v in VariationType), per_variation
    assert sum(len(set(seed.variation_types)) >= 2 for seed in DYNAMATH.values()) >= 10


def test_every_seed_declares_itself_and_renders_an_image() -> None:
    for seed_id, seed in SEEDS.items():
        assert Modality.IMAGE in seed.modalities, seed_id
        assert seed.variation_types and seed.variant_space >= 1, seed_id


@pytest.mark.parametrize("seed_id", sorted(SEEDS))
def test_answers_change_across_50_variants(seed_id: str) -> None:
    """Reports how often the answer changes; a multiple-choice answer must not be constant."""
    seed = SEEDS[seed_id]
    variants = [seed.variant(i, base_seed=7) for i in range(50)]
    answers = [v.answer for v in variants]
    changes = sum(a != b for a, b in itertools.pairwise(answers))
    print(f"{seed_id}: {len(set(answers))} distinct answers, {changes} changes in 49 steps")
    assert len(set(answers)) > 1, f"{seed_id} always answers {answers[0]!r}"
    if seed.answer_type is AnswerType.MULTIPLE_CHOICE:
        assert all(v.question.endswith(format_choices(v.choices)) for v in variants)
        assert all(v.answer in "ABCDEFGHIJ"[: len(v.choices)] for v in variants)
    assert all(v.solution.strip() for v in variants[:5])
