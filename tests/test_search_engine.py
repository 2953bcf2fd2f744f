"""The search engine end to end against the loopback stub: what it confirms, what it spends, what it
replays from the cache, and what its baseline asks.

The answerer (`testing/region_answerer.py`) is right everywhere except in a hidden region of one
seed's params, plus flukes outside it; whether a trial's variant is in the region is checked here
independently, on the variant its genome realizes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from isodyn.core import Modality
from isodyn.experiments.plan import plan_experiment
from isodyn.generators.base import SEEDS
from isodyn.generators.tape import Genome, realize
from isodyn.runs.config import parse_overrides
from isodyn.search.engine import SearchRounds, SearchSettings
from isodyn.search.trials import Searcher, Trial, TrialStatus
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.region_answerer import RegionAnswerer
from isodyn.testing.regions import Region
from isodyn.testing.scripts import prompt_text

PROJECTILE = "dynamath_projectile_motion"
LENS = "dynamath_lens_focal_length"
# Fast throws: about 15% of the seed's plain variants.
FAST = Region(PROJECTILE, "high", "speed >= 27", lambda p: p["speed"] >= 27)
# Objects close to the lens: about 20% of its plain variants.
CLOSE = Region(LENS, "low", "d_o <= 14", lambda p: p["d_o"] <= 14)


def search(
    stub: OpenAIStub,
    tmp: Path,
    name: str,
    seeds: list[str],
    settings: SearchSettings,
    answerer: RegionAnswerer | None = None,
    cache: Path | None = None,
) -> tuple[list[Trial], SearchRounds]:
    """One search over the seeds (latex, zero-shot) in a folder of its own; its trials and its rounds."""
    config = parse_overrides([
        "models=openai/stub", f"api_base={stub.base_url}", "seeds=" + ",".join(seeds), "modalities=latex",
        "variants=1", f"out={tmp / 'runs'}", f"cache_dir={cache or tmp / 'cache'}", "quiet=1",
    ])  # fmt: skip
    plan = plan_experiment(config)
    folder = tmp / name
    folder.mkdir()
    hook = answerer.on_variant if answerer is not None else None
    rounds = SearchRounds(plan, settings, folder, on_variant=hook)
    trials = asyncio.run(rounds.run(rounds.searches(rounds.units())))
    return trials, rounds


def in_region(region: Region, trial: Trial) -> bool:
    """Whether the trial's variant is in the region, from the variant its genome realizes."""
    return region(realize(SEEDS[trial.unit.seed_id](), trial.genome).variant.params)


def test_guided_search_confirms_only_failures_of_the_region(tmp_path: Path) -> None:
    """Guided search finds the region; every confirmed trial is in it, and the flukes outside it
    (wrong once, right on a repeat) are rejected by the confirmation, never confirmed. (Random search
    runs beside it: most of its trials are outside the region, so flukes are met there.)"""
    answerer = RegionAnswerer([FAST], fluke=0.05, seed=2)
    settings = SearchSettings(
        budget=80, searchers=(Searcher.GUIDED, Searcher.RANDOM), confirm=2, baseline=0, per_round=2
    )
    with OpenAIStub(answerer) as stub:
        trials, _ = search(stub, tmp_path, "guided", [PROJECTILE], settings, answerer)
    assert answerer.unknown == 0
    confirmed = [t for t in trials if t.status is TrialStatus.CONFIRMED]
    assert any(t.searcher is Searcher.GUIDED for t in confirmed), "guided search confirmed no failure"
    for trial in confirmed:
        assert in_region(FAST, trial), trial.genome
        assert trial.params == realize(SEEDS[PROJECTILE](), trial.genome).variant.params
        assert len(trial.asks) == 3 and all(a.clearly_wrong for a in trial.asks)
    outside = [t for t in trials if not in_region(FAST, t)]
    assert outside and not any(t.status is TrialStatus.CONFIRMED for t in outside)
    flukes = [t for t in trials if t.status is TrialStatus.FLUKE]
    assert flukes, "no fluke to reject: raise the fluke rate"
    assert all(not in_region(FAST, t) for t in flukes)
    # inside the region every answer is wrong: nothing there passes
    assert all(t.status is not TrialStatus.PASSED for t in trials if in_region(FAST, t))


