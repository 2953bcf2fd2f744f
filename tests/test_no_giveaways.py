"""No representation gives the answer away: over 60 variants of every seed, no simple surface feature
of a text form (a mark such as `#` or `+`, a result word, a symbol's presence) predicts the answer
better than the majority class does; and no option position holds the truth far more often than
chance. (A model that reads `#` at the end of a PGN knows who won without any chess.)"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from isodyn.core import AnswerType, Modality
from isodyn.generators import all_seeds

VARIANTS = 60
SHUFFLES = 20
SYMBOLS = ("#", "+", "!", "?", "=", "*", "%", "✓", "✗", "½")
RESULT_WORDS = ("wins", "won", "win", "loses", "lost", "draw", "drawn", "checkmate", "mate", "stalemate",
                "resigns", "1-0", "0-1", "1/2-1/2", "true", "false", "correct", "answer")  # fmt: skip
TEXT_FORMS = (Modality.LATEX, Modality.CODE, Modality.STORY)


def _classification_seeds() -> list[str]:
    """Seeds whose answers fall in a few classes (a surface feature can only give away a class)."""
    return sorted(
        seed_id
        for seed_id, seed in all_seeds().items()
        if seed.answer_type is AnswerType.MULTIPLE_CHOICE or getattr(seed, "classes", ())
    )


def _features(text: str) -> dict[str, bool]:
    """Surface features of a text: each symbol and result word present or not, counted outside the
    question itself (the question is the same for every variant)."""
    lowered = text.lower()
    found = {f"symbol {s}": s in text for s in SYMBOLS}
    found |= {f"word {w}": re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", lowered) is not None
              for w in RESULT_WORDS}  # fmt: skip
    return found


def _best_stump(rows: list[tuple[dict[str, bool], str]]) -> tuple[str, float]:
    """The single feature whose presence best predicts the answer, and its accuracy."""
    best = ("none", 0.0)
    for feature in rows[0][0]:
        groups: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
        for features, answer in rows:
            groups[features[feature]][answer] += 1
        right = sum(max(group.values()) for group in groups.values() if group)
        if right / len(rows) > best[1]:
            best = (feature, right / len(rows))
    return best


@pytest.mark.parametrize("seed_id", _classification_seeds())
def test_no_surface_feature_of_a_text_form_predicts_the_answer(seed_id: str) -> None:
    seed = all_seeds()[seed_id]
    variants = [seed.variant(i) for i in range(VARIANTS)]
    answers = [v.answer for v in variants]
    majority = Counter(answers).most_common(1)[0][1] / len(answers)
    for modality in (m for m in TEXT_FORMS if m in seed.modalities):
        rows = []
        for variant in variants:
            text = seed.representation(variant, modality).text.replace(variant.question, "")
            rows.append((_features(text), variant.answer))
        feature, accuracy = _best_stump(rows)
        # What the best feature reaches by chance: the same features against shuffled answers. A
        # feature that names the answer beats that and the majority class by a wide margin ('#' on
        # a PGN: 67% against 33%); one that only correlates by chance does not.
        rng = random.Random(seed_id)
        chance = []
        for _ in range(SHUFFLES):
            shuffled = [a for _, a in rows]
            rng.shuffle(shuffled)
            chance.append(_best_stump([(f, a) for (f, _), a in zip(rows, shuffled, strict=True)])[1])
        allowed = max(majority + 0.10, max(chance) + 0.05)
        assert accuracy <= allowed, (
            f"{seed_id} {modality.value}: '{feature}' predicts the answer in {accuracy:.0%} of variants "
            f"(majority class {majority:.0%}, best by chance {max(chance):.0%})"
        )


@pytest.mark.parametrize(
    "seed_id", [s for s, seed in all_seeds().items() if seed.answer_type is AnswerType.MULTIPLE_CHOICE]
)
def test_the_true_option_is_not_always_in_one_place(seed_id: str) -> None:
    seed = all_seeds()[seed_id]
    letters = Counter(seed.variant(i).answer for i in range(VARIANTS))
    options = len(seed.variant(0).choices)
    assert letters.most_common(1)[0][1] / VARIANTS <= max(0.75, 2 / options), (seed_id, dict(letters))
