"""Hidden regions of a seed's parameters, for testing a worst-variant search against an answerer
that fails only there (`testing/region_answerer.py`).

`regions(count, generator_seed)` makes region configurations over several cheap text-renderable
seeds: a parameter past a high or below a low quantile, an interior band of one parameter (placed
uniformly at random within its range), a corner of two parameters, a rare category; each calibrated
to about 3% of the seed's variants on plain variants 0..1999 and its share measured on variants
2000..3999 (`Region.share`).
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from isodyn.generators.base import SEEDS, SeedProgram

TARGET = 0.03  # the share of a seed's variants a region covers
LOWEST, HIGHEST = 0.02, 0.05  # the shares a region may end up with
CALIBRATE = range(0, 2000)  # plain variants the thresholds are chosen on
MEASURE = range(2000, 4000)  # plain variants the region's share is measured on (independent)
SHAPES = ("high", "low", "band", "corner", "category")

Params = dict[str, Any]
Predicate = Callable[[Params], bool]


# --- regions -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Region:
    """Where an answerer fails: the variants of `seed_id` whose params satisfy `predicate`."""

    seed_id: str
    shape: str  # one of SHAPES
    description: str
    predicate: Predicate = field(repr=False, compare=False)
    share: float = math.nan  # measured on plain variants MEASURE (the seed's own draws)

    def __call__(self, params: Params) -> bool:
        return bool(self.predicate(params))


@dataclass(frozen=True)
class Feature:
    """One quantity of a variant a region may be defined over: a number or a category."""

    name: str
    numeric: bool
    read: Callable[[Params], Any]

    def value(self, params: Params) -> Any:
        try:
            return self.read(params)
        except (KeyError, IndexError, TypeError, ValueError):
            return None  # the variant has no such quantity (a pyramid given its slant has no height)


def _num(name: str, read: Callable[[Params], Any] | None = None) -> Feature:
    return Feature(name, True, read or (lambda p: p[name]))


def _cat(name: str, read: Callable[[Params], Any] | None = None) -> Feature:
    return Feature(name, False, read or (lambda p: p[name]))


def _asked_angle(p: Params) -> Any:
    return p["angles"][p["colors"].index(p["asked"])]


# What each seed's regions may depend on: quantities the problem's text shows (or that determine it),
# never the look of a figure the text modality does not have.
FEATURES: dict[str, tuple[Feature, ...]] = {
    "dynamath_projectile_motion": (
        _num("speed"), _num("angle"), _cat("quantity"), _cat("context"), _cat("reference"), _cat("g"),
    ),
    "dynamath_cone_slant": (
        _num("r"), _num("h"), _num("l"), _cat("asked"), _cat("diameter"), _cat("inverted"),
    ),
    "dynamath_lens_focal_length": (_num("d_o"), _num("d_i"), _cat("image"), _cat("mirrored")),
    "dynamath_pyramid_volume": (
        _num("a"), _num("height or slant", lambda p: p["h"] if "h" in p else p["s"]),
        _cat("base"), _cat("given"),
    ),
    "dynamath_parallel_angles": (
        _num("alpha"), _num("x"), _cat("mode"), _cat("marked pair", lambda p: "+".join(sorted(p["marked"]))),
    ),
    "dynamath_inscribed_angle": (_num("central"), _num("given"), _cat("find"), _cat("arc")),
    "dynamath_sector_area": (
        _num("radius"), _num("asked angle", _asked_angle), _cat("asked"),
        _cat("sectors", lambda p: len(p["angles"])),
    ),
    "dynamath_cubic_table": (
        _num("largest |f(x)|", lambda p: max(abs(y) for y in p["ys"])),
        _num("leading", lambda p: p["coeffs"][0]),
        _num("asked coefficient", lambda p: p["coeffs"][p["asked"]]), _cat("asked"),
        _cat("names", lambda p: "".join(p["names"])),
    ),
    "dynamath_dot_plot_median": (
        _num("count", lambda p: sum(p["freqs"])), _num("largest frequency", lambda p: max(p["freqs"])),
        _cat("context"),
    ),
    "dynamath_geometric_bars": (
        _num("|first|", lambda p: abs(p["first"])), _num("n"), _cat("ratio"), _cat("ask"), _cat("shown"),
    ),
    "dynamath_ring_area": (
        _num("outer radius", lambda p: max(p["radii"])), _num("inner radius", lambda p: min(p["radii"])),
        _cat("asked"), _cat("rings", lambda p: len(p["radii"])),
    ),
    "dynamath_box_iqr": (
        _num("low end", lambda p: p["lo"]), _num("high end", lambda p: p["hi"]), _num("step"),
        _cat("asked"), _cat("title"),
    ),
}  # fmt: skip


@cache
def _seed(seed_id: str) -> SeedProgram:
    return SEEDS[seed_id]()


@cache
def _drawn(seed_id: str, start: int, stop: int) -> tuple[Params, ...]:
    """The params of the seed's plain variants start..stop-1 (a variant the seed cannot draw is left out)."""
    seed = _seed(seed_id)
    drawn = []
    for index in range(start, stop):
        try:
            drawn.append(seed.variant(index, 0).params)
        except Exception:  # a seed's own bug on one index: not a variant to count
            continue
    return tuple(drawn)


