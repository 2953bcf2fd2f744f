"""The report's first screen: findings with intervals, the legend, figures that tell zero from
missing, and samples that do not depend on the order of the rows."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from isodyn.analysis import plots
from isodyn.analysis.findings import (
    Arm,
    Baseline,
    Estimate,
    choose_baseline,
    find,
    sentences,
)
from isodyn.analysis.grading import ambiguous_examples, excerpt
from isodyn.analysis.legend import legend
from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS, Bootstrap, graded_cells
from isodyn.analysis.plot_parts import Shown, rr_shown, value_shown
from isodyn.analysis.run_report import _wrong_samples, build_report, render_html, render_markdown
from isodyn.analysis.tables import TOPIC_COLUMNS
from isodyn.runs.calls import Call
from isodyn.runs.results import CellResult, results_frame
from isodyn.runs.schema import Column

FAST = Bootstrap(resamples=2_000)
TOPICS = ["algebra", "statistics", "plane_geometry"]


def row(model: str, strategy: str, modality: str, seed: int, variant: int, right: bool, **extra: Any) -> dict:
    return {
        "model": model, "strategy": strategy, "modality": modality, "seed_id": f"seed{seed:03d}",
        "variant": variant, "repeat": extra.pop("repeat", 0), "topic": TOPICS[seed % len(TOPICS)],
        "level": "high_school", "answer_type": "multiple_choice", "truth": "A", "choices": ["A", "B"],
        "extracted": "A" if right else "B", "correct": right, "reason": "ok",
        "variation_types": ["numerical_value"], **extra,
    }  # fmt: skip


def planted(seeds: int = 40, variants: int = 4, lift: float = 0.3, seed: int = 1) -> list[dict]:
    """One model; zeroshot on image and latex near 40% (latex 15 points over image), `cot` on image
    `lift` higher, and `weak` on image 20 points lower: per seed, a seed-level ability."""
    rng = np.random.default_rng(seed)
    ability = rng.uniform(-0.25, 0.25, seeds)
    arms = {("zeroshot", "image"): 0.4, ("zeroshot", "latex"): 0.55, ("cot", "image"): 0.4 + lift,
            ("weak", "image"): 0.2}  # fmt: skip
    rows = []
    for (strategy, modality), rate in arms.items():
        for s in range(seeds):
            for v in range(variants):
                p = min(max(rate + ability[s], 0.02), 0.98)
                rows.append(row("m", strategy, modality, s, v, bool(rng.random() < p)))
    return rows


def results_of(rows: list[dict]) -> list[CellResult]:
    return [CellResult.from_row(r) for r in rows]


def independent_differences(frame: pd.DataFrame, a: Arm, b: Arm, worst: bool) -> np.ndarray:
    """Per-seed difference of a and b computed directly (not through the module under test)."""
    values = []
    for _, cells in frame.groupby("seed_id"):
        one = cells[(cells.strategy == a.strategy) & (cells.modality == a.modality)]
        two = cells[(cells.strategy == b.strategy) & (cells.modality == b.modality)]
        if worst:
            values.append(float(one.correct.all()) - float(two.correct.all()))
        else:
            values.append(one.correct.mean() - two.correct.mean())
    return np.array(values)


def percentile_interval(values: np.ndarray, resamples: int = 4_000) -> tuple[float, float]:
    rng = np.random.default_rng(123)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


DIFFERENCE = r"([+-]\d+\.\d) points vs the baseline \[([+-]\d+\.\d), ([+-]\d+\.\d)\]"
GAP = r"([+-]\d+\.\d) points \[([+-]\d+\.\d), ([+-]\d+\.\d)\]"


def signed(text: str) -> float:
    return float(text.replace("+", ""))


# ------------------------------------------------------------------------------------------ findings


@pytest.mark.parametrize("worst", [False, True])
def test_planted_lift_is_named_best_with_its_difference_and_interval(worst: bool) -> None:
    rows = planted()
    frame = pd.DataFrame(rows)
    found = find(graded_cells(frame), Baseline(Arm("zeroshot", "image")), FAST)
    metric = "A_wst" if worst else "A_avg"
    best = next(f for f in found.findings if f.kind == "best" and f.metric == metric)
    assert best.arm == Arm("cot", "image")
    per_seed = independent_differences(frame, Arm("cot", "image"), Arm("zeroshot", "image"), worst)
    assert best.difference is not None
    assert best.difference.value == pytest.approx(per_seed.mean())
    assert isinstance(best.difference.seeds, int) and best.difference.seeds == 40
    low, high = percentile_interval(per_seed)
    assert best.difference.low == pytest.approx(low, abs=0.03)
    assert best.difference.high == pytest.approx(high, abs=0.03)
    assert best.difference.low > 0  # a 30-point lift on 40 seeds is clear
    worst_arm = next(f for f in found.findings if f.kind == "worst" and f.metric == metric)
    assert worst_arm.arm == Arm("weak", "image")


def test_sentences_say_the_difference_with_an_interval_of_the_same_sign() -> None:
    found = find(graded_cells(pd.DataFrame(planted())), Baseline(Arm("zeroshot", "image")), FAST)
    lines = sentences(found)
    best = next(line for line in lines if line.startswith("m: best of 4 arms by A_avg"))
    assert "cot / image" in best
    match = re.search(DIFFERENCE + r", paired on (\d+) seeds", best)
    assert match, best
    value, low, high = map(signed, match.groups()[:3])
    assert 20 < value < 40 and low <= value <= high and low > 0
    assert int(match.group(4)) == 40
    worst = next(line for line in lines if line.startswith("m: worst of 4 arms by A_avg"))
    value, low, high = map(signed, re.search(DIFFERENCE, worst).groups())
    assert value < 0 and high < 0
    gap = next(line for line in lines if "modality gap" in line)
    assert "latex" in gap and "40 seeds" in gap
    value, low, high = map(signed, re.search(GAP, gap).groups())
    assert low <= value <= high and value > 0
    for line in lines[1:]:  # every finding names an integer count of seeds
        assert re.search(r"\b\d+ seeds?\b", line), line


def test_too_few_seeds_give_no_interval() -> None:
    found = find(graded_cells(pd.DataFrame(planted(seeds=3))), Baseline(Arm("zeroshot", "image")), FAST)
    lines = sentences(found)
    best = next(line for line in lines if "best of 4 arms by A_avg" in line)
    assert "(3 seeds: too few for an interval)" in best and "[" not in best
    assert MIN_INTERVAL_SEEDS == 5
    assert not Estimate(0.5, 0.4, 0.6, 4).has_interval and Estimate(0.5, 0.4, 0.6, 5).has_interval


def test_default_baseline_falls_back_and_says_so() -> None:
    chosen = choose_baseline(["cot", "fewshot"], ["latex", "code"])
    assert chosen.arm == Arm("cot", "latex")
    assert any("default baseline strategy zeroshot has no graded cell in this run" in n for n in chosen.notes)
    assert any("default baseline modality image has no graded cell in this run" in n for n in chosen.notes)
    rows = [r for r in planted() if r["strategy"] != "zeroshot"]
    content = build_report(results_of(rows), None, None, "run", FAST)
    assert any("the first strategy, cot, is the baseline instead" in s for s in content.sentences)
    assert content.sentences[0].startswith("Baseline arm: cot / image.")


def test_requested_baseline_is_used() -> None:
    content = build_report(results_of(planted()), None, None, "run", FAST, baseline=("weak", None))
    assert content.sentences[0].startswith("Baseline arm: weak / image.")
    best = next(s for s in content.sentences if "best of 4 arms by A_avg" in s)
    assert re.search(r"\+\d+\.\d points vs the baseline", best)


def test_a_model_without_the_baseline_arm_is_said_not_compared() -> None:
    rows = planted(seeds=6) + [
        {**r, "model": "other"}
        for r in planted(seeds=6)
        if (r["strategy"], r["modality"]) != ("zeroshot", "image")
    ]
    lines = sentences(find(graded_cells(pd.DataFrame(rows)), Baseline(Arm("zeroshot", "image")), FAST))
    assert "other has no zeroshot / image cells: its arms are not compared with the baseline." in lines
    best = next(line for line in lines if line.startswith("other: best of 3 arms by A_avg"))
    assert "(no baseline cells to compare with)" in best and "6 seeds" in best


def test_an_unknown_baseline_names_the_valid_ones_on_one_line() -> None:
    with pytest.raises(ValueError, match=r"unknown baseline strategy 'x\\nfake'; valid: a, b\\x1b\[31m$"):
        choose_baseline(["a", "b\x1b[31m"], ["image"], ("x\nfake", None))


def write_run(tmp_path: Path, rows: list[dict], config: dict | None = None) -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run_dir / "config.json").write_text(json.dumps(config or {"models": ["m"]}))
    return run_dir


def test_unknown_baseline_is_one_line_exit_2(tmp_path, run_cli) -> None:
    run_dir = write_run(tmp_path, planted(seeds=6))
    done = run_cli("report", str(run_dir), "resamples=200", "baseline=nonesuch")
    assert done.code == 2 and len(done.lines) == 1
    assert "nonesuch" in done.err and "zeroshot" in done.err and "cot" in done.err and "weak" in done.err
    done = run_cli("report", str(run_dir), "resamples=200", "baseline=cot/video")
    assert done.code == 2 and len(done.lines) == 1 and "image" in done.err and "latex" in done.err
    assert not (run_dir / "report.md").exists()
    done = run_cli("report", str(run_dir), "resamples=200", "baseline=cot/image")
    assert done.code == 0, done.err
    assert "Baseline arm: cot / image." in (run_dir / "report.md").read_text()


def test_findings_come_before_the_first_table(tmp_path, run_cli) -> None:
    run_dir = write_run(tmp_path, planted(seeds=8))
    assert run_cli("report", str(run_dir), "resamples=200").code == 0
    md = (run_dir / "report.md").read_text()
    findings, legend_at, table = md.index("## Findings"), md.index("## Legend"), md.index("\n| ")
    assert findings < legend_at < md.index("](figures/summary.png)") < md.index("## Run") < table
    assert "Baseline arm: zeroshot / image." in md[findings:legend_at]
    html = (run_dir / "report.html").read_text()
    first = html.index('<section id="findings">')
    assert first < html.index('<section id="legend">') < html.index('id="fig-summary"') < html.index("<table")
    assert html.count('id="fig-summary"') == 1  # shown once, at the top, not again with the others
    # each table's caption right under its title
    assert re.search(r"## Overview\n\n[^\n|]+\n\n\| model", md)
    assert re.search(r"<h2>Overview</h2>\n<p class=\"caption\">[^<]+</p>\n<table", html)


# ------------------------------------------------------------------------------------------ legend


def test_legend_lists_exactly_the_codes_shown() -> None:
    content = build_report(results_of(planted(seeds=9)), None, None, "run", FAST)
    names = [name for name, _ in content.legend]
    shown_topics = {"AL", "ST", "PG"}
    all_codes = set(TOPIC_COLUMNS.values()) | {"EL", "HI", "UN"}
    assert {n for n in names if n in all_codes} == shown_topics | {"HI"}
    for metric in ("A_avg", "A_wst", "RR", "gap"):
        assert metric in names
    assert "MDE" not in names and "isocb" not in names
    md = render_markdown(content)
    legend_part = md[md.index("## Legend") : md.index("## Run")]
    assert "`PG`: Plane Geometry" in legend_part and "`SG`" not in legend_part


def test_legend_matches_whole_words_only() -> None:
    names = [e.name for e in legend(["ALL", "A_avg_low", "| PG | HI |"])]
    assert names == ["ALL", "PG", "HI"]


# ------------------------------------------------------------------------------------------ figures


def test_zero_and_undefined_rr_are_drawn_differently() -> None:
    assert rr_shown(0.0, 0.5) is Shown.VALUE  # no seed right on every variant
    assert rr_shown(math.nan, 0.0) is Shown.UNDEFINED  # nothing right at all
    assert rr_shown(math.nan, math.nan) is Shown.MISSING  # not run
    assert value_shown(0.0) is Shown.VALUE and value_shown(math.nan) is Shown.MISSING

    def table(a_avg: float, rr: float) -> pd.DataFrame:
        return pd.DataFrame([{"model": "m", "strategy": "s", "modality": "image", "A_avg": a_avg,
                              "A_wst": 0.0, "RR": rr, "seeds": 10}])  # fmt: skip

    zero = imread(io.BytesIO(plots.rr_by_series(table(0.5, 0.0))))
    undefined = imread(io.BytesIO(plots.rr_by_series(table(0.0, math.nan))))
    assert zero.shape == undefined.shape and not np.array_equal(zero, undefined)


def test_gap_zero_and_not_measured_differ() -> None:
    gaps = pd.DataFrame([{"model": "a", "task": "t1", "gap": 0.0}, {"model": "b", "task": "t2", "gap": 0.1}])
    (png,) = plots.modality_gaps(gaps)
    with_missing = imread(io.BytesIO(png))
    gaps.loc[1, "model"] = "a"  # t2 now measured for a: no "n/a" left in the figure
    (png2,) = plots.modality_gaps(gaps)
    assert not np.array_equal(with_missing, imread(io.BytesIO(png2)))


def test_gap_figure_height_grows_with_tasks_and_pages() -> None:
    gaps = pd.DataFrame(
        [{"model": "m", "task": f"a long seed name {i:03d}", "gap": i / 200} for i in range(130)]
    )
    pages = plots.modality_gaps(gaps, rows_per_figure=60)
    assert len(pages) == 3  # split evenly: 44, 44 and 42 rows
    heights = [imread(io.BytesIO(p)).shape[0] for p in pages]
    assert heights[0] == heights[1] > heights[2]
    assert heights[2] / 42 >= 18  # at least 18 px per task name (8-point text): names never overlap
    (one,) = plots.modality_gaps(gaps.head(10))
    assert imread(io.BytesIO(one)).shape[0] < heights[2]  # the height follows the rows


# ------------------------------------------------------------------------------------------ samples


def wrong_rows() -> list[dict]:
    rows = []
    kinds = ["clear", "several_values", "hedged"]
    for s in range(30):
        for v in range(3):
            call = {
                "step": "answer",
                "messages": [{"role": "user", "content": "Q" * 3000}],
                "response": f"r{s}-{v}",
            }
            kind = kinds[(s * 3 + v) % 3]
            right = (s + v) % 3 == 0
            rows.append(row("m", "zeroshot", "latex", s, v, right, ambiguity=kind, response="x " * 400,
                            transcript=[call]))  # fmt: skip
    return rows


def test_samples_do_not_depend_on_the_order_of_the_rows() -> None:
    frame = graded_cells(pd.DataFrame(wrong_rows()))
    shuffled = frame.sample(frac=1, random_state=7)
    assert [s["label"] for s in _wrong_samples(frame, 0)] == [s["label"] for s in _wrong_samples(shuffled, 0)]
    assert len(_wrong_samples(frame, 0)) == 5
    assert [s["label"] for s in _wrong_samples(frame, 0)] != [s["label"] for s in _wrong_samples(frame, 1)]
    first, again = ambiguous_examples(frame, 0), ambiguous_examples(shuffled, 0)
    assert [e["label"] for e in first] == [e["label"] for e in again] and len(first) == 6
    reversed_rows = list(reversed(wrong_rows()))
    assert [e["label"] for e in ambiguous_examples(reversed_rows, 0)] == [e["label"] for e in first]


def test_cut_text_is_marked_with_an_ellipsis() -> None:
    assert excerpt("abcdef", 10) == "abcdef"
    assert excerpt("abcdefghijkl", 5) == "abcd…"
    assert excerpt("abcdefghijkl", 5, keep="tail") == "…ijkl"
    sample = _wrong_samples(graded_cells(pd.DataFrame(wrong_rows())), 0)[0]
    prompt = sample["calls"][0]["text"]
    assert prompt.endswith("…") and len(prompt) == 2_000
    example = ambiguous_examples(wrong_rows(), 0)[0]
    assert example["reply"].startswith("…") and len(example["reply"]) == 300


def test_html_escapes_findings(tmp_path) -> None:
    rows = planted(seeds=6)
    for r in rows:
        r["model"] = "<b>m</b>"
    html = render_html(build_report(results_of(rows), None, None, "run", FAST))
    findings = html[html.index('<section id="findings">') : html.index("</section>")]
    assert "&lt;b&gt;m&lt;/b&gt;: best of 4 arms" in findings and "<b>m</b>" not in findings


def test_samples_read_the_records_own_calls_as_they_read_copied_ones() -> None:
    """The report's table shares each record's Calls (no copy of every transcript): the samples it
    shows are those of the table that copies them, prompt, reply and all."""
    records = [CellResult.from_row(r) for r in wrong_rows()]
    shared = graded_cells(results_frame(records, copy_calls=False))
    copied = graded_cells(results_frame(records))
    assert isinstance(shared[Column.transcript].iloc[0][0], Call)
    assert isinstance(copied[Column.transcript].iloc[0][0], dict)
    samples = _wrong_samples(shared, 0)
    assert len(samples) == 5 and samples == _wrong_samples(copied, 0)
    assert all(s["calls"][-1]["who"] == "answer · reply" and s["calls"][-1]["text"] for s in samples)
