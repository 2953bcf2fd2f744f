"""A run's report: report.md (figures beside it) and a standalone report.html (figures embedded).

Everything is computed by pure functions into a `ReportContent`; only `write_report` touches disk.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from isodyn.analysis.grading import ambiguous_examples
from isodyn.analysis.markdown import markdown_table
from isodyn.analysis.metrics import Bootstrap, graded_cells
from isodyn.analysis.sections import SECTIONS, ReportInputs
from isodyn.results import CellResult, read_json, results_frame

WRONG_SAMPLES = 5


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
    """The report of a run: every registered metric section (`analysis.sections`), in order."""
    frame = results_frame(results)
    inputs = ReportInputs(results, frame, graded_cells(frame), bootstrap, process)
    tables: list[tuple[str, str, pd.DataFrame]] = []
    figures: dict[str, tuple[str, bytes]] = {}
    for section in SECTIONS.values():
        found = section(inputs)
        tables.extend(found.tables)
        figures.update(found.figures)
    graded = inputs.graded
    return ReportContent(
        title=f"isodyn run {run_name}",
        facts=_facts(summary, config),
        tables=tables,
        figures=figures,
        wrong_samples=_wrong_samples(graded, bootstrap.seed) if not graded.empty else [],
        ambiguous_examples=ambiguous_examples(frame, bootstrap.seed) if not graded.empty else [],
    )


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
    summary, config = read_json(run_dir / "summary.json"), read_json(run_dir / "config.json")
    content = build_report(results, summary, config, run_dir.name, bootstrap, process)
    return write_content(run_dir, content, "report")