def calibration_sample(seed_id: str) -> tuple[Params, ...]:
    return _drawn(seed_id, CALIBRATE.start, CALIBRATE.stop)


def measured_share(seed_id: str, predicate: Predicate) -> float:
    """The share of the seed's plain variants MEASURE on which the predicate holds."""
    sample = _drawn(seed_id, MEASURE.start, MEASURE.stop)
    return sum(bool(predicate(p)) for p in sample) / max(1, len(sample))


def _share(values: list[Any], test: Callable[[Any], bool]) -> float:
    return sum(v is not None and test(v) for v in values) / max(1, len(values))


def _within(values: list[Any], lo: Any, hi: Any) -> float:
    """The share of the values in [lo, hi] (None: no bound on that side; a missing value is outside)."""
    inside = sum(v is not None and (lo is None or v >= lo) and (hi is None or v <= hi) for v in values)
    return inside / max(1, len(values))


def _sign(high: bool) -> str:
    return ">=" if high else "<="


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _tail(feature: Feature, values: list[Any], high: bool) -> tuple[Predicate, str, float] | None:
    """Past the threshold whose share is nearest TARGET (>= t for a high tail, <= t for a low one)."""
    distinct = sorted({v for v in values if v is not None})
    best: tuple[float, Any] | None = None
    for t in distinct:
        share = _within(values, t, None) if high else _within(values, None, t)
        if best is None or abs(share - TARGET) < abs(best[0] - TARGET):
            best = (share, t)
    if best is None or not LOWEST <= best[0] <= HIGHEST:
        return None
    share, t = best
    sign = ">=" if high else "<="
    read = feature.value

    def inside(p: Params) -> bool:
        v = read(p)
        return v is not None and (v >= t if high else v <= t)

    return inside, f"{feature.name} {sign} {_fmt(t)}", share


def _band(feature: Feature, values: list[Any], rng: random.Random) -> tuple[Predicate, str, float] | None:
    """An interior band [lo, hi] of the feature's values, its low end placed uniformly at random within
    the range; it touches neither end of the range."""
    distinct = sorted({v for v in values if v is not None})
    if len(distinct) < 4:
        return None
    low_end, high_end = distinct[0], distinct[-1]
    for _ in range(60):
        start = rng.uniform(float(low_end), float(high_end))
        first = bisect.bisect_left(distinct, start)
        if first == 0 or first >= len(distinct) - 1:
            continue
        best: tuple[float, Any, Any] | None = None
        for last in range(first, len(distinct) - 1):
            lo, hi = distinct[first], distinct[last]
            share = _within(values, lo, hi)
            if best is None or abs(share - TARGET) < abs(best[0] - TARGET):
                best = (share, lo, hi)
            if share >= TARGET:
                break
        if best is None or not LOWEST <= best[0] <= HIGHEST:
            continue
        share, lo, hi = best
        return _between(feature, lo, hi), f"{_fmt(lo)} <= {feature.name} <= {_fmt(hi)}", share
    return None


def _between(feature: Feature, lo: Any, hi: Any) -> Predicate:
    def inside(p: Params) -> bool:
        v = feature.value(p)
        return v is not None and lo <= v <= hi

    return inside


def _corner(
    first: Feature, second: Feature, sample: tuple[Params, ...], rng: random.Random
) -> tuple[Predicate, str, float] | None:
    """Both features in a tail (each high or low, at random), at the same tail share of each; both
    conditions bind (each alone holds on at least 8% of the variants)."""
    directions = (rng.random() < 0.5, rng.random() < 0.5)
    columns = [[f.value(p) for p in sample] for f in (first, second)]
    if any(all(v is None for v in c) for c in columns):
        return None
    best: tuple[float, Any, Any] | None = None
    for step in range(2, 61):
        q = step / 100
        cuts = []
        for column, high in zip(columns, directions, strict=True):
            known = sorted(v for v in column if v is not None)
            at = known[min(len(known) - 1, int((1 - q) * len(known)))] if high else known[int(q * len(known))]
            cuts.append(at)
        tests = [
            (lambda v, t=t, h=h: v is not None and (v >= t if h else v <= t))
            for t, h in zip(cuts, directions, strict=True)
        ]
        marginals = [_share(c, test) for c, test in zip(columns, tests, strict=True)]
        joint = sum(tests[0](a) and tests[1](b) for a, b in zip(*columns, strict=True)) / len(sample)
        if min(marginals) < 0.08:
            continue
        if best is None or abs(joint - TARGET) < abs(best[0] - TARGET):
            best = (joint, cuts[0], cuts[1])
    if best is None or not LOWEST <= best[0] <= HIGHEST:
        return None
    share, t1, t2 = best
    h1, h2 = directions

    def inside(p: Params) -> bool:
        a, b = first.value(p), second.value(p)
        if a is None or b is None:
            return False
        return (a >= t1 if h1 else a <= t1) and (b >= t2 if h2 else b <= t2)

    said = f"{first.name} {_sign(h1)} {_fmt(t1)} and {second.name} {_sign(h2)} {_fmt(t2)}"
    return inside, said, share


