"""What a worst-variant search found, as pure functions of its trials (`search/trials.py`).

An *arm* is a model x strategy x modality; within an arm each unit is one seed, so the seed is the
cluster every interval resamples (`stats.resample_means`, percentile intervals at 95%).

- `worst_case_curve`: A_wst after t variants tried, t = 1..T, with cluster-bootstrap bands;
- `dynamath_gap`: A_wst on DynaMath's variants 0..9 against A_wst after the search, the paired
  difference (how much the 10-variant figure overestimates robustness) and the seeds that fell;
- `explain`: per unit, the params the confirmed failures share compared with the passes;
- `number_size`, `number_sizes`: whether the failures merely hold bigger numbers than random variants;
- `transfer_share`: the share of a hard set that also fails on a second model;
- `outcomes`, `hard_set`: counts (flukes, unclear replies, calls, cache) and the confirmed failures.

Every function returns frozen dataclasses; accuracies are fractions (0..1), never points.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS
from isodyn.analysis.stats import Interval, percentile_interval, resample_means
from isodyn.core import Modality
from isodyn.search.trials import Searcher, Trial, TrialStatus, Unit

LEVEL = 0.95
# Before saying what failures share, a unit needs this many confirmed failures and this many passes:
# with fewer, any parameter "separates" them by chance.
MIN_EACH = 3
TOP_FEATURES = 5
TOP_TWEAKS = 5
# Bootstrap draws are made in chunks of at most this many entries (resamples x seeds x columns), so a
# curve over hundreds of seeds and variants stays within memory.
_CHUNK_ENTRIES = 4_000_000
# The searchers whose trials are the search of a unit's own model (TRANSFER asks another model's set).
OWN = frozenset({Searcher.RANDOM, Searcher.GUIDED, Searcher.BASELINE})
SIZE_FEATURE = "(largest |number|)"  # a derived feature: `number_size` of the variant's params


@dataclass(frozen=True, slots=True, order=True)
class Arm:
    """A model x strategy x modality: what a curve, a gap or a count is about."""

    model: str
    strategy: str
    modality: Modality

    @classmethod
    def of(cls, unit: Unit) -> Arm:
        return cls(unit.model, unit.strategy, unit.modality)

    def label(self) -> str:
        return f"{self.model} · {self.strategy} · {self.modality.value}"


def _by_arm(trials: Iterable[Trial]) -> dict[Arm, list[Trial]]:
    groups: dict[Arm, list[Trial]] = defaultdict(list)
    for trial in trials:
        groups[Arm.of(trial.unit)].append(trial)
    return dict(sorted(groups.items()))


def _by_unit(trials: Iterable[Trial]) -> dict[Unit, list[Trial]]:
    groups: dict[Unit, list[Trial]] = defaultdict(list)
    for trial in trials:
        groups[trial.unit].append(trial)
    return dict(sorted(groups.items(), key=lambda item: item[0].seed_id))


def _nan_interval() -> Interval:
    return Interval(math.nan, math.nan, math.nan)


def _draws(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """`resample_means` in chunks small enough for wide `values` (resamples x columns out)."""
    rows, columns = values.shape
    chunk = max(1, _CHUNK_ENTRIES // max(1, rows * columns))
    out = [resample_means(values, min(chunk, resamples - start), rng) for start in range(0, resamples, chunk)]
    return np.concatenate(out) if out else np.empty((0, columns))


def _interval(point: float, draws: np.ndarray) -> Interval:
    return Interval(point, *percentile_interval(draws, LEVEL))


# --- worst case against variants tried -----------------------------------------------------------------


@dataclass(frozen=True)
class Curve:
    """Worst-case accuracy after t variants tried (t = 1..len(points)), over `seeds` seeds.

    `points[t - 1]` is the share of seeds with no confirmed failure among their first t answered
    trials; a seed whose budget ran out before t keeps its last value. `low`/`high`: 95% cluster
    bootstrap band over seeds (pointwise). `left_out`: units with no answered trial at all."""

    arm: Arm
    searcher: Searcher
    points: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    seeds: int
    left_out: int = 0

    @property
    def tried(self) -> tuple[int, ...]:
        return tuple(range(1, len(self.points) + 1))

    def at(self, tried: int) -> Interval:
        """The worst case after `tried` variants; past the longest unit, every seed's last value."""
        if not self.points or tried < 1:
            return _nan_interval()
        i = min(tried, len(self.points)) - 1
        return Interval(self.points[i], self.low[i], self.high[i])


