"""How a run's verdicts were reached, and how much its headline numbers depend on the grader (pure).

- `grader_sensitivity`: every headline number (A_avg, A_wst, RR per model, strategy and modality;
  the modality gap per model and strategy) under every registered grader, side by side, with the
  spread between graders in percentage points;
- `verdict_paths`: per model, the share of verdicts reached by each extraction method and with each
  ambiguity;
- `ambiguous_examples`: a few replies of each ambiguous kind, for a person to read.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from isodyn.analysis.columns import ARM, ITEM, cell_label, labels
from isodyn.analysis.metrics import graded_cells, robustness
from isodyn.analysis.modality import modality_gap
from isodyn.analysis.tables import format_value
from isodyn.runs.results import CellResult, results_frame
from isodyn.runs.schema import Column
from isodyn.runs.verdict_book import graded_afresh
from isodyn.scoring import GRADERS, Score
from isodyn.scoring.extract import CLEAR

EXAMPLES_PER_KIND = 3
_EXCERPT = 300


# Each cell's verdict by the named grader (None: the cell's own verdict stands), computed now
# (`graded_afresh`) or read from verdicts kept with the run (`verdict_book.VerdictBook.verdicts`).
Regrade = Callable[[Sequence[CellResult], str], list[Score | None]]


def regraded_frame(
    results: Sequence[CellResult],
    grader: str,
    regrade: Regrade = graded_afresh,
    frame: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The graded cells with `correct` as the named grader decides from their saved replies, each with
    its own tolerance (the one it was graded with: `exp rescore RUN abs_tol=...` sets it per cell).
    `frame`, when given, is `results_frame` of the graded results (built once for every grader)."""
    graded = [r for r in results if r.graded]
    frame = results_frame(graded) if frame is None else frame
    scores = regrade(graded, grader)
    correct = [r.correct if s is None else s.correct for r, s in zip(graded, scores, strict=True)]
    reason = [r.reason if s is None else s.reason for r, s in zip(graded, scores, strict=True)]
    return graded_cells(frame.assign(**{Column.correct.value: correct, Column.reason.value: reason}))


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


def grader_sensitivity(
    results: Sequence[CellResult], regrade: Regrade = graded_afresh, frame: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Rows (model, strategy, modality, metric), a column per grader (in %; RR as a ratio), and the
    spread between the highest and lowest grader. `regrade` may read verdicts kept from before;
    `frame`, when given, is `results_frame(results)` (a report has built it already)."""
    if not any(r.graded and r.response is not None for r in results):
        return pd.DataFrame()  # nothing to re-grade (an outside table holds verdicts, not replies)
    graded = [r.graded for r in results]
    whole = results_frame(results) if frame is None else frame
    graded_frame = whole[graded].reset_index(drop=True)
    by_grader = {name: _headlines(regraded_frame(results, name, regrade, graded_frame)) for name in GRADERS}
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


def _identity_part(value: Any) -> str:
    # 3 and 3.0 (a column pandas widened to float) name the same variant
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def cell_hash(record: Mapping[str, Any], salt: int = 0) -> str:
    """A stable hash of a cell's identity (model, strategy, modality, seed_id, variant, repeat) and
    `salt`: the same in every process and for any order of the rows (Python's `hash` is neither)."""
    parts = [_identity_part(record.get(column)) for column in (*ARM, *ITEM)]
    text = json.dumps([*parts, salt], ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def stable_pick(rows: pd.DataFrame, size: int, salt: int = 0) -> list[dict[str, Any]]:
    """`size` of the rows, chosen by `cell_hash` (the lowest hashes), in the order of their identity:
    shuffling the rows, or adding rows of other kinds, never changes which of these are shown."""
    records = rows.to_dict("records")
    picked = sorted(records, key=lambda r: cell_hash(r, salt))[:size]
    return sorted(picked, key=lambda r: [_identity_part(r.get(c)) for c in (*ARM, *ITEM)])


def excerpt(text: str, limit: int, keep: str = "head") -> str:
    """`text`, or when longer than `limit` characters its start (`keep="head"`) followed by an
    ellipsis, or an ellipsis followed by its end (`keep="tail"`, where a reply's answer is)."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…" if keep == "head" else "…" + text[-(limit - 1) :]


def ambiguous_examples(rows: list[dict[str, Any]] | pd.DataFrame, seed: int = 0) -> list[dict[str, Any]]:
    """Up to `EXAMPLES_PER_KIND` rows of each ambiguity other than clear, chosen by a stable hash of
    the cell's identity salted with `seed` (`stable_pick`), whatever the rows' order. A long reply
    is cut to its last `_EXCERPT` characters (the answer is at the end), the cut marked with "…"."""
    graded = graded_cells(rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows))
    if graded.empty or Column.ambiguity not in graded:
        return []
    examples = []
    for kind, group in graded[graded[Column.ambiguity] != CLEAR].groupby(Column.ambiguity, sort=True):
        for record in stable_pick(group, EXAMPLES_PER_KIND, seed):
            reply = str(record.get(Column.response) or "")
            examples.append(
                {
                    "kind": kind,
                    "label": cell_label(record),
                    "truth": record[Column.truth],
                    "choices": record.get(Column.choices) or [],
                    "extracted": record.get(Column.extracted),
                    "method": record.get(Column.method),
                    "reply": excerpt(reply, _EXCERPT, keep="tail"),
                }
            )
    return examples
