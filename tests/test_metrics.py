import math

import pandas as pd

from isodyn.analysis.metrics import robustness, robustness_table
from isodyn.analysis.run_report import build_report, render_markdown
from isodyn.runs.results import CellResult


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


def test_the_grouped_table_is_each_groups_own_metrics_and_intervals() -> None:
    """`robustness_table` computes every group in a few grouped passes; each line must be what the
    group alone gives: its counts, `robustness` of its graded cells, and the cluster bootstrap of
    its own seed table (same resamples), on a messy frame with repeats, skips, errors and a group
    with nothing graded."""
    import numpy as np

    from isodyn.analysis.metrics import Bootstrap, graded_cells
    from isodyn.analysis.stats import cluster_bootstrap, seed_table

    rng = np.random.default_rng(3)
    reasons = ["ok", "ok", "ok", "extraction_failed", "skipped: x", "error:api"]
    rows = []
    for strategy in ("zeroshot", "cot"):
        for modality in ("latex", "image", "code"):
            for seed in range(7):
                for variant in range(3):
                    for repeat in range(2):
                        reason = rng.choice(reasons)
                        if modality == "code" and strategy == "cot":
                            reason = "skipped: x"  # a group with nothing graded
                        correct = bool(rng.random() < 0.6) if reason == "ok" else reason == "ok"
                        rows.append(row(f"s{seed}", variant, correct, str(reason), repeat,
                                        strategy=strategy, modality=modality))  # fmt: skip
    frame = pd.DataFrame(rows)
    bootstrap = Bootstrap(resamples=300, seed=5)
    table = robustness_table(frame, None, bootstrap)
    assert len(table) == 6
    for line in table.to_dict("records"):
        group = frame[(frame.strategy == line["strategy"]) & (frame.modality == line["modality"])]
        graded = graded_cells(group)
        assert line["cells"] == len(group) and line["graded"] == len(graded)
        assert line["seeds"] == graded["seed_id"].nunique()
        assert line["skipped"] == int(group.reason.str.startswith("skipped").sum())
        assert line["errors"] == int(group.reason.str.startswith("error").sum())
        if graded.empty:
            assert math.isnan(line["A_avg"]) and math.isnan(line["A_avg_low"])
            continue
        alone = robustness(graded)
        intervals = cluster_bootstrap(seed_table(graded), 300, 0.95, 5)
        for metric in ("A_avg", "A_wst", "RR"):
            assert math.isclose(line[metric], alone[metric], rel_tol=1e-12)
            assert math.isclose(line[f"{metric}_low"], intervals[metric].low, rel_tol=1e-12)
            assert math.isclose(line[f"{metric}_high"], intervals[metric].high, rel_tol=1e-12)
