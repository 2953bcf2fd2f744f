"""Calls to the first confirmed failure: the guided searcher against random search, on the loopback stub.

The answerer (`testing/region_answerer.py`) is right everywhere except in a hidden region of one seed's
parameters (about 3% of its variants: a tail, an interior band, a corner of two parameters, a rare
category), plus 2% flukes outside it that confirmation must reject. For each region configuration a
random and a guided search run (`SearchSettings(budget, searchers=(kind,), confirm=2, baseline=0,
per_round=1)`), each against a fresh cache, and the calls up to and including the first CONFIRMED
trial in trial order are counted (a search that finds none counts as the budget: censored). Then the
same on an answerer that fails on a pseudo-random 3% of the variants (no structure) over the same
seeds.

    python benchmarks/search_calls.py                      # 20 configurations of split 1 (held out)
    python benchmarks/search_calls.py --generator-seed 0   # split 0: the tuning split
    python benchmarks/search_calls.py --trials 5 --budget 300

The default (3 trials: 60 searches of each kind on the regions, 72 on the uniform answerer) takes
about 4 minutes on 2 cores. Calls to a first failure are roughly geometric, so one trial is noisy: a
ratio from fewer than ~50 searches of each kind can be off by 0.2 or more.

Configurations of different seeds share one search (one unit each); those sharing a seed run in
separate searches. A unit stops proposing once it has a confirmed failure (nothing after it counts),
which keeps the runtime to a few minutes. Repetitions (`--trials`) give random search another base
seed (its variant indices 0, 1, ... are then other draws) and the guided searcher another search seed
and base seed.

Targets (the issue's): mean(guided) / mean(random) <= 0.5 on the regions; <= 1.1 on the uniform
answerer.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from isodyn.experiments.plan import plan_experiment
from isodyn.runs.config import parse_overrides
from isodyn.search.engine import SearchRounds, SearchSettings
from isodyn.search.trials import Searcher, Trial
from isodyn.testing import OpenAIStub
from isodyn.testing.region_answerer import RegionAnswerer
from isodyn.testing.regions import Region, regions

KINDS = (Searcher.RANDOM, Searcher.GUIDED)


@dataclass(frozen=True)
class Found:
    calls: int  # calls up to and including the first confirmed trial (the budget when none)
    censored: bool  # no confirmed trial within the budget


def first_confirmed(trials: Sequence[Trial], budget: int) -> Found:
    """The calls to the unit's first CONFIRMED trial in trial order (its number)."""
    spent = 0
    for trial in sorted(trials, key=lambda t: t.number):
        spent += trial.calls
        if trial.confirmed:
            return Found(spent, False)
    return Found(budget, True)


def search(
    seed_ids: list[str], answerer: RegionAnswerer, kind: Searcher, trial: int, budget: int, root: Path
) -> dict[str, Found]:
    """One search over the seeds (one unit each) with a fresh stub and cache; what each unit found."""
    folder = Path(tempfile.mkdtemp(prefix=f"{kind.value}-", dir=root))
    with OpenAIStub(answerer) as stub:
        config = parse_overrides([
            "models=openai/stub", f"api_base={stub.base_url}", "seeds=" + ",".join(seed_ids),
            "modalities=latex", "variants=1", f"base_seed={1 + trial}", f"out={folder}/runs",
            f"cache_dir={folder}/cache", "quiet=1",
        ])  # fmt: skip
        plan = plan_experiment(config)
        settings = SearchSettings(
            budget=budget, searchers=(kind,), confirm=2, baseline=0, search_seed=trial, per_round=1
        )
        (folder / "search").mkdir()
        searches: list = []

        def stop_when_found(done: Trial) -> None:
            # Nothing after a unit's first confirmed trial counts: stop it proposing (the trials of
            # lower numbers have all finished by then, so the count is the same as a full search's).
            if done.confirmed:
                for s in searches:
                    if s.unit == done.unit:
                        s.exhausted = True

        rounds = SearchRounds(
            plan, settings, folder / "search", on_trial=stop_when_found, on_variant=answerer.on_variant
        )
        searches.extend(rounds.searches(rounds.units()))
        trials = asyncio.run(rounds.run(searches))
    if answerer.unknown:
        raise RuntimeError(f"{answerer.unknown} prompts of no variant the answerer was told of")
    return {s: first_confirmed([t for t in trials if t.unit.seed_id == s], budget) for s in seed_ids}


def batches(configs: list[Region]) -> list[list[int]]:
    """Configurations grouped so that no two in a group share a seed (one search per group)."""
    groups: list[list[int]] = []
    for i, region in enumerate(configs):
        for group in groups:
            if all(configs[j].seed_id != region.seed_id for j in group):
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def pair(r: Found, g: Found) -> str:
    return f"random {r.calls:4d}{'*' if r.censored else ' '} guided {g.calls:4d}{'*' if g.censored else ' '}"


