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

import pandas as pd

from isodyn.analysis.columns import ARM, labels
from isodyn.analysis.stats import cluster_bootstrap, seed_table
from isodyn.record import Status, status_of
from isodyn.schema import Column

GRADED_REASONS = ("ok", "extraction_failed")
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
    `_low` and `_high` interval bounds (printed only from `MIN_INTERVAL_SEEDS` seeds up)."""
    by = list(by or ARM)
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    records = []
    for key, group in frame.groupby(by, sort=True):
        graded = graded_cells(group)
        statuses = group[Column.reason].map(status_of)
        record: dict[str, Any] = dict(zip(labels(by), key if isinstance(key, tuple) else (key,), strict=True))
        record.update(
            cells=len(group),
            graded=len(graded),
            seeds=int(graded[Column.seed_id].nunique()),
            extraction_failed=int((statuses == Status.EXTRACTION_FAILED).sum()),
            skipped=int((statuses == Status.SKIPPED).sum()),
            errors=int((statuses == Status.ERROR).sum()),
        )
        nan = float("nan")
        record.update(robustness(graded) if len(graded) else {"A_avg": nan, "A_wst": nan, "RR": nan})
        if bootstrap is not None:
            intervals = cluster_bootstrap(
                seed_table(graded), bootstrap.resamples, bootstrap.level, bootstrap.seed
            )
            for name, interval in intervals.items():
                record[f"{name}_low"], record[f"{name}_high"] = interval.low, interval.high
        records.append(record)
    return pd.DataFrame.from_records(records)
