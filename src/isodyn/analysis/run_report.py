"""A run's report: report.md (figures beside it) and a standalone report.html (figures embedded).

The first screen says what the run found: the findings against the baseline arm (`findings`), a
legend of the abbreviations shown (`legend`) and one summary figure; then the run's facts, the
tables (each caption right under its title) and the other figures. Everything is computed by pure
functions into a `ReportContent`; only `write_report` touches disk.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import orjson
import pandas as pd
from markupsafe import Markup

from isodyn.analysis import plots
from isodyn.analysis.columns import cell_label
from isodyn.analysis.findings import Baseline, arms_frame, choose_baseline, find, sentences
from isodyn.analysis.grading import Regrade, ambiguous_examples, excerpt, stable_pick
from isodyn.analysis.legend import legend
from isodyn.analysis.markdown import html_table, markdown_table
from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS, Bootstrap, graded_cells
from isodyn.analysis.sections import SECTIONS, ReportInputs
from isodyn.analysis.showings import plain_mask
from isodyn.atomic import write_atomic
from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION
from isodyn.errors import IsodynError
from isodyn.runs.calls import Call
from isodyn.runs.folder import RunFolder
from isodyn.runs.marks import Mark
from isodyn.runs.results import CellResult, read_json, results_frame
from isodyn.runs.schema import Column
from isodyn.runs.summary import RunSummary
from isodyn.runs.verdict_book import Progress, VerdictBook, graded_afresh
from isodyn.textsafe import block_text, code_block, code_span, markdown_text, terminal_text, visible

WRONG_SAMPLES = 5
PROMPT_EXCERPT = 2_000  # characters of a prompt shown in a wrong-answer sample (few-shot prompts run long)
REPLY_EXCERPT = 6_000  # characters of a reply: its end, where the answer is
SUMMARY_FIGURE = "summary"


@dataclass
class ReportContent:
    title: str
    facts: list[tuple[str, str]]
    tables: list[tuple[str, str, pd.DataFrame]]  # (title, caption, table)
    figures: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # name -> (caption, png)
    wrong_samples: list[dict[str, Any]] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)  # plain-language findings, listed first
    ambiguous_examples: list[dict[str, Any]] = field(default_factory=list)  # replies the rules hesitated on
    legend: list[tuple[str, str]] = field(default_factory=list)  # (abbreviation, meaning), after the findings
    lead_figure: str | None = None  # the figure (a key of `figures`) shown right after the findings
    footnotes: dict[str, str] = field(default_factory=dict)  # table title -> a line under the table


def _facts(summary: RunSummary | None, config: dict[str, Any] | None) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    for key in ("models", "strategies", "modalities", "variants", "repeats", "temperature", "base_seed"):
        if config and key in config:
            value = config[key]
            facts.append((key, ", ".join(map(str, value)) if isinstance(value, list) else str(value)))
    for key, plain in (("renders", [DEFAULT_RENDER]), ("perturbations", [NO_PERTURBATION])):
        if config and isinstance(config.get(key), list) and config[key] != plain:  # a plain run as before
            facts.append((key, ", ".join(map(str, config[key]))))
    counts = ("cells", "calls_made", "cache_hits", "cost_usd", "skipped", "errors", "extraction_failed",
              "truncated", "judged", "decided_by_judge")  # fmt: skip
    for key in counts:
        if summary is not None and summary.has(key):
            facts.append((key, str(getattr(summary, key))))
    if summary is not None and summary.not_renderable:
        facts.append(("not renderable (never run)", ", ".join(summary.not_renderable)))
    if summary is not None and summary.not_perturbable:
        facts.append(("not perturbable (never run)", ", ".join(summary.not_perturbable)))
    return facts


def _wrong_samples(graded: pd.DataFrame, seed: int) -> list[dict[str, Any]]:
    """Up to `WRONG_SAMPLES` wrong cells with a transcript, chosen by a stable hash of each cell's
    identity salted with `seed` (`stable_pick`): the same cells whatever the order of the rows."""
    if Column.transcript not in graded:
        return []
    transcribed = graded[Column.transcript].map(lambda t: isinstance(t, list | tuple) and bool(t))
    wrong = graded[~graded[Column.correct] & transcribed]
    if wrong.empty:
        return []
    samples = []
    for record in stable_pick(wrong, WRONG_SAMPLES, seed):
        calls = []
        for shared in record.get(Column.transcript) or []:
            call = shared.to_json() if isinstance(shared, Call) else shared  # the frame's own Calls
            for message in call.get("messages", []):
                content = message["content"]
                text = (
                    content
                    if isinstance(content, str)
                    else "\n".join(p.get("text") or f"[image {p['image_url']['url'][:19]}…]" for p in content)
                )
                who = f"{call['step']} · {message['role']}"
                calls.append({"who": who, "text": excerpt(text, PROMPT_EXCERPT)})
            reply = excerpt(call.get("response") or "", REPLY_EXCERPT, keep="tail")
            calls.append({"who": f"{call['step']} · reply", "text": reply})
        samples.append(
            {
                "label": f"{cell_label(record)} (repeat {record[Column.repeat]})",
                "truth": record[Column.truth],
                "extracted": record.get(Column.extracted),
                "reason": record[Column.reason],
                "method": record.get(Column.method),
                "calls": calls,
            }
        )
    return samples


def _surrogates_shown(value: Any) -> Any:
    """A JSON-like value with each lone surrogate in its strings written as `<U+D800>`."""
    if isinstance(value, str):
        return visible(value, keep="".join(set(value) - _SURROGATES))
    if isinstance(value, dict):
        return {key: _surrogates_shown(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_surrogates_shown(item) for item in value]
    return value


_SURROGATES = {chr(code) for code in range(0xD800, 0xE000)}


def encodable(result: CellResult) -> CellResult:
    """`result` as is, or, when a string in it holds a lone surrogate (which no UTF-8 table or file
    can take), a copy with each one shown: one bad reply must not stop the whole report."""
    try:
        # fast, and refuses exactly the strings that would fail later; `default=tuple` takes the
        # cell (a NamedTuple, which orjson refuses as a type): without it every result was copied
        orjson.dumps(result, default=tuple)
    except TypeError:
        return CellResult.from_row(_surrogates_shown(result.to_row()))
    return result


def _configured(config: dict[str, Any] | None, key: str) -> list[str]:
    value = (config or {}).get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def run_baseline(
    frame: pd.DataFrame, config: dict[str, Any] | None, requested: tuple[str, str | None] | None = None
) -> Baseline:
    """The baseline arm of a run's cells (`findings.choose_baseline`), its strategies and modalities
    in the run's configured order; UnknownBaselineError when `requested` is not in the run."""
    graded = graded_cells(frame)
    strategies = _ordered(graded[Column.strategy].astype(str), _configured(config, "strategies"))
    modalities = _ordered(graded[Column.modality].astype(str), _configured(config, "modalities"))
    return choose_baseline(strategies, modalities, requested)