def _robust_path(trials: Sequence[Trial]) -> list[float]:
    """1 while no confirmed failure has been seen among the answered trials (in `number` order), then 0."""
    answered = [t for t in sorted(trials, key=lambda t: t.number) if t.answered]
    path, robust = [], 1.0
    for trial in answered:
        robust = 0.0 if trial.confirmed else robust
        path.append(robust)
    return path


def worst_case_curve(
    trials: Sequence[Trial], searcher: Searcher, resamples: int = 2000, seed: int = 0
) -> list[Curve]:
    """One curve per arm for `searcher`'s trials (see `Curve`); arms with no answered trial are left out."""
    curves = []
    for arm, group in _by_arm(t for t in trials if t.searcher is searcher).items():
        paths = [_robust_path(unit_trials) for unit_trials in _by_unit(group).values()]
        kept = [p for p in paths if p]
        if not kept:
            continue
        longest = max(len(p) for p in kept)
        matrix = np.array([p + [p[-1]] * (longest - len(p)) for p in kept])  # carry the last value forward
        draws = _draws(matrix, resamples, np.random.default_rng(seed))
        bands = [percentile_interval(draws[:, i], LEVEL) for i in range(longest)]
        curves.append(
            Curve(
                arm=arm,
                searcher=searcher,
                points=tuple(float(v) for v in matrix.mean(axis=0)),
                low=tuple(b[0] for b in bands),
                high=tuple(b[1] for b in bands),
                seeds=len(kept),
                left_out=len(paths) - len(kept),
            )
        )
    return curves


def all_curves(trials: Sequence[Trial], resamples: int = 2000, seed: int = 0) -> list[Curve]:
    """`worst_case_curve` for every searcher of a unit's own model present in `trials`."""
    present = {t.searcher for t in trials}
    return [
        c for s in Searcher if s in OWN and s in present for c in worst_case_curve(trials, s, resamples, seed)
    ]


# --- DynaMath's 10 variants against the search ---------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """A_wst on DynaMath's 10 variants (`baseline`) and after the search (`searched`: baseline, random
    and guided trials together), over the `seeds` units that have answered baseline trials.

    `overestimate` = baseline - searched (a fraction; x100 for points), a paired cluster-bootstrap
    interval over seeds. `fallen`: seeds robust on the baseline with a confirmed failure found by the
    search. `left_out`: the arm's units with no answered baseline trial (not in any figure here)."""

    arm: Arm
    seeds: int
    baseline: Interval
    searched: Interval
    overestimate: Interval
    fallen: tuple[str, ...]
    left_out: int


def dynamath_gap(trials: Sequence[Trial], resamples: int = 2000, seed: int = 0) -> list[Gap]:
    gaps = []
    for arm, group in _by_arm(t for t in trials if t.searcher in OWN).items():
        robust_before, robust_after, fallen, left_out = [], [], [], 0
        for unit, unit_trials in _by_unit(group).items():
            answered = [t for t in unit_trials if t.answered]
            baseline = [t for t in answered if t.searcher is Searcher.BASELINE]
            if not baseline:
                left_out += 1
                continue
            before = not any(t.confirmed for t in baseline)
            after = not any(t.confirmed for t in answered)
            robust_before.append(float(before))
            robust_after.append(float(after))
            if before and not after:
                fallen.append(unit.seed_id)
        if not robust_before:
            gaps.append(Gap(arm, 0, _nan_interval(), _nan_interval(), _nan_interval(), (), left_out))
            continue
        before_a, after_a = np.array(robust_before), np.array(robust_after)
        # One set of seed resamples for all three, so the difference's interval is paired.
        draws = _draws(np.column_stack([before_a, after_a, before_a - after_a]), resamples,
                       np.random.default_rng(seed))  # fmt: skip
        gaps.append(
            Gap(
                arm=arm,
                seeds=len(before_a),
                baseline=_interval(float(before_a.mean()), draws[:, 0]),
                searched=_interval(float(after_a.mean()), draws[:, 1]),
                overestimate=_interval(float((before_a - after_a).mean()), draws[:, 2]),
                fallen=tuple(sorted(fallen)),
                left_out=left_out,
            )
        )
    return gaps


