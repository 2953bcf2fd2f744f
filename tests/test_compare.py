"""`exp compare` cannot be misread: intervals that agree with the p beside them, sentences whose
interval has the sentence's sign, an MDE in words where there is none, one set of files per
comparison, a one-line error for an unknown baseline, dropped cells named, a summary paragraph and a
forest plot that stays readable at 28 comparisons.

Runs are planted cell by cell: `write_run` takes, per strategy, how many of each seed's 5 variants
are right, so every per-seed difference (and so every expectation) is known by hand.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.image import imread

from isodyn.analysis.compare_report import dropped_cells, file_safe, report_names
from isodyn.analysis.forest import ForestRow, forest_png, pair_label, shortened
from isodyn.analysis.metrics import Bootstrap
from isodyn.analysis.paired import Pair, compare, sentence
from isodyn.analysis.stats import detectable_effect, paired_bootstrap
from isodyn.commands.compare import CompareRequest, compare_runs

VARIANTS = 5
Rights = Callable[[int], int]  # seed index -> variants right (0..5) for one strategy


def rows(rights: Mapping[str, Rights | Sequence[int]], seeds: Sequence[str], model: str = "m") -> list[dict]:
    """results.jsonl rows: strategy -> variants right per seed (the first k variants are right)."""
    out = []
    for strategy, right in rights.items():
        for index, seed in enumerate(seeds):
            k = int(right(index) if callable(right) else right[index])
            for variant in range(VARIANTS):
                ok = bool(variant < k)
                out.append({
                    "model": model, "strategy": strategy, "modality": "latex", "seed_id": seed,
                    "variant": variant, "repeat": 0, "topic": "algebra", "level": "high_school",
                    "answer_type": "multiple_choice", "truth": "A", "choices": ["Yes", "No"],
                    "extracted": "A" if ok else "B", "correct": ok, "reason": "ok",
                })  # fmt: skip
    return out


def write_run(directory: Path, lines: list[dict]) -> Path:
    directory.mkdir(parents=True)
    (directory / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (directory / "config.json").write_text(json.dumps({"models": ["m"]}))
    return directory


def seed_names(n: int) -> list[str]:
    return [f"s{i:02d}" for i in range(n)]


def frame_of(lines: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(lines)


def sentences_of(md: str) -> list[str]:
    return [line[2:] for line in md.splitlines() if line.startswith("- ")]


def table_rows(md: str) -> list[dict[str, str]]:
    lines = [line for line in md.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [
        dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)) for line in lines[2:]
    ]


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", text)]


# Per-seed differences (A − B, 5 variants) found where the two decisions part ways with these draws
# (resamples=2000, seed 0). B is right on 2 variants of every seed; A on 2 + 5 * difference.
P_ONLY = [-0.4, 0.6, 0.4, 0.6, 0.6, -0.4, -0.4, 0.4, 0.6, 0.4, 0.6, 0.0, 0.6]  # sign-flip p 0.048
INTERVAL_ONLY = [0.0, 0.4, 0.0, 0.2, 0.4, 0.6, 0.0, -0.4, 0.4, 0.2, 0.6, 0.0, 0.0]  # p 0.0625


def from_differences(differences: Sequence[float]) -> list[int]:
    return [round(2 + VARIANTS * d) for d in differences]


# --- 1. intervals that agree with the p beside them ----------------------------------------------


def test_simultaneous_interval_is_bonferroni_over_the_comparisons(tmp_path: Path) -> None:
    seeds = seed_names(30)
    rng = np.random.default_rng(5)
    lines = rows({name: list(rng.integers(0, 6, size=30)) for name in ("p", "q", "r")}, seeds)
    comparison = compare(frame_of(lines), "strategy", bootstrap=Bootstrap(resamples=4000, level=0.9))
    assert comparison.m == 3
    each = 1 - 0.05 / 3  # by hand: 98.333...%
    assert math.isclose(comparison.simultaneous_level, each)
    frame = frame_of(lines)
    for pair in comparison.pairs:
        found = paired_bootstrap(frame[frame.strategy == pair.a], frame[frame.strategy == pair.b], 4000, 4000)
        tail = 100 * 0.05 / 3 / 2  # 0.8333% in each tail
        low, high = np.percentile(found.draws, [tail, 100 - tail])
        assert math.isclose(pair.simultaneous_low, low) and math.isclose(pair.simultaneous_high, high)
        per_low, per_high = np.percentile(found.draws, [5, 95])  # level 0.9: the unadjusted one
        assert math.isclose(pair.low, per_low) and math.isclose(pair.high, per_high)
        assert pair.simultaneous_low <= pair.low <= pair.high <= pair.simultaneous_high
        # independent of the code's draws: the per-seed differences, bootstrapped here
        per_seed = (
            frame[frame.strategy == pair.a].groupby("seed_id").correct.mean()
            - frame[frame.strategy == pair.b].groupby("seed_id").correct.mean()
        ).to_numpy()
        assert math.isclose(pair.difference, per_seed.mean())
        mine = per_seed[np.random.default_rng(9).integers(0, 30, size=(20_000, 30))].mean(axis=1)
        my_low, my_high = np.percentile(mine, [tail, 100 - tail])
        assert abs(my_low - pair.simultaneous_low) < 0.03 and abs(my_high - pair.simultaneous_high) < 0.03
    run = write_run(tmp_path / "run", lines)
    md = compare_runs(CompareRequest.from_words([str(run), "resamples=4000", "level=0.9"])).markdown
    assert "simultaneous 95% interval (98.33% each)" in md and "90% interval (per comparison)" in md
    assert "each at 1 − 0.05/3 = 98.33%" in md
    header = next(line for line in md.splitlines() if line.startswith("| context"))
    # the unadjusted interval sits beside the unadjusted p, the simultaneous one beside Holm's p
    assert "| 90% interval (per comparison) | p sign-flip (unadjusted) | simultaneous 95% interval" in header
    assert "(98.33% each) | p Holm (adjusted) |" in header


def _baseline_lines(weak: Sequence[float], strong: int) -> list[dict]:
    seeds = seed_names(len(weak))
    rights: dict[str, Rights | Sequence[int]] = {"base": [2] * len(weak), "weak": from_differences(weak)}
    rights.update({f"strong{i}": [5] * len(weak) for i in range(strong)})
    return rows(rights, seeds)


def test_holm_below_alpha_with_an_interval_over_zero_is_said_in_words() -> None:
    # five strong pairs make Holm's step-down multiply the weak pair's p by 1, the interval by 6
    comparison = compare(_baseline_lines(P_ONLY, 5), "strategy", "base", Bootstrap(resamples=2000))
    weak = next(p for p in comparison.pairs if p.a == "weak")
    assert comparison.m == 6 and math.isclose(comparison.simultaneous_level, 1 - 0.05 / 6)
    assert weak.p_holm is not None and weak.p_holm < 0.05  # the planted disagreement...
    assert weak.simultaneous_low < 0 < weak.simultaneous_high  # ...holds with these draws
    assert weak.verdict == "p only"
    text = weak.sentence
    assert "disagree" in text and "borderline, not established" in text and "includes 0" in text
    assert " beats " not in text and " trails " not in text and "not distinguishable" not in text
    strong = [p for p in comparison.pairs if p.a.startswith("strong")]
    assert all(p.verdict == "established" and " beats base by 60.0 points" in p.sentence for p in strong)


def test_an_interval_excluding_zero_without_holm_is_said_in_words() -> None:
    comparison = compare(_baseline_lines(INTERVAL_ONLY, 0), "strategy", "base", Bootstrap(resamples=2000))
    (weak,) = comparison.pairs
    assert weak.p_holm is not None and weak.p_holm >= 0.05 and weak.simultaneous_low > 0
    assert weak.verdict == "interval only"
    assert "excludes 0" in weak.sentence and "disagree" in weak.sentence
    assert "not distinguishable" not in weak.sentence and " beats " not in weak.sentence


def test_too_few_seeds_never_sits_beside_an_interval_excluding_zero() -> None:
    comparison = compare(_baseline_lines([0.6] * 4, 0), "strategy", "base", Bootstrap(resamples=500))
    (pair,) = comparison.pairs
    assert pair.simultaneous_low > 0 and pair.p_holm == 0.125  # 2 / 2**4: the floor of 4 seeds
    assert "too few seeds to tell" in pair.sentence and "smallest p it can give is 0.125" in pair.sentence
    assert "cannot be told apart" not in pair.sentence and "not distinguishable" not in pair.sentence


@pytest.mark.parametrize(
    ("p_holm", "low", "high", "says"),
    [
        (0.01, 0.02, 0.10, "beats"),
        (0.01, -0.01, 0.10, "disagree"),
        (0.20, 0.02, 0.10, "disagree"),
        (0.20, -0.01, 0.10, "not distinguishable"),
    ],
)
def test_sentence_never_prints_a_decision_its_interval_contradicts(
    p_holm: float, low: float, high: float, says: str
) -> None:
    from isodyn.analysis.paired import verdict

    found = verdict(0.05, low, high, p_holm, 20, 0.05)
    pair = Pair("m / latex", "x", "y", 100, 20, 0.05, low, high, low, high, 6, 1, 0.1, p_holm / 3, p_holm,
                detectable_effect(0.1, 20), found)  # fmt: skip
    text = sentence(pair)
    assert says in text
    excludes = low > 0
    if "beats" in text or "not distinguishable" in text:
        assert (p_holm < 0.05) == excludes


# --- 2. MDE, seed counts, signs -------------------------------------------------------------------


@given(st.one_of(st.floats(0, 2), st.just(float("nan")), st.just(1e-17)), st.integers(0, 400))
def test_the_mde_is_a_number_in_range_or_a_reason(sd: float, seeds: int) -> None:
    found = detectable_effect(sd, seeds)
    if found.effect is not None:
        assert 0 < found.effect <= 1 and found.reason == "ok"
    else:
        assert found.reason != "ok"
    if seeds < 2 or sd != sd:
        assert found.reason == "too few seeds"
    elif sd < 1e-12:  # equal differences leave float dust in the spread
        assert found.reason == "no spread"
    elif seeds < 6:  # 2 / 2**5 = 0.0625: the sign-flip test needs 6 seeds to reach 0.05
        assert found.reason == "sign-flip floor"


def test_mde_in_words_and_seed_counts_as_integers(tmp_path: Path) -> None:
    seeds = seed_names(12)
    lines = rows({"flat": [4] * 12, "base": [1] * 12}, seeds)  # every seed differs by exactly 60 points
    lines += rows({"one": [3], "two": [1]}, ["lonely"], model="solo")  # one seed only
    run = write_run(tmp_path / "run", lines)
    md = compare_runs(CompareRequest.from_words([str(run), "resamples=500"])).markdown
    table = {row["A"]: row for row in table_rows(md)}
    assert table["base"]["MDE (points)"] == "no spread between seeds: MDE undefined"
    assert table["one"]["MDE (points)"].startswith("too few seeds: 1")
    assert table["base"]["seeds"] == "12" and table["one"]["seeds"] == "1"
    assert not re.search(r"\b\d+\.0 seeds|seeds? \d+\.0\b|\| 12\.0 \|", md)  # no "12.0" anywhere
    assert "base trails flat by 60.0 points [60.0, 60.0]" in md


def test_sentence_interval_has_the_sentence_sign(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    seeds = seed_names(40)
    lines = rows({"top": list(rng.integers(3, 6, 40)), "low": list(rng.integers(0, 3, 40))}, seeds)
    md = compare_runs(
        CompareRequest.from_words([str(write_run(tmp_path / "r", lines)), "resamples=2000"])
    ).markdown
    line = next(s for s in sentences_of(md) if " trails " in s)
    size, low, high = numbers(line)[:3]
    assert line.startswith("low trails top by")
    assert 0 < low <= size <= high  # "low trails top by 56.2 points [38.8, 72.5]"-style
    row = table_rows(md)[0]
    signed = numbers(row["A − B (points)"])[0]
    together = numbers(next(v for k, v in row.items() if k.startswith("simultaneous")))
    assert signed == -size and together == [-high, -low]  # the table keeps A − B, signed


# --- 3. one set of files per comparison -----------------------------------------------------------


def test_each_comparison_writes_its_own_files(tmp_path: Path, run_cli) -> None:
    seeds = seed_names(8)
    lines = rows({"zeroshot": [2] * 8, "cot": [4] * 8, "pot/v2 x": [3] * 8}, seeds)
    run = write_run(tmp_path / "run", lines)
    for words in ([], ["baseline=zeroshot"], ["baseline=cot"], ["baseline=pot/v2 x"]):
        done = run_cli("compare", str(run), "by=strategy", "resamples=300", *words)
        assert done.code == 0, done.err
    safe = file_safe("pot/v2 x")
    assert re.fullmatch(r"pot_v2_x-[0-9a-f]{8}", safe)
    for suffix in ("", "-vs-zeroshot", "-vs-cot", f"-vs-{safe}"):
        for ext in ("md", "html"):
            assert (run / f"compare-by-strategy{suffix}.{ext}").is_file()
        assert (run / "figures" / f"forest-by-strategy{suffix}.png").read_bytes().startswith(b"\x89PNG")
    assert not (run / "figures" / "forest.png").exists()
    vs_zero = (run / "compare-by-strategy-vs-zeroshot.md").read_text()
    vs_cot = (run / "compare-by-strategy-vs-cot.md").read_text()
    assert "cot beats zeroshot" in vs_zero and "zeroshot trails cot" in vs_cot  # neither overwritten
    assert "figures/forest-by-strategy-vs-zeroshot.png" in vs_zero
    assert file_safe("a b") != file_safe("a_b") and file_safe("../x").startswith(".._x-")
    assert report_names("model", None).stem == "compare-by-model"


# --- 4. an unknown baseline ------------------------------------------------------------------------


def test_unknown_baseline_is_one_line_with_the_valid_values(tmp_path: Path, run_cli) -> None:
    run = write_run(tmp_path / "run", rows({"zeroshot": [2] * 6, "cot": [4] * 6}, seed_names(6)))
    done = run_cli("compare", str(run), "by=strategy", "baseline=nope")
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert done.lines[0] == "error: unknown baseline 'nope' for by=strategy; valid: cot, zeroshot"
    assert not list(run.glob("compare-*"))


# --- 5. dropped cells of two runs -------------------------------------------------------------------


def test_two_runs_with_different_grids_name_what_was_dropped(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", rows({"zeroshot": [2] * 6}, seed_names(6)))
    b_lines = rows({"zeroshot": [3] * 8}, seed_names(8))  # seeds s06, s07 only here
    b_lines += rows({"cot": [4] * 8}, seed_names(8))  # a strategy only here
    b = write_run(tmp_path / "b", b_lines)
    said = []
    done = compare_runs(CompareRequest.from_words([str(a), str(b), "resamples=300"]), said.append)
    # by hand: cot is 8 seeds x 5 variants = 40 cells; s06 and s07 of zeroshot are 2 x 5 = 10 more
    expected = "dropped: 50 cells of b only: strategy cot (40 cells), seeds s06, s07 (10 cells)"
    assert [n.text for n in said] == [expected] and said[0].kind == "warning"
    assert done.notices == tuple(said)
    assert f"- {expected}" in done.markdown  # in the report's facts
    assert (
        dropped_cells({"a": frame_of(rows({"x": [1]}, ["s"])), "b": frame_of(rows({"x": [0]}, ["s"]))}) == []
    )


def test_dropped_cells_left_by_combinations_are_counted(tmp_path: Path) -> None:
    a = frame_of(rows({"zeroshot": [2] * 4}, seed_names(4)) + rows({"cot": [2] * 2}, seed_names(2)))
    b = frame_of(rows({"zeroshot": [2] * 4, "cot": [2] * 4}, seed_names(4)))
    (only_b,) = dropped_cells({"a": a, "b": b})
    assert only_b.cells == 10 and only_b.text.startswith(
        "10 cells of b only: 10 cells in combinations a lacks"
    )


def test_cells_without_a_partner_within_a_run_are_named(tmp_path: Path) -> None:
    """Within one run, cot ran on 10 seeds and zeroshot on 6 of them: the 4 x 5 cot cells on the
    other seeds pair with nothing, and the comparison says so instead of dropping them silently."""
    lines = rows({"zeroshot": [2] * 6}, seed_names(6)) + rows({"cot": [4] * 10}, seed_names(10))
    said = []
    done = compare_runs(
        CompareRequest.from_words([str(write_run(tmp_path / "r", lines)), "resamples=300"]), said.append
    )
    expected = (
        "20 graded cells had no partner on the same item in the other arm of their pair and were "
        "left out; most in cot vs zeroshot (m / latex): 20"
    )
    assert [n.text for n in said] == [expected] and said[0].kind == "warning"
    assert f"- left out of their pair: {expected}" in done.markdown
    assert "30 | 6 |" in done.markdown  # the pair itself: 6 seeds x 5 variants
    complete = rows({"zeroshot": [2] * 6, "cot": [4] * 6}, seed_names(6))
    quiet: list = []
    compare_runs(CompareRequest.from_words([str(write_run(tmp_path / "q", complete)), "resamples=300"]),
                 quiet.append)  # fmt: skip
    assert quiet == []


# --- 6. the summary paragraph ----------------------------------------------------------------------


def test_summary_names_what_survives_holm(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    seeds = seed_names(30)
    noise = {name: list(rng.integers(1, 4, 30)) for name in ("a1", "a2", "a3")}
    lines = rows({**noise, "best": [5] * 30}, seeds)
    md = compare_runs(
        CompareRequest.from_words([str(write_run(tmp_path / "r", lines)), "resamples=1000"])
    ).markdown
    first = sentences_of(md)[0]
    assert first.startswith("6 pairs compared.")
    held = re.search(
        r"(\d) differences hold, each with its simultaneous 95% interval excluding 0: (.*?)\. The other",
        first,
    )
    assert held and held.group(1) == "3"
    assert all(f"{a} vs best (best ahead by" in held.group(2) for a in ("a1", "a2", "a3"))
    assert (
        "The other 3 pairs cannot be told apart with these seeds (30 per pair): a1 vs a2, a1 vs a3, a2 vs a3."
        in first
    )
    # with a baseline there is no summary: the pairs come first
    with_baseline = compare(frame_of(lines), "strategy", "best", Bootstrap(resamples=300))
    assert with_baseline.summary is None and with_baseline.sentences[0].startswith("a1 trails best")


# --- 7. the forest plot ----------------------------------------------------------------------------


def test_forest_at_28_comparisons_with_long_labels_and_an_undefined_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    names = [f"strategy-{i}" for i in range(7)] + [
        "a-very-long-strategy-name-that-goes-on-and-on-forever-and-ever"
    ]
    lines = rows({n: list(rng.integers(0, 6, 20)) for n in names}, seed_names(20))
    lines += rows({"left": [3] * 3}, ["x1", "x2", "x3"], model="other") + rows(
        {"right": [1] * 3}, ["y1", "y2", "y3"], model="other"
    )
    comparison = compare(frame_of(lines), "strategy", bootstrap=Bootstrap(resamples=500))
    assert len(comparison.pairs) == 29 and comparison.m == 28
    (undefined,) = [p for p in comparison.pairs if p.difference is None]
    assert "share no graded cell" in undefined.sentence
    run = write_run(tmp_path / "run", lines)
    done = compare_runs(CompareRequest.from_words([str(run), "resamples=500"]))
    png = run / "figures" / "forest-by-strategy.png"
    image = imread(io.BytesIO(png.read_bytes()))
    few = imread(io.BytesIO(forest_png([ForestRow("a", "b", "", 1.0, -2.0, 4.0)], "t")))
    assert image.shape[0] > 4 * few.shape[0]  # the height grows with the rows
    assert "simultaneous 95% interval" in done.markdown and "| n/a |" in done.markdown
    label = pair_label(names[-1], "strategy-0")
    assert len(label) == 44 and label.endswith("… vs strategy-0")  # both sides stay in view
    assert pair_label("short", "x") == "short vs x" and shortened(names[-1]).endswith("…")
    assert shortened("$\\frac{") == "\\$\\frac{"
