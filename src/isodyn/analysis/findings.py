"""What a run found, said first: per model, the best and the worst arm, the modality gap, and the
lead of one model over the next (pure).

An arm is a (strategy, modality) pair of one model. For each model the findings name

- the best and the worst arm by A_avg and by A_wst, each with its paired difference to the baseline
  arm on the same seeds (A_avg: `stats.paired_comparison`; A_wst: the per-seed difference of the
  worst case over a seed's variants, averaged over repeats, resampled over seeds the same way);
- the modality gap under the baseline strategy: the best text representation minus the image, on
  the same items, with an interval over seeds (IsoBench's gap, arXiv 2404.01266);

and, when the run has several models, the lead under the baseline arm: the model with the highest
A_avg minus the next one, paired on the same seeds. Each is said with the number of seeds behind it,
and with a caution when the two arms it compares differ in how their verdicts were reached (their
`none found` or truncated shares, `health.caution_for`): then the difference may be the grader's.
Every interval is a percentile cluster bootstrap over seeds; from fewer than `MIN_INTERVAL_SEEDS`
seeds none is given (`Estimate.has_interval`).
`find` computes the records, `sentences` says them; neither reads or writes anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import pandas as pd

from isodyn.analysis.health import ArmKey, Caution, Health, caution_for, grading_health, with_caution
from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS, Bootstrap
from isodyn.analysis.modality import IMAGE_MODALITIES, TEXT_MODALITIES
from isodyn.analysis.stats import (
    align,
    cluster_bootstrap,
    paired_comparison,
    percentile_interval,
    resample_means,
    seed_differences,
    seed_table,
)
from isodyn.core import Modality
from isodyn.errors import IsodynError
from isodyn.runs.schema import Column
from isodyn.textsafe import visible

DEFAULT_BASELINE = ("zeroshot", "image")
Metric = Literal["A_avg", "A_wst"]
METRICS: tuple[Metric, ...] = ("A_avg", "A_wst")


@dataclass(frozen=True)
class Arm:
    strategy: str
    modality: str

    def __str__(self) -> str:
        return f"{self.strategy} / {self.modality}"


@dataclass(frozen=True)
class Baseline:
    """The arm every other arm is compared with, and why it is that arm when it is not the one asked
    for (`notes`: sentences for the reader)."""

    arm: Arm
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Estimate:
    """A number (accuracy or difference, 0..1) with its interval, and the seeds it rests on."""

    value: float
    low: float
    high: float
    seeds: int

    @property
    def has_interval(self) -> bool:
        return self.seeds >= MIN_INTERVAL_SEEDS and math.isfinite(self.low) and math.isfinite(self.high)


@dataclass(frozen=True)
class ArmResult:
    """One arm of one model: A_avg and A_wst with their intervals."""

    model: str
    arm: Arm
    a_avg: Estimate
    a_wst: Estimate

    def metric(self, name: Metric) -> Estimate:
        return self.a_avg if name == "A_avg" else self.a_wst


@dataclass(frozen=True)
class Finding:
    """One sentence's worth: a model's best or worst arm by a metric (`rank`), its modality gap, or
    the lead of one model over the next (`models`).

    For a rank: `value` is the arm's metric, `difference` the paired difference to the baseline arm
    (None when the arm is the baseline, or the model has no baseline cells). For the gap: `arm` is
    (baseline strategy, best text modality), `value` is that text modality's accuracy minus the
    image's on the same items, and `difference` is None. For the lead: `model` has the highest
    A_avg (`value`) under the baseline arm, `other` the next, `difference` is `model` minus `other`."""

    model: str
    kind: Literal["best", "worst", "gap", "models"]
    metric: Literal["A_avg", "A_wst", "gap"]
    arm: Arm
    value: Estimate
    difference: Estimate | None
    baseline: Arm
    image: str = "image"  # the picture the gap is measured against
    ties: int = 0  # other arms with the same value (the baseline is named when it is among them)
    other: str | None = None  # the model the lead is over
    caution: Caution | None = None  # the compared arms' verdicts were reached too differently

    def compared(self) -> tuple[ArmKey, ArmKey, float] | None:
        """The two arms the sentence compares (first minus second) and the difference it reports."""
        if self.kind == "gap":
            image = (self.model, self.arm.strategy, self.image)
            return (self.model, self.arm.strategy, self.arm.modality), image, self.value.value
        if self.difference is None:
            return None
        first = (self.model, self.arm.strategy, self.arm.modality)
        if self.kind == "models" and self.other is not None:
            return first, (self.other, self.arm.strategy, self.arm.modality), self.difference.value
        return first, (self.model, self.baseline.strategy, self.baseline.modality), self.difference.value

    @property
    def seeds(self) -> int:
        """The seeds the sentence's claim rests on: the paired seeds when there is a difference."""
        return (self.difference or self.value).seeds


