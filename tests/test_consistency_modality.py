"""Consistency metrics and IsoBench comparisons on small hand-computed tables."""

import math

import pandas as pd

from isodyn.analysis.consistency import (
    accuracy_over_repeats,
    circular_consistency,
    consistent_failures,
    memorization,
    repetition_consistency,
)
from isodyn.analysis.modality import isobench_table, modality_gap, strategy_gain

YN = ["Yes", "No"]


def cell(seed, variant, repeat, extracted, truth, **kw) -> dict:
    base = {"seed_id": seed, "variant": variant, "repeat": repeat, "extracted": extracted, "truth": truth,
            "answer_type": "multiple_choice", "choices": YN, "correct": extracted == truth, "reason": "ok",
            "model": "m", "strategy": "zeroshot", "modality": "latex"}  # fmt: skip
    return {**base, **kw}


def test_repetition_consistency_by_hand() -> None:
    rows = pd.DataFrame([
        cell("s", 0, 0, "A", "A"), cell("s", 0, 1, "A", "A"), cell("s", 0, 2, "B", "A"),  # 2/3 agree
        cell("s", 1, 0, "B", "A"), cell("s", 1, 1, "B", "A"), cell("s", 1, 2, "B", "A"),  # 3/3
    ])  # fmt: skip
    assert math.isclose(repetition_consistency(rows), (2 / 3 + 1) / 2)
    # option text and letter are the same answer
    same = pd.DataFrame([cell("s", 0, 0, "No", "A"), cell("s", 0, 1, "(B)", "A")])
    assert repetition_consistency(same) == 1.0
    assert math.isnan(repetition_consistency(pd.DataFrame([cell("s", 0, 0, "A", "A")])))


def test_accuracy_spread_over_repeats() -> None:
    rows = pd.DataFrame([
        cell("s", 0, 0, "A", "A"), cell("t", 0, 0, "A", "A"),  # repeat 0: 100%
        cell("s", 0, 1, "A", "A"), cell("t", 0, 1, "B", "A"),  # repeat 1: 50%
    ])  # fmt: skip
    spread = accuracy_over_repeats(rows)
    assert spread["repeats"] == 2
    assert math.isclose(spread["A_avg_var_pp2"], 1250.0)  # sample variance of 100 and 50


def test_consistent_failures_by_hand() -> None:
    rows = pd.DataFrame([
        # seed s: variant 0 right in both repeats, variant 1 wrong with the same answer twice -> counts
        cell("s", 0, 0, "A", "A"), cell("s", 0, 1, "A", "A"),
        cell("s", 1, 0, "B", "A"), cell("s", 1, 1, "B", "A"),
        # seed t: the wrong variant wavers (RC < 1) -> does not count
        cell("t", 0, 0, "A", "A"), cell("t", 0, 1, "A", "A"),
        cell("t", 1, 0, "B", "A"), cell("t", 1, 1, None, "A"),
    ])  # fmt: skip
    assert consistent_failures(rows) == 1
    assert consistent_failures(rows[rows["repeat"] == 0]) is None  # needs repeats


def test_memorization_by_hand() -> None:
    rows = pd.DataFrame([
        cell("stuck", 0, 0, "B", "A"), cell("stuck", 1, 0, "B", "B"), cell("stuck", 2, 0, "No", "A"),
        cell("fine", 0, 0, "A", "A"), cell("fine", 1, 0, "B", "B"),
        cell("constant", 0, 0, "A", "A"), cell("constant", 1, 0, "A", "A"),  # one truth: not eligible
    ])  # fmt: skip
    result = memorization(rows)
    assert (result["eligible_seeds"], result["memorized_seeds"], result["seeds"]) == (2, 1, ["stuck"])


def test_circular_consistency_maps_back_to_original_options() -> None:
    parity = ["even", "odd", "neither"]
    rotation = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    # the model always picks the original option "odd" (index 1): letters B, A, C under the rotations
    rows = pd.DataFrame([
        cell("p", 0, r, letter, truth, choices=[parity[i] for i in rotation[r]],
             notes={"choice_order": rotation[r]})
        for r, (letter, truth) in enumerate([("B", "B"), ("A", "A"), ("C", "C")])
    ])  # fmt: skip
    result = circular_consistency(rows)
    assert result == {"variants": 1, "circular_consistency": 1.0, "circular_accuracy": 1.0}
    flaky = rows.copy()
    flaky.loc[2, ["extracted", "correct"]] = ["A", False]  # third rotation picks original "neither"
    result = circular_consistency(flaky)
    assert math.isclose(result["circular_consistency"], 2 / 3) and result["circular_accuracy"] == 0.0


def test_modality_gap_only_on_shared_items() -> None:
    rows = pd.DataFrame([
        cell("task", 0, 0, "A", "A", modality="latex"), cell("task", 1, 0, "A", "A", modality="latex"),
        cell("task", 2, 0, "A", "A", modality="latex"),  # item 2 has no image cell: left out
        cell("task", 0, 0, "A", "A", modality="image"), cell("task", 1, 0, "B", "A", modality="image"),
        cell("task", 0, 0, "B", "A", modality="story"), cell("task", 1, 0, "B", "A", modality="story"),
    ])  # fmt: skip
    gap = modality_gap(rows).iloc[0]
    assert gap["latex"] == 1.0 and gap["image_vs_latex"] == 0.5 and gap["items_latex"] == 2
    assert gap["story"] == 0.0
    assert gap["gap"] == 0.5  # best text (latex) minus image
    table = isobench_table(rows)
    gap_row = table[(table["task"] == "task") & (table["representation"] == "gap")]
    assert gap_row["m"].iloc[0] == 50.0


def test_isocb_gain_over_image_only() -> None:
    rows = pd.DataFrame([
        cell("task", 0, 0, "B", "A", modality="image"), cell("task", 1, 0, "A", "A", modality="image"),
        cell("task", 0, 0, "A", "A", modality="image", strategy="isocb"),
        cell("task", 1, 0, "A", "A", modality="image", strategy="isocb"),
    ])  # fmt: skip
    gain = strategy_gain(rows, "isocb").iloc[0]
    assert (gain["accuracy"], gain["baseline"], gain["gain"], gain["items"]) == (1.0, 0.5, 0.5, 2)