# --- what the failures share ---------------------------------------------------------------------------


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
    for _, group in _by_arm(t for t in trials if t.searcher in OWN).items():
        for unit, unit_trials in _by_unit(group).items():
            failed = [t for t in unit_trials if t.status is TrialStatus.CONFIRMED]
            passed = [t for t in unit_trials if t.status is TrialStatus.PASSED]
            enough = len(failed) >= MIN_EACH and len(passed) >= MIN_EACH
            features = _ranked_features(failed, passed) if enough else ()
            explanations.append(
                Explanation(unit, len(failed), len(passed), features, _tweak_counts(unit_trials))
            )
    return explanations


# --- number sizes: did the search just find big numbers? -----------------------------------------------


@dataclass(frozen=True)
class Quantiles:
    """Quantiles 10/50/90 and the mean of log10(1 + number size) (NaN when there is nothing)."""

    q10: float
    q50: float
    q90: float
    mean: float
    count: int

    @classmethod
    def of(cls, sizes: Sequence[float]) -> Quantiles:
        if not sizes:
            return cls(math.nan, math.nan, math.nan, math.nan, 0)
        logs = np.log10(1 + np.asarray(sizes, dtype=float))
        q10, q50, q90 = np.percentile(logs, [10, 50, 90])
        return cls(float(q10), float(q50), float(q90), float(logs.mean()), len(logs))


@dataclass(frozen=True)
class NumberSizes:
    """The confirmed failures' number sizes against plain random variants of the same seeds.

    `percentile`: the mean over failures of each failure's mid-rank percentile within its own seed's
    reference (0.5: no bigger than random), with a cluster-bootstrap interval over seeds.
    `unreferenced`: failures of seeds with no reference variants (left out)."""

    arm: Arm
    failures: int
    seeds: int
    unreferenced: int
    failed: Quantiles
    reference: Quantiles
    percentile: Interval
    verdict: str  # a clause without untrusted text, e.g. "the failures' numbers are bigger than ..."


def _percentile_within(value: float, reference: np.ndarray) -> float:
    """Mid-rank: the share of `reference` below `value`, ties counted half."""
    below = np.searchsorted(reference, value, side="left")
    tied = np.searchsorted(reference, value, side="right") - below
    return float((below + 0.5 * tied) / len(reference))


def _size_verdict(failures: int, seeds: int, percentile: Interval) -> str:
    if failures < MIN_EACH:
        return f"too few confirmed failures to compare ({failures})"
    shown = f"mean percentile {percentile.estimate:.2f}"
    if seeds < MIN_INTERVAL_SEEDS:  # the cluster bootstrap cannot say how sure this is
        return f"{shown} over {seeds} seeds, too few to say whether that is more than chance"
    shown += f", 95% CI {percentile.low:.2f} to {percentile.high:.2f}"
    if percentile.low > 0.5:
        return f"the failures hold bigger numbers than random variants of the same seeds ({shown})"
    if percentile.high < 0.5:
        return f"the failures hold smaller numbers than random variants of the same seeds ({shown})"
    return f"the failures' numbers are not clearly bigger than random variants' ({shown})"


def number_sizes(
    trials: Sequence[Trial],
    reference: Mapping[str, Sequence[Mapping[str, Any]]],
    resamples: int = 2000,
    seed: int = 0,
) -> list[NumberSizes]:
    """Per arm, the confirmed failures of its own search (not TRANSFER) against `reference`
    (seed id -> params of plain random variants of that seed), each failure within its own seed."""
    found = []
    for arm, group in _by_arm(t for t in trials if t.searcher in OWN and t.confirmed).items():
        sums, counts, failed_sizes, reference_sizes, unreferenced = [], [], [], [], 0
        for unit, unit_trials in _by_unit(group).items():
            plain = sorted(number_size(p) for p in reference.get(unit.seed_id, ()))
            if not plain:
                unreferenced += len(unit_trials)
                continue
            ordered = np.asarray(plain)
            sizes = [number_size(t.params) for t in unit_trials]
            sums.append(sum(_percentile_within(s, ordered) for s in sizes))
            counts.append(float(len(sizes)))
            failed_sizes += sizes
            reference_sizes += plain
        percentile = _nan_interval()
        if counts:
            per_seed = np.column_stack([sums, counts])
            draws = _draws(per_seed, resamples, np.random.default_rng(seed))
            # A ratio of resampled sums: each failure weighs the same, seeds are the clusters.
            percentile = _interval(sum(sums) / sum(counts), draws[:, 0] / draws[:, 1])
        failures = int(sum(counts))
        found.append(
            NumberSizes(
                arm=arm,
                failures=failures,
                seeds=len(counts),
                unreferenced=unreferenced,
                failed=Quantiles.of(failed_sizes),
                reference=Quantiles.of(reference_sizes),
                percentile=percentile,
                verdict=_size_verdict(failures, len(counts), percentile),
            )
        )
    return found


