import math

import pandas as pd

from isodyn.analysis.metrics import robustness, robustness_table
from isodyn.analysis.report import build_report, render_markdown
from isodyn.results import CellResult


def row(seed: str, variant: int, correct: bool | None, reason: str = "ok", repeat: int = 0, **kw) -> dict:
    base = {"model": "m", "strategy": "zeroshot", "modality": "latex", "seed_id": seed}
    return {**base, "variant": variant, "repeat": repeat, "correct": correct, "reason": reason, **kw}


def test_dynamath_metrics_on_hand_computed_table() -> None:
    # seed s1: 3/3 right; s2: 1/3 right; s3: 0/3 (one of them unextractable, which counts as wrong)
    rows = [
        row("s1", 0, True), row("s1", 1, True), row("s1", 2, True),
        row("s2", 0, True), row("s2", 1, False), row("s2", 2, False),
        row("s3", 0, False), row("s3", 1, False, "extraction_failed"), row("s3", 2, False),
    ]  # fmt: skip
    result = robustness(pd.DataFrame(rows))
    assert math.isclose(result["A_avg"], (1 + 1 / 3 + 0) / 3)
    assert math.isclose(result["A_wst"], 1 / 3)
    assert math.isclose(result["RR"], (1 / 3) / (4 / 9))


def test_a_avg_weights_seeds_equally_and_worst_case_is_per_repeat() -> None:
    rows = [
        # s1 has 4 graded cells, s2 only 1 (its other cells errored): per-seed means 0.5 and 1.0.
        row("s1", 0, True), row("s1", 1, False), row("s1", 0, True, repeat=1), row("s1", 1, False, repeat=1),
        row("s2", 0, True), row("s2", 1, None, "error:rate_limit"),
        # s3: repeat 0 all right, repeat 1 one wrong -> worst case 0.5 for s3
        row("s3", 0, True), row("s3", 1, True), row("s3", 0, True, repeat=1), row("s3", 1, False, repeat=1),
    ]  # fmt: skip
    table = robustness_table(rows)
    line = table.iloc[0]
    assert math.isclose(line["A_avg"], (0.5 + 1.0 + 0.75) / 3)
    assert math.isclose(line["A_wst"], (0.0 + 1.0 + 0.5) / 3)
    assert line["errors"] == 1
    assert line["graded"] == 9


def test_groups_and_all_skipped_group() -> None:
    rows = [
        row("s1", 0, True),
        row("s1", 0, None, "skipped: model has no vision", modality="image"),
    ]
    table = robustness_table(rows).set_index("modality")
    assert table.loc["latex", "A_avg"] == 1.0
    assert table.loc["image", "skipped"] == 1
    assert math.isnan(table.loc["image", "A_avg"])
    extra = {"topic": "algebra", "level": "high_school", "extracted": None, "answer_type": "int"}
    extra["truth"] = "1"
    rows = [{**r, **extra} for r in rows]
    report = render_markdown(build_report([CellResult.from_row(r) for r in rows], None, None, "r"))
    # overview: graded, extraction_failed, skipped, errors, A_avg, A_wst, RR
    assert "| m | zeroshot | image | 0 | 0 | 1 | 0 | – | – | – |" in report
    one = "(1 seed, no interval)"  # one seed gives no interval, never `[100.0, 100.0]`
    assert f"| m | zeroshot | latex | 1 | 0 | 0 | 0 | 100.0 {one} | 100.0 {one} | 1.00 {one} |" in report
