"""The guided searcher on its own, driven by a rule instead of a model: what it proposes is a legitimate
variant of the seed, its exploration covers each draw's range evenly, and once a failure is found its
mutations stay near it. The rule decides from the realized variant's params, computed independently of
the searcher."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from isodyn.core import VariationType
from isodyn.generators import all_seeds
from isodyn.generators.tape import Genome, realize
from isodyn.search.guided import EXPLORE, GuidedSearch, design_value, mutate
from isodyn.search.searchers import RandomSearch
from isodyn.search.trials import TrialStatus

SEEDS = all_seeds()


def drive(
    searcher: Any, seed_id: str, fails: Callable[[dict[str, Any]], bool], tries: int
) -> list[tuple[Any, bool]]:
    """Propose, realize, decide by `fails`, observe: the (proposal, failed) pairs in order."""
    seed = SEEDS[seed_id]
    seen = []
    for number in range(tries):
        proposal = searcher.propose()
        assert proposal is not None
        realized = realize(seed, proposal.genome)
        failed = fails(realized.variant.params)
        status = TrialStatus.CONFIRMED if failed else TrialStatus.PASSED
        searcher.observe(number, proposal, realized, status)
        seen.append((proposal, failed))
    return seen


def test_proposals_are_variants_of_the_seed_with_their_own_truth() -> None:
    seed = SEEDS["dynamath_shifted_abs"]
    searcher = GuidedSearch(seed, 0, 1)
    for number, (proposal, _) in enumerate(
        drive(searcher, "dynamath_shifted_abs", lambda p: p["a"] == 0, 40)
    ):
        variant = realize(seed, proposal.genome).variant
        # the truth of this seed, independently: differentiable at 0 exactly when the corner is elsewhere
        assert variant.answer == ("B" if variant.params["a"] == 0 else "A"), number


def test_exploration_covers_each_draws_range_evenly() -> None:
    """The first draw of shifted_abs is a uniform number in [0, 1): its 32 exploration values start at both
    ends and then put at least 3 in each eighth of the range (scrambled Sobol points are stratified), where
    32 independent draws leave some eighth with fewer than 3 most of the time."""
    seed = SEEDS["dynamath_shifted_abs"]
    searcher = GuidedSearch(seed, 0, 7)
    first_draw = []
    for _ in range(32):
        proposal = searcher.propose()
        assert proposal is not None and proposal.arm == EXPLORE
        first_draw.append(realize(seed, proposal.genome).draws[0].value)
    assert first_draw[0] == 0.0 and first_draw[1] > 0.999  # the ends of the range first
    counts = np.bincount((np.asarray(first_draw[2:]) * 8).astype(int), minlength=8)
    assert counts.min() >= 3, counts


def test_after_a_failure_its_neighbours_are_searched() -> None:
    """A region of one corner value (a == 4, about 1 in 8 variants of the plain draw, less of the
    space): once found, most later failures come from mutating failures, and the failure rate of
    the trials after the first failure is far above the region's share."""
    in_region = lambda p: p["a"] == 4  # noqa: E731
    guided = drive(GuidedSearch(SEEDS["dynamath_shifted_abs"], 0, 3), "dynamath_shifted_abs", in_region, 120)
    first = next(i for i, (_, failed) in enumerate(guided) if failed)
    after = guided[first + 1 :]
    share_after = sum(failed for _, failed in after) / len(after)
    plain = [in_region(SEEDS["dynamath_shifted_abs"].variant(i).params) for i in range(400)]
    assert share_after > 2 * (sum(plain) / len(plain)), (share_after, sum(plain) / len(plain))
    mutated = [p for p, failed in after if failed and p.parent is not None]
    assert len(mutated) >= 0.5 * sum(failed for _, failed in after)


def test_random_search_is_variant_indices_in_order() -> None:
    searcher = RandomSearch(SEEDS["dynamath_shifted_abs"], 5)
    assert [searcher.propose().genome.index for _ in range(4)] == [0, 1, 2, 3]  # type: ignore[union-attr]


def test_design_values_and_mutations_stay_in_range() -> None:
    seed = SEEDS["dynamath_line_system"]
    rng = np.random.default_rng(0)
    draws = [d for i in range(5) for d in realize(seed, Genome(seed.seed_id, i)).draws]
    for draw in draws:
        if draw.high <= draw.low or draw.size != 1 or isinstance(draw.value, list):
            continue
        for u in (0.0, 0.3, 0.999999):
            value = design_value(draw, u)
            assert value is None or draw.low <= value <= draw.high
        for _ in range(10):
            value = mutate(draw, rng)
            assert value is None or (draw.low <= value <= draw.high and value != draw.value)


def test_a_declared_seed_learns_which_variation_type_a_draw_changes() -> None:
    """shifted_abs with a declaration: the corner `a` is a numerical value, `form` a function type.
    After the search, every draw whose changes touched `a` is known to, and its changes are counted
    under the numerical-value arm."""

    seed = type(SEEDS["dynamath_shifted_abs"])()
    declared = {"a": VariationType.NUMERICAL_VALUE, "form": VariationType.FUNCTION_TYPE}
    seed.param_variation = declared  # on this instance only: the registered seed is untouched
    searcher = GuidedSearch(seed, 0, 5)
    model_fails = lambda p: p["a"] > 0  # noqa: E731
    for number in range(150):
        proposal = searcher.propose()
        assert proposal is not None
        realized = realize(seed, proposal.genome)
        status = TrialStatus.CONFIRMED if model_fails(realized.variant.params) else TrialStatus.PASSED
        searcher.observe(number, proposal, realized, status)
    touched = searcher._touched
    assert any("a" in keys for keys in touched.values())
    numerical = searcher._type_arms.get(VariationType.NUMERICAL_VALUE)
    assert numerical is not None and numerical.passes > 0  # moving the corner left of 0 repairs the failure