@dataclass(frozen=True)
class Findings:
    baseline: Baseline
    level: float  # the intervals' coverage, e.g. 0.95
    arms: tuple[ArmResult, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()  # what could not be measured, said once


class UnknownBaselineError(IsodynError, ValueError):
    """A baseline the run does not hold; the message is one line naming the valid values."""


def parse_baseline(text: str) -> tuple[str, str | None]:
    """`STRATEGY` or `STRATEGY/MODALITY` as typed after `baseline=`."""
    strategy, _, modality = text.partition("/")
    if not strategy.strip():
        raise UnknownBaselineError("give baseline=STRATEGY or baseline=STRATEGY/MODALITY")
    return strategy.strip(), (modality.strip() or None)


def _listed(values: Sequence[str]) -> str:
    # the run's own names, shown safely: the message is printed to a terminal on one line
    return ", ".join(visible(v) for v in values)


def choose_baseline(
    strategies: Sequence[str],
    modalities: Sequence[str],
    requested: tuple[str, str | None] | None = None,
) -> Baseline:
    """The baseline arm among the run's strategies and modalities (each in the run's order).

    A requested value the run does not hold raises UnknownBaselineError (one line, listing the valid
    ones); a default the run does not hold falls back to the first strategy / modality, and says so."""
    strategies, modalities = list(dict.fromkeys(strategies)), list(dict.fromkeys(modalities))
    if not strategies or not modalities:
        return Baseline(Arm(*DEFAULT_BASELINE))
    if requested is not None:
        strategy, modality = requested
        if strategy not in strategies:
            raise UnknownBaselineError(
                f"unknown baseline strategy '{visible(strategy)}'; valid: {_listed(strategies)}"
            )
        if modality is not None and modality not in modalities:
            raise UnknownBaselineError(
                f"unknown baseline modality '{visible(modality)}'; valid: {_listed(modalities)}"
            )
    else:
        strategy, modality = DEFAULT_BASELINE[0], None
    notes = []
    if strategy not in strategies:
        notes.append(
            f"The default baseline strategy {strategy} has no graded cell in this run: the first strategy, "
            f"{strategies[0]}, is the baseline instead."
        )
        strategy = strategies[0]
    if modality is None:
        modality = DEFAULT_BASELINE[1]
        if modality not in modalities:
            notes.append(
                f"The default baseline modality {modality} has no graded cell in this run: the first "
                f"modality, {modalities[0]}, is the baseline instead."
            )
            modality = modalities[0]
    return Baseline(Arm(strategy, modality), tuple(notes))


def seed_mean_estimate(per_seed: np.ndarray, bootstrap: Bootstrap) -> Estimate:
    """The mean of per-seed values, with a percentile interval from resampling seeds."""
    n = len(per_seed)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    rng = np.random.default_rng(bootstrap.seed)
    draws = resample_means(np.asarray(per_seed, float)[:, None], bootstrap.resamples, rng)[:, 0]
    return Estimate(float(np.mean(per_seed)), *percentile_interval(draws, bootstrap.level), n)


def worst_case_differences(a: pd.DataFrame, b: pd.DataFrame) -> pd.Series:
    """Per seed, A's worst case minus B's on the items both have graded: within each repeat a seed
    counts only if all its variants are right, averaged over repeats (DynaMath's A_wst, paired)."""
    both = align(a, b)
    if both.empty:
        return pd.Series(dtype=float)
    worst = both.groupby([Column.seed_id, Column.repeat])[["correct_a", "correct_b"]].min().astype(float)
    per_repeat = worst["correct_a"] - worst["correct_b"]
    return per_repeat.groupby(level=0).mean()


def _arm_result(model: str, arm: Arm, cells: pd.DataFrame, bootstrap: Bootstrap) -> ArmResult:
    table = seed_table(cells)
    intervals = cluster_bootstrap(table, bootstrap.resamples, bootstrap.level, bootstrap.seed)
    return ArmResult(
        model,
        arm,
        *(Estimate(i.estimate, i.low, i.high, table.n) for i in (intervals["A_avg"], intervals["A_wst"])),
    )


def _difference(metric: Metric, a: pd.DataFrame, b: pd.DataFrame, bootstrap: Bootstrap) -> Estimate:
    if metric == "A_avg":
        paired = paired_comparison(
            a, b, bootstrap.resamples, bootstrap.resamples, bootstrap.level, bootstrap.seed
        )
        d = paired.difference
        return Estimate(d.estimate, d.low, d.high, paired.seeds)
    return seed_mean_estimate(worst_case_differences(a, b).to_numpy(float), bootstrap)


def _gap(model: str, cells: pd.DataFrame, strategy: str, bootstrap: Bootstrap) -> Finding | None:
    """The best text representation minus the image under `strategy`, on the same items."""
    under = cells[cells[Column.strategy] == strategy]
    images = [m for m in IMAGE_MODALITIES if (under[Column.modality] == m).any()]
    texts = [m for m in TEXT_MODALITIES if (under[Column.modality] == m).any()]
    if not images or not texts:
        return None
    image = under[under[Column.modality] == images[0]]
    best: tuple[float, str, pd.Series] | None = None
    for text in texts:
        per_seed = seed_differences(align(under[under[Column.modality] == text], image))
        if per_seed.empty:
            continue
        if best is None or per_seed.mean() > best[0]:
            best = (float(per_seed.mean()), text, per_seed)
    if best is None:
        return None
    _, text, per_seed = best
    value = seed_mean_estimate(per_seed.to_numpy(float), bootstrap)
    return Finding(model, "gap", "gap", Arm(strategy, text), value, None, Arm(strategy, images[0]), images[0])


def _lead(
    arms: Sequence[ArmResult], base_cells: dict[str, pd.DataFrame], base: Arm, bootstrap: Bootstrap
) -> Finding | None:
    """The model with the highest A_avg under the baseline arm against the next (the first by name
    among equals), paired on their shared seeds; None with fewer than two such models."""
    ranked = sorted(
        (r for r in arms if r.arm == base and math.isfinite(r.a_avg.value)), key=lambda r: -r.a_avg.value
    )
    if len(ranked) < 2:
        return None
    first, second = ranked[0], ranked[1]
    difference = _difference("A_avg", base_cells[first.model], base_cells[second.model], bootstrap)
    tied = sum(r.a_avg.value == first.a_avg.value for r in ranked) - 1
    return Finding(first.model, "models", "A_avg", base, first.a_avg, difference, base, ties=tied,
                   other=second.model)  # fmt: skip


def _with_caution(finding: Finding, health: dict[ArmKey, Health]) -> Finding:
    compared = finding.compared()
    if compared is None:
        return finding
    first, second, reported = compared
    if first not in health or second not in health or not math.isfinite(reported):
        return finding
    return replace(finding, caution=caution_for(health[first], health[second], reported))


def find(graded: pd.DataFrame, baseline: Baseline, bootstrap: Bootstrap) -> Findings:
    """The findings of a run's graded cells against `baseline` (see the module's docstring)."""
    arms: list[ArmResult] = []
    findings: list[Finding] = []
    notes: list[str] = []
    base = baseline.arm
    if graded.empty:
        return Findings(baseline, bootstrap.level, (), (), ("No graded cells: nothing was found.",))
    at_base: dict[str, pd.DataFrame] = {}
    for model, cells in graded.groupby(Column.model, sort=True):
        model = str(model)
        by_arm = {
            Arm(str(s), str(m)): group
            for (s, m), group in cells.groupby([Column.strategy, Column.modality], sort=True)
        }
        results = [_arm_result(model, arm, group, bootstrap) for arm, group in by_arm.items()]
        arms.extend(results)
        base_cells = by_arm.get(base)
        if base_cells is None:
            notes.append(f"{model} has no {base} cells: its arms are not compared with the baseline.")
        else:
            at_base[model] = base_cells
        for metric in METRICS:
            finite = [r for r in results if math.isfinite(r.metric(metric).value)]
            values = [r.metric(metric).value for r in finite]
            kinds: list[Literal["best", "worst"]] = ["best", "worst"] if len(finite) > 1 else ["best"]
            for kind in kinds if finite else []:
                target = max(values) if kind == "best" else min(values)
                tied = [r for r in finite if r.metric(metric).value == target]  # in arm order
                result = next((r for r in tied if r.arm == base), tied[0])
                difference = None
                if base_cells is not None and result.arm != base:
                    difference = _difference(metric, by_arm[result.arm], base_cells, bootstrap)
                findings.append(
                    Finding(model, kind, metric, result.arm, result.metric(metric), difference, base,
                            ties=len(tied) - 1)
                )  # fmt: skip
        gap = _gap(model, cells, base.strategy, bootstrap)
        if gap is not None:
            findings.append(gap)
        else:
            notes.append(
                f"{model}: no modality gap under {base.strategy} (it needs an image and a text "
                "representation of the same items)."
            )
    lead = _lead(arms, at_base, base, bootstrap)
    if lead is not None:
        findings.insert(0, lead)  # the comparison of models comes first: it is what a reader asks
    health = grading_health(graded)
    cautioned = tuple(_with_caution(finding, health) for finding in findings)
    return Findings(baseline, bootstrap.level, tuple(arms), cautioned, tuple(notes))


# ------------------------------------------------------------------------------------------ sentences


def points(value: float) -> str:
    """A difference in percentage points, always signed: `+30.2`, `-4.0`, `+0.0`."""
    return f"{100 * value:+.1f}"


def _seeds(n: int) -> str:
    return f"{n} seed{'' if n == 1 else 's'}"


def interval_text(estimate: Estimate, signed: bool) -> str:
    """`[+25.1, +35.3]` (signed: a difference) or `[68.0, 76.0]`; from too few seeds, the count."""
    if not estimate.has_interval:
        return f"({_seeds(estimate.seeds)}: too few for an interval)"
    if signed:
        return f"[{points(estimate.low)}, {points(estimate.high)}]"
    return f"[{100 * estimate.low:.1f}, {100 * estimate.high:.1f}]"


def _rank_sentence(finding: Finding, arms_of_model: int) -> str:
    value = finding.value
    tied = f" (tied with {finding.ties} other{'' if finding.ties == 1 else 's'})" if finding.ties else ""
    head = f"{finding.model}: {finding.kind} of {arms_of_model} arms by {finding.metric}{tied}:"
    at = f"{100 * value.value:.1f}% {interval_text(value, signed=False)}"
    if finding.arm == finding.baseline:
        return f"{head} the baseline {finding.arm} itself, at {at}, on {_seeds(value.seeds)}."
    if finding.difference is None:
        return f"{head} {finding.arm} at {at}, on {_seeds(value.seeds)} (no baseline cells to compare with)."
    d = finding.difference
    return (
        f"{head} {finding.arm} at {at}; {points(d.value)} points vs the baseline "
        f"{interval_text(d, signed=True)}, paired on {_seeds(d.seeds)}."
    )


def _lead_sentence(finding: Finding, arms: Sequence[ArmResult]) -> str:
    models = [r for r in arms if r.arm == finding.arm and math.isfinite(r.a_avg.value)]
    other = next(r for r in models if r.model == finding.other)
    d = finding.difference or Estimate(math.nan, math.nan, math.nan, 0)
    has = "ties for" if finding.ties else "has"
    return (
        f"Models under the baseline {finding.arm}, by A_avg: {finding.model} {has} the highest of "
        f"{len(models)}, {100 * finding.value.value:.1f}% {interval_text(finding.value, signed=False)}; "
        f"next {other.model}, {100 * other.a_avg.value:.1f}%: {finding.model} - {other.model} "
        f"{points(d.value)} points {interval_text(d, signed=True)}, paired on {_seeds(d.seeds)}."
    )


def _gap_sentence(finding: Finding) -> str:
    gap = finding.value
    return (
        f"{finding.model}: modality gap under {finding.arm.strategy}: {finding.arm.modality} (the best "
        f"text representation) minus {finding.image} on the same items, {points(gap.value)} points "
        f"{interval_text(gap, signed=True)}, on {_seeds(gap.seeds)}."
    )


def sentences(findings: Findings) -> list[str]:
    """The findings in plain sentences, in percentage points, each naming its seeds."""
    lines = [
        f"Baseline arm: {findings.baseline.arm}. Differences are paired (same seeds and variants), in "
        f"percentage points, with {findings.level:.0%} cluster-bootstrap intervals over seeds.",
        *findings.baseline.notes,
    ]
    arms_per_model: dict[str, int] = {}
    for arm in findings.arms:
        arms_per_model[arm.model] = arms_per_model.get(arm.model, 0) + 1
    for finding in findings.findings:
        if finding.kind == "gap":
            line = _gap_sentence(finding)
        elif finding.kind == "models":
            line = _lead_sentence(finding, findings.arms)
        else:
            line = _rank_sentence(finding, arms_per_model.get(finding.model, 0))
        lines.append(with_caution(line, finding.caution))
    lines.extend(findings.notes)
    return lines


def arms_frame(findings: Findings) -> pd.DataFrame:
    """One line per model and arm (A_avg, A_wst, bounds, seeds), with the baseline and the best and
    worst arms marked: what the summary figure draws. Bounds are NaN when too few seeds. The
    baseline's strategy comes first, and within a strategy the baseline's modality."""
    marks: dict[tuple[str, Arm], list[str]] = {}
    for finding in findings.findings:
        if finding.kind in ("best", "worst"):
            marks.setdefault((finding.model, finding.arm), []).append(f"{finding.kind} {finding.metric}")
    base = findings.baseline.arm
    modalities = [m.value for m in Modality]

    def order(result: ArmResult) -> tuple[bool, str, bool, int, str]:
        modality = result.arm.modality
        known = modalities.index(modality) if modality in modalities else len(modalities)
        return (result.arm.strategy != base.strategy, result.arm.strategy, modality != base.modality,
                known, modality)  # fmt: skip

    records = []
    for result in sorted(findings.arms, key=order):
        record: dict[str, object] = {
            Column.model.value: result.model,
            Column.strategy.value: result.arm.strategy,
            Column.modality.value: result.arm.modality,
            "seeds": result.a_avg.seeds,
            "baseline": result.arm == findings.baseline.arm,
            "marks": ", ".join(marks.get((result.model, result.arm), [])),
        }
        for name in METRICS:
            estimate = result.metric(name)
            record[name] = estimate.value
            record[f"{name}_low"] = estimate.low if estimate.has_interval else math.nan
            record[f"{name}_high"] = estimate.high if estimate.has_interval else math.nan
        records.append(record)
    return pd.DataFrame.from_records(records)
