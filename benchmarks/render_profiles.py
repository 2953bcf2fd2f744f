"""Render profiles' cost: N variants drawn once (A) against the same N under six profiles (B).

    python benchmarks/render_profiles.py [--variants 1000] [--rounds 3] [--profiles a,b,...]

The variants go round-robin over the image seeds and are sampled before any timing: this measures
drawing, post-processing and the render cache, not sampling. Each run starts from a fresh render
cache (every picture drawn or derived, and stored), through `RenderCache.representation`, the path a
run takes. A runs under the default profile only; B under the profiles a typical run names (the
default among them). A and B alternate, the order flipping each round, so both see the same machine
minutes; every run is printed, then the medians and B/A.
Target: B/A <= 6.5 (issue 41): the pixel-only profiles are derived from the default picture, so six
profiles cost well under six drawings.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from isodyn.cache.folder import Stores
from isodyn.cache.renders import RenderCache
from isodyn.core import Modality, Variant
from isodyn.generators import all_seeds
from isodyn.generators.base import SeedProgram
from isodyn.modalities.profiles import DEFAULT_PROFILE, RenderProfile, resolve_profiles

TYPICAL = "default,lowres,gray,serif,colorblind,jpeg"  # `exp run renders=...` as the issue runs it
TARGET = 6.5


def sampled(count: int) -> list[tuple[SeedProgram, Variant]]:
    """`count` variants, round-robin over the seeds that draw images."""
    seeds = [seed for seed in all_seeds().values() if Modality.IMAGE in seed.modalities]
    return [(seeds[i % len(seeds)], seeds[i % len(seeds)].variant(i // len(seeds))) for i in range(count)]


def render_all(work: list[tuple[SeedProgram, Variant]], profiles: tuple[RenderProfile, ...]) -> float:
    """Seconds to show every variant under every profile, from an empty render cache."""
    with tempfile.TemporaryDirectory() as folder:
        cache = RenderCache(Stores(Path(folder)).renders)
        started = time.perf_counter()
        for seed, variant in work:
            for profile in profiles:
                cache.representation(seed, variant, Modality.IMAGE, profile)
        seconds = time.perf_counter() - started
        cache.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profiles", default=TYPICAL, help=f"B's profiles (default {TYPICAL})")
    args = parser.parse_args()
    profiles = resolve_profiles(args.profiles.split(","))
    sides = {"A": (DEFAULT_PROFILE,), "B": profiles}
    work = sampled(args.variants)
    render_all(work[: min(len(work), 100)], profiles)  # untimed: fonts, templates, renderers warmed
    print(f"{len(work)} variants; A = default only, B = {', '.join(p.name for p in profiles)}")
    print("round  side  seconds  pictures/s")
    runs: dict[str, list[float]] = {"A": [], "B": []}
    for number in range(1, args.rounds + 1):
        order = list(sides) if number % 2 else list(reversed(sides))
        for side in order:
            seconds = render_all(work, sides[side])
            runs[side].append(seconds)
            pictures = len(work) * len(sides[side])
            print(f"{number:5}  {side:4}  {seconds:7.1f}  {pictures / seconds:10.1f}", flush=True)
    a, b = (statistics.median(runs[side]) for side in "AB")
    print(f"median A {a:.1f} s   B {b:.1f} s   B/A {b / a:.2f}   (target <= {TARGET})")
    per_round = [rb / ra for ra, rb in zip(runs["A"], runs["B"], strict=True)]
    print("B/A per round: " + ", ".join(f"{r:.2f}" for r in per_round))


if __name__ == "__main__":
    main()
