"""DynaMath's robustness metrics (arXiv 2411.00836, Eq. 1-2), as pure functions of a results table.

A_avg = 1/N sum_i 1/M sum_j I[Ans(i,j) = GT(i,j)]   (mean over seeds of the per-seed accuracy)
A_wst = 1/N sum_i min_j I[Ans(i,j) = GT(i,j)]       (a seed counts only if all its variants are right)
RR    = A_wst / A_avg

With K repeats, each repeat is one evaluation of the seed's variants: A_wst takes the minimum over a
seed's variants within a repeat and averages over repeats. Skipped and errored cells are not
graded and stay out of both; a reply whose answer could not be extracted is graded wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from isodyn.analysis.columns import ARM, labels
from isodyn.analysis.stats import SeedTable, cluster_bootstraps, seed_table
from isodyn.runs.record import Status, status_of
from isodyn.runs.schema import GRADED, Column

GRADED_REASONS = GRADED  # ok, extraction_failed, truncated: the reasons of a graded cell
# A cluster-bootstrap interval over fewer seeds than this says nothing: with 3 seeds there are only
# 10 distinct resamples, and one seed alone gives `[x, x]`. Tables print the estimate and the count.
MIN_INTERVAL_SEEDS = 5


def graded_cells(rows: Iterable[dict[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    graded = frame[frame[Column.reason].isin(GRADED_REASONS)].copy()
    graded[Column.correct] = graded[Column.correct].astype(bool)
    return graded


def robustness(graded: pd.DataFrame) -> dict[str, float]:
    """A_avg, A_wst and RR of one group of graded cells."""
    per_seed_avg = graded.groupby(Column.seed_id)[Column.correct].mean()
    worst_per_repeat = graded.groupby([Column.seed_id, Column.repeat])[Column.correct].min()
    per_seed_wst = worst_per_repeat.groupby(level=Column.seed_id).mean()
    a_avg = float(per_seed_avg.mean())
    a_wst = float(per_seed_wst.mean())
    return {"A_avg": a_avg, "A_wst": a_wst, "RR": a_wst / a_avg if a_avg > 0 else float("nan")}


@dataclass(frozen=True)
class Bootstrap:
    """How intervals are computed: percentile cluster bootstrap over seeds, seeded."""

    resamples: int = 10_000
    level: float = 0.95
    seed: int = 0


def robustness_table(
    rows: Iterable[dict[str, Any]] | pd.DataFrame,
    by: Sequence[str] | None = None,
    bootstrap: Bootstrap | None = None,
) -> pd.DataFrame:
    """One line per group (default: model, strategy, modality) with counts (`seeds`: the graded seeds,
    which intervals are drawn over) and the three metrics; with `bootstrap`, each metric also gets
    `_low` and `_high` interval bounds (printed only from `MIN_INTERVAL_SEEDS` seeds up).

    Counts and per-seed shares come from a few grouped passes over the whole table, not a pass per
    group: a report asks for this per topic and level of every arm, thousands of groups."""
    by = list(by or ARM)
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if frame.empty:
        return pd.DataFrame()
    reasons = frame[Column.reason]
    status = reasons.map({reason: status_of(reason) for reason in reasons.unique()})  # a few words
    graded_mask = frame[Column.reason].isin(GRADED_REASONS)
    flags = pd.DataFrame(
        {
            "graded": graded_mask,
            "extraction_failed": status == Status.EXTRACTION_FAILED,
            "skipped": status == Status.SKIPPED,
            "errors": status == Status.ERROR,
        },
        index=frame.index,
    )
    grouped = flags.groupby([frame[c] for c in by], sort=True)
    counts, sizes = grouped.sum(), grouped.size()
    per_group = _per_seed_by_group(frame[graded_mask], by)
    keys = [key if isinstance(key, tuple) else (key,) for key in counts.index]
    intervals = {}
    if bootstrap is not None:  # every group's intervals in one batched call (the same numbers)
        empty = seed_table(frame.iloc[:0])
        tables = [per_group.get(values, empty) for values in keys]
        found = cluster_bootstraps(tables, bootstrap.resamples, bootstrap.level, bootstrap.seed)
        intervals = dict(zip(keys, found, strict=True))
    records = []
    nan = float("nan")
    for key, values in zip(counts.index, keys, strict=True):
        seeds = per_group.get(values)
        record: dict[str, Any] = dict(zip(labels(by), values, strict=True))
        record.update(
            cells=int(sizes[key]),
            graded=int(counts.at[key, "graded"]),
            seeds=0 if seeds is None else seeds.n,
            extraction_failed=int(counts.at[key, "extraction_failed"]),
            skipped=int(counts.at[key, "skipped"]),
            errors=int(counts.at[key, "errors"]),
        )
        if seeds is None:
            record.update({"A_avg": nan, "A_wst": nan, "RR": nan})
        else:
            a_avg, a_wst = float(seeds.accuracy.mean()), float(seeds.worst.mean())
            record.update({"A_avg": a_avg, "A_wst": a_wst, "RR": a_wst / a_avg if a_avg > 0 else nan})
        if bootstrap is not None:
            for name, interval in intervals[values].items():
                record[f"{name}_low"], record[f"{name}_high"] = interval.low, interval.high
        records.append(record)
    return pd.DataFrame.from_records(records)


def _per_seed_by_group(graded: pd.DataFrame, by: Sequence[str]) -> dict[tuple[Any, ...], SeedTable]:
    """Each group's `SeedTable` (what `stats.seed_table` gives of the group's graded cells)."""
    if graded.empty:
        return {}
    correct = graded[Column.correct].astype(bool).astype(float)
    seed_keys = [graded[c] for c in by] + [graded[Column.seed_id]]
    levels = list(range(len(by) + 1))
    accuracy = correct.groupby(seed_keys, sort=True).mean()
    cells = correct.groupby(seed_keys, sort=True).size()
    worst = correct.groupby([*seed_keys, graded[Column.repeat]], sort=True).min()
    worst = worst.groupby(level=levels, sort=True).mean().reindex(accuracy.index)
    # `accuracy` is sorted by the group's keys, then the seed: each group's seeds are one run of
    # lines, cut at the group boundaries (iterating a groupby of thousands of groups is slow)
    if accuracy.empty:  # every cell lacks a key
        return {}
    levels_of = accuracy.index
    groups = accuracy.groupby(level=list(range(len(by))), sort=True).ngroup().to_numpy()
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    ends = np.r_[starts[1:], len(groups)]
    seed_ids = levels_of.get_level_values(-1).to_numpy()
    values = accuracy.to_numpy(), worst.to_numpy(), cells.to_numpy()
    group_keys = levels_of.droplevel(-1) if len(by) > 1 else levels_of.get_level_values(0)
    out = {}
    for start, end in zip(starts, ends, strict=True):
        key = group_keys[start]
        out[key if isinstance(key, tuple) else (key,)] = SeedTable(
            seed_ids=seed_ids[start:end],
            accuracy=values[0][start:end],
            worst=values[1][start:end],
            cells=values[2][start:end],
        )
    return out
