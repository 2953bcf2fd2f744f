"""The consistency table from grouped passes equals the per-arm functions applied arm by arm."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from isodyn.analysis.columns import ARM, labels
from isodyn.analysis.consistency import (
    accuracy_over_repeats,
    circular_consistency,
    consistent_failures,
    memorization,
    repetition_consistency,
)
from isodyn.analysis.metrics import graded_cells
from isodyn.analysis.sections import consistency_table
from isodyn.analysis.tables import format_value


def reference_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as it was built before: every per-arm function on each arm's cells."""
    records = []
    for key, group in graded_cells(frame).groupby(list(ARM), sort=True):
        spread = accuracy_over_repeats(group)
        memo = memorization(group)
        failures = consistent_failures(group)
        records.append({
            **dict(zip(labels(ARM), key, strict=True)),
            "repeats": spread["repeats"],
            "RC": format_value(repetition_consistency(group)),
            "A_avg sd (pp)": "–" if math.isnan(spread["A_avg_sd_pp"]) else f"{spread['A_avg_sd_pp']:.2f}",
            "consistent failures": "–" if failures is None else str(failures),
            "memorized seeds": f"{memo['memorized_seeds']} / {memo['eligible_seeds']}",
            "circular consistency": format_value(circular_consistency(group)["circular_consistency"]),
        })  # fmt: skip
    return pd.DataFrame.from_records(records)


ANSWERS = [None, "A", "B", "C", "1", "2", "2.0", "x y", "X  y"]
REASONS = ["ok", "ok", "ok", "extraction_failed", "error"]


def random_frame(rng: np.random.Generator, repeats: int, permuted: bool) -> pd.DataFrame:
    rows = []
    for model in ("m1", "m2"):
        for strategy in ("zeroshot", "permute+cot"):
            for modality in ("image", "latex"):
                for seed in range(int(rng.integers(3, 9))):
                    kind = ["multiple_choice", "int", "text"][seed % 3]
                    for variant in range(int(rng.integers(1, 5))):
                        choice = kind == "multiple_choice"
                        truth = "ABCD"[rng.integers(0, 4)] if choice else str(rng.integers(0, 3))
                        for repeat in range(repeats):
                            answer = ANSWERS[rng.integers(0, len(ANSWERS))]
                            order = list(rng.permutation(4)) if permuted and choice else None
                            rows.append({
                                "model": model, "strategy": strategy, "modality": modality,
                                "seed_id": f"s{seed}", "variant": variant, "repeat": repeat,
                                "answer_type": kind, "choices": ["1", "2", "3", "4"] if choice else [],
                                "truth": truth, "extracted": answer, "correct": bool(rng.random() < 0.5),
                                "reason": REASONS[rng.integers(0, len(REASONS))],
                                "notes": {"choice_order": [str(o) for o in order]} if order else {},
                            })  # fmt: skip
    return pd.DataFrame(rows).sample(frac=1, random_state=int(rng.integers(0, 1000)))


@pytest.mark.parametrize("case", range(12))
def test_the_grouped_consistency_table_equals_the_per_arm_one(case: int) -> None:
    rng = np.random.default_rng(case)
    frame = random_frame(rng, repeats=1 + case % 4, permuted=case % 2 == 0)
    pd.testing.assert_frame_equal(consistency_table(frame), reference_table(frame))
