"""The vectorized `paired_items` equals the item-by-item reading it replaced, on random items."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from isodyn.analysis.agreement import (
    _PER_ITEM,
    _cells,
    _choices,
    _finite,
    _flag,
    coincidence_chance,
    paired_items,
    same_answer,
)
from isodyn.analysis.columns import ITEM
from isodyn.runs.schema import Column
from isodyn.scoring import Tolerance


def reference(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """`paired_items` as it was: every merged line read as a dict, one by one."""
    both = _cells(first).merge(_cells(second), on=list(ITEM), suffixes=("_1", "_2"))
    columns = [Column.seed_id.value, *_PER_ITEM]
    if both.empty:
        return pd.DataFrame(columns=columns)
    records = []
    for row in both.to_dict("records"):
        right_1, right_2 = bool(row[f"{Column.correct}_1"]), bool(row[f"{Column.correct}_2"])
        answer_type, choices = row[f"{Column.answer_type}_1"], _choices(row[f"{Column.choices}_1"])
        agree = right_1 and right_2
        if not (right_1 or right_2):
            tolerance = Tolerance(
                max(_finite(row[f"{Column.abs_tol}_{i}"], Tolerance().absolute) for i in (1, 2)),
                max(_finite(row[f"{Column.rel_tol}_{i}"], Tolerance().relative) for i in (1, 2)),
            )
            agree = same_answer(
                row[f"{Column.extracted}_1"], row[f"{Column.extracted}_2"], answer_type, choices,
                tolerance, _flag(row[f"{Column.percent_question}_1"]),
            )  # fmt: skip
        records.append((row[Column.seed_id], float(agree), float(right_1), float(right_2),
                        coincidence_chance(answer_type, choices)))  # fmt: skip
    return pd.DataFrame.from_records(records, columns=columns)


ANSWERS = [None, float("nan"), "", "A", "B", "(b)", "3", "3.0", "2.96", "1/2", "0.5", " x  Y.", "x y", "50%"]
OPTIONS = ["3", "0.5", "x y", "1"]
KINDS = ["multiple_choice", "int", "float", "text", "odd"]


def side(rng: np.random.Generator, items: int, full: bool) -> pd.DataFrame:
    rows = []
    for item in range(items):
        kind = KINDS[rng.integers(0, len(KINDS))]
        row = {
            "seed_id": f"s{item % 7}", "variant": item // 7, "repeat": int(rng.integers(0, 2)),
            "correct": bool(rng.random() < 0.4), "extracted": ANSWERS[rng.integers(0, len(ANSWERS))],
            "answer_type": kind,
        }  # fmt: skip
        if full:
            row |= {
                "choices": ["3", "0.5", "x y", "1"][: int(rng.integers(0, 5))]
                if rng.random() < 0.8
                else None,
                "abs_tol": [0.0, 0.05, float("nan"), None][rng.integers(0, 4)],
                "rel_tol": [0.0, 0.01, float("inf")][rng.integers(0, 3)],
                "percent_question": bool(rng.random() < 0.2),
            }
        rows.append(row)
    return pd.DataFrame(rows).sample(frac=1, random_state=int(rng.integers(0, 99)))


@pytest.mark.parametrize("case", range(10))
def test_paired_items_equals_the_item_by_item_reading(case: int) -> None:
    rng = np.random.default_rng(case)
    first, second = side(rng, 60, case % 3 != 0), side(rng, 50, case % 2 == 0)
    pd.testing.assert_frame_equal(paired_items(first, second), reference(first, second), check_dtype=False)


def test_no_shared_items_give_an_empty_table() -> None:
    rng = np.random.default_rng(0)
    first, second = side(rng, 5, True), side(rng, 5, True)
    second["seed_id"] = "other"
    assert paired_items(first, second).empty and reference(first, second).empty
