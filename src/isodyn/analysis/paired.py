"""Paired comparisons of strategies, models, modalities or runs on the same cells (pure).

For every context (the other grouping columns) and every pair, one paired cluster bootstrap over
seeds gives two intervals of the difference A − B: the per-comparison one (at the bootstrap level),
printed beside the unadjusted sign-flip p, and the simultaneous one (Bonferroni: each at
1 − alpha/m over the m comparisons), printed beside the Holm-adjusted p. The sentences use the
simultaneous interval with the adjusted p and say in words when the two disagree. McNemar's exact p
is given too; the sign-flip p (which respects the variant-within-seed clustering) is the one
Holm-corrected across all pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import pandas as pd

from isodyn.analysis.columns import ARM
from isodyn.analysis.health import Caution, caution_between, with_caution
from isodyn.analysis.metrics import Bootstrap, graded_cells
from isodyn.analysis.stats import (
    Detectable,
    PairedBootstrap,
    bonferroni_level,
    detectable_effect,
    holm,
    paired_bootstrap,
    smallest_sign_flip_p,
)
from isodyn.runs.schema import Column

TARGET_EFFECT = 0.05  # the effect size (5 points) the "seeds needed" column is computed for
LISTED = 8  # names listed in a summary or a "dropped" line before "and N more"

Verdict = Literal[
    "established",  # p_holm < alpha and the simultaneous interval excludes 0 on the same side
    "not distinguishable",  # neither
    "too few seeds",  # neither, and a sign-flip test over these seeds can never reach alpha
    "interval only",  # the simultaneous interval excludes 0, p_holm does not reach alpha
    "p only",  # p_holm < alpha, the simultaneous interval still includes 0
    "undefined",  # no cell graded for both
]


@dataclass(frozen=True)
class Pair:
    """One comparison, A − B in accuracy (0..1); None where there is no shared cell."""

    context: str
    a: str
    b: str
    cells: int
    seeds: int
    difference: float | None
    low: float | None  # per-comparison interval (the bootstrap level)
    high: float | None
    simultaneous_low: float | None  # simultaneous interval (Bonferroni, 1 - alpha/m each)
    simultaneous_high: float | None
    a_only: int
    b_only: int
    p_mcnemar: float | None
    p_permutation: float | None  # unadjusted sign-flip p
    p_holm: float | None
    detectable: Detectable | None
    verdict: Verdict
    sentence: str = ""
    unpaired: int = 0  # graded cells of A or B whose item the other did not grade: left out
    caution: Caution | None = None  # A's and B's verdicts were reached too differently (`health`)

    @property
    def name(self) -> str:
        return f"{self.a} vs {self.b}"


@dataclass(frozen=True)
class Comparison:
    by: str
    baseline: str | None
    pairs: tuple[Pair, ...]
    alpha: float  # the decision level of p_holm; the simultaneous intervals cover with 1 - alpha
    level: float  # the per-comparison interval level
    summary: str | None = None  # without a baseline: the paragraph before the list of pairs

    @property
    def m(self) -> int:
        """The comparisons Holm and Bonferroni count: those with a difference."""
        return sum(pair.difference is not None for pair in self.pairs)

    @property
    def simultaneous_level(self) -> float:
        return bonferroni_level(self.alpha, self.m)

    @property
    def sentences(self) -> list[str]:
        return ([self.summary] if self.summary else []) + [pair.sentence for pair in self.pairs]

    def frame(self) -> pd.DataFrame:
        """One row per pair, numbers as numbers (accuracy 0..1), for tables and tests."""
        records = []
        for pair in self.pairs:
            detectable = pair.detectable
            records.append(
                {
                    "context": pair.context,
                    "a": pair.a,
                    "b": pair.b,
                    "cells": pair.cells,
                    "seeds": pair.seeds,
                    "difference": _nan(pair.difference),
                    "low": _nan(pair.low),
                    "high": _nan(pair.high),
                    "p_permutation": _nan(pair.p_permutation),
                    "simultaneous_low": _nan(pair.simultaneous_low),
                    "simultaneous_high": _nan(pair.simultaneous_high),
                    "p_holm": _nan(pair.p_holm),
                    "p_mcnemar": _nan(pair.p_mcnemar),
                    "a_only": pair.a_only,
                    "b_only": pair.b_only,
                    "mde": _nan(detectable.effect if detectable else None),
                    "seeds_for_5_points": detectable.seeds_needed if detectable else None,
                    "verdict": pair.verdict,
                    "sentence": pair.sentence,
                }
            )
        return pd.DataFrame.from_records(records)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def compare(
    frame: pd.DataFrame,
    by: str,
    baseline: str | None = None,
    bootstrap: Bootstrap = Bootstrap(),  # noqa: B008 - immutable
    alpha: float = 0.05,
) -> Comparison:
    """Every pair of `by` values (or every value against `baseline`) within each context."""
    graded = graded_cells(frame)
    context_columns: list[str] = [c for c in ARM if c != by]
    for drawn in (Column.render, Column.perturbation):  # only in runs that varied them: else as before
        if drawn != by and drawn in graded.columns and graded[drawn].nunique() > 1:
            context_columns.append(drawn)
    if by != "run" and "run" in graded.columns and graded["run"].nunique() > 1:
        context_columns.append("run")
    drafts: list[tuple[str, str, str, PairedBootstrap, int, Caution | None]] = []
    for key, group in graded.groupby(context_columns, sort=True, dropna=False):
        values = sorted(group[by].unique(), key=str)
        if baseline is not None:
            pairs = [(v, baseline) for v in values if v != baseline] if baseline in values else []
        else:
            pairs = list(combinations(values, 2))
        context = " / ".join(map(str, key if isinstance(key, tuple) else (key,)))
        for a, b in pairs:
            left, right = group[group[by] == a], group[group[by] == b]
            found = paired_bootstrap(left, right, bootstrap.resamples, bootstrap.resamples, bootstrap.seed)
            caution = caution_between(left, right, found.estimate) if found.seeds else None
            unpaired = len(left) + len(right) - 2 * found.cells
            drafts.append((context, str(a), str(b), found, unpaired, caution))
    defined = [found for _, _, _, found, _, _ in drafts if found.seeds]
    adjusted = iter(holm([found.p_permutation for found in defined]) if defined else [])
    each = bonferroni_level(alpha, len(defined))
    pairs_out = []
    for context, a, b, found, unpaired, caution in drafts:
        if not found.seeds:
            pair = Pair(context, a, b, 0, 0, None, None, None, None, None, 0, 0, None, None, None, None,
                        "undefined", unpaired=unpaired)  # fmt: skip
        else:
            p_holm = next(adjusted)
            per, together = found.interval(bootstrap.level), found.interval(each)
            pair = Pair(
                context=context,
                a=a,
                b=b,
                cells=found.cells,
                seeds=found.seeds,
                difference=found.estimate,
                low=per.low,
                high=per.high,
                simultaneous_low=together.low,
                simultaneous_high=together.high,
                a_only=found.a_only,
                b_only=found.b_only,
                p_mcnemar=found.p_mcnemar,
                p_permutation=found.p_permutation,
                p_holm=p_holm,
                detectable=detectable_effect(found.sd_seed_difference, found.seeds, TARGET_EFFECT, alpha),
                verdict=verdict(found.estimate, together.low, together.high, p_holm, found.seeds, alpha),
                unpaired=unpaired,
                caution=caution,
            )
        pairs_out.append(pair)
    done = tuple(_with_sentence(pair, alpha) for pair in pairs_out)
    result = Comparison(by, baseline, done, alpha, bootstrap.level)
    if baseline is None and done:
        result = Comparison(by, baseline, done, alpha, bootstrap.level, summary(result))
    return result


def verdict(difference: float, low: float, high: float, p_holm: float, seeds: int, alpha: float) -> Verdict:
    """What the adjusted p and the simultaneous interval say together (see `Verdict`)."""
    significant = p_holm < alpha
    excludes = (low > 0 and difference > 0) or (high < 0 and difference < 0)
    if significant and excludes:
        return "established"
    if significant:
        return "p only"
    if excludes:
        return "interval only"
    return "too few seeds" if smallest_sign_flip_p(seeds) >= alpha else "not distinguishable"


def points(value: float) -> str:
    """Accuracy (0..1) as points with one decimal, never "-0.0"."""
    text = f"{100 * value:.1f}"
    return "0.0" if text == "-0.0" else text


def signed_points(value: float) -> str:
    text = f"{100 * value:+.1f}"
    return "+0.0" if text == "-0.0" else text


def bracket(low: float, high: float) -> str:
    return f"[{points(low)}, {points(high)}]"


def magnitude(pair: Pair) -> tuple[str, str, str]:
    """("ahead of"/"behind", |A − B| in points, its interval): the interval of the magnitude the
    sentence prints, so a sentence and its interval always have the same sign."""
    d, low, high = pair.difference or 0.0, pair.simultaneous_low, pair.simultaneous_high
    assert low is not None and high is not None
    if d >= 0:
        return "ahead of", points(d), bracket(low, high)
    return "behind", points(-d), bracket(-high, -low)


def family_words(alpha: float) -> str:
    return f"simultaneous {percent(1 - alpha)} interval"


def percent(level: float) -> str:
    """0.95 -> "95%", 0.998214 -> "99.82%", 0.983333 -> "98.33%"."""
    return f"{100 * level:.4g}%"


def detectable_words(found: Detectable | None, alpha: float) -> str:
    """The MDE as a reader should get it: a number in (0, 100] points, or why there is none."""
    if found is None:
        return "no shared cells: MDE undefined"
    if found.reason == "ok" and found.effect is not None:
        return points(found.effect) if found.effect >= 0.0005 else "< 0.1"
    seeds = found.seeds
    return {
        "too few seeds": f"too few seeds: {seeds} (an MDE needs at least 2)",
        "sign-flip floor": f"too few seeds: with {seeds} a sign-flip test cannot reach p < {alpha:g}",
        "no spread": "no spread between seeds: MDE undefined",
        "beyond 100 points": f"none: with {seeds} seeds not even a 100-point difference is reliably found",
    }.get(found.reason, "undefined")


def seeds_needed_words(found: Detectable | None) -> str:
    if found is None or found.seeds_needed is None:
        return {"no spread": "unknown: no spread between seeds"}.get(
            found.reason if found else "", "unknown: too few seeds"
        )
    return str(int(found.seeds_needed))


def sentence(pair: Pair, alpha: float = 0.05) -> str:
    """One plain sentence per comparison, in percentage points, with the simultaneous interval and
    the Holm-adjusted p; a disagreement between the two is said in words, never printed as a verdict."""
    where = f" ({pair.context})" if pair.context else ""
    a, b, seeds = pair.a, pair.b, int(pair.seeds)
    if pair.verdict == "undefined" or pair.difference is None or pair.p_holm is None:
        return f"{a} and {b} share no graded cell{where}: no difference can be computed."
    d, p = pair.difference, pair.p_holm
    assert pair.simultaneous_low is not None and pair.simultaneous_high is not None
    signed = bracket(pair.simultaneous_low, pair.simultaneous_high)
    family = family_words(alpha)
    adjusted = f"p = {p:.3g} after Holm"
    side, size, size_interval = magnitude(pair)
    if pair.verdict == "established":
        verb = "beats" if d > 0 else "trails"
        return f"{a} {verb} {b} by {size} points {size_interval} ({family}), {adjusted}{where}."
    floor = smallest_sign_flip_p(seeds)
    if pair.verdict == "interval only" and floor >= alpha:
        return (
            f"{a} is {side} {b} by {size} points {size_interval} ({family}){where}, but with {seeds} "
            f"seeds a sign-flip test cannot reach p < {alpha:g} (the smallest p it can give is "
            f"{floor:.3g}), so the difference is not established: too few seeds to tell."
        )
    if pair.verdict == "interval only":
        return (
            f"{a} is {side} {b} by {size} points {size_interval} and the {family} excludes 0, but "
            f"{adjusted} is not below {alpha:g}{where}: the two disagree, so the difference is "
            "borderline, not established."
        )
    if pair.verdict == "p only":
        return (
            f"{a} is {side} {b} by {size} points and {adjusted} is below {alpha:g}, but the {family} "
            f"{size_interval} still includes 0{where}: the two disagree, so the difference is "
            "borderline, not established."
        )
    if pair.a_only == 0 and pair.b_only == 0:  # the same verdict on every shared cell
        return (
            f"{a} and {b} are right and wrong on exactly the same {pair.cells} shared cells{where}: "
            f"A − B = {signed_points(d)} points, nothing to tell apart."
        )
    if pair.verdict == "too few seeds":
        return (
            f"{a} and {b} cannot be told apart with {seeds} seeds: A − B = {signed_points(d)} points "
            f"{signed} ({family}){where}; the smallest p a sign-flip test over {seeds} seeds can give "
            f"is {floor:.3g}."
        )
    return (
        f"{a} and {b} are not distinguishable: A − B = {signed_points(d)} points {signed} ({family}), "
        f"{adjusted}{where}; {_detectable_tail(pair.detectable, alpha)}."
    )


def _detectable_tail(found: Detectable | None, alpha: float) -> str:
    if found is not None and found.reason == "ok" and found.effect is not None:
        return f"with {found.seeds} seeds only about {detectable_words(found, alpha)} points are detectable"
    return detectable_words(found, alpha)


def _with_sentence(pair: Pair, alpha: float) -> Pair:
    return Pair(**{**pair.__dict__, "sentence": with_caution(sentence(pair, alpha), pair.caution)})


def listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def counted(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def summary(comparison: Comparison) -> str:
    """The paragraph before the pairs: how many, which differences hold after Holm (named), which are
    borderline, and that the rest cannot be told apart with these seeds."""
    pairs = comparison.pairs
    alpha = comparison.alpha
    contexts = len({pair.context for pair in pairs})
    several = contexts > 1

    def named(pair: Pair) -> str:
        where = f" ({pair.context})" if several and pair.context else ""
        return f"{pair.name}{where}"

    held = [p for p in pairs if p.verdict == "established"]
    borderline = [p for p in pairs if p.verdict in ("interval only", "p only")]
    undefined = [p for p in pairs if p.verdict == "undefined"]
    rest = [p for p in pairs if p.verdict in ("not distinguishable", "too few seeds")]
    where = f" in {contexts} contexts" if several else ""
    parts = [f"{counted(len(pairs), 'pair')} compared{where}."]
    if held:
        described = []
        for pair in held:
            side, size, _ = magnitude(pair)
            leader = pair.a if side == "ahead of" else pair.b
            described.append(f"{named(pair)} ({leader} ahead by {size} points)")
        parts.append(
            f"After Holm correction (alpha {alpha:g}), {counted(len(held), 'difference')} "
            f"{'holds, its' if len(held) == 1 else 'hold, each with its'} {family_words(alpha)} excluding 0: "
            f"{listed(described)}."
        )
    else:
        parts.append(f"No difference survives Holm correction (alpha {alpha:g}).")
    if borderline:
        parts.append(
            f"{counted(len(borderline), 'pair')} {'is' if len(borderline) == 1 else 'are'} borderline, "
            f"the adjusted p and the simultaneous interval disagreeing: "
            f"{listed([named(p) for p in borderline])}."
        )
    if rest:
        seeds = sorted({p.seeds for p in rest})
        span = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]} to {seeds[-1]}"
        if held or borderline:
            parts.append(
                f"The other {counted(len(rest), 'pair')} cannot be told apart with these seeds ({span} per "
                f"pair): {listed([named(p) for p in rest])}."
            )
        else:
            these = f"with these seeds ({span} per pair)"
            parts.append(
                f"None of the {len(rest)} pairs can be told apart {these}."
                if len(rest) > 1
                else f"The pair cannot be told apart {these}."
            )
    if undefined:
        parts.append(
            f"{counted(len(undefined), 'pair')} {'shares' if len(undefined) == 1 else 'share'} no graded "
            f"cell: {listed([named(p) for p in undefined])}."
        )
    return " ".join(parts)
