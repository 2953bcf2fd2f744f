"""What a unit's confirmed failures share compared with its passes: `explain` ranks the params (and
`number_size`, the largest number in them) that separate the two, and counts the tweaks that made a
variant fail.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from isodyn.search.analysis import OWN, by_arm, by_unit
from isodyn.search.trials import Searcher, Trial, TrialStatus, Unit

# Before saying what failures share, a unit needs this many confirmed failures and this many passes:
# with fewer, any parameter "separates" them by chance.
MIN_EACH = 3
TOP_FEATURES = 5
TOP_TWEAKS = 5


SIZE_FEATURE = "(largest |number|)"  # a derived feature: `number_size` of the variant's params


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _numbers(value: Any) -> Iterator[float]:
    """Every finite numeric leaf of a JSON value (booleans are not numbers here)."""
    if _is_number(value):
        yield float(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _numbers(item)


def number_size(params: Mapping[str, Any]) -> float:
    """The largest absolute numeric leaf of a variant's params (0 when it has none)."""
    return max((abs(x) for x in _numbers(params)), default=0.0)


def _list_features(name: str, items: Sequence[Any]) -> Iterator[tuple[str, float | str]]:
    """A list summarised: its length, the min / max / max |x| of the numbers anywhere inside it, and,
    for a list of objects, each key's values pooled over the elements (`points[].x`). Single elements
    (`edges[3][1]`) are too fine to say anything across variants."""
    yield f"{name}.count", float(len(items))
    numbers = list(_numbers(list(items)))
    if numbers:
        yield f"{name}.min", min(numbers)
        yield f"{name}.max", max(numbers)
        yield f"{name}.max_abs", max(abs(x) for x in numbers)
    if items and all(isinstance(item, Mapping) for item in items):
        keys = list(dict.fromkeys(key for item in items for key in item))
        for key in keys:
            yield from _list_features(f"{name}[].{key}", [item[key] for item in items if key in item])