def _key(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value


def _category(
    features: list[Feature], sample: tuple[Params, ...], rng: random.Random
) -> tuple[Predicate, str, float] | None:
    """A category (the values of one, two or three categorical features together) that 2-5% of the
    variants have, chosen at random among those (the fewest features that give one)."""
    columns = {f.name: [_key(f.value(p)) for p in sample] for f in features}
    for width in (1, 2, 3):
        pool: list[tuple[tuple[Feature, ...], tuple[Any, ...], float]] = []
        for chosen in itertools.combinations(features, width):
            counts = Counter(zip(*(columns[f.name] for f in chosen), strict=True))
            for values, n in sorted(counts.items(), key=str):
                if None not in values and LOWEST <= n / len(sample) <= HIGHEST:
                    pool.append((chosen, values, n / len(sample)))
        if pool:
            break
    if not pool:
        return None
    chosen, values, share = pool[rng.randrange(len(pool))]

    def inside(p: Params) -> bool:
        return all(_key(f.value(p)) == v for f, v in zip(chosen, values, strict=True))

    said = " and ".join(f"{f.name} = {v}" for f, v in zip(chosen, values, strict=True))
    return inside, said, share


def calibrate(seed_id: str, shape: str, rng: random.Random) -> Region | None:
    """A region of `shape` over the seed's features, at about TARGET of its plain variants; None when
    the seed has no feature that gives one."""
    features = list(FEATURES[seed_id])
    sample = calibration_sample(seed_id)
    numeric = [f for f in features if f.numeric]
    rng.shuffle(numeric)
    made: tuple[Predicate, str, float] | None = None
    if shape in ("high", "low", "band"):
        for f in numeric:
            values = [f.value(p) for p in sample]
            made = _tail(f, values, shape == "high") if shape != "band" else _band(f, values, rng)
            if made is not None:
                break
    elif shape == "corner":
        pairs = [(a, b) for a in numeric for b in numeric if a.name < b.name]
        rng.shuffle(pairs)
        for a, b in pairs:
            made = _corner(a, b, sample, rng)
            if made is not None:
                break
    elif shape == "category":
        made = _category([f for f in features if not f.numeric], sample, rng)
    else:
        raise ValueError(f"unknown region shape {shape!r}; valid: {', '.join(SHAPES)}")
    if made is None:
        return None
    predicate, description, _ = made
    return Region(seed_id, shape, description, predicate, measured_share(seed_id, predicate))


def regions(count: int, generator_seed: int, seed_ids: Iterable[str] | None = None) -> list[Region]:
    """`count` region configurations over the seeds (FEATURES' by default), the shapes mixed evenly:
    the seeds taken in a shuffled order, round and round, each given a shape still owed (every shape is
    owed equally often; the most owed first, ties at random) that it can give. A region is kept only
    when its measured share is within 2-5% too, and never twice."""
    rng = random.Random(generator_seed)
    seeds = list(seed_ids or FEATURES)
    rng.shuffle(seeds)
    owed = Counter(SHAPES[i % len(SHAPES)] for i in range(count))
    made: list[Region] = []
    seen: set[tuple[str, str]] = set()
    for i in range(count):
        seed_id = seeds[i % len(seeds)]
        order = sorted(SHAPES, key=lambda s: (-owed[s], rng.random()))
        region = None
        for shape in [s for s in order for _ in range(2)]:  # a band or a corner may land elsewhere
            region = calibrate(seed_id, shape, rng)
            if (
                region is not None
                and LOWEST <= region.share <= HIGHEST
                and (seed_id, region.description) not in seen
            ):
                break
            region = None
        if region is None:
            raise ValueError(f"{seed_id} gives no new region of any shape")
        owed[region.shape] -= 1
        seen.add((seed_id, region.description))
        made.append(region)
    return made