# --- transfer -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transfer:
    """The hard set found on `source` asked to `target` (TRANSFER trials of `target`'s units).

    `source` is inferred: the other model(s) of the same strategy and modality with a confirmed
    failure on the same genome; None when no such trial is in the trials given. `asked`: transferred
    variants answered; `failed`: confirmed on `target`; `share` = failed / asked. When `target` was
    searched itself (its own trials here), `target_failing_seeds` counts the seeds its own search
    found a confirmed failure on and `covered_seeds` those where a transferred variant failed too;
    both are None otherwise."""

    source: str | None
    target: str
    strategy: str
    modality: Modality
    asked: int
    failed: int
    flukes: int
    unclear: int
    seeds: int  # seeds in the transferred set (answered)
    target_failing_seeds: int | None
    covered_seeds: int | None

    @property
    def share(self) -> float:
        return self.failed / self.asked if self.asked else math.nan

    @property
    def coverage(self) -> float | None:
        """The share of `target`'s own failing seeds the transferred set also failed on."""
        if self.target_failing_seeds is None or self.covered_seeds is None or not self.target_failing_seeds:
            return None
        return self.covered_seeds / self.target_failing_seeds


def _sources(trials: Sequence[Trial]) -> dict[tuple[str, Modality, str], set[str]]:
    """(strategy, modality, genome key) -> the models whose own search confirmed that variant."""
    found: dict[tuple[str, Modality, str], set[str]] = defaultdict(set)
    for t in trials:
        if t.searcher in OWN and t.confirmed:
            found[t.unit.strategy, t.unit.modality, t.genome.key()].add(t.unit.model)
    return found


def transfer_share(trials: Sequence[Trial]) -> list[Transfer]:
    sources = _sources(trials)
    groups: dict[tuple[str | None, str, str, Modality], list[Trial]] = defaultdict(list)
    for t in trials:
        if t.searcher is not Searcher.TRANSFER or not t.answered:
            continue
        models = sources.get((t.unit.strategy, t.unit.modality, t.genome.key()), set()) - {t.unit.model}
        named: list[str | None] = [*sorted(models)]
        for source in named or [None]:
            groups[source, t.unit.model, t.unit.strategy, t.unit.modality].append(t)
    own_seeds: dict[Arm, set[str]] = defaultdict(set)  # arm -> seeds searched
    own_failing: dict[Arm, set[str]] = defaultdict(set)  # arm -> seeds with a confirmed failure
    for t in trials:
        if t.searcher in OWN and t.answered:
            own_seeds[Arm.of(t.unit)].add(t.unit.seed_id)
            if t.confirmed:
                own_failing[Arm.of(t.unit)].add(t.unit.seed_id)
    found = []
    for (source, target, strategy, modality), group in sorted(
        groups.items(), key=lambda g: (str(g[0][0]), *g[0][1:])
    ):
        arm = Arm(target, strategy, modality)
        searched = arm in own_seeds
        failing = own_failing.get(arm, set())
        failed_seeds = {t.unit.seed_id for t in group if t.confirmed}
        found.append(
            Transfer(
                source=source,
                target=target,
                strategy=strategy,
                modality=modality,
                asked=len(group),
                failed=sum(t.confirmed for t in group),
                flukes=sum(t.status is TrialStatus.FLUKE for t in group),
                unclear=sum(t.status is TrialStatus.UNCLEAR for t in group),
                seeds=len({t.unit.seed_id for t in group}),
                target_failing_seeds=len(failing) if searched else None,
                covered_seeds=len(failing & failed_seeds) if searched else None,
            )
        )
    return found


