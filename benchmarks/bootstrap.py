"""Cluster bootstrap speed: 10,000 resamples over 50,000 cells (target: at most 2 s on 2 cores).

python benchmarks/bootstrap.py [cells] [variants_per_seed] [resamples]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from isodyn.analysis.stats import cluster_bootstrap, paired_comparison, seed_table


def simulated(cells: int, per_seed: int, rng: np.random.Generator, shift: float = 0.0) -> pd.DataFrame:
    seeds = cells // per_seed
    ability = rng.beta(2, 2, size=seeds)
    p = np.clip(np.repeat(ability, per_seed) + shift, 0, 1)
    return pd.DataFrame(
        {
            "seed_id": np.repeat(np.arange(seeds), per_seed),
            "variant": np.tile(np.arange(per_seed), seeds),
            "repeat": 0,
            "correct": rng.random(seeds * per_seed) < p,
        }
    )


def main() -> None:
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    per_seed = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    resamples = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    rng = np.random.default_rng(0)
    frame = simulated(cells, per_seed, rng)
    started = time.perf_counter()
    table = seed_table(frame)
    intervals = cluster_bootstrap(table, resamples=resamples)
    single = time.perf_counter() - started
    other = simulated(cells, per_seed, rng, shift=0.02)
    started = time.perf_counter()
    paired_comparison(frame, other, resamples=resamples, permutations=resamples)
    paired = time.perf_counter() - started
    # Worst case for the grouped resampling: every seed a distinct accuracy (uneven cell counts).
    uneven = frame.sample(frac=0.8, random_state=1)
    uneven_table = seed_table(uneven)
    distinct = len({(a, w) for a, w in zip(uneven_table.accuracy, uneven_table.worst, strict=True)})
    started = time.perf_counter()
    cluster_bootstrap(uneven_table, resamples=resamples)
    worst_case = time.perf_counter() - started
    print(f"cells {cells}, seeds {table.n}, resamples {resamples}")
    print(f"cluster bootstrap (A_avg, A_wst, RR)      {single:.3f} s   A_avg {intervals['A_avg']}")
    print(f"paired comparison (boot + perm + McNemar) {paired:.3f} s")
    print(f"cluster bootstrap, {distinct} distinct seed values (80% of cells, uneven)  {worst_case:.3f} s")
    # The true worst case: every seed's value distinct (continuous scores).
    continuous = seed_table(frame)
    continuous = type(continuous)(continuous.seed_ids, rng.random(continuous.n), rng.random(continuous.n) / 2,
                                  continuous.cells)  # fmt: skip
    started = time.perf_counter()
    cluster_bootstrap(continuous, resamples=resamples)
    print(
        f"cluster bootstrap, all {continuous.n} seed values distinct  {time.perf_counter() - started:.3f} s"
    )


if __name__ == "__main__":
    main()