def _ordered(present: pd.Series, preferred: list[str]) -> list[str]:
    seen = set(present)
    first = [v for v in dict.fromkeys(preferred) if v in seen]
    return first + sorted(seen - set(first))


def shown_names(
    tables: Sequence[tuple[str, str, pd.DataFrame]], sentences: Sequence[str], captions: Sequence[str]
) -> list[str]:
    """The texts a reader sees that may hold an abbreviation: titles, captions, column headers, the
    row names of long tables (representation, metric), the findings and the figure captions."""
    texts = [*sentences, *captions]
    for title, caption, table in tables:
        texts += [title, caption, *map(str, table.columns)]
        for column in ("representation", "metric"):
            if column in table.columns:
                texts += [str(v) for v in table[column].unique()]
    return texts


def build_report(
    results: Sequence[CellResult],
    summary: RunSummary | None,
    config: dict[str, Any] | None,
    run_name: str,
    bootstrap: Bootstrap = Bootstrap(),  # noqa: B008 - immutable
    process: list[dict[str, Any]] | None = None,
    baseline: tuple[str, str | None] | None = None,
    marks: Sequence[Mark] | None = None,
    regrade: Regrade = graded_afresh,
    progress: Progress | None = None,
) -> ReportContent:
    """The report of a run: its findings against the baseline arm (`analysis.findings`) and their
    summary figure first, a legend of the names shown, then every registered metric section
    (`analysis.sections`), in order. `regrade` gives each grader's verdicts (kept ones, or afresh);
    `progress`, when given, is told which section is being computed."""
    results = [encodable(result) for result in results]
    shown = results_frame(results, copy_calls=False)
    # the sections other than the two on profiles and perturbations read the plain cells
    plain = plain_mask(shown).to_numpy()
    results = [result for result, keep in zip(results, plain, strict=True) if keep]
    frame = shown[plain].reset_index(drop=True)
    graded = graded_cells(frame)
    chosen = run_baseline(frame, config, baseline)
    inputs = ReportInputs(
        results, frame, graded, bootstrap, process, chosen.arm.strategy, marks, regrade, shown
    )
    tables: list[tuple[str, str, pd.DataFrame]] = []
    figures: dict[str, tuple[str, bytes]] = {}
    footnotes: dict[str, str] = {}
    lines: list[str] = []
    if not graded.empty:
        found = find(graded, chosen, bootstrap)
        lines = sentences(found)
        caption = (
            f"A_avg and A_wst of every arm with {bootstrap.level:.0%} cluster-bootstrap intervals over "
            f"seeds (none drawn from fewer than {MIN_INTERVAL_SEEDS}); the baseline arm ({chosen.arm}) "
            "shaded, the best (▲) and worst (▼) arms marked at the right."
        )
        figures[SUMMARY_FIGURE] = (caption, plots.findings_summary(arms_frame(found), bootstrap.level))
    for sensitivity in (inputs.render_effects, inputs.perturbation_effects):
        lines += sensitivity.findings() if sensitivity is not None else []
    for done, (name, section) in enumerate(SECTIONS.items()):
        if progress is not None:
            progress(f"section {name}", done, len(SECTIONS))
        section_found = section(inputs)
        tables.extend(section_found.tables)
        figures.update(section_found.figures)
        footnotes.update(section_found.footnotes)
    captions = [caption for caption, _ in figures.values()]
    return ReportContent(
        title=f"isodyn run {run_name}",
        facts=_facts(summary, config),
        tables=tables,
        figures=figures,
        wrong_samples=_wrong_samples(graded, bootstrap.seed) if not graded.empty else [],
        sentences=lines,
        ambiguous_examples=ambiguous_examples(frame, bootstrap.seed) if not graded.empty else [],
        legend=[(e.name, e.meaning) for e in legend(shown_names(tables, lines, captions))],
        lead_figure=SUMMARY_FIGURE if SUMMARY_FIGURE in figures else None,
        footnotes=footnotes,
    )


