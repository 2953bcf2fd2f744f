"""How a run's verdicts were reached, and how much its headline numbers depend on the grader (pure).

- `grader_sensitivity`: every headline number (A_avg, A_wst, RR per model, strategy and modality;
  the modality gap per model and strategy) under every registered grader, side by side, with the
  spread between graders in percentage points;
- `verdict_paths`: per model, the share of verdicts reached by each extraction method and with each
  ambiguity;
- `ambiguous_examples`: a few replies of each ambiguous kind, for a person to read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from isodyn.analysis.columns import ARM, cell_label, labels
from isodyn.analysis.metrics import graded_cells, robustness
from isodyn.analysis.modality import modality_gap
from isodyn.analysis.tables import format_value
from isodyn.results import CellResult, results_frame
from isodyn.schema import Column
from isodyn.scoring import GRADERS, Tolerance
from isodyn.scoring.extract import CLEAR

EXAMPLES_PER_KIND = 3
_EXCERPT = 300


def regraded_frame(results: Sequence[CellResult], grader: str) -> pd.DataFrame:
    """The graded cells with `correct` as the named grader decides from their saved replies."""
    return graded_cells(results_frame([r.regraded(grader, Tolerance()) for r in results if r.graded]))


def _headlines(graded: pd.DataFrame) -> dict[tuple[str, str, str, str], float]:
    out: dict[tuple[str, str, str, str], float] = {}
    for key, group in graded.groupby(list(ARM), sort=True):
        for metric, value in robustness(group).items():
            out[(*key, metric)] = value
    for strategy in sorted(graded[Column.strategy].unique()):
        table = modality_gap(graded, strategy)
        if table.empty:
            continue
        for model, group in table.groupby(Column.model):
            # IsoBench's gap per task, averaged over the model's tasks
            out[(model, strategy, "best text - image", "gap")] = float(group["gap"].mean())
    return out


def grader_sensitivity(results: Sequence[CellResult]) -> pd.DataFrame:
    """Rows (model, strategy, modality, metric), a column per grader (in %; RR as a ratio), and the
    spread between the highest and lowest grader."""
    if not any(r.graded and r.response is not None for r in results):
        return pd.DataFrame()  # nothing to re-grade (an outside table holds verdicts, not replies)
    by_grader = {name: _headlines(regraded_frame(results, name)) for name in GRADERS}
    keys = sorted(set().union(*by_grader.values()))
    records = []
    for key in keys:
        *arm, metric = key
        percent = metric != "RR"
        values = [by_grader[name].get(key, math.nan) for name in GRADERS]
        record: dict[str, Any] = {**dict(zip(labels(ARM), arm, strict=True)), "metric": metric}
        for name, value in zip(GRADERS, values, strict=True):
            record[name] = format_value(value, percent=percent)
        finite = [v for v in values if not math.isnan(v)]
        spread = (max(finite) - min(finite)) * (100 if percent else 1) if finite else math.nan
        record["spread"] = "–" if math.isnan(spread) else (f"{spread:.1f} pp" if percent else f"{spread:.2f}")
        records.append(record)
    return pd.DataFrame.from_records(records)


def verdict_paths(rows: list[dict[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    """Per model: graded replies, then the share (in %) reached by each method and each ambiguity."""
    graded = graded_cells(rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows))
    if graded.empty or Column.method not in graded or graded[Column.method].isna().all():
        return pd.DataFrame()  # verdicts without replies (an outside table): nothing to show
    if Column.ambiguity not in graded:
        found = np.where(graded[Column.reason] == "ok", CLEAR, "none found")
        graded = graded.assign(**{Column.ambiguity.value: found})
    records = []
    for model, group in graded.groupby(Column.model, sort=True):
        record: dict[str, Any] = {Column.model.value: model, "graded": len(group)}
        for column, prefix in ((Column.method, "method"), (Column.ambiguity, "")):
            shares = group[column].fillna("none").value_counts(normalize=True)
            for name, share in shares.items():
                record[f"{prefix}: {name}" if prefix else str(name)] = f"{100 * share:.1f}"
        records.append(record)
    return pd.DataFrame.from_records(records).fillna("0.0")


def ambiguous_examples(rows: list[dict[str, Any]] | pd.DataFrame, seed: int = 0) -> list[dict[str, Any]]:
    """Up to `EXAMPLES_PER_KIND` rows of each ambiguity other than clear, chosen at random (seeded)."""
    graded = graded_cells(rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows))
    if graded.empty or Column.ambiguity not in graded:
        return []
    rng = np.random.default_rng(seed)
    examples = []
    for kind, group in graded[graded[Column.ambiguity] != CLEAR].groupby(Column.ambiguity, sort=True):
        picked = group.iloc[
            sorted(rng.choice(len(group), size=min(EXAMPLES_PER_KIND, len(group)), replace=False))
        ]
        for record in picked.to_dict("records"):
            reply = str(record.get(Column.response) or "")
            examples.append(
                {
                    "kind": kind,
                    "label": cell_label(record),
                    "truth": record[Column.truth],
                    "choices": record.get(Column.choices) or [],
                    "extracted": record.get(Column.extracted),
                    "method": record.get(Column.method),
                    "reply": reply if len(reply) <= _EXCERPT else "…" + reply[-_EXCERPT:],
                }
            )
    return examples
