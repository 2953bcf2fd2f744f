"""What `exp compare` writes beside the statistics of `analysis.paired` (pure): the cells a
two-run comparison leaves out (`dropped_cells`), the report's file names (`report_names`), and the
report itself (`comparison_content`: summary, table, forest plot)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from isodyn.analysis.columns import ARM, ITEM
from isodyn.analysis.forest import ForestRow, forest_png
from isodyn.analysis.metrics import Bootstrap
from isodyn.analysis.paired import (
    Comparison,
    Pair,
    bracket,
    counted,
    detectable_words,
    listed,
    magnitude,
    percent,
    seeds_needed_words,
    signed_points,
)
from isodyn.analysis.run_report import ReportContent
from isodyn.runs.schema import Column
from isodyn.textsafe import visible


def unpaired_text(comparison: Comparison) -> str | None:
    """How many graded cells had no partner on the same item in the other arm of their pair (a
    strategy run on other seeds, a modality a seed does not render), or None when none."""
    unpaired = [pair for pair in comparison.pairs if pair.unpaired]
    if not unpaired:
        return None
    most = max(unpaired, key=lambda pair: pair.unpaired)
    where = f" ({visible(most.context)})" if most.context else ""
    return (
        f"{counted(sum(p.unpaired for p in unpaired), 'graded cell')} had no partner on the same item "
        f"in the other arm of their pair and were left out; most in {visible(most.name)}{where}: "
        f"{most.unpaired}"
    )


# --- what a two-run comparison leaves out ---------------------------------------------------------

_DIMENSIONS = (
    (Column.model, "model", "models"),
    (Column.strategy, "strategy", "strategies"),
    (Column.modality, "modality", "modalities"),
    (Column.seed_id, "seed", "seeds"),
    (Column.variant, "variant", "variants"),
    (Column.repeat, "repeat", "repeats"),
)


@dataclass(frozen=True)
class DroppedCells:
    """Cells one run has and the other lacks (by model, strategy, modality, seed, variant, repeat),
    explained by the values the other run lacks altogether, dimension by dimension; what is left
    is counted as combinations the other run lacks."""

    run: str
    other: str
    cells: int
    reasons: tuple[str, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        because = f": {', '.join(self.reasons)}" if self.reasons else ""
        return f"{self.cells} cells of {visible(self.run)} only{because}"


def dropped_cells(frames: Mapping[str, pd.DataFrame]) -> list[DroppedCells]:
    """For two runs' result frames (by run name): the cells each has that the other lacks."""
    if len(frames) != 2:
        return []
    keys = [*ARM, *ITEM]
    (first, a), (second, b) = frames.items()
    grids = {name: frame[keys].drop_duplicates() for name, frame in ((first, a), (second, b))}
    found = []
    for mine, theirs in ((first, second), (second, first)):
        joined = grids[mine].merge(grids[theirs], on=keys, how="left", indicator=True)
        remaining = joined[joined["_merge"] == "left_only"][keys]
        total = len(remaining)
        if not total:
            continue
        reasons = []
        for column, one, many in _DIMENSIONS:
            absent = sorted(set(remaining[column]) - set(grids[theirs][column]), key=str)
            if not absent:
                continue
            hit = remaining[column].isin(absent)
            values = [visible(str(v)) for v in absent]
            reasons.append(
                f"{one if len(values) == 1 else many} {listed(values)} ({counted(int(hit.sum()), 'cell')})"
            )
            remaining = remaining[~hit]
        if len(remaining):
            example = remaining.iloc[0]
            reasons.append(
                f"{counted(len(remaining), 'cell')} in combinations {visible(theirs)} lacks (e.g. "
                + " / ".join(visible(str(example[c])) for c in ARM)
                + f" / {visible(str(example[Column.seed_id]))} #{example[Column.variant]}"
                + f" repeat {example[Column.repeat]})"
            )
        found.append(DroppedCells(mine, theirs, total, tuple(reasons)))
    return found


# --- file names and the report --------------------------------------------------------------------


def file_safe(text: str, limit: int = 60) -> str:
    """`text` as part of a file name: only [A-Za-z0-9._-]; anything else (or a cut) is replaced and
    a short hash of the original added, so two different values never share a name."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text)[:limit]
    if safe != text:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        safe = f"{safe}-{digest}"
    return safe


@dataclass(frozen=True)
class ReportNames:
    stem: str  # compare-by-strategy[-vs-BASELINE]: .md and .html
    figure: str  # forest-by-strategy[-vs-BASELINE]: figures/NAME.png


def report_names(by: str, baseline: str | None) -> ReportNames:
    """Names of one comparison's files, so no other comparison (another by= or baseline=) shares them."""
    suffix = f"by-{file_safe(by)}" + (f"-vs-{file_safe(baseline)}" if baseline is not None else "")
    return ReportNames(f"compare-{suffix}", f"forest-{suffix}")


