"""A run's report: report.md (figures beside it) and a standalone report.html (figures embedded).

Everything is computed by pure functions into a `ReportContent`; only `write_report` touches disk.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from isodyn.analysis import plots
from isodyn.analysis.consistency import (
    accuracy_over_repeats,
    circular_consistency,
    consistent_failures,
    memorization,
    repetition_consistency,
)
from isodyn.analysis.grading import ambiguous_examples, grader_sensitivity, verdict_paths
from isodyn.analysis.metrics import GROUP, Bootstrap, graded_cells, robustness_table
from isodyn.analysis.modality import modality_gap
from isodyn.analysis.tables import dynamath_table, format_value, isobench_layout, overview_table
from isodyn.results import CellResult, results_frame

WRONG_SAMPLES = 5


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.3f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: pd.DataFrame) -> str:
    if table.empty:
        return "_(nothing to show)_"
    lines = [
        "| " + " | ".join(map(str, table.columns)) + " |",
        "| " + " | ".join("---" for _ in table.columns) + " |",
    ]
    for record in table.to_dict("records"):
        lines.append("| " + " | ".join(_cell(record[c]) for c in table.columns) + " |")
    return "\n".join(lines)


def consistency_table(frame: pd.DataFrame) -> pd.DataFrame:
    records = []
    for key, group in graded_cells(frame).groupby(GROUP, sort=True):
        spread = accuracy_over_repeats(group)
        memo = memorization(group)
        circular = circular_consistency(group)
        failures = consistent_failures(group)
        records.append(
            {
                **dict(zip(GROUP, key, strict=True)),
                "repeats": spread["repeats"],
                "RC": format_value(repetition_consistency(group)),
                "A_avg sd (pp)": "–" if math.isnan(spread["A_avg_sd_pp"]) else f"{spread['A_avg_sd_pp']:.2f}",
                "consistent failures": "–" if failures is None else str(failures),
                "memorized seeds": f"{memo['memorized_seeds']} / {memo['eligible_seeds']}",
                "circular consistency": format_value(circular["circular_consistency"]),
            }
        )
    return pd.DataFrame.from_records(records)


@dataclass
class ReportContent:
    title: str
    facts: list[tuple[str, str]]
    tables: list[tuple[str, str, pd.DataFrame]]  # (title, caption, table)
    figures: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # name -> (caption, png)
    wrong_samples: list[dict[str, Any]] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)  # plain-language findings, listed first
    ambiguous_examples: list[dict[str, Any]] = field(default_factory=list)  # replies the rules hesitated on


def _facts(summary: dict[str, Any] | None, config: dict[str, Any] | None) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    for key in ("models", "strategies", "modalities", "variants", "repeats", "temperature", "base_seed"):
        if config and key in config:
            value = config[key]
            facts.append((key, ", ".join(map(str, value)) if isinstance(value, list) else str(value)))
    for key in ("cells", "calls_made", "cache_hits", "cost_usd", "skipped", "errors", "extraction_failed"):
        if summary and key in summary:
            facts.append((key, str(summary[key])))
    if summary and summary.get("not_renderable"):
        facts.append(("not renderable (never run)", ", ".join(summary["not_renderable"])))
    return facts


def _wrong_samples(graded: pd.DataFrame, seed: int) -> list[dict[str, Any]]:
    if "transcript" not in graded:
        return []
    wrong = graded[~graded["correct"] & graded["transcript"].map(lambda t: isinstance(t, list) and bool(t))]
    if wrong.empty:
        return []
    rng = np.random.default_rng(seed)
    picked = wrong.iloc[sorted(rng.choice(len(wrong), size=min(WRONG_SAMPLES, len(wrong)), replace=False))]
    samples = []
    for record in picked.to_dict("records"):
        calls = []
        for call in record.get("transcript") or []:
            for message in call.get("messages", []):
                content = message["content"]
                text = (
                    content
                    if isinstance(content, str)
                    else "\n".join(p.get("text") or f"[image {p['image_url']['url'][:19]}…]" for p in content)
                )
                calls.append({"who": f"{call['step']} · {message['role']}", "text": text})
            calls.append({"who": f"{call['step']} · reply", "text": call.get("response") or ""})
        samples.append(
            {
                "label": f"{record['model']} / {record['strategy']} / {record['modality']} / "
                f"{record['seed_id']} #{record['variant']} (repeat {record['repeat']})",
                "truth": record["truth"],
                "extracted": record.get("extracted"),
                "reason": record["reason"],
                "method": record.get("method"),
                "calls": calls,
            }
        )
    return samples


def build_report(
    results: Sequence[CellResult],
    summary: dict[str, Any] | None,
    config: dict[str, Any] | None,
    run_name: str,
    bootstrap: Bootstrap = Bootstrap(),  # noqa: B008 - immutable
    process: list[dict[str, Any]] | None = None,
) -> ReportContent:
    frame = results_frame(results)
    graded = graded_cells(frame)
    percent_note = (
        "in %, with 95% cluster-bootstrap intervals over seeds"
        if bootstrap.level == 0.95
        else (f"in %, with {bootstrap.level:.0%} cluster-bootstrap intervals over seeds")
    )
    tables = [
        ("Overview", f"A_avg, A_wst {percent_note}; RR = A_wst / A_avg.", overview_table(frame, bootstrap)),
        ("Average-case accuracy A_avg (DynaMath Table 2)", f"A_avg {percent_note}.",
         dynamath_table(frame, "A_avg", bootstrap)),
        ("Worst-case accuracy A_wst (DynaMath Table 3)", "A seed counts only if every variant is right.",
         dynamath_table(frame, "A_wst", bootstrap)),
        ("Reasoning robustness RR (DynaMath Table 7)", "RR = A_wst / A_avg.",
         dynamath_table(frame, "RR", bootstrap)),
    ]  # fmt: skip
    iso = isobench_layout(frame)
    if not iso.empty:
        tables.append(("IsoBench layout (Tables 1 and 6)", "Accuracy in % per task and representation; "
                       "gap = best text - image on the same items.", iso))  # fmt: skip
    if not graded.empty and "variation_types" in graded:
        by_variation = graded.explode("variation_types").dropna(subset=["variation_types"])
        if not by_variation.empty:
            table = robustness_table(by_variation, [*GROUP, "variation_types"], bootstrap)
            shown = table[[*GROUP, "variation_types", "graded"]].rename(
                columns={"variation_types": "variation"}
            )
            for metric in ("A_avg", "A_wst", "RR"):
                shown[metric] = [
                    format_value(r[metric], r.get(f"{metric}_low"), r.get(f"{metric}_high"), metric != "RR")
                    for r in table.to_dict("records")
                ]
            caption = "A seed counts under every variation type it exercises (DynaMath Section 3.2)."
            tables.append(("By variation type", caption, shown))
    if not graded.empty:
        caption = ("RC: DynaMath Eq. 3 over repeats; sd of A_avg over repeats (H.7); "
                   "memorized: one answer for variants with different truths.")  # fmt: skip
        tables.append(("Consistency", caption, consistency_table(frame)))
    figures: dict[str, tuple[str, bytes]] = {}
    if not graded.empty:
        by_topic = robustness_table(graded, [*GROUP, "topic"], bootstrap)
        figures["accuracy_by_topic"] = ("A_avg per topic with intervals", plots.accuracy_by_topic(by_topic))
        figures["rr"] = ("Reasoning robustness per model, strategy and modality",
                         plots.rr_by_series(robustness_table(graded, GROUP, bootstrap)))  # fmt: skip
        figures["correct_variants"] = ("Distribution of correct variants per seed",
                                       plots.correct_variants_per_seed(graded))  # fmt: skip
        gaps = modality_gap(graded)
        if not gaps.empty:
            figures["modality_gap"] = ("Modality gap per task", plots.modality_gaps(gaps))
    tables.extend(_grading_tables(frame, results))
    if process:
        from isodyn.analysis.process import error_distribution

        distribution = error_distribution(process, GROUP)
        figures["error_types"] = (
            "First-error types (process evaluation)",
            plots.error_types(distribution, GROUP),
        )
        tables.append(("Process evaluation", "First wrong step by error type (MM-MATH 3.3).", distribution))
    return ReportContent(
        title=f"isodyn run {run_name}",
        facts=_facts(summary, config),
        tables=tables,
        figures=figures,
        wrong_samples=_wrong_samples(graded, bootstrap.seed) if not graded.empty else [],
        ambiguous_examples=ambiguous_examples(frame, bootstrap.seed) if not graded.empty else [],
    )


def _grading_tables(
    frame: pd.DataFrame, results: Sequence[CellResult]
) -> list[tuple[str, str, pd.DataFrame]]:
    """How verdicts were reached, and each headline number under every grader."""
    out = []
    paths = verdict_paths(frame)
    if not paths.empty:
        caption = (
            "Share of graded replies (%) by where the answer was found (method) and how certain the "
            "reading was (ambiguity); `exp rescore RUN judge=MODEL` sends the uncertain ones to a judge."
        )
        out.append(("How verdicts were reached", caption, paths))
    sensitivity = grader_sensitivity(results)
    if not sensitivity.empty:
        caption = (
            "Every headline number re-graded from the saved replies by each grader (A in %, RR as a "
            "ratio, gap in percentage points); spread = highest - lowest. A large spread means the "
            "number depends on how answers are read, not only on the model."
        )
        out.append(("Grader sensitivity", caption, sensitivity))
    return out


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("isodyn.analysis", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
    )


def render_markdown(content: ReportContent) -> str:
    tables = [(title, caption, markdown_table(table)) for title, caption, table in content.tables]
    return _templates().get_template("report.md.j2").render(content=content, tables=tables).strip() + "\n"


def render_html(content: ReportContent) -> str:
    tables = [
        (title, caption, table.to_html(index=False, border=0, classes="table", na_rep="–"))
        for title, caption, table in content.tables
    ]
    images = {name: base64.b64encode(png).decode("ascii") for name, (_, png) in content.figures.items()}
    return _templates().get_template("report.html.j2").render(content=content, tables=tables, images=images)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def write_content(directory: Path, content: ReportContent, stem: str) -> Path:
    """`stem`.md with figures/*.png beside it, and a standalone `stem`.html; returns the Markdown path."""
    figures = directory / "figures"
    figures.mkdir(exist_ok=True)
    for name, (_, png) in content.figures.items():
        (figures / f"{name}.png").write_bytes(png)
    (directory / f"{stem}.html").write_text(render_html(content), encoding="utf-8")
    path = directory / f"{stem}.md"
    path.write_text(render_markdown(content), encoding="utf-8")
    return path


def write_report(run_dir: Path, results: Sequence[CellResult], bootstrap: Bootstrap = Bootstrap()) -> Path:  # noqa: B008
    """Write report.md, figures/*.png and report.html into `run_dir`; return the Markdown path."""
    process_path = run_dir / "process.jsonl"
    process = None
    if process_path.is_file():
        process = [json.loads(line) for line in process_path.read_text().splitlines()]
    summary, config = _read_json(run_dir / "summary.json"), _read_json(run_dir / "config.json")
    content = build_report(results, summary, config, run_dir.name, bootstrap, process)
    return write_content(run_dir, content, "report")
