"""Whether a search's confirmed failures merely hold bigger numbers than random variants:
`number_sizes`, per arm, against the sizes the random searcher drew.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS
from isodyn.analysis.stats import Interval
from isodyn.search.analysis import OWN, Arm, bootstrap_draws, by_arm, by_unit, draws_interval, nan_interval
from isodyn.search.explanations import MIN_EACH, number_size
from isodyn.search.trials import Trial


@dataclass(frozen=True)
class Quantiles:
    """Quantiles 10/50/90 and the mean of log10(1 + number size) (NaN when there is nothing)."""

    q10: float
    q50: float
    q90: float
    mean: float
    count: int

    @classmethod
    def of(cls, sizes: Sequence[float]) -> Quantiles:
        if not sizes:
            return cls(math.nan, math.nan, math.nan, math.nan, 0)
        logs = np.log10(1 + np.asarray(sizes, dtype=float))
        q10, q50, q90 = np.percentile(logs, [10, 50, 90])
        return cls(float(q10), float(q50), float(q90), float(logs.mean()), len(logs))


@dataclass(frozen=True)
class NumberSizes:
    """The confirmed failures' number sizes against plain random variants of the same seeds.

    `percentile`: the mean over failures of each failure's mid-rank percentile within its own seed's
    reference (0.5: no bigger than random), with a cluster-bootstrap interval over seeds.
    `unreferenced`: failures of seeds with no reference variants (left out)."""

    arm: Arm
    failures: int
    seeds: int
    unreferenced: int
    failed: Quantiles
    reference: Quantiles
    percentile: Interval
    verdict: str  # a clause without untrusted text, e.g. "the failures' numbers are bigger than ..."


def _percentile_within(value: float, reference: np.ndarray) -> float:
    """Mid-rank: the share of `reference` below `value`, ties counted half."""
    below = np.searchsorted(reference, value, side="left")
    tied = np.searchsorted(reference, value, side="right") - below
    return float((below + 0.5 * tied) / len(reference))


def _size_verdict(failures: int, seeds: int, percentile: Interval) -> str:
    if failures < MIN_EACH:
        return f"too few confirmed failures to compare ({failures})"
    shown = f"mean percentile {percentile.estimate:.2f}"
    if seeds < MIN_INTERVAL_SEEDS:  # the cluster bootstrap cannot say how sure this is
        return f"{shown} over {seeds} seeds, too few to say whether that is more than chance"
    shown += f", 95% CI {percentile.low:.2f} to {percentile.high:.2f}"
    if percentile.low > 0.5:
        return f"the failures hold bigger numbers than random variants of the same seeds ({shown})"
    if percentile.high < 0.5:
        return f"the failures hold smaller numbers than random variants of the same seeds ({shown})"
    return f"the failures' numbers are not clearly bigger than random variants' ({shown})"


def number_sizes(
    trials: Sequence[Trial],
    reference: Mapping[str, Sequence[Mapping[str, Any]]],
    resamples: int = 2000,
    seed: int = 0,
) -> list[NumberSizes]:
    """Per arm, the confirmed failures of its own search (not TRANSFER) against `reference`
    (seed id -> params of plain random variants of that seed), each failure within its own seed."""
    found = []
    for arm, group in by_arm(t for t in trials if t.searcher in OWN and t.confirmed).items():
        sums, counts, failed_sizes, reference_sizes, unreferenced = [], [], [], [], 0
        for unit, unit_trials in by_unit(group).items():
            plain = sorted(number_size(p) for p in reference.get(unit.seed_id, ()))
            if not plain:
                unreferenced += len(unit_trials)
                continue
            ordered = np.asarray(plain)
            sizes = [number_size(t.params) for t in unit_trials]
            sums.append(sum(_percentile_within(s, ordered) for s in sizes))
            counts.append(float(len(sizes)))
            failed_sizes += sizes
            reference_sizes += plain
        percentile = nan_interval()
        if counts:
            per_seed = np.column_stack([sums, counts])
            draws = bootstrap_draws(per_seed, resamples, np.random.default_rng(seed))
            # A ratio of resampled sums: each failure weighs the same, seeds are the clusters.
            percentile = draws_interval(sum(sums) / sum(counts), draws[:, 0] / draws[:, 1])
        failures = int(sum(counts))
        found.append(
            NumberSizes(
                arm=arm,
                failures=failures,
                seeds=len(counts),
                unreferenced=unreferenced,
                failed=Quantiles.of(failed_sizes),
                reference=Quantiles.of(reference_sizes),
                percentile=percentile,
                verdict=_size_verdict(failures, len(counts), percentile),
            )
        )
    return found
