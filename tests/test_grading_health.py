"""Grading health per arm in every report, and findings that say when grading could explain them
(issue 37): two models that are truly tied, one of whose replies the rules often cannot read, must
not come out as a plain lead."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from isodyn.analysis.findings import Arm, Baseline, find, sentences
from isodyn.analysis.health import Health, caution_for, grading_health, health_table
from isodyn.analysis.metrics import Bootstrap, graded_cells, robustness_table
from isodyn.analysis.paired import compare
from isodyn.analysis.run_report import build_report, render_html, render_markdown
from isodyn.runs.marks import Mark
from isodyn.runs.record import Cell
from isodyn.runs.results import CellResult, results_frame
from isodyn.runs.schema import JUDGE, SCHEMA_VERSION
from isodyn.scoring.ambiguity import NONE_FOUND, SEVERAL_OPTIONS, TRUNCATED, UNREADABLE

FAST = Bootstrap(resamples=1_000)
BASE = Baseline(Arm("zeroshot", "image"))
SEEDS, VARIANTS = 40, 5


def row(model: str, seed: int, variant: int, right: bool, strategy: str = "zeroshot",
        modality: str = "image", **verdict: Any) -> dict[str, Any]:  # fmt: skip
    """A graded cell; `verdict` overrides the clear reading (a `none found`, a truncation...)."""
    return {
        "model": model, "strategy": strategy, "modality": modality, "seed_id": f"seed{seed:03d}",
        "variant": variant, "repeat": 0, "topic": "algebra", "level": "high_school",
        "answer_type": "multiple_choice", "truth": "A", "choices": ["A", "B"],
        "extracted": "A" if right else "B", "correct": right, "reason": "ok", "method": "answer_line",
        "ambiguity": "clear", "grader": "isodyn", "response": f"Answer: {'A' if right else 'B'}",
        **verdict,
    }  # fmt: skip


NOT_READ = {"extracted": None, "correct": False, "reason": "extraction_failed", "method": "none",
            "ambiguity": NONE_FOUND}  # fmt: skip
CUT_OFF = {"extracted": None, "correct": False, "reason": "truncated", "method": TRUNCATED,
           "ambiguity": TRUNCATED, "finish_reason": "length"}  # fmt: skip


def truly_right(seed: int = 5) -> np.ndarray:
    """Which cells a model answers right (seed x variant), about 70%: the truth both models share."""
    return np.random.default_rng(seed).random((SEEDS, VARIANTS)) < 0.7


def tied_models(unread_every: int | None) -> list[dict[str, Any]]:
    """Two models with exactly the same right answers. With `unread_every`, every so-many of
    `noisy`'s right replies is graded `none found` (the rules missed it), and so counted wrong."""
    right = truly_right()
    rows = []
    for model in ("clean", "noisy"):
        count = 0
        for s in range(SEEDS):
            for v in range(VARIANTS):
                missed = model == "noisy" and unread_every and right[s, v] and count % unread_every == 0
                count += int(model == "noisy" and bool(right[s, v]))
                rows.append(row(model, s, v, bool(right[s, v]), **(NOT_READ if missed else {})))
    return rows