# --- counts ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcomes:
    """What an arm's trials came to (one searcher, or all of a unit's own when `searcher` is None).

    `candidates`: trials whose first ask was clearly wrong; of those, `confirmed` stayed wrong on
    every repeat, `flukes` did not (and `errors` may hold a few whose repeat failed to run)."""

    arm: Arm
    searcher: Searcher | None
    units: int
    trials: int
    answered: int
    candidates: int
    confirmed: int
    flukes: int
    unclear: int
    errors: int
    skipped: int
    undone: int
    calls: int
    cached_calls: int

    @property
    def not_confirmed(self) -> int:
        return self.candidates - self.confirmed

    @property
    def cached_share(self) -> float:
        return self.cached_calls / self.calls if self.calls else math.nan


def _outcome(arm: Arm, searcher: Searcher | None, trials: Sequence[Trial]) -> Outcomes:
    def count(status: TrialStatus) -> int:
        return sum(t.status is status for t in trials)

    return Outcomes(
        arm=arm,
        searcher=searcher,
        units=len({t.unit for t in trials}),
        trials=len(trials),
        answered=sum(t.answered for t in trials),
        candidates=sum(bool(t.asks) and t.asks[0].clearly_wrong for t in trials),
        confirmed=count(TrialStatus.CONFIRMED),
        flukes=count(TrialStatus.FLUKE),
        unclear=count(TrialStatus.UNCLEAR),
        errors=count(TrialStatus.ERROR),
        skipped=count(TrialStatus.SKIPPED),
        undone=count(TrialStatus.UNDONE),
        calls=sum(t.calls for t in trials),
        cached_calls=sum(a.calls for t in trials for a in t.asks if a.cached),
    )


def outcomes(trials: Sequence[Trial], per_searcher: bool = False) -> list[Outcomes]:
    """Per arm (and per searcher when `per_searcher`; TRANSFER trials are always counted apart)."""
    found = []
    for arm, group in _by_arm(trials).items():
        if per_searcher:
            for searcher in Searcher:
                mine = [t for t in group if t.searcher is searcher]
                if mine:
                    found.append(_outcome(arm, searcher, mine))
            continue
        own = [t for t in group if t.searcher in OWN]
        if own:
            found.append(_outcome(arm, None, own))
        transferred = [t for t in group if t.searcher is Searcher.TRANSFER]
        if transferred:
            found.append(_outcome(arm, Searcher.TRANSFER, transferred))
    return found


def hard_set(trials: Sequence[Trial]) -> list[Trial]:
    """The confirmed failures of each unit's own search, by arm, seed, searcher and number."""
    order = {s: i for i, s in enumerate(Searcher)}
    chosen = [t for t in trials if t.searcher in OWN and t.confirmed]
    return sorted(chosen, key=lambda t: (Arm.of(t.unit), t.unit.seed_id, order[t.searcher], t.number))


# --- which variation types a failure depends on -------------------------------------------------------


@dataclass(frozen=True)
class VariationEffect:
    """Guided changes of a confirmed failure that touched params of one variation type (the seed's
    `param_variation`): how many were decided, how many still failed, how many passed. A type whose
    changes mostly pass is one the failure depends on; one whose changes keep failing is not."""

    unit: Unit
    variation: str
    changes: int
    still_failing: int
    passed: int

    @property
    def repair_rate(self) -> float:
        return self.passed / self.changes if self.changes else math.nan


def variation_effects(
    trials: Sequence[Trial], declared: Mapping[str, Mapping[str, str]]
) -> list[VariationEffect]:
    """Per unit and variation type: the changes of confirmed failures whose changed params (`Trial.changed`)
    include one of that type, by `declared` (seed id -> param -> variation type). A change that touched
    params of two types counts for both; changes touching no declared param are left out."""
    counts: dict[tuple[Unit, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    by_number = {(t.unit, t.searcher, t.number): t for t in trials}
    for child in trials:
        types = declared.get(child.unit.seed_id, {})
        parent = (
            by_number.get((child.unit, child.searcher, child.parent)) if child.parent is not None else None
        )
        if not types or parent is None or not parent.confirmed:
            continue
        if child.status not in (TrialStatus.PASSED, TrialStatus.CONFIRMED):
            continue
        for variation in sorted({types[k] for k in child.changed if k in types}):
            count = counts[(child.unit, variation)]
            count[0] += 1
            count[1] += child.confirmed
            count[2] += child.status is TrialStatus.PASSED
    return [
        VariationEffect(unit, variation, *count)
        for (unit, variation), count in sorted(counts.items(), key=lambda kv: (kv[0][0].label(), kv[0][1]))
    ]
