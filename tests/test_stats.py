"""Statistics on hand-computed tables, and the bootstrap's coverage on simulated data."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from isodyn.analysis.stats import (
    cluster_bootstrap,
    holm,
    mcnemar_exact,
    paired_comparison,
    power_analysis,
    resample_means,
    seed_table,
    sign_flip_p,
)


def cells(rows: list[tuple[str, int, int, bool]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["seed_id", "variant", "repeat", "correct"])


def test_seed_table_by_hand() -> None:
    table = seed_table(cells([
        ("s1", 0, 0, True), ("s1", 1, 0, True), ("s1", 0, 1, True), ("s1", 1, 1, False),
        ("s2", 0, 0, False), ("s2", 1, 0, False),
    ]))  # fmt: skip
    assert list(table.seed_ids) == ["s1", "s2"]
    assert list(table.accuracy) == [0.75, 0.0]
    assert list(table.worst) == [0.5, 0.0]  # repeat 0 all right, repeat 1 not
    assert list(table.cells) == [4, 2]


def test_resample_means_matches_plain_seed_resampling() -> None:
    rng = np.random.default_rng(1)
    values = rng.choice([0.0, 0.25, 0.5, 1.0], size=(40, 1))
    grouped = resample_means(values, 20_000, np.random.default_rng(2))[:, 0]
    idx = np.random.default_rng(3).integers(0, 40, size=(20_000, 40))
    plain = values[idx, 0].mean(axis=1)
    assert abs(grouped.mean() - plain.mean()) < 0.005
    assert abs(grouped.std() - plain.std()) < 0.005


def test_bootstrap_degenerate_and_point_estimates() -> None:
    table = seed_table(cells([("a", 0, 0, True), ("a", 1, 0, True), ("b", 0, 0, True), ("b", 1, 0, False)]))
    result = cluster_bootstrap(table, resamples=2000)
    assert result["A_avg"].estimate == 0.75
    assert result["A_wst"].estimate == 0.5
    assert math.isclose(result["RR"].estimate, 0.5 / 0.75)
    # only two seeds: resampled A_avg takes the values 0.5, 0.75, 1.0
    assert result["A_avg"].low == 0.5 and result["A_avg"].high == 1.0
    all_right = seed_table(cells([(s, v, 0, True) for s in "abc" for v in range(3)]))
    r = cluster_bootstrap(all_right, resamples=500)
    assert (r["A_avg"].low, r["A_avg"].high, r["RR"].estimate) == (1.0, 1.0, 1.0)


def test_bootstrap_coverage_on_simulated_data() -> None:
    """About 95% of 95% intervals contain the true A_avg when seeds are the sampling unit."""
    rng = np.random.default_rng(7)
    true_mean = 0.6  # seeds' abilities ~ Beta(3, 2): mean 0.6
    hits, trials = 0, 300
    for t in range(trials):
        ability = rng.beta(3, 2, size=60)
        correct = rng.random((60, 10)) < ability[:, None]
        frame = pd.DataFrame({
            "seed_id": np.repeat(np.arange(60), 10), "variant": np.tile(np.arange(10), 60),
            "repeat": 0, "correct": correct.ravel(),
        })  # fmt: skip
        interval = cluster_bootstrap(seed_table(frame), resamples=1000, seed=t)["A_avg"]
        hits += interval.low <= true_mean <= interval.high
    assert 0.91 <= hits / trials <= 0.985, hits / trials


def test_naive_cell_bootstrap_would_undercover() -> None:
    """The reason for clustering: with strongly correlated variants, per-seed spread dominates."""
    rng = np.random.default_rng(3)
    ability = rng.beta(0.5, 0.5, size=30)
    correct = rng.random((30, 10)) < ability[:, None]
    frame = pd.DataFrame({"seed_id": np.repeat(np.arange(30), 10), "variant": np.tile(np.arange(10), 30),
                          "repeat": 0, "correct": correct.ravel()})  # fmt: skip
    clustered = cluster_bootstrap(seed_table(frame), resamples=4000)["A_avg"]
    naive_se = correct.std() / math.sqrt(correct.size)
    assert (clustered.high - clustered.low) / 2 > 1.5 * 1.96 * naive_se


def test_mcnemar_exact_against_binomial() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert math.isclose(mcnemar_exact(9, 1), stats.binomtest(9, 10, 0.5).pvalue)
    assert math.isclose(mcnemar_exact(9, 1), 2 * (1 + 10) / 1024)  # 2 * P(X <= 1), X ~ Bin(10, 1/2)


def test_sign_flip_exact_small_case() -> None:
    # differences (1, 1, 1): only the two all-same sign patterns reach |mean| = 1 -> p = 2/8
    assert sign_flip_p(np.array([1.0, 1.0, 1.0]), 1000, np.random.default_rng(0)) == 0.25
    assert sign_flip_p(np.zeros(5), 1000, np.random.default_rng(0)) == 1.0
    big = np.array([0.1] * 40)
    assert sign_flip_p(big, 5000, np.random.default_rng(0)) < 0.001


def test_holm_by_hand() -> None:
    # sorted p: 0.01, 0.02, 0.04 -> 3*0.01, 2*0.02, 1*0.04 with monotonicity
    assert np.allclose(holm([0.04, 0.01, 0.02]), [0.04, 0.03, 0.04])
    assert holm([0.5, 0.9]) == [1.0, 1.0]


def test_paired_comparison_by_hand() -> None:
    a = cells([("s1", 0, 0, True), ("s1", 1, 0, True), ("s2", 0, 0, True), ("s2", 1, 0, False)])
    b = cells([("s1", 0, 0, False), ("s1", 1, 0, True), ("s2", 0, 0, False), ("s2", 1, 0, False),
               ("s3", 0, 0, True)])  # fmt: skip
    result = paired_comparison(a, b, resamples=2000, permutations=2000)
    assert (result.cells, result.seeds, result.a_only, result.b_only) == (4, 2, 2, 0)
    assert result.difference.estimate == 0.5  # per-seed differences 0.5 and 0.5
    assert result.p_mcnemar == 0.5  # 2 discordant cells, both for A
    assert result.p_permutation == 0.5  # signs of (0.5, 0.5): 2 of 4 patterns as extreme


def test_power_analysis_formula() -> None:
    power = power_analysis(sd_seed_difference=0.2, seeds=100, target_effect=0.05)
    t = stats.t.ppf(0.975, 99) + stats.t.ppf(0.8, 99)
    assert math.isclose(power.minimum_detectable_effect, t * 0.2 / 10)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    normal_n = (z * 0.2 / 0.05) ** 2  # 125.6: the t version needs a few more seeds, never fewer
    assert normal_n <= power.seeds_needed <= normal_n * 1.06
    needed = power.seeds_needed
    t_needed = stats.t.ppf(0.975, needed - 1) + stats.t.ppf(0.8, needed - 1)
    assert t_needed * 0.2 / math.sqrt(needed) <= 0.05  # enough seeds for the target
    small = power_analysis(sd_seed_difference=0.2, seeds=3)
    assert small.minimum_detectable_effect > 1.5 * z * 0.2 / math.sqrt(3)  # t with 2 df is far wider
    assert power_analysis(float("nan"), 10).seeds_needed is None


def five_variant_frame(correct: np.ndarray) -> pd.DataFrame:
    seeds = correct.shape[0]
    return pd.DataFrame({"seed_id": np.repeat(np.arange(seeds), 5), "variant": np.tile(np.arange(5), seeds),
                         "repeat": 0, "correct": correct.ravel()})  # fmt: skip


@pytest.mark.parametrize("effect", [0.0, 0.15])
def test_paired_test_size_and_power(effect: float) -> None:
    """Under no effect p < 0.05 in about 5% of studies; a real 15-point effect is found most times."""
    rng = np.random.default_rng(11)
    rejections = 0
    for t in range(120):
        ability = rng.beta(2, 2, size=40)
        a = rng.random((40, 5)) < ability[:, None]
        b = rng.random((40, 5)) < np.clip(ability[:, None] - effect, 0, 1)
        result = paired_comparison(
            five_variant_frame(a), five_variant_frame(b), resamples=300, permutations=300, seed=t
        )
        rejections += result.p_permutation < 0.05
    rate = rejections / 120
    assert (rate <= 0.11) if effect == 0 else (rate >= 0.8), rate