def frame_of(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return graded_cells(results_frame([CellResult.from_row(r) for r in rows]))


def lead_line(rows: list[dict[str, Any]]) -> str:
    lines = sentences(find(frame_of(rows), BASE, FAST))
    return next(line for line in lines if line.startswith("Models under the baseline"))


def test_tied_models_with_unequal_none_found_get_a_caution() -> None:
    rows = tied_models(unread_every=5)
    health = grading_health(frame_of(rows))
    noisy, clean = health[("noisy", "zeroshot", "image")], health[("clean", "zeroshot", "image")]
    assert clean.none_found == 0 and noisy.none_found > 0.1  # a fifth of ~70% right replies
    line = lead_line(rows)
    # the grader's misses make a false lead of `clean`: the finding names it, and says why to doubt it
    assert "clean has the highest of 2" in line and "next noisy" in line
    lead = float(line.split("clean - noisy ")[1].split(" points")[0])
    assert lead > 10
    shown = f"none found {100 * clean.none_found:.1f}% vs {100 * noisy.none_found:.1f}%"
    assert f"(grading caution: {shown}; the difference may come from grading)." in line
    assert "truncated" not in line  # neither arm had a reply cut off


def test_tied_models_graded_alike_get_no_caution() -> None:
    line = lead_line(tied_models(unread_every=None))
    assert "+0.0 points" in line and "clean ties for the highest of 2" in line
    assert "caution" not in line


def test_a_real_lead_with_equal_none_found_shares_gets_no_caution() -> None:
    """Both models lose the same share of replies to `none found`; one is truly better."""
    rng = np.random.default_rng(3)
    rows = []
    for model, rate in (("better", 0.8), ("worse", 0.5)):
        for s in range(SEEDS):
            for v in range(VARIANTS):
                unread = v == 0 and s % 4 == 0  # 10 of 200 cells each: 5.0% vs 5.0%
                rows.append(row(model, s, v, bool(rng.random() < rate), **(NOT_READ if unread else {})))
    line = lead_line(rows)
    assert "better has the highest of 2" in line and "caution" not in line


def test_a_gap_and_a_strategy_difference_carry_the_truncation_caution() -> None:
    """The text arm and a chain-of-thought arm have a fifth of their replies cut off."""
    right = truly_right()
    rows = []
    for strategy, modality in (("zeroshot", "image"), ("zeroshot", "latex"), ("cot", "image")):
        cut = (strategy, modality) != ("zeroshot", "image")
        for s in range(SEEDS):
            for v in range(VARIANTS):
                rows.append(row("m", s, v, bool(right[s, v]), strategy, modality,
                                **(CUT_OFF if cut and v == 0 else {})))  # fmt: skip
    lines = sentences(find(frame_of(rows), BASE, FAST))
    gap = next(line for line in lines if "modality gap" in line)
    assert "(grading caution: truncated 20.0% vs 0.0%; the difference may come from grading)." in gap
    versus_baseline = [line for line in lines if "cot / image at" in line]
    assert versus_baseline and all("truncated 20.0% vs 0.0%" in line for line in versus_baseline)
    # a truncated cell is graded (counted, not right): it stays in the denominator of accuracy
    table = robustness_table(frame_of(rows))
    assert set(table["graded"]) == {SEEDS * VARIANTS}


@pytest.mark.parametrize(
    ("none_found", "reported", "cautioned"),
    [
        ((0.050, 0.030), 0.10, False),  # 2.0 points apart: not more than 2
        ((0.051, 0.030), 0.10, True),  # 2.1 points: more than 2
        ((0.040, 0.034), 0.005, True),  # 0.6 points, more than the 0.5 point difference reported
        ((0.040, 0.035), 0.005, False),  # 0.5 points: not more than the difference
        ((0.040, 0.035), -0.004, True),  # a negative difference counts by its size
        ((0.000, 0.000), 0.0, False),  # equal shares never earn a caution
    ],
)
def test_caution_rule(none_found: tuple[float, float], reported: float, cautioned: bool) -> None:
    a = Health(100, none_found[0], 0.0, 0.0, 0.0, 0.0)
    b = Health(100, none_found[1], 0.0, 0.0, 0.0, 0.0)
    assert (caution_for(a, b, reported) is not None) is cautioned


def test_health_counts_every_kind_per_arm() -> None:
    rows = [row("m", s, 0, True) for s in range(10)]
    rows[0].update(NOT_READ)
    rows[1].update(NOT_READ, ambiguity=SEVERAL_OPTIONS)
    rows[2].update(NOT_READ, ambiguity=UNREADABLE)
    rows[3].update(CUT_OFF)
    rows[4].update(grader=JUDGE, method=JUDGE, ambiguity=NONE_FOUND)  # the judge read what the rules did not
    # the judge was asked and found nothing either: none found
    rows[5].update(scores={"isodyn": NOT_READ, JUDGE: {**NOT_READ, "method": JUDGE}}, **NOT_READ)
    rows.append(row("m", 0, 0, True, modality="latex"))
    rows.append({**row("m", 1, 0, True), "reason": "error:timeout", "correct": None})  # not graded
    marks = [Mark(Cell.of(("m", "zeroshot", "image", "seed006", 0, 0)), True),
             Mark(Cell.of(("m", "zeroshot", "image", "seed009", 0, 0)), False)]  # fmt: skip
    health = grading_health(frame_of(rows), marks)
    assert health[("m", "zeroshot", "image")] == Health(10, 0.2, 0.2, 0.1, 0.1, 0.2)
    assert health[("m", "zeroshot", "latex")] == Health(1, 0.0, 0.0, 0.0, 0.0, 0.0)
    table = health_table(health)
    assert list(table.columns) == ["model", "strategy", "modality", "graded", "none found %",
                                   "ambiguous %", "truncated %", "by judge %", "marked %"]  # fmt: skip
    assert table.iloc[0].tolist() == ["m", "zeroshot", "image", 10, "20.0", "20.0", "10.0", "10.0", "20.0"]


def test_every_report_shows_the_table_with_its_legend_and_the_caution() -> None:
    results = [CellResult.from_row(r) for r in tied_models(unread_every=5)]
    content = build_report(results, None, {"models": ["clean", "noisy"]}, "planted", FAST)
    markdown = render_markdown(content)
    section = markdown.split("## Grading health", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert table[0] == ("| model | strategy | modality | graded | none found % | ambiguous % | truncated % "
                        "| by judge % | marked % |")  # fmt: skip
    assert table[2].startswith("| clean | zeroshot | image | 200 | 0.0 |")
    after_table = section.split(table[-1], 1)[1]
    assert "none found: the rules read no answer, nor did a judge" in after_table  # the legend, under it
    assert "the difference may come from grading" in markdown.split("## Legend")[0]  # in the findings
    html = render_html(content)
    assert "<h2>Grading health</h2>" in html and "none found: the rules read no answer" in html


def test_verdicts_without_their_reading_show_no_health() -> None:
    """An outside table of verdicts (no replies, no ambiguity): nothing to say about grading."""
    dropped = ("method", "ambiguity", "grader", "response")  # as `external.read_tables` makes them
    rows = [{**{k: v for k, v in r.items() if k not in dropped}, "schema": SCHEMA_VERSION}
            for r in tied_models(unread_every=None)]  # fmt: skip
    assert grading_health(frame_of(rows)) == {}
    content = build_report([CellResult.from_row(r) for r in rows], None, None, "outside", FAST)
    assert "Grading health" not in render_markdown(content)


@pytest.mark.parametrize("unread_every", [5, None])
def test_exp_compare_says_it_too(unread_every: int | None) -> None:
    """`exp compare by=model`: the pair's sentence carries the caution exactly when the shares differ."""
    comparison = compare(frame_of(tied_models(unread_every)), "model", bootstrap=FAST)
    (pair,) = comparison.pairs
    assert (pair.a, pair.b) == ("clean", "noisy")
    if unread_every:
        assert pair.sentence.endswith("(grading caution: none found 0.0% vs 14.5%; the difference may "
                                      "come from grading).")  # fmt: skip
    else:
        assert "caution" not in pair.sentence


def test_exp_report_prints_the_table_and_counts_a_persons_marks(tmp_path, run_cli) -> None:
    """`exp report RUN` in a pipe: the table and its legend in what is printed; marks.jsonl counted."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    rows = tied_models(unread_every=5)
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run_dir / "config.json").write_text(json.dumps({"models": ["clean", "noisy"]}))
    marks = [Mark(Cell.of(("noisy", "zeroshot", "image", f"seed{s:03d}", 0, 0)), True) for s in range(10)]
    (run_dir / "marks.jsonl").write_bytes(b"".join(mark.line() for mark in marks))
    done = run_cli("report", str(run_dir), "resamples=200")
    assert done.code == 0, done.err
    assert "| noisy | zeroshot | image | 200 | 14.5 | 0.0 | 0.0 | 0.0 | 5.0 |" in done.out
    assert "\nShares of each arm's graded cells, in %." in done.out
    assert "(grading caution: none found 0.0% vs 14.5%" in done.out