def mean(values: list[int]) -> float:
    return statistics.fmean(values) if values else float("nan")


def ratio_line(label: str, found: dict[Searcher, list[Found]], target: float) -> str:
    r, g = (mean([f.calls for f in found[k]]) for k in KINDS)
    censored = {k: sum(f.censored for f in found[k]) for k in KINDS}
    return (
        f"{label}: mean calls random {r:.1f}, guided {g:.1f}; ratio guided/random {g / r:.2f} "
        f"(target <= {target}); censored random {censored[Searcher.RANDOM]}/{len(found[Searcher.RANDOM])}, "
        f"guided {censored[Searcher.GUIDED]}/{len(found[Searcher.GUIDED])}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--configs", type=int, default=20, help="region configurations (default 20)")
    parser.add_argument("--budget", type=int, default=300, help="calls per unit and searcher (default 300)")
    parser.add_argument(
        "--generator-seed", type=int, default=1, help="which configurations: 0 the tuning split, 1 held out"
    )
    parser.add_argument("--trials", type=int, default=3, help="repetitions of each configuration (default 3)")
    parser.add_argument("--fluke", type=float, default=0.02, help="wrong-answer chance outside the region")
    parser.add_argument("--uniform", type=float, default=0.03, help="the uniform answerer's failing share")
    parser.add_argument(
        "--uniform-trials", type=int, default=None, help="uniform repetitions (default 2 x --trials)"
    )
    parser.add_argument("--skip-uniform", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    split = {0: "0 (tuning)", 1: "1 (held out)"}.get(args.generator_seed, f"{args.generator_seed} (other)")
    print(f"split: generator seed {split}; {args.configs} configurations, budget {args.budget}, "
          f"{args.trials} trial(s), confirm=2, fluke {args.fluke:.0%}", flush=True)  # fmt: skip
    configs = regions(args.configs, args.generator_seed)
    print(f"made the configurations in {time.perf_counter() - started:.0f} s", flush=True)
    for i, region in enumerate(configs):
        said = f"{region.seed_id:28s} {region.shape:8s} share {region.share:5.1%}"
        print(f"  [{i:2d}] {said}  {region.description}")
    found: dict[Searcher, list[Found]] = {k: [] for k in KINDS}
    by_shape: dict[str, dict[Searcher, list[Found]]] = defaultdict(lambda: {k: [] for k in KINDS})
    groups = batches(configs)
    with tempfile.TemporaryDirectory(prefix="search-calls-") as tmp:
        root = Path(tmp)
        print("\nregions: calls to the first confirmed failure (* = none within the budget)", flush=True)
        for trial in range(args.trials):
            for group in groups:
                picked = [configs[i] for i in group]
                seed_ids = [r.seed_id for r in picked]
                outcome: dict[Searcher, dict[str, Found]] = {}
                for kind in KINDS:
                    answerer = RegionAnswerer(picked, fluke=args.fluke, seed=trial)
                    outcome[kind] = search(seed_ids, answerer, kind, trial, args.budget, root)
                for i, region in zip(group, picked, strict=True):
                    r, g = (outcome[k][region.seed_id] for k in KINDS)
                    for kind, f in zip(KINDS, (r, g), strict=True):
                        found[kind].append(f)
                        by_shape[region.shape][kind].append(f)
                    print(
                        f"  trial {trial} [{i:2d}] {region.seed_id:28s} {region.shape:8s} {pair(r, g)}",
                        flush=True,
                    )
        print()
        print(ratio_line("regions", found, 0.5))
        for shape in sorted(by_shape):
            print("  " + ratio_line(f"{shape:8s}", by_shape[shape], 0.5))
        print(f"({time.perf_counter() - started:.0f} s so far)", flush=True)
        if not args.skip_uniform:
            seed_ids = list(dict.fromkeys(r.seed_id for r in configs))
            uniform: dict[Searcher, list[Found]] = {k: [] for k in KINDS}
            repeats = args.uniform_trials if args.uniform_trials is not None else 2 * args.trials
            print(
                f"\nuniform ({args.uniform:.0%} of variants wrong by a hash of their text, fluke "
                f"{args.fluke:.0%}) over the same {len(seed_ids)} seeds, {repeats} trial(s)",
                flush=True,
            )
            for trial in range(repeats):
                outcome = {}
                for kind in KINDS:
                    answerer = RegionAnswerer(fluke=args.fluke, uniform=args.uniform, seed=1000 + trial)
                    outcome[kind] = search(seed_ids, answerer, kind, 1000 + trial, args.budget, root)
                for seed_id in seed_ids:
                    r, g = (outcome[k][seed_id] for k in KINDS)
                    uniform[Searcher.RANDOM].append(r)
                    uniform[Searcher.GUIDED].append(g)
                    print(f"  trial {trial} {seed_id:28s} {pair(r, g)}", flush=True)
            print()
            print(ratio_line("uniform", uniform, 1.1))
    print(f"\nruntime {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
