"""Agreement across representations (SEAM), honest intervals, and the grader sensitivity's tolerance:
numbers checked against hand computations on planted frames, and the report of synthetic runs."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import binomtest

from isodyn.analysis.agreement import agreement_rows, agreement_table, same_answer
from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS, Bootstrap, robustness_table
from isodyn.analysis.tables import format_value
from isodyn.scoring import DEFAULT_GRADER, Tolerance

FAST = Bootstrap(resamples=2_000, seed=1)
OPTIONS = ["Yes", "No", "Maybe", "Never"]


def cell(seed: int, variant: int, modality: str, right: bool, extracted: str | None, **kw) -> dict:
    base = {"model": "m", "strategy": "zeroshot", "modality": modality, "seed_id": f"s{seed:02d}",
            "variant": variant, "repeat": 0, "correct": right, "reason": "ok", "extracted": extracted,
            "answer_type": "int", "truth": "4", "choices": [], "topic": "algebra",
            "level": "high_school"}  # fmt: skip
    return {**base, **kw}


def opposite_halves(seeds: int = 10, multiple_choice: bool = False) -> pd.DataFrame:
    """Text right on variant 0 only, image on variant 1 only: both 50% accurate, never in agreement
    (their wrong answers differ too)."""
    rows = []
    for s in range(seeds):
        for v in (0, 1):
            if multiple_choice:
                kw = {"answer_type": "multiple_choice", "truth": "A", "choices": OPTIONS}
                text = ("A", True) if v == 0 else ("B", False)
                image = ("A", True) if v == 1 else ("C", False)
            else:
                kw = {}
                text = ("4", True) if v == 0 else ("5", False)
                image = ("4", True) if v == 1 else ("6", False)
            rows.append(cell(s, v, "latex", text[1], text[0], **kw))
            rows.append(cell(s, v, "image", image[1], image[0], **kw))
    return pd.DataFrame(rows)


# ---- same answer ---------------------------------------------------------------------------------


def test_what_counts_as_the_same_answer() -> None:
    assert same_answer("B", "No", "multiple_choice", ["Yes", "No"])  # a letter and its option's text
    assert not same_answer("A", "B", "multiple_choice", ["Yes", "No"])
    assert same_answer("2.0004", "2", "float")  # within DynaMath's 0.001
    assert not same_answer("2.005", "2", "float")
    assert same_answer("2.005", "2", "float", tolerance=Tolerance(0.01))  # the cell's own tolerance
    assert same_answer(" x^2 + 1. ", "X^2  + 1", "text")  # normalized strings
    for missing in (None, float("nan"), "", "  "):
        assert not same_answer(missing, missing, "int")  # a missing answer never agrees
        assert not same_answer(missing, "4", "int")


# ---- the numbers, by hand ------------------------------------------------------------------------


def test_opposite_halves_never_agree_and_chance_says_a_quarter() -> None:
    (pair,) = agreement_rows(opposite_halves(), FAST)
    assert (pair.first, pair.second) == ("latex", "image")  # text first
    assert (pair.items, pair.seeds) == (20, 10)
    assert pair.accuracy_first == pair.accuracy_second == 0.5
    assert pair.agreement.estimate == 0.0
    assert math.isclose(pair.chance.estimate, 0.5 * 0.5)  # free form: wrong answers never coincide
    assert (pair.first_only, pair.second_only) == (10, 10)
    assert pair.p_mcnemar == 1.0
    (choice,) = agreement_rows(opposite_halves(multiple_choice=True), FAST)
    assert choice.agreement.estimate == 0.0
    assert math.isclose(choice.chance.estimate, 0.25 + 0.25 / 3)  # SEAM's p^2 + (1 - p)^2 / 3


def random_rows(seeds: int = 12, variants: int = 4, seed: int = 5) -> list[dict]:
    """Two representations with different accuracies; wrong answers drawn from few values, so some
    coincide; some answers are missing; multiple choice on even seeds, integers on odd ones."""
    rng = random.Random(seed)
    rows = []
    for s in range(seeds):
        choice = s % 2 == 0
        kw = {"answer_type": "multiple_choice", "truth": "A", "choices": OPTIONS} if choice else {}
        for v in range(variants):
            for modality, rate in (("latex", 0.7), ("image", 0.45)):
                right = rng.random() < rate
                if right:
                    answer: str | None = "A" if choice else "4"
                else:
                    answer = rng.choice(["B", "C", None] if choice else ["5", "5.0004", "7", None])
                rows.append(cell(s, v, modality, right, answer, **kw))
    return rows


def random_frame(seeds: int = 12) -> pd.DataFrame:
    return pd.DataFrame(random_rows(seeds))


def by_hand(frame: pd.DataFrame) -> dict[str, float]:
    """Agreement, accuracies and chance, computed from the planted rows without the module."""
    text = {(r["seed_id"], r["variant"]): r for r in frame[frame["modality"] == "latex"].to_dict("records")}
    image = {(r["seed_id"], r["variant"]): r for r in frame[frame["modality"] == "image"].to_dict("records")}
    per_seed: dict[str, list[tuple[float, float, float, float]]] = {}
    for key, t in text.items():
        i = image[key]
        if t["correct"] and i["correct"]:
            agree = True
        elif t["correct"] or i["correct"] or t["extracted"] is None or i["extracted"] is None:
            agree = False
        elif t["answer_type"] == "multiple_choice":
            agree = t["extracted"] == i["extracted"]
        else:
            agree = abs(float(t["extracted"]) - float(i["extracted"])) <= 0.001
        coincide = 1 / 3 if t["answer_type"] == "multiple_choice" else 0.0
        per_seed.setdefault(key[0], []).append((agree, t["correct"], i["correct"], coincide))
    means = [[sum(x[k] for x in items) / len(items) for k in range(4)] for items in per_seed.values()]
    agree, p, q, c = (sum(m[k] for m in means) / len(means) for k in range(4))
    pairs = list(text)
    return {
        "agreement": agree, "p": p, "q": q, "chance": p * q + (1 - p) * (1 - q) * c,
        "text_only": sum(text[k]["correct"] and not image[k]["correct"] for k in pairs),
        "image_only": sum(image[k]["correct"] and not text[k]["correct"] for k in pairs),
    }  # fmt: skip


def test_agreement_chance_and_flips_match_a_hand_computation() -> None:
    frame = random_frame()
    expected = by_hand(frame)
    (pair,) = agreement_rows(frame, FAST)
    assert math.isclose(pair.agreement.estimate, expected["agreement"])
    assert math.isclose(pair.accuracy_first, expected["p"])
    assert math.isclose(pair.accuracy_second, expected["q"])
    assert math.isclose(pair.chance.estimate, expected["chance"])
    assert (pair.first_only, pair.second_only) == (expected["text_only"], expected["image_only"])
    assert 0 < expected["agreement"] < 1 and expected["text_only"] != expected["image_only"]
    # the intervals are real and hold their estimates
    for interval in (pair.agreement, pair.chance):
        assert interval.low <= interval.estimate <= interval.high and interval.low < interval.high
    # McNemar's exact p is the two-sided binomial test on the flips
    flips = pair.first_only + pair.second_only
    assert math.isclose(pair.p_mcnemar, binomtest(pair.first_only, flips, 0.5).pvalue)


def test_only_items_graded_in_both_count() -> None:
    frame = random_frame()
    dropped = frame[~((frame["modality"] == "image") & (frame["variant"] == 3))]  # image lacks variant 3
    errored = frame.copy()
    errored.loc[(errored["modality"] == "image") & (errored["variant"] == 3), "reason"] = "error:timeout"
    for partial in (dropped, errored):
        (pair,) = agreement_rows(partial, FAST)
        assert pair.items == 12 * 3
        expected = by_hand(frame[frame["variant"] != 3])
        assert math.isclose(pair.agreement.estimate, expected["agreement"])


def test_few_seeds_give_no_interval() -> None:
    small = opposite_halves(seeds=MIN_INTERVAL_SEEDS - 1)
    row = agreement_table(small, FAST).iloc[0]
    assert row["agreement"] == "0.0 (4 seeds, no interval)"
    assert row["chance"] == "25.0 (4 seeds, no interval)"
    assert agreement_table(opposite_halves(seeds=MIN_INTERVAL_SEEDS), FAST).iloc[0]["agreement"].endswith("]")


# ---- honest intervals ------------------------------------------------------------------------------


def test_an_interval_needs_enough_seeds() -> None:
    assert format_value(1 / 3, 1 / 3, 1 / 3, seeds=3) == "33.3 (3 seeds, no interval)"
    assert format_value(1.0, 1.0, 1.0, seeds=1) == "100.0 (1 seed, no interval)"
    assert format_value(0.5, 0.2, 0.8, percent=False, seeds=2) == "0.50 (2 seeds, no interval)"
    assert format_value(1.0, 1.0, 1.0, seeds=5) == "100.0 [100.0, 100.0]"  # degenerate, but true
    assert format_value(0.5, 0.25, 0.75, seeds=None) == "50.0 [25.0, 75.0]"
    assert format_value(0.5, seeds=2) == "50.0"  # no interval was asked for
    assert format_value(float("nan"), 0.1, 0.2, seeds=9) == "–"
    assert format_value(None) == "–"
    assert format_value(0.5, float("nan"), float("nan"), seeds=9) == "50.0"


def test_robustness_table_counts_seeds() -> None:
    table = robustness_table(random_frame(seeds=7), bootstrap=FAST)
    assert list(table["seeds"]) == [7, 7] and pd.api.types.is_integer_dtype(table["seeds"])


# ---- through `exp` -------------------------------------------------------------------------------


def write_run(run_dir: Path, rows: list[dict]) -> Path:
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"models": ["m"], "strategies": ["zeroshot"]}))
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir


def section(md: str, heading: str) -> list[dict[str, str]]:
    """The rows of the report table under `## heading`, keyed by its header."""
    part = md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("|") and "---" not in line]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return [dict(zip(cells[0], row, strict=True)) for row in cells[1:]]


@pytest.mark.parametrize("seeds", [12, 3])
def test_the_report_shows_agreement_and_honest_intervals(tmp_path: Path, run_cli, seeds: int) -> None:
    rows = random_rows(seeds)
    frame = pd.DataFrame(rows)
    run_dir = write_run(tmp_path / "run", rows)
    done = run_cli("report", str(run_dir), "resamples=500")
    assert done.code == 0, done.err
    md = (run_dir / "report.md").read_text()
    assert "## Agreement across representations" in md
    (row,) = section(md, "Agreement across representations")
    expected = by_hand(frame)
    assert row["pair (1st / 2nd)"] == "latex / image" and row["items"] == str(4 * seeds)
    assert row["agreement"].startswith(f"{100 * expected['agreement']:.1f} ")
    assert row["chance"].startswith(f"{100 * expected['chance']:.1f} ")
    assert row["right 1st only"] == str(expected["text_only"])
    assert not re.search(r"\bnan\b", md, re.IGNORECASE)  # no NaN is printed as such
    overview = section(md, "Overview")
    if seeds < MIN_INTERVAL_SEEDS:
        assert row["agreement"].endswith(f"({seeds} seeds, no interval)")
        assert all(line["A_avg"].endswith(f"({seeds} seeds, no interval)") for line in overview)
        assert "[" not in md.split("## Agreement across representations", 1)[0].split("## Overview", 1)[1]
    else:
        assert row["agreement"].endswith("]") and all(line["A_avg"].endswith("]") for line in overview)


# ---- the grader sensitivity grades with each cell's own tolerance --------------------------------


def test_grader_sensitivity_keeps_each_cells_tolerance(tmp_path: Path, run_cli) -> None:
    """Answers off by 0.005 are wrong at DynaMath's 0.001 and right once rescored with abs_tol=0.01:
    the sensitivity table's default-grader column must say what the overview says."""
    rows = []
    for s in range(6):
        for v, offset in enumerate((0.0, 0.005, 1.0)):  # exact, off by 0.005, plainly wrong
            truth = 2.5 + s
            reply = json.dumps({"short answer": f"{truth + offset:g}"})
            rows.append(cell(s, v, "latex", False, None, answer_type="float", truth=f"{truth:g}",
                             correct=None, response=reply, percent_question=False))  # fmt: skip
    run_dir = write_run(tmp_path / "runs" / "r1", rows)
    done = run_cli("rescore", str(run_dir), "abs_tol=0.01")
    assert done.code == 0, done.err
    (rescored,) = [p for p in run_dir.parent.iterdir() if p.name.startswith("r1-rescored-")]
    done = run_cli("report", str(rescored), "resamples=200")
    assert done.code == 0, done.err
    md = (rescored / "report.md").read_text()
    (overview,) = section(md, "Overview")
    assert overview["A_avg"].startswith("66.7 [")  # 2 of 3 variants right at 0.01
    sensitivity = {r["metric"]: r for r in section(md, "Grader sensitivity") if r["modality"] == "latex"}
    assert sensitivity["A_avg"][DEFAULT_GRADER] == overview["A_avg"].split()[0]
