"""Text forms read as written for their medium: no article slips ("a orange", "an red"), no "there
are 1", and no text form pointing at a picture it does not have."""

from __future__ import annotations

import re

import pytest

from isodyn.core import Modality
from isodyn.generators import all_seeds

VARIANTS = 30
SLIPS = (
    re.compile(r"(?<![\w$\\{])a (?=[aeio][a-z])(?!one\b)"),  # "a orange" (a one-to-one is right)
    re.compile(r"(?<![\w$\\{])an (?=[bcdfgjklmnpqrstvwxz][a-z])"),  # "an red"
    re.compile(r"\bthere are 1 \w+"),  # "there are 1 connected components"
    re.compile(r"\b(?:shown|given) (?:in|by|on) the (?:picture|image|figure|table)\b"),  # not a picture
)


@pytest.mark.parametrize("seed_id", sorted(all_seeds()))
def test_text_forms_have_no_slips(seed_id: str) -> None:
    seed = all_seeds()[seed_id]
    for index in range(VARIANTS):
        variant = seed.variant(index)
        texts = [("solution", variant.solution)]
        texts += [
            (m.value, seed.representation(variant, m).text)
            for m in seed.modalities
            if m is not Modality.IMAGE
        ]
        for where, text in texts:
            for slip in SLIPS:
                found = slip.search(text)
                assert found is None, (
                    f"{seed_id}/{index} {where}: ...{text[max(0, found.start() - 40) : found.end() + 20]}..."
                )