def _table(comparison: Comparison) -> pd.DataFrame:
    alpha, level = comparison.alpha, comparison.level
    each = comparison.simultaneous_level
    per_column = f"{percent(level)} interval (per comparison)"
    together_column = f"simultaneous {percent(1 - alpha)} interval ({percent(each)} each)"
    rows = []
    for pair in comparison.pairs:
        defined = pair.difference is not None
        rows.append(
            {
                "context": pair.context,
                "A": pair.a,
                "B": pair.b,
                "cells": str(int(pair.cells)),
                "seeds": str(int(pair.seeds)),
                "A − B (points)": signed_points(pair.difference) if pair.difference is not None else "n/a",
                per_column: bracket(pair.low, pair.high)
                if defined and pair.low is not None and pair.high is not None
                else "n/a",
                "p sign-flip (unadjusted)": _p(pair.p_permutation),
                together_column: bracket(pair.simultaneous_low, pair.simultaneous_high)
                if defined and pair.simultaneous_low is not None and pair.simultaneous_high is not None
                else "n/a",
                "p Holm (adjusted)": _p(pair.p_holm),
                "verdict": _verdict_words(pair),
                "p McNemar": _p(pair.p_mcnemar),
                "A only / B only": f"{pair.a_only} / {pair.b_only}",
                "MDE (points)": detectable_words(pair.detectable, alpha),
                "seeds for 5 points": seeds_needed_words(pair.detectable),
            }
        )
    return pd.DataFrame.from_records(rows)


def _p(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def _verdict_words(pair: Pair) -> str:
    if pair.verdict == "established":
        side, _, _ = magnitude(pair)
        return f"{pair.a if side == 'ahead of' else pair.b} ahead"
    return {
        "not distinguishable": "not distinguishable",
        "too few seeds": "too few seeds to tell",
        "interval only": "borderline: interval excludes 0, Holm p does not",
        "p only": "borderline: Holm p below alpha, interval includes 0",
        "undefined": "n/a: no shared cells",
    }[pair.verdict]


def forest_rows(comparison: Comparison) -> list[ForestRow]:
    several = len({pair.context for pair in comparison.pairs}) > 1 or comparison.by == "run"
    return [
        ForestRow(
            a=pair.a,
            b=pair.b,
            detail=pair.context if several or pair.context else "",
            difference=None if pair.difference is None else 100 * pair.difference,
            low=None if pair.simultaneous_low is None else 100 * pair.simultaneous_low,
            high=None if pair.simultaneous_high is None else 100 * pair.simultaneous_high,
            holds=pair.verdict == "established",
        )
        for pair in comparison.pairs
    ]


def comparison_content(
    comparison: Comparison,
    title: str,
    bootstrap: Bootstrap,
    dropped: Sequence[DroppedCells] = (),
    left_out: str | None = None,
) -> ReportContent:
    """The comparison report: the summary and sentences first, then the table and the forest plot
    (named for the comparison: `report_names(...).figure`). `dropped`: what two runs do not share;
    `left_out`: within a run, the cells no pair could use (`unpaired_text`)."""
    by, alpha = comparison.by, comparison.alpha
    facts = [("compared by", by)]
    if comparison.baseline is not None:
        facts.append(("baseline", comparison.baseline))
    facts += [("dropped", d.text) for d in dropped]
    if left_out:
        facts.append(("left out of their pair", left_out))
    if not comparison.pairs:
        return ReportContent(title, facts, [], sentences=["Nothing to compare: no pair of "
                             f"{by} values was graded on the same cells."])  # fmt: skip
    m = comparison.m
    each = comparison.simultaneous_level
    facts += [
        ("comparisons", str(m)),
        (
            "intervals",
            f"{percent(comparison.level)} per comparison (beside the unadjusted p); simultaneous "
            f"{percent(1 - alpha)} over {counted(m, 'comparison')}, Bonferroni, {percent(each)} each (beside "
            "the Holm-adjusted p, and in the sentences and the figure)",
        ),
    ]
    caption = (
        f"A − B in accuracy points. Two intervals from the same paired cluster bootstrap over seeds "
        f"({bootstrap.resamples} resamples): the per-comparison {percent(comparison.level)} interval "
        f"goes with the unadjusted sign-flip p; the simultaneous {percent(1 - alpha)} interval "
        f"(Bonferroni over {counted(m, 'comparison')}: each at 1 − {alpha:g}/{m} = {percent(each)}) goes "
        "with "
        f"the Holm-adjusted p (family-wise alpha {alpha:g}). A difference is established when the Holm "
        "p is below alpha and the simultaneous interval excludes 0; when only one of them says so, the "
        "verdict is borderline. McNemar's exact test on discordant cells; MDE: the smallest difference "
        f"these seeds detect with 80% power at alpha {alpha:g}, or why there is none."
    )
    names = report_names(by, comparison.baseline)
    figure_title = (
        f"Paired differences A − B with simultaneous {percent(1 - alpha)} intervals "
        f"(Bonferroni over {m}, {percent(each)} each); filled: established (Holm p < {alpha:g} and "
        "the interval excludes 0)"
    )
    png = forest_png(forest_rows(comparison), figure_title)
    return ReportContent(
        title,
        facts,
        [("Paired comparisons", caption, _table(comparison))],
        {names.figure: (f"Paired differences with simultaneous {percent(1 - alpha)} intervals", png)},
        sentences=comparison.sentences,
    )
