"""`modality_gap` reading each text's shares as arrays gives the table the per-task lookups gave."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from isodyn.analysis.modality import IMAGE, TASK, TEXT_MODALITIES, _paired_shares, modality_gap
from isodyn.runs.schema import Column


def reference(graded: pd.DataFrame, strategy: str = "zeroshot") -> pd.DataFrame:
    """`modality_gap` as it was: each share looked up by (model, task)."""
    frame = graded[graded[Column.strategy] == strategy]
    if frame.empty:
        return pd.DataFrame()
    wide = frame.assign(correct=frame[Column.correct].astype(float)).pivot_table(
        index=[*TASK, Column.variant, Column.repeat], columns=Column.modality, values=Column.correct,
        aggfunc="mean",
    )  # fmt: skip
    if IMAGE not in wide:
        return pd.DataFrame()
    shares = {text: _paired_shares(wide, text) for text in TEXT_MODALITIES if text in wide}
    records = []
    for (model, task), has_image in wide[IMAGE].notna().groupby(level=[0, 1]).any().items():
        if not has_image:
            continue
        record: dict[str, object] = {"model": model, "task": task}
        best = None
        for text, found in shares.items():
            if not found.asked[(model, task)]:
                continue
            items = int(found.items[(model, task)])
            text_acc = float(found.text[(model, task)]) if items else math.nan
            image_acc = float(found.image[(model, task)]) if items else math.nan
            record[text], record[f"image_vs_{text}"], record[f"items_{text}"] = text_acc, image_acc, items
            if best is None or text_acc - image_acc > best:
                best = text_acc - image_acc
        if best is not None:
            record["gap"] = best
            records.append(record)
    return pd.DataFrame.from_records(records)


def random_cells(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for model in ("m1", "m2", "m3"):
        for seed in range(int(rng.integers(1, 9))):
            for modality in ("image", "latex", "code", "story"):
                if rng.random() < 0.3:
                    continue  # this task not asked in this representation
                for variant in range(int(rng.integers(1, 4))):
                    if rng.random() < 0.2:
                        continue  # an item graded in one representation only
                    rows.append({
                        "model": model, "strategy": "zeroshot" if rng.random() < 0.9 else "cot",
                        "modality": modality, "seed_id": f"s{seed}", "variant": variant,
                        "repeat": int(rng.integers(0, 2)), "correct": bool(rng.random() < 0.5),
                    })  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("case", range(10))
def test_the_gap_table_equals_the_per_task_lookups(case: int) -> None:
    cells = random_cells(np.random.default_rng(case))
    pd.testing.assert_frame_equal(modality_gap(cells), reference(cells))
