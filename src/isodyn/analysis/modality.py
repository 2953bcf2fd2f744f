"""IsoBench's comparisons across representations (arXiv 2404.01266, Tables 1 and 6), on the same items.

An item is (seed, variant, repeat). A representation's accuracy in a comparison is taken only over
items graded in every representation being compared, so a gap is never an artefact of different
questions.
"""

from __future__ import annotations

import math

import pandas as pd

from isodyn import core
from isodyn.analysis.columns import ITEM
from isodyn.schema import Column

TASK = (Column.model, Column.seed_id)  # a model on a task (IsoBench's task: a seed and its variants)
TEXT_MODALITIES = tuple(m.value for m in core.TEXT_MODALITIES)
IMAGE_MODALITIES = tuple(m.value for m in core.Modality if m.visual)


def _paired_accuracy(a: pd.DataFrame, b: pd.DataFrame) -> tuple[float, float, int]:
    columns = [*ITEM, Column.correct]
    both = a[columns].merge(b[columns], on=list(ITEM), suffixes=("_a", "_b"))
    if both.empty:
        return math.nan, math.nan, 0
    return float(both["correct_a"].mean()), float(both["correct_b"].mean()), len(both)


def modality_gap(graded: pd.DataFrame, strategy: str = "zeroshot") -> pd.DataFrame:
    """Per model and task (seed): image accuracy, each text accuracy and gap = best text - image."""
    records = []
    frame = graded[graded[Column.strategy] == strategy]
    for (model, task), group in frame.groupby(list(TASK)):
        image = group[group[Column.modality].isin(IMAGE_MODALITIES)]
        if image.empty:
            continue
        record: dict[str, object] = {Column.model.value: model, "task": task}
        best = None
        for text in TEXT_MODALITIES:
            other = group[group[Column.modality] == text]
            if other.empty:
                continue
            text_acc, image_acc, items = _paired_accuracy(other, image)
            record[text] = text_acc
            record[f"image_vs_{text}"] = image_acc
            record[f"items_{text}"] = items
            if best is None or text_acc - image_acc > best:
                best = text_acc - image_acc
        if best is not None:
            record["gap"] = best
            records.append(record)
    return pd.DataFrame.from_records(records)


def strategy_gain(
    graded: pd.DataFrame, strategy: str, baseline: str = "zeroshot", modality: str = "image"
) -> pd.DataFrame:
    """Per model and task: accuracy of `strategy` minus `baseline` on the same image items (IsoCB, IsoSP)."""
    records = []
    for (model, task), group in graded[graded[Column.modality] == modality].groupby(list(TASK)):
        a, b = group[group[Column.strategy] == strategy], group[group[Column.strategy] == baseline]
        if a.empty or b.empty:
            continue
        acc, base, items = _paired_accuracy(a, b)
        record = {Column.model.value: model, "task": task, Column.strategy.value: strategy}
        records.append({**record, "accuracy": acc, "baseline": base, "gain": acc - base, "items": items})
    return pd.DataFrame.from_records(records)


def isobench_table(graded: pd.DataFrame) -> pd.DataFrame:
    """Rows task x representation (a modality, or isocb / isosp on the image), columns models, in %;
    each task ends with a `gap` row (best text - image under zero-shot, on the same items)."""
    frame = graded.copy()
    frame["representation"] = [
        s.rsplit("+", 1)[-1] if s.rsplit("+", 1)[-1] in ("isocb", "isosp") else m
        for s, m in zip(frame[Column.strategy], frame[Column.modality], strict=True)
    ]
    plain = frame[(frame[Column.strategy] == "zeroshot") | frame["representation"].isin(["isocb", "isosp"])]
    table = plain.pivot_table(
        index=[Column.seed_id, "representation"], columns=Column.model, values=Column.correct, aggfunc="mean"
    ).mul(100)
    gaps = modality_gap(graded)
    rows = []
    for task in table.index.get_level_values(0).unique():
        rows.append(table.loc[[task]])
        if not gaps.empty and task in set(gaps["task"]):
            gap = gaps[gaps["task"] == task].set_index(Column.model)["gap"].mul(100)
            rows.append(pd.DataFrame([gap], index=pd.MultiIndex.from_tuples([(task, "gap")])))
    out = pd.concat(rows) if rows else table
    out.index.names = ["task", "representation"]
    return out.reset_index()
