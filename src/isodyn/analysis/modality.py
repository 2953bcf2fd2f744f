"""IsoBench's comparisons across representations (arXiv 2404.01266, Tables 1 and 6), on the same items.

An item is (seed, variant, repeat). A representation's accuracy in a comparison is taken only over
items graded in every representation being compared, so a gap is never an artefact of different
questions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from isodyn import core
from isodyn.analysis.columns import ITEM
from isodyn.runs.schema import Column

TASK = (Column.model, Column.seed_id)  # a model on a task (IsoBench's task: a seed and its variants)
TEXT_MODALITIES = tuple(m.value for m in core.TEXT_MODALITIES)
IMAGE_MODALITIES = tuple(m.value for m in core.Modality if m.visual)
IMAGE = core.Modality.IMAGE.value  # the one visual modality: a gap is a text representation minus it


def _paired_accuracy(a: pd.DataFrame, b: pd.DataFrame) -> tuple[float, float, int]:
    columns = [*ITEM, Column.correct]
    both = a[columns].merge(b[columns], on=list(ITEM), suffixes=("_a", "_b"))
    if both.empty:
        return math.nan, math.nan, 0
    return float(both["correct_a"].mean()), float(both["correct_b"].mean()), len(both)


@dataclass(frozen=True)
class _PairedShares:
    """Per (model, task): whether the text representation was asked at all, its accuracy and the
    image's on the items both were graded on, and how many such items."""

    asked: pd.Series
    text: pd.Series
    image: pd.Series
    items: pd.Series


def _paired_shares(wide: pd.DataFrame, text: str) -> _PairedShares:
    by_task = [0, 1]  # the (model, seed_id) levels of the wide table's index
    both = wide[IMAGE].notna() & wide[text].notna()
    return _PairedShares(
        wide[text].notna().groupby(level=by_task).any(),
        wide[text].where(both).groupby(level=by_task).mean(),
        wide[IMAGE].where(both).groupby(level=by_task).mean(),
        both.groupby(level=by_task).sum(),
    )


def modality_gap(graded: pd.DataFrame, strategy: str = "zeroshot") -> pd.DataFrame:
    """Per model and task (seed): image accuracy, each text accuracy and gap = best text - image,
    each text against the image on the items (seed, variant, repeat) both were graded on.

    One wide table (an item per row, a modality per column) and a few grouped means, not a merge
    per task and representation: the report asks for this for every strategy under every grader."""
    frame = graded[graded[Column.strategy] == strategy]
    if frame.empty:
        return pd.DataFrame()
    shares_right = frame[Column.correct].astype(float)
    wide = frame.assign(**{Column.correct.value: shares_right}).pivot_table(
        index=[*TASK, Column.variant, Column.repeat], columns=Column.modality, values=Column.correct,
        aggfunc="mean",
    )  # fmt: skip
    if IMAGE not in wide:
        return pd.DataFrame()
    shares = {text: _paired_shares(wide, text) for text in TEXT_MODALITIES if text in wide}
    has_image = wide[IMAGE].notna().groupby(level=[0, 1]).any()
    tasks = has_image.index[has_image.to_numpy()]
    # Each text's shares as plain arrays in the order of `tasks`: a lookup by (model, task) per
    # record cost more than the whole rest.
    columns = {
        text: [part.reindex(tasks).to_numpy() for part in (found.asked, found.items, found.text, found.image)]
        for text, found in shares.items()
    }
    records = []
    for at, (model, task) in enumerate(tasks):
        record: dict[str, object] = {Column.model.value: model, "task": task}
        best = None
        for text, (asked, counts, texts, images) in columns.items():
            if not asked[at]:
                continue
            items = int(counts[at])
            text_acc = float(texts[at]) if items else math.nan
            image_acc = float(images[at]) if items else math.nan
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
