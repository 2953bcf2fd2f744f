"""The batched cluster bootstrap gives exactly the numbers of one table at a time (same draws)."""

from __future__ import annotations

import numpy as np
import pytest

from isodyn.analysis import stats
from isodyn.analysis.stats import Interval, SeedTable, cluster_bootstraps, percentile_interval, resample_means


def reference(table: SeedTable, resamples: int, level: float, seed: int) -> dict[str, Interval]:
    """The cluster bootstrap written out plainly, one table at a time (as it was before batching)."""
    if table.n == 0:
        nan = Interval(float("nan"), float("nan"), float("nan"))
        return {"A_avg": nan, "A_wst": nan, "RR": nan}
    rng = np.random.default_rng(seed)
    means = resample_means(np.column_stack([table.accuracy, table.worst]), resamples, rng)
    a_avg, a_wst = means[:, 0], means[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rr = np.where(a_avg > 0, a_wst / a_avg, np.nan)
    point_avg, point_wst = float(table.accuracy.mean()), float(table.worst.mean())
    point_rr = point_wst / point_avg if point_avg > 0 else float("nan")
    return {
        "A_avg": Interval(point_avg, *percentile_interval(a_avg, level)),
        "A_wst": Interval(point_wst, *percentile_interval(a_wst, level)),
        "RR": Interval(point_rr, *percentile_interval(rr, level)),
    }


def random_table(rng: np.random.Generator) -> SeedTable:
    n = int(rng.choice([0, 1, 2, 3, 5, 8, 13, 40, 90]))
    variants = int(rng.integers(1, 12))
    accuracy = rng.integers(0, variants + 1, size=n) / variants
    if rng.random() < 0.3:
        accuracy = rng.random(n)  # many distinct values
    if rng.random() < 0.2:
        accuracy = np.zeros(n)  # RR undefined in every resample
    worst = np.where(accuracy == 1, 1.0, 0.0) if rng.random() < 0.5 else np.floor(accuracy)
    return SeedTable(np.arange(n).astype(str), accuracy, worst, np.full(n, variants))


def same(a: Interval, b: Interval) -> bool:
    return all(x == y or (np.isnan(x) and np.isnan(y)) for x, y in zip(
        (a.estimate, a.low, a.high), (b.estimate, b.low, b.high), strict=True))  # fmt: skip


@pytest.mark.parametrize("case", range(8))
def test_the_batched_bootstrap_equals_one_table_at_a_time_exactly(case: int) -> None:
    rng = np.random.default_rng(case)
    tables = [random_table(rng) for _ in range(60)]
    tables += tables[:5]  # a table asked for twice in one call
    resamples, level, seed = int(rng.choice([1, 7, 2_000])), float(rng.choice([0.9, 0.95])), case
    stats._COMPUTED.clear()
    found = cluster_bootstraps(tables, resamples, level, seed)
    for table, intervals in zip(tables, found, strict=True):
        expected = reference(table, resamples, level, seed)
        assert all(same(intervals[name], expected[name]) for name in expected), (table, intervals, expected)
    stats._COMPUTED.clear()
    for table, intervals in zip(tables[:7], found, strict=False):
        alone = stats.cluster_bootstrap(table, resamples, level, seed)
        assert all(same(alone[name], intervals[name]) for name in alone)
