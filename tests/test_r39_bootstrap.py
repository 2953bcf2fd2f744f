"""The batched cluster bootstrap gives exactly the numbers of one table at a time (same draws)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from isodyn.analysis import stats
from isodyn.analysis.columns import ARM
from isodyn.analysis.metrics import Bootstrap, graded_cells, robustness_table
from isodyn.analysis.stats import (
    Interval,
    SeedTable,
    cluster_bootstraps,
    percentile_interval,
    resample_means,
    seed_table,
)


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


REASONS = ["ok", "ok", "extraction_failed", "error", "skipped"]


def random_cells(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for model in ("m1", "m2"):
        for topic in ("algebra", "graph theory", None):
            for seed in range(int(rng.integers(0, 9))):
                for variant in range(int(rng.integers(1, 5))):
                    for repeat in range(int(rng.integers(1, 3))):
                        rows.append({
                            "model": model, "strategy": "zeroshot", "modality": "image", "topic": topic,
                            "seed_id": f"{topic}-{seed}", "variant": variant, "repeat": repeat,
                            "correct": bool(rng.random() < 0.6),
                            "reason": REASONS[rng.integers(0, len(REASONS))],
                        })  # fmt: skip
    return pd.DataFrame(rows).sample(frac=1, random_state=int(rng.integers(0, 99)))


@pytest.mark.parametrize("case", range(6))
def test_robustness_table_equals_each_group_bootstrapped_alone(case: int) -> None:
    frame = random_cells(np.random.default_rng(case))
    bootstrap = Bootstrap(resamples=300, seed=case)
    stats._COMPUTED.clear()
    table = robustness_table(frame, [*ARM, "topic"], bootstrap)
    graded = graded_cells(frame)
    for record in table.to_dict("records"):
        keys = [*ARM, "topic"]
        mask = np.logical_and.reduce([graded[k] == record[str(k)] for k in keys])
        seeds = seed_table(graded[mask])
        expected = reference(seeds, bootstrap.resamples, bootstrap.level, bootstrap.seed)
        assert record["seeds"] == seeds.n
        for name, interval in expected.items():
            found = Interval(record[name], record[f"{name}_low"], record[f"{name}_high"])
            assert same(found, interval), (record, name, interval)
