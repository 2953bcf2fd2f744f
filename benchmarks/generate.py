"""Dataset generation at DynaMath's evaluation size: 10 variants of every seed, with images.

    python benchmarks/generate.py [variants_per_seed] [workers]

Prints variants per second cold (empty render cache: every image drawn) and warm (images memoized
by content), and the time the same rates give for DynaMath's 501 seeds x 10 variants
(`variants_per_seed=70` generates a real 5,040 instead of extrapolating).
Target: the equivalent of 5,010 variants with images in at most 90 s on 2 cores.

Cold runs alternate with runs on stock matplotlib (its own axes, a renderer per figure, the default
collector), so the speed-ups are compared on the same machine minutes: its speed wanders by up to 2x.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from isodyn.cache.renders import open_render_cache
from isodyn.datasets import writer as dataset
from isodyn.datasets.writer import DatasetRequest, build_dataset, default_workers
from isodyn.generators import all_seeds
from isodyn.testing.stock_drawing import stock_matplotlib

ROUNDS = 3


@contextmanager
def stock_drawing() -> Iterator[None]:
    """Stock matplotlib drawing, and the default collector in the workers."""
    saved = dataset._worker_gc
    dataset._worker_gc = lambda: None
    try:
        with stock_matplotlib():
            yield
    finally:
        dataset._worker_gc = saved


def timed(seeds: tuple[str, ...], variants: int, workers: int, cache: Path, out: Path) -> tuple[float, int]:
    request = DatasetRequest(
        seeds, variants, 0, out, cache, workers, contact_sheet=False, open_renderings=open_render_cache
    )
    started = time.perf_counter()
    summary = build_dataset(request)
    return time.perf_counter() - started, summary["items"]


def line(label: str, seconds: float, items: int) -> str:
    rate = items / seconds
    return f"{label:34s} {seconds:7.1f} s  {rate:7.1f} variants/s  -> 5,010 in {5010 / rate:6.1f} s"


def main() -> None:
    variants = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else default_workers()
    seeds = tuple(all_seeds())
    cold: dict[str, list[float]] = {"isodyn": [], "stock matplotlib": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for k in range(ROUNDS):
            for label in sorted(cold, reverse=k % 2 == 1):  # each goes first in every other round
                with stock_drawing() if label == "stock matplotlib" else nullcontext():
                    seconds, items = timed(
                        seeds, variants, workers, root / label / f"cache{k}", root / label / f"out{k}"
                    )
                cold[label].append(seconds)
        warm_s, _ = timed(seeds, variants, workers, root / "isodyn" / "cache0", root / "warm")
    print(f"seeds {len(seeds)}, variants per seed {variants}, items {items}, workers {workers}")
    for label, runs in cold.items():
        print(line(f"cold, {label} (best of {ROUNDS})", min(runs), items))
    print(line("warm (render cache)", warm_s, items))
    for label, runs in cold.items():
        print(f"cold runs, {label}: {', '.join(f'{items / s:.1f}' for s in runs)} variants/s")
    speedups = [s / i for i, s in zip(cold["isodyn"], cold["stock matplotlib"], strict=True)]
    print(f"isodyn vs stock, run by run: {', '.join(f'{x:.2f}x' for x in speedups)}")


if __name__ == "__main__":
    main()
