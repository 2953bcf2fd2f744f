"""Uncertainty that respects the design: variants of one seed are correlated, so seeds are resampled.

All functions are pure and vectorised with numpy:

- `seed_table`: per-seed accuracy (mean over its variants and repeats) and worst case (mean over
  repeats of "every variant right"), the units DynaMath's A_avg and A_wst average over;
- `cluster_bootstrap`: percentile intervals for A_avg, A_wst and RR from the same seed resamples;
- `paired_comparison`: two systems on the same cells: the paired cluster-bootstrap interval of the
  difference, McNemar's exact test on discordant cells, a sign-flip permutation test over seeds;
- `holm`: Holm's step-down correction; `power_analysis`: minimum detectable effect and seeds needed;
- `paired_bootstrap`: the same paired comparison with its draws kept (intervals at several levels),
  `bonferroni_level`, `detectable_effect` (the MDE or why there is none), `fewest_seeds_for`;
- `cohen_kappa`, `kappa_interval`: agreement of two raters (the rules and a judge) beyond chance,
  with a percentile interval from resampled pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from isodyn.analysis.columns import ITEM
from isodyn.runs.schema import Column

# Resample weights are built in blocks so memory stays bounded for many seeds.
_BLOCK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class SeedTable:
    seed_ids: np.ndarray
    accuracy: np.ndarray  # per-seed mean correctness
    worst: np.ndarray  # per-seed worst case, averaged over repeats
    cells: np.ndarray  # graded cells per seed

    @property
    def n(self) -> int:
        return len(self.seed_ids)


def seed_table(graded: pd.DataFrame) -> SeedTable:
    correct = graded[Column.correct].astype(float)
    by_seed = correct.groupby(graded[Column.seed_id])
    worst = correct.groupby([graded[Column.seed_id], graded[Column.repeat]]).min().groupby(level=0).mean()
    accuracy = by_seed.mean()
    return SeedTable(
        seed_ids=accuracy.index.to_numpy(),
        accuracy=accuracy.to_numpy(),
        worst=worst.reindex(accuracy.index).to_numpy(),
        cells=by_seed.size().to_numpy(),
    )


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    def as_dict(self, prefix: str) -> dict[str, float]:
        return {prefix: self.estimate, f"{prefix}_low": self.low, f"{prefix}_high": self.high}


def resample_means(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of `values` (one row per seed, one column per statistic) over bootstrap resamples of seeds.

    Drawing n seeds with replacement only matters through how many times each distinct row is
    drawn, which is multinomial over the distinct rows. Per-seed accuracies take few distinct values
    (k/M for M variants), so this costs resamples x distinct rows instead of resamples x seeds.
    """
    n = len(values)
    distinct, counts = np.unique(values, axis=0, return_counts=True)
    out = []
    if len(distinct) > n // 4:  # mostly distinct values: drawing seed indices directly is cheaper
        block = max(1, min(resamples, _BLOCK_ENTRIES // n))
        for start in range(0, resamples, block):
            picks = rng.integers(0, n, size=(min(block, resamples - start), n))
            out.append(values[picks].mean(axis=1))
        return np.concatenate(out)
    block = max(1, min(resamples, _BLOCK_ENTRIES // len(distinct)))
    for start in range(0, resamples, block):
        draws = rng.multinomial(n, counts / n, size=min(block, resamples - start))
        out.append(draws @ distinct / n)
    return np.concatenate(out)


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central `level` percentile interval of the finite values (NaN, NaN when none are)."""
    finite = values[np.isfinite(values)]
    if not len(finite):
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def cluster_bootstrap(
    table: SeedTable, resamples: int = 10_000, level: float = 0.95, seed: int = 0
) -> dict[str, Interval]:
    """Percentile intervals for A_avg, A_wst and RR, all from the same seed resamples."""
    return cluster_bootstraps([table], resamples, level, seed)[0]


_NAN = Interval(float("nan"), float("nan"), float("nan"))
# Intervals already computed in this process, by the seed values and the bootstrap's settings: a
# report asks for the same arm's intervals in several sections (the overview, the tables, a figure,
# the findings). A pure function of its key, so a repeat is the same numbers.
_COMPUTED: dict[tuple[bytes, bytes, int, float, int], dict[str, Interval]] = {}
_COMPUTED_MAX = 100_000
_GATHER_ENTRIES = 8_000_000  # resampled values gathered at once (64 MB of float64)


def cluster_bootstraps(
    tables: Sequence[SeedTable], resamples: int = 10_000, level: float = 0.95, seed: int = 0
) -> list[dict[str, Interval]]:
    """`cluster_bootstrap` of each table: the same numbers (the same draws), computed together.

    Every call draws from a fresh generator seeded with `seed`, so tables with the same number of
    seeds n that resample seed indices (`resample_means`'s direct path) share one matrix of picks:
    it is drawn once per n and applied to all of them in one gather; the multinomial path stays per
    table. A table whose values were bootstrapped before in this process is not drawn again."""
    keys = [_key(table, resamples, level, seed) for table in tables]
    pending = {key: table for key, table in zip(keys, tables, strict=True) if key not in _COMPUTED}
    by_n: dict[int, list[tuple[tuple[bytes, bytes, int, float, int], np.ndarray]]] = {}
    for key, table in pending.items():
        values = np.column_stack([table.accuracy, table.worst]).astype(float)
        if table.n == 0:
            _remember(key, {"A_avg": _NAN, "A_wst": _NAN, "RR": _NAN})
        elif len(np.unique(values, axis=0)) > table.n // 4:
            by_n.setdefault(table.n, []).append((key, values))
        else:
            means = resample_means(values, resamples, np.random.default_rng(seed))
            _remember(key, _intervals(values, means[:, :, None], level)[0])
    for n, group in by_n.items():
        _bootstrap_picks(n, group, resamples, level, seed)
    return [_COMPUTED[key] for key in keys]


def _key(table: SeedTable, resamples: int, level: float, seed: int) -> tuple[bytes, bytes, int, float, int]:
    accuracy = np.ascontiguousarray(table.accuracy, dtype=float)
    worst = np.ascontiguousarray(table.worst, dtype=float)
    return accuracy.tobytes(), worst.tobytes(), resamples, level, seed


def _remember(key: tuple[bytes, bytes, int, float, int], intervals: dict[str, Interval]) -> None:
    if len(_COMPUTED) >= _COMPUTED_MAX:
        _COMPUTED.clear()
    _COMPUTED[key] = intervals


def _bootstrap_picks(
    n: int,
    group: list[tuple[tuple[bytes, bytes, int, float, int], np.ndarray]],
    resamples: int,
    level: float,
    seed: int,
) -> None:
    """The direct path of `resample_means` for every table of `group` (each n seeds), the picks drawn
    once, as each call would draw them: in the same blocks from a fresh generator."""
    rng = np.random.default_rng(seed)
    block = max(1, min(resamples, _BLOCK_ENTRIES // n))
    picks = [
        rng.integers(0, n, size=(min(block, resamples - start), n)) for start in range(0, resamples, block)
    ]
    per_chunk = max(1, _GATHER_ENTRIES // (min(block, resamples) * n * 2))
    for first in range(0, len(group), per_chunk):
        chunk = group[first : first + per_chunk]
        stacked = np.concatenate([values for _, values in chunk], axis=1)  # n x 2 per table
        means = np.concatenate([_picked_means(stacked, some) for some in picks])  # resamples x 2 per table
        found = _intervals(stacked, means.reshape(len(means), len(chunk), 2).transpose(0, 2, 1), level)
        for (key, _), intervals in zip(chunk, found, strict=True):
            _remember(key, intervals)


def _picked_means(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """`values[picks].mean(axis=1)`, the same floats (numpy sums that axis in order, then divides),
    without building the resamples x n x columns array: one picked row of values added at a time."""
    total = values[picks[:, 0]]
    for column in range(1, picks.shape[1]):
        total += values[picks[:, column]]
    return total / picks.shape[1]


def _intervals(values: np.ndarray, means: np.ndarray, level: float) -> list[dict[str, Interval]]:
    """The intervals of tables whose seed values are `values` (n x 2 per table, side by side) from
    their resampled means (`means`: resamples x 2 x tables, A_avg then A_wst)."""
    a_avg, a_wst = means[:, 0, :], means[:, 1, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        rr = np.where(a_avg > 0, a_wst / a_avg, np.nan)
    bounds = {name: _percentile_intervals(draws, level) for name, draws in
              (("A_avg", a_avg), ("A_wst", a_wst), ("RR", rr))}  # fmt: skip
    out = []
    for index in range(means.shape[2]):
        point_avg = float(np.ascontiguousarray(values[:, 2 * index]).mean())
        point_wst = float(np.ascontiguousarray(values[:, 2 * index + 1]).mean())
        point_rr = point_wst / point_avg if point_avg > 0 else float("nan")
        points = {"A_avg": point_avg, "A_wst": point_wst, "RR": point_rr}
        out.append({name: Interval(points[name], *bounds[name][index]) for name in points})
    return out


def _percentile_intervals(draws: np.ndarray, level: float) -> list[tuple[float, float]]:
    """`percentile_interval` of each column of `draws`; the columns without NaN in one call."""
    finite = np.isfinite(draws).all(axis=0)
    tail = (1 - level) / 2 * 100
    together = np.percentile(draws[:, finite], [tail, 100 - tail], axis=0) if finite.any() else None
    out, column = [], 0
    for index in range(draws.shape[1]):
        if finite[index] and together is not None:
            out.append((float(together[0, column]), float(together[1, column])))
            column += 1
        else:
            out.append(percentile_interval(draws[:, index], level))
    return out


@dataclass(frozen=True)
class PairedResult:
    difference: Interval  # A minus B, in accuracy (0..1)
    cells: int
    seeds: int
    a_only: int  # cells right for A, wrong for B
    b_only: int
    p_mcnemar: float
    p_permutation: float
    sd_seed_difference: float


def align(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Cells graded for both systems, side by side (`correct_a`, `correct_b`)."""
    left = a[[*ITEM, Column.correct]].rename(columns={Column.correct: "correct_a"})
    right = b[[*ITEM, Column.correct]].rename(columns={Column.correct: "correct_b"})
    return left.merge(right, on=list(ITEM), how="inner")


def seed_differences(both: pd.DataFrame) -> pd.Series:
    """Per seed, A's accuracy minus B's over cells both graded (`align`'s table), by seed."""
    right_a, right_b = both["correct_a"].astype(bool), both["correct_b"].astype(bool)
    return (right_a.astype(float) - right_b.astype(float)).groupby(both[Column.seed_id]).mean()


def mcnemar_exact(a_only: int, b_only: int) -> float:
    discordant = a_only + b_only
    if discordant == 0:
        return 1.0
    from scipy import stats  # seconds to import: only when a test is asked for

    return float(stats.binomtest(a_only, discordant, 0.5, alternative="two-sided").pvalue)


def sign_flip_p(differences: np.ndarray, permutations: int, rng: np.random.Generator) -> float:
    """Two-sided p of the mean seed-level difference under random sign flips (exact when small).

    Flipping the signs of the m seeds that share a value v adds v * (2 * Binomial(m, 1/2) - m) to
    the sum, so the Monte Carlo version draws one binomial per distinct value, not one sign per seed.
    """
    n = len(differences)
    if n == 0 or not np.any(differences):
        return 1.0
    observed = abs(differences.mean())
    if n <= 16:  # every sign pattern
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        flipped = np.abs(signs @ differences / n)
        return float(np.mean(flipped >= observed - 1e-12))
    distinct, counts = np.unique(differences, return_counts=True)
    positives = rng.binomial(counts, 0.5, size=(permutations, len(distinct)))
    flipped = np.abs((2 * positives - counts) @ distinct / n)
    return float((1 + np.sum(flipped >= observed - 1e-12)) / (permutations + 1))


def paired_comparison(
    a: pd.DataFrame,
    b: pd.DataFrame,
    resamples: int = 10_000,
    permutations: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> PairedResult:
    """A versus B on the cells both have graded; differences are A minus B."""
    found = paired_bootstrap(a, b, resamples, permutations, seed)
    if found.seeds == 0:
        nan = Interval(float("nan"), float("nan"), float("nan"))
        return PairedResult(nan, 0, 0, 0, 0, 1.0, 1.0, float("nan"))
    return PairedResult(
        difference=found.interval(level),
        cells=found.cells,
        seeds=found.seeds,
        a_only=found.a_only,
        b_only=found.b_only,
        p_mcnemar=found.p_mcnemar,
        p_permutation=found.p_permutation,
        sd_seed_difference=found.sd_seed_difference,
    )


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order."""
    m = len(p_values)
    order = np.argsort(p_values)
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted.tolist()


@dataclass(frozen=True)
class Power:
    minimum_detectable_effect: float  # with the seeds at hand
    seeds_needed: int | None  # for `target_effect`; None when the spread is unknown


def power_analysis(
    sd_seed_difference: float,
    seeds: int,
    target_effect: float = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Power:
    """Paired mean difference over seeds; t quantiles with seeds - 1 degrees of freedom (the normal
    approximation flatters small studies). Seeds needed are solved with the same t approximation."""
    if not np.isfinite(sd_seed_difference) or seeds < 2:
        return Power(float("nan"), None)
    from scipy import stats

    def quantiles(n: int) -> float:
        return float(stats.t.ppf(1 - alpha / 2, n - 1) + stats.t.ppf(power, n - 1))

    mde = quantiles(seeds) * sd_seed_difference / np.sqrt(seeds)
    if sd_seed_difference == 0:
        return Power(0.0, 2)
    needed = 2
    while needed < 1_000_000 and quantiles(needed) * sd_seed_difference / np.sqrt(needed) > target_effect:
        needed = max(needed + 1, int(needed * 1.05))
    return Power(float(mde), needed)


def smallest_sign_flip_p(seeds: int) -> float:
    """The smallest two-sided p a sign-flip test over `seeds` seeds can reach (all signs alike)."""
    return min(1.0, 2 / 2**seeds) if seeds > 0 else 1.0


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two raters' labels on the same items (NaN for no items; 1 when both give
    one and the same label throughout, where chance agreement is already total)."""
    a, b = np.asarray(a), np.asarray(b)
    if len(a) == 0:
        return float("nan")
    categories, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    left, right = codes[: len(a)], codes[len(a) :]
    return float(_kappas(left[None, :], right[None, :], len(categories))[0])


def _kappas(left: np.ndarray, right: np.ndarray, k: int) -> np.ndarray:
    """Kappa per row of two (resamples x items) arrays of category codes 0..k-1."""
    observed = (left == right).mean(axis=1)
    expected = sum((left == c).mean(axis=1) * (right == c).mean(axis=1) for c in range(k))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - expected) / (1 - expected)
    return np.where(expected >= 1, np.where(observed >= 1, 1.0, np.nan), kappa)


def kappa_interval(
    a: np.ndarray, b: np.ndarray, resamples: int = 2_000, level: float = 0.95, seed: int = 0
) -> Interval:
    """Cohen's kappa with a percentile bootstrap interval over resampled items."""
    a, b = np.asarray(a), np.asarray(b)
    if len(a) == 0:
        return Interval(float("nan"), float("nan"), float("nan"))
    categories, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    left, right = codes[: len(a)], codes[len(a) :]
    picks = np.random.default_rng(seed).integers(0, len(a), size=(resamples, len(a)))
    draws = _kappas(left[picks], right[picks], len(categories))
    return Interval(cohen_kappa(a, b), *percentile_interval(draws, level))


@dataclass(frozen=True)
class PairedBootstrap:
    """A versus B on the cells both have graded, keeping the bootstrap draws of the mean seed-level
    difference so that intervals at several levels (per comparison, simultaneous) come from the
    same resamples. `paired_comparison`'s numbers are exactly these (same draws, same p)."""

    per_seed: np.ndarray  # A minus B per seed (mean over its shared variants and repeats)
    draws: np.ndarray  # bootstrap means of `per_seed`, one per resample
    cells: int
    a_only: int
    b_only: int
    p_mcnemar: float
    p_permutation: float

    @property
    def seeds(self) -> int:
        return len(self.per_seed)

    @property
    def estimate(self) -> float:
        return float(self.per_seed.mean()) if self.seeds else float("nan")

    @property
    def sd_seed_difference(self) -> float:
        return float(self.per_seed.std(ddof=1)) if self.seeds > 1 else float("nan")

    def interval(self, level: float) -> Interval:
        """The percentile interval at `level` (two-sided) from the stored draws."""
        if not self.seeds:
            return Interval(float("nan"), float("nan"), float("nan"))
        return Interval(self.estimate, *percentile_interval(self.draws, level))


def paired_bootstrap(
    a: pd.DataFrame, b: pd.DataFrame, resamples: int = 10_000, permutations: int = 10_000, seed: int = 0
) -> PairedBootstrap:
    """The paired cluster bootstrap over seeds and both tests, draws kept (differences are A minus B)."""
    both = align(a, b)
    rng = np.random.default_rng(seed)
    right_a, right_b = both["correct_a"].astype(bool), both["correct_b"].astype(bool)
    a_only, b_only = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum())
    per_seed = seed_differences(both).to_numpy()
    if not len(per_seed):
        return PairedBootstrap(per_seed, np.empty(0), 0, 0, 0, 1.0, 1.0)
    draws = resample_means(per_seed[:, None], resamples, rng)[:, 0]
    return PairedBootstrap(
        per_seed=per_seed,
        draws=draws,
        cells=len(both),
        a_only=a_only,
        b_only=b_only,
        p_mcnemar=mcnemar_exact(a_only, b_only),
        p_permutation=sign_flip_p(per_seed, permutations, rng),
    )


def bonferroni_level(alpha: float, comparisons: int) -> float:
    """The level of each of `comparisons` intervals that together cover with probability at least
    1 - alpha (Bonferroni): 1 - alpha / m."""
    return 1 - alpha / max(comparisons, 1)


def fewest_seeds_for(alpha: float) -> int:
    """The fewest seeds with which a two-sided sign-flip test can reach p < alpha (6 for 0.05)."""
    seeds = 1
    while smallest_sign_flip_p(seeds) >= alpha:
        seeds += 1
    return seeds


DetectableReason = Literal["ok", "too few seeds", "sign-flip floor", "no spread", "beyond 100 points"]


@dataclass(frozen=True)
class Detectable:
    """The minimum detectable effect in accuracy (0 < effect <= 1) when there is one; otherwise
    `effect` is None and `reason` says why: fewer than 2 seeds, a sign-flip test over these seeds
    cannot reach alpha at all, every seed difference is the same (no spread), or not even a
    100-point difference would be detected. `seeds_needed` (for the target effect) is None when
    the spread is unknown or zero."""

    effect: float | None
    reason: DetectableReason
    seeds: int
    seeds_needed: int | None


def detectable_effect(
    sd_seed_difference: float,
    seeds: int,
    target_effect: float = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Detectable:
    """`power_analysis` made safe to print: never 0, never above 1, and a reason instead of a number
    where the variance is degenerate or the seeds too few. Seeds needed are at least the fewest with
    which the sign-flip test can reach alpha."""
    floor = fewest_seeds_for(alpha)
    if seeds < 2 or not np.isfinite(sd_seed_difference):
        return Detectable(None, "too few seeds", seeds, None)
    if sd_seed_difference < 1e-12:  # equal seed differences leave only rounding dust
        return Detectable(None, "no spread", seeds, None)
    found = power_analysis(sd_seed_difference, seeds, target_effect, alpha, power)
    needed = None if found.seeds_needed is None else max(found.seeds_needed, floor)
    if seeds < floor:
        return Detectable(None, "sign-flip floor", seeds, needed)
    if not found.minimum_detectable_effect <= 1:
        return Detectable(None, "beyond 100 points", seeds, needed)
    return Detectable(found.minimum_detectable_effect, "ok", seeds, needed)