class MarkdownSafe(str):
    """Markdown our own code built from escaped pieces (a table, a code block): written as is."""


class UnsafeOutputError(IsodynError, ValueError):
    """A report file would be written outside its folder (a link leading out, or figures/ a link)."""


def _markdown_value(value: Any) -> str:
    # The Markdown template's autoescape: every {{ value }} is inline text unless built as Markdown.
    return value if isinstance(value, MarkdownSafe) else markdown_text(str(value))


def _html_value(value: Any) -> Any:
    # Runs before autoescaping: untrusted text also gets its controls and bidi overrides shown.
    return value if isinstance(value, Markup) else block_text(str(value))


@cache
def _templates(kind: str) -> jinja2.Environment:
    """The environment for `kind` ("html" or "md"); both escape every value they are given."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("isodyn.analysis", "templates"),
        autoescape=kind == "html",  # every HTML template; select_autoescape never saw ".html.j2"
        finalize=_html_value if kind == "html" else _markdown_value,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["code_block"] = lambda text: MarkdownSafe(code_block(str(text)))
    environment.filters["code_span"] = lambda text: MarkdownSafe(code_span(str(text)))
    return environment


def render_markdown(content: ReportContent) -> str:
    tables = [
        (title, caption, MarkdownSafe(markdown_table(table))) for title, caption, table in content.tables
    ]
    text = _templates("md").get_template("report.md.j2").render(content=content, tables=tables)
    return terminal_text(text.strip() + "\n")  # what is printed to a terminal is safe there too


def render_html(content: ReportContent) -> str:
    tables = [(title, caption, html_table(table)) for title, caption, table in content.tables]
    images = {name: base64.b64encode(png).decode("ascii") for name, (_, png) in content.figures.items()}
    return (
        _templates("html")
        .get_template("report.html.j2")
        .render(content=content, tables=tables, images=images)
    )


def _encoded(text: str) -> bytes:
    # A lone surrogate that slipped past the templates is written as \udXXX instead of crashing.
    return text.encode("utf-8", "backslashreplace")


def checked_targets(directory: Path, names: Sequence[str]) -> list[Path]:
    """`directory / name` for each name, after refusing any that leads out of `directory`."""
    root = directory.resolve()
    figures = directory / "figures"
    if figures.is_symlink():
        raise UnsafeOutputError(
            f"refusing to write figures through the symbolic link {visible(str(figures))}"
        )
    targets = [directory / name for name in names]
    for target in targets:
        if not target.resolve().is_relative_to(root):
            raise UnsafeOutputError(
                f"refusing to write {visible(str(target))}: it leads outside {visible(str(directory))}"
            )
    return targets


def write_content(directory: Path, content: ReportContent, stem: str) -> Path:
    """`stem`.md with figures/*.png beside it, and a standalone `stem`.html; returns the Markdown path.
    Raises UnsafeOutputError, before writing anything, when a target leads out of `directory`."""
    pngs = [f"figures/{name}.png" for name in content.figures]
    *figure_paths, html_path, path = checked_targets(directory, [*pngs, f"{stem}.html", f"{stem}.md"])
    (directory / "figures").mkdir(exist_ok=True)
    for target, (_, png) in zip(figure_paths, content.figures.values(), strict=True):
        write_atomic(target, png)
    write_atomic(html_path, _encoded(render_html(content)))
    write_atomic(path, _encoded(render_markdown(content)))
    return path


def write_report(
    folder: RunFolder,
    results: Sequence[CellResult],
    bootstrap: Bootstrap = Bootstrap(),  # noqa: B008 - immutable
    baseline: tuple[str, str | None] | None = None,
    progress: Progress | None = None,
) -> Path:
    """Write report.md, figures/*.png and report.html into `folder`; return the Markdown path.
    `progress` hears of each section and of the replies graded (the ones not kept from before)."""
    checked_targets(folder.path, ["report.html", "report.md"])  # refuse before the minutes of work
    process = folder.judgements().records or None  # damaged lines skipped (the CLI says so)
    summary, config = folder.summary(), read_json(folder.config_file)
    try:  # a person's marks from `exp view`; a marks file that is a link or no file is not read
        marks = folder.marks().marks or None
    except OSError:
        marks = None
    book = VerdictBook.read(folder.verdicts_file, progress)  # each grader's verdicts, kept
    content = build_report(
        results, summary, config, folder.name, bootstrap, process, baseline, marks, book.verdicts, progress
    )
    path = write_content(folder.path, content, "report")
    with contextlib.suppress(OSError):  # a folder we may not write: the next report grades again
        book.write(folder.verdicts_file)
    return path
