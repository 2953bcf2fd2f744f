"""Dataset generation at DynaMath's evaluation size: 10 variants of every seed, with images.

    python benchmarks/generate.py [variants_per_seed] [workers]

Prints variants per second cold (empty render cache: every image drawn) and warm (images memoized
by content), and the time the same rates give for DynaMath's 501 seeds x 10 variants.
Target: the equivalent of 5,010 variants with images in at most 90 s on 2 cores.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from isodyn.generators import all_seeds
from isodyn.generators.dataset import DatasetRequest, build_dataset, default_workers


def timed(seeds: tuple[str, ...], variants: int, workers: int, cache: Path, out: Path) -> tuple[float, int]:
    request = DatasetRequest(seeds, variants, 0, out, cache, workers, contact_sheet=False)
    started = time.perf_counter()
    summary = build_dataset(request)
    return time.perf_counter() - started, summary["items"]


def main() -> None:
    variants = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else default_workers()
    seeds = tuple(all_seeds())
    with tempfile.TemporaryDirectory() as tmp:
        # Two cold runs on fresh caches (this machine's speed wanders), then a warm one.
        colds = [
            timed(seeds, variants, workers, Path(tmp) / f"cache{k}", Path(tmp) / f"cold{k}") for k in (0, 1)
        ]
        warm_s, _ = timed(seeds, variants, workers, Path(tmp) / "cache0", Path(tmp) / "warm")
    items = colds[0][1]
    print(f"seeds {len(seeds)}, variants per seed {variants}, items {items}, workers {workers}")
    cold_s = min(seconds for seconds, _ in colds)
    both = ", ".join(f"{items / seconds:.1f}" for seconds, _ in colds)
    for label, seconds in (("cold (every image drawn)", cold_s), ("warm (render cache)", warm_s)):
        rate = items / seconds
        print(f"{label:28s} {seconds:7.1f} s  {rate:7.1f} variants/s  -> 5,010 in {5010 / rate:6.1f} s")
    print(f"cold runs: {both} variants/s (the better one is shown)")


if __name__ == "__main__":
    main()
