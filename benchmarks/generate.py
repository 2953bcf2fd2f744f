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
        cache = Path(tmp) / "cache"
        cold_s, items = timed(seeds, variants, workers, cache, Path(tmp) / "cold")
        warm_s, _ = timed(seeds, variants, workers, cache, Path(tmp) / "warm")
    print(f"seeds {len(seeds)}, variants per seed {variants}, items {items}, workers {workers}")
    for label, seconds in (("cold (every image drawn)", cold_s), ("warm (render cache)", warm_s)):
        rate = items / seconds
        print(f"{label:28s} {seconds:7.1f} s  {rate:7.1f} variants/s  -> 5,010 in {5010 / rate:6.1f} s")


if __name__ == "__main__":
    main()