def _features(value: Any, name: str = "") -> Iterator[tuple[str, float | str]]:
    """A variant's params as named features: numbers as floats, everything else as a category."""
    if _is_number(value):
        yield name, float(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _features(item, f"{name}.{key}" if name else str(key))
    elif isinstance(value, list | tuple):
        yield from _list_features(name, list(value))
    elif isinstance(value, bool) or value is None:
        yield name, "null" if value is None else str(value).lower()
    else:
        yield name, str(value)


def features_of(params: Mapping[str, Any]) -> list[tuple[str, float | str]]:
    """`_features` of the params plus the derived `SIZE_FEATURE` (the largest |number|)."""
    return [*_features(params), (SIZE_FEATURE, number_size(params))]


@dataclass(frozen=True)
class NumberFeature:
    """A numeric feature: medians in failures and passes; `auc` = P(a failure's value > a pass's),
    ties counted half (Mann-Whitney); `effect` = |2 auc - 1| (0: no difference, 1: separated)."""

    name: str
    median_failed: float
    median_passed: float
    auc: float
    failed: int  # failures that have this feature
    passed: int

    @property
    def effect(self) -> float:
        return abs(2 * self.auc - 1)

    @property
    def direction(self) -> str:
        return "larger" if self.auc > 0.5 else "smaller" if self.auc < 0.5 else "no different"


@dataclass(frozen=True)
class CategoryFeature:
    """A category: the value most over-represented in failures, its share in failures and in
    passes; `effect` = the difference of the shares (0..1)."""

    name: str
    value: str
    share_failed: float
    share_passed: float
    failed: int
    passed: int

    @property
    def effect(self) -> float:
        return self.share_failed - self.share_passed


Feature = NumberFeature | CategoryFeature


@dataclass(frozen=True)
class TweakCount:
    """Guided mutations that changed draw `position`: how many were tried (parent and child both
    passed or confirmed), how many turned a pass into a confirmed failure (`broke`) and how many a
    failure into a pass (`repaired`). A child that changed several draws counts for each of them."""

    position: int
    tried: int
    broke: int
    repaired: int


@dataclass(frozen=True)
class Explanation:
    """What one unit's confirmed failures share, compared with its passes (all its own searchers
    pooled: baseline, random, guided). Descriptive, not causal: guided trials crowd near failures."""

    unit: Unit
    failures: int
    passes: int
    features: tuple[Feature, ...]  # the strongest first, at most TOP_FEATURES; () when not `enough`
    tweaks: tuple[TweakCount, ...] = ()

    @property
    def enough(self) -> bool:
        return self.failures >= MIN_EACH and self.passes >= MIN_EACH


def auc(failed: Sequence[float], passed: Sequence[float]) -> float:
    """P(a failure's value exceeds a pass's), ties 0.5 (NaN when either side is empty)."""
    if not failed or not passed:
        return math.nan
    ordered = np.sort(np.asarray(passed, dtype=float))
    values = np.asarray(failed, dtype=float)
    below = np.searchsorted(ordered, values, side="left")
    tied = np.searchsorted(ordered, values, side="right") - below
    return float((below + 0.5 * tied).sum() / (len(values) * len(ordered)))


def _feature(name: str, failed: list[float | str], passed: list[float | str]) -> Feature | None:
    """The feature's comparison, or None when too few trials have it or it never varies."""
    if len(failed) < MIN_EACH or len(passed) < MIN_EACH or len({*failed, *passed}) < 2:
        return None
    if all(isinstance(v, float) for v in [*failed, *passed]):
        f = [float(v) for v in failed]
        p = [float(v) for v in passed]
        return NumberFeature(name, float(np.median(f)), float(np.median(p)), auc(f, p), len(f), len(p))
    f_text, p_text = [str(v) for v in failed], [str(v) for v in passed]  # a mixed feature: all as text
    best = max(
        sorted(set(f_text) | set(p_text)),
        key=lambda v: f_text.count(v) / len(f_text) - p_text.count(v) / len(p_text),
    )
    return CategoryFeature(
        name,
        best,
        f_text.count(best) / len(f_text),
        p_text.count(best) / len(p_text),
        len(f_text),
        len(p_text),
    )


def _ranked_features(failed: Sequence[Trial], passed: Sequence[Trial]) -> tuple[Feature, ...]:
    failed_rows = [dict(features_of(t.params)) for t in failed]
    passed_rows = [dict(features_of(t.params)) for t in passed]
    names = dict.fromkeys(name for row in [*failed_rows, *passed_rows] for name in row)
    found = []
    for name in names:
        feature = _feature(
            name, [r[name] for r in failed_rows if name in r], [r[name] for r in passed_rows if name in r]
        )
        if feature is not None:
            found.append(feature)
    found.sort(key=lambda f: (-f.effect, f.name))
    return tuple(found[:TOP_FEATURES])


def _tweak_counts(trials: Sequence[Trial]) -> tuple[TweakCount, ...]:
    decided = {TrialStatus.PASSED, TrialStatus.CONFIRMED}
    guided = {t.number: t for t in trials if t.searcher is Searcher.GUIDED}
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    for child in guided.values():
        parent = guided.get(child.parent) if child.parent is not None else None
        if parent is None or child.status not in decided or parent.status not in decided:
            continue
        mine, theirs = dict(child.genome.tweaks), dict(parent.genome.tweaks)
        for position in {p for p in mine.keys() | theirs.keys() if mine.get(p) != theirs.get(p)}:
            count = counts[position]
            count[0] += 1
            count[1] += parent.status is TrialStatus.PASSED and child.confirmed
            count[2] += parent.confirmed and child.status is TrialStatus.PASSED
    ranked = sorted(
        (TweakCount(p, *c) for p, c in counts.items() if c[1] or c[2]),
        key=lambda t: (-(t.broke + t.repaired), t.position),
    )
    return tuple(ranked[:TOP_TWEAKS])


def explain(trials: Sequence[Trial]) -> list[Explanation]:
    """Per unit (a seed of one arm; TRANSFER trials left out): the params of CONFIRMED trials
    against PASSED ones, ranked by effect. Flukes and unclear replies are neither."""
    explanations = []
    for _, group in by_arm(t for t in trials if t.searcher in OWN).items():
        for unit, unit_trials in by_unit(group).items():
            failed = [t for t in unit_trials if t.status is TrialStatus.CONFIRMED]
            passed = [t for t in unit_trials if t.status is TrialStatus.PASSED]
            enough = len(failed) >= MIN_EACH and len(passed) >= MIN_EACH
            features = _ranked_features(failed, passed) if enough else ()
            explanations.append(
                Explanation(unit, len(failed), len(passed), features, _tweak_counts(unit_trials))
            )
    return explanations
