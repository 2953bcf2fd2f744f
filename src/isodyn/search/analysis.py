"""What a worst-variant search found, as pure functions of its trials (`search/trials.py`).

An *arm* is a model x strategy x modality; within an arm each unit is one seed, so the seed is the
cluster every interval resamples (`stats.resample_means`, percentile intervals at 95%).

- `worst_case_curve`: A_wst after t variants tried, t = 1..T, with cluster-bootstrap bands;
- `dynamath_gap`: A_wst on DynaMath's variants 0..9 against A_wst after the search, the paired
  difference (how much the 10-variant figure overestimates robustness) and the seeds that fell;
- `outcomes`, `hard_set`: counts (flukes, unclear replies, calls, cache) and the confirmed failures;
- `variation_effects`: which variation types a failure depends on.

What the failures share (`explain`) is in `search/explanations.py`, whether they merely hold bigger
numbers (`number_sizes`) in `search/number_sizes.py`, and the share of a hard set that fails on a
second model (`transfer_share`) in `search/transfer.py`; they use the arms and intervals here.

Every function returns frozen dataclasses; accuracies are fractions (0..1), never points.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from isodyn.analysis.stats import Interval, percentile_interval, resample_means
from isodyn.core import Modality
from isodyn.search.trials import Searcher, Trial, TrialStatus, Unit

LEVEL = 0.95
# Bootstrap draws are made in chunks of at most this many entries (resamples x seeds x columns), so a
# curve over hundreds of seeds and variants stays within memory.
_CHUNK_ENTRIES = 4_000_000
# The searchers whose trials are the search of a unit's own model (TRANSFER asks another model's set).
OWN = frozenset({Searcher.RANDOM, Searcher.GUIDED, Searcher.BASELINE})


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


def by_arm(trials: Iterable[Trial]) -> dict[Arm, list[Trial]]:
    groups: dict[Arm, list[Trial]] = defaultdict(list)
    for trial in trials:
        groups[Arm.of(trial.unit)].append(trial)
    return dict(sorted(groups.items()))


def by_unit(trials: Iterable[Trial]) -> dict[Unit, list[Trial]]:
    groups: dict[Unit, list[Trial]] = defaultdict(list)
    for trial in trials:
        groups[trial.unit].append(trial)
    return dict(sorted(groups.items(), key=lambda item: item[0].seed_id))


def nan_interval() -> Interval:
    return Interval(math.nan, math.nan, math.nan)


def bootstrap_draws(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """`resample_means` in chunks small enough for wide `values` (resamples x columns out)."""
    rows, columns = values.shape
    chunk = max(1, _CHUNK_ENTRIES // max(1, rows * columns))
    out = [resample_means(values, min(chunk, resamples - start), rng) for start in range(0, resamples, chunk)]
    return np.concatenate(out) if out else np.empty((0, columns))


def draws_interval(point: float, draws: np.ndarray) -> Interval:
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
            return nan_interval()
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
    for arm, group in by_arm(t for t in trials if t.searcher is searcher).items():
        paths = [_robust_path(unit_trials) for unit_trials in by_unit(group).values()]
        kept = [p for p in paths if p]
        if not kept:
            continue
        longest = max(len(p) for p in kept)
        matrix = np.array([p + [p[-1]] * (longest - len(p)) for p in kept])  # carry the last value forward
        draws = bootstrap_draws(matrix, resamples, np.random.default_rng(seed))
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
    for arm, group in by_arm(t for t in trials if t.searcher in OWN).items():
        robust_before, robust_after, fallen, left_out = [], [], [], 0
        for unit, unit_trials in by_unit(group).items():
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
            gaps.append(Gap(arm, 0, nan_interval(), nan_interval(), nan_interval(), (), left_out))
            continue
        before_a, after_a = np.array(robust_before), np.array(robust_after)
        # One set of seed resamples for all three, so the difference's interval is paired.
        draws = bootstrap_draws(np.column_stack([before_a, after_a, before_a - after_a]), resamples,
                       np.random.default_rng(seed))  # fmt: skip
        gaps.append(
            Gap(
                arm=arm,
                seeds=len(before_a),
                baseline=draws_interval(float(before_a.mean()), draws[:, 0]),
                searched=draws_interval(float(after_a.mean()), draws[:, 1]),
                overestimate=draws_interval(float((before_a - after_a).mean()), draws[:, 2]),
                fallen=tuple(sorted(fallen)),
                left_out=left_out,
            )
        )
    return gaps


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
    for arm, group in by_arm(trials).items():
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
