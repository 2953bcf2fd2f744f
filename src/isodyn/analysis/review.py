"""How a person's marks (`exp view`, RUN/marks.jsonl) bear on a run's verdicts (pure).

`review_table`: per model, the graded cells a person marked, how many marks agree with the verdict,
and A_avg over the marked cells as graded and as marked, so a reader sees at once whether the
grader's mistakes move the headline number and which way.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from isodyn.analysis.metrics import graded_cells, robustness
from isodyn.runs.marks import Mark, latest_marks
from isodyn.runs.schema import Column

KEY = [
    Column.model, Column.strategy, Column.modality, Column.seed_id, Column.variant, Column.repeat,
    Column.render, Column.perturbation,
]  # fmt: skip  # a mark's key, in `Mark.key`'s order
COLUMNS = ["model", "marked", "agree", "agree %", "A_avg as graded", "A_avg as marked"]


def _as_marked(correct: bool, reason: str, mark: Mark) -> bool:
    """Whether the reply is right as the person reads it: their reading when they gave one, else
    the verdict kept (marked right) or turned (marked wrong)."""
    if mark.reading is not None:
        return mark.reading == "correct"
    return correct if mark.verdict_right else not correct


def review_table(frame: pd.DataFrame, marks: Iterable[Mark]) -> pd.DataFrame:
    """One row per model with marked graded cells (the last mark of each cell counts); empty when
    no graded cell is marked. A_avg in %, DynaMath's: the mean over seeds of each seed's share."""
    latest = latest_marks(marks)
    if not latest or frame.empty:
        return pd.DataFrame(columns=COLUMNS)
    graded = graded_cells(frame)
    keys = list(zip(*(graded[c] for c in KEY), strict=True))
    chosen = [(i, latest[k]) for i, k in enumerate(keys) if k in latest]
    if not chosen:
        return pd.DataFrame(columns=COLUMNS)
    marked = graded.iloc[[i for i, _ in chosen]].copy()
    marks_of = [m for _, m in chosen]
    marked["agree"] = [m.verdict_right for m in marks_of]
    marked["as_marked"] = [
        _as_marked(bool(c), str(r), m)
        for c, r, m in zip(marked[Column.correct], marked[Column.reason], marks_of, strict=True)
    ]
    records = []
    for model, group in marked.groupby(Column.model, sort=True):
        as_marked = group.assign(**{Column.correct: group["as_marked"]})
        records.append({
            "model": model, "marked": len(group), "agree": int(group["agree"].sum()),
            "agree %": round(100 * float(group["agree"].mean()), 1),
            "A_avg as graded": round(100 * robustness(group)["A_avg"], 1),
            "A_avg as marked": round(100 * robustness(as_marked)["A_avg"], 1),
        })  # fmt: skip
    return pd.DataFrame.from_records(records, columns=COLUMNS)