def test_no_unit_spends_more_than_its_budget(tmp_path: Path) -> None:
    budget = 23
    answerer = RegionAnswerer([FAST, CLOSE], fluke=0.1, seed=1)
    settings = SearchSettings(
        budget=budget, searchers=(Searcher.RANDOM, Searcher.GUIDED), confirm=2, baseline=3, per_round=4
    )
    with OpenAIStub(answerer) as stub:
        trials, rounds = search(stub, tmp_path, "budget", [PROJECTILE, LENS], settings, answerer)
    spent: dict[tuple[str, Searcher], int] = {}
    for trial in trials:
        key = (trial.unit.seed_id, trial.searcher)
        spent[key] = spent.get(key, 0) + trial.calls
    for seed_id in (PROJECTILE, LENS):
        for kind in (Searcher.RANDOM, Searcher.GUIDED):
            assert 0 < spent[(seed_id, kind)] <= budget, (seed_id, kind, spent)
        baseline = [t for t in trials if t.unit.seed_id == seed_id and t.searcher is Searcher.BASELINE]
        assert len(baseline) == 3  # outside the budget
    # confirmations are part of what a unit spends: some were asked here
    assert any(len(t.asks) == 3 for t in trials)
    assert rounds.calls_made == len(stub.requests)


def test_a_second_search_replays_everything_from_the_cache(tmp_path: Path) -> None:
    settings = SearchSettings(
        budget=30, searchers=(Searcher.GUIDED, Searcher.RANDOM), confirm=2, baseline=2, per_round=3
    )
    with OpenAIStub(RegionAnswerer([CLOSE], fluke=0.1, seed=2)) as stub:
        first_answerer = stub.script
        assert isinstance(first_answerer, RegionAnswerer)
        first, _ = search(stub, tmp_path, "first", [LENS], settings, first_answerer)
        asked = len(stub.requests)
        assert asked > 0
        again = RegionAnswerer([CLOSE], fluke=0.1, seed=2)
        stub.script = again
        second, rounds = search(stub, tmp_path, "second", [LENS], settings, again)
        assert len(stub.requests) == asked  # not one request: every call came from the cache
    assert rounds.calls_made == 0

    def summary(trials: list[Trial]) -> list[tuple[Any, ...]]:
        return sorted((t.searcher.value, t.number, t.genome.key(), t.status.value) for t in trials)

    assert summary(second) == summary(first)
    assert any(t.status is TrialStatus.CONFIRMED for t in first)
    assert all(a.cached for t in second for a in t.asks)


def test_without_confirmation_one_wrong_answer_is_confirmed(tmp_path: Path) -> None:
    everywhere = Region(LENS, "all", "every variant", lambda p: True)
    answerer = RegionAnswerer([everywhere])
    settings = SearchSettings(budget=6, searchers=(Searcher.RANDOM,), confirm=0, baseline=0, per_round=3)
    with OpenAIStub(answerer) as stub:
        trials, _ = search(stub, tmp_path, "once", [LENS], settings, answerer)
        assert len(stub.requests) == 6
    assert len(trials) == 6
    for trial in trials:
        assert trial.status is TrialStatus.CONFIRMED
        assert len(trial.asks) == 1 and trial.asks[0].clearly_wrong and trial.calls == 1


def test_an_unclear_reply_is_never_confirmed(tmp_path: Path) -> None:
    settings = SearchSettings(budget=9, searchers=(Searcher.GUIDED,), confirm=2, baseline=2, per_round=3)
    with OpenAIStub(lambda request: ScriptedReply(text="I am not sure")) as stub:
        trials, _ = search(stub, tmp_path, "unclear", [LENS], settings)
        asked = len(stub.requests)
    assert trials and all(t.status is TrialStatus.UNCLEAR for t in trials)
    assert all(len(t.asks) == 1 for t in trials)  # nothing to confirm: no repeat was asked
    assert asked == len(trials)


def test_the_baseline_is_the_seeds_variants_0_to_9(tmp_path: Path) -> None:
    seed_id = LENS
    seed = SEEDS[seed_id]()
    answerer = RegionAnswerer([CLOSE])
    settings = SearchSettings(budget=3, searchers=(Searcher.RANDOM,), confirm=2, baseline=10, per_round=4)
    with OpenAIStub(answerer) as stub:
        trials, _ = search(stub, tmp_path, "baseline", [seed_id], settings, answerer)
        prompts = [prompt_text(r) for r in stub.requests]
    baseline = sorted((t for t in trials if t.searcher is Searcher.BASELINE), key=lambda t: t.number)
    assert [t.number for t in baseline] == list(range(10))
    for i, trial in enumerate(baseline):
        assert trial.genome == Genome(seed_id, i, 0)  # no tweaks: the seed's own draw
        variant = seed.variant(i, 0)
        assert realize(seed, trial.genome).variant.question == variant.question
        assert trial.params == variant.params and trial.answer == variant.answer
        text = seed.representation(variant, Modality.LATEX).text
        assert any(text in prompt for prompt in prompts), i
