"""A seed's `param_variation` (what `exp search` may vary, by DynaMath variation type) must fit its draws.

Every declared key is a top-level key of some variant's params, its type is one the seed itself lists in
`variation_types`, and it does change between variants: a declared key that never varies would give the
guided searcher an arm that can never move anything.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from isodyn.core import VariationType
from isodyn.generators import SeedProgram, all_seeds

SEEDS = all_seeds()
DRAWS = 30  # variants 0..29 of base seed 0
# Seeds whose variant space is so small that a declared key may legitimately take one value in DRAWS
# variants, by id, with the reason. Empty: every declared key of every seed varies within 30 draws.
TINY_SPACE: dict[str, str] = {}
DECLARING = [sid for sid, seed in SEEDS.items() if type(seed).param_variation]

_draws: dict[str, list[dict[str, Any]]] = {}


def draws(seed_id: str) -> list[dict[str, Any]]:
    if seed_id not in _draws:
        _draws[seed_id] = [SEEDS[seed_id].variant(i, 0).params for i in range(DRAWS)]
    return _draws[seed_id]


def _is_dynamath(seed: SeedProgram) -> bool:
    return type(seed).__module__.startswith("isodyn.generators.dynamath.")


def test_most_dynamath_seeds_declare_param_variation() -> None:
    dynamath = [sid for sid, seed in SEEDS.items() if _is_dynamath(seed)]
    declared = [sid for sid in dynamath if sid in DECLARING]
    assert len(declared) >= 40, f"only {len(declared)} of {len(dynamath)} DynaMath seeds declare it"


@pytest.mark.parametrize("seed_id", DECLARING)
def test_declared_types_are_the_seeds_own(seed_id: str) -> None:
    cls = type(SEEDS[seed_id])
    for key, vtype in cls.param_variation.items():
        assert isinstance(key, str)
        assert isinstance(vtype, VariationType), (key, vtype)
        assert vtype in cls.variation_types, f"{key!r}: {vtype} is not among {cls.variation_types}"


@pytest.mark.parametrize("seed_id", DECLARING)
def test_declared_keys_occur_in_params(seed_id: str) -> None:
    seen = {key for params in draws(seed_id) for key in params}
    missing = set(type(SEEDS[seed_id]).param_variation) - seen
    assert not missing, f"declared keys in no params of variants 0..{DRAWS - 1}: {sorted(missing)}"


@pytest.mark.parametrize("seed_id", DECLARING)
def test_declared_keys_vary(seed_id: str) -> None:
    if seed_id in TINY_SPACE:
        pytest.skip(TINY_SPACE[seed_id])
    constant = []
    for key in type(SEEDS[seed_id]).param_variation:
        values = {json.dumps(params[key], sort_keys=True) for params in draws(seed_id) if key in params}
        if len(values) < 2:
            constant.append(key)
    assert not constant, f"declared keys that never vary in variants 0..{DRAWS - 1}: {constant}"


def test_tiny_space_exemptions_are_current() -> None:
    assert set(TINY_SPACE) <= set(DECLARING), "exempted seeds must exist and declare param_variation"
