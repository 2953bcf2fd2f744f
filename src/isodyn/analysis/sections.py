"""The report's metric sections, registered in the order they appear (pure functions).

Each section reads the run's cells (`ReportInputs`) and returns the tables and figures it adds; a
section with nothing to show returns an empty `Section`. A new metric is one registered function
here, or in a third-party module named by an `isodyn.metrics` entry point: `build_report` runs them
all, by `order` (docs/extending.md).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from isodyn.analysis import plots
from isodyn.analysis.agreement import agreement_table
from isodyn.analysis.agreement import caption as agreement_caption
from isodyn.analysis.columns import ARM, labels
from isodyn.analysis.consistency import consistency_by_arm
from isodyn.analysis.grading import Regrade, graded_afresh, grader_sensitivity, verdict_paths
from isodyn.analysis.health import LEGEND as HEALTH_LEGEND
from isodyn.analysis.health import grading_health, health_table
from isodyn.analysis.metrics import Bootstrap, graded_cells, robustness_table
from isodyn.analysis.modality import modality_gap
from isodyn.analysis.process import error_distribution
from isodyn.analysis.showings import (
    Sensitivity,
    accuracy_by_number_size,
    perturbation_effects,
    render_sensitivity,
)
from isodyn.analysis.tables import dynamath_tables, format_value, isobench_layout, overview_table
from isodyn.registry import Registry
from isodyn.runs.marks import Mark
from isodyn.runs.results import CellResult
from isodyn.runs.schema import Column

Table = tuple[str, str, pd.DataFrame]  # (title, caption, table)


@dataclass(frozen=True)
class ReportInputs:
    results: Sequence[CellResult]
    frame: pd.DataFrame  # every cell, one line each
    graded: pd.DataFrame  # the graded cells
    bootstrap: Bootstrap
    process: list[dict[str, Any]] | None = None  # process-evaluation records, when judged
    gap_strategy: str = "zeroshot"  # the strategy the modality gap is measured under (the baseline's)
    marks: Sequence[Mark] | None = None  # a person's marks on verdicts (`exp view`), when any
    regrade: Regrade = graded_afresh  # a cell graded by a named grader (a kept verdict, when one is)
    # every cell, under every render profile and perturbation (`frame` holds the plain ones only)
    shown: pd.DataFrame | None = None

    @property
    def every_cell(self) -> pd.DataFrame:
        return self.shown if self.shown is not None else self.frame

    @functools.cached_property
    def render_effects(self) -> Sensitivity | None:
        """Each render profile against the base one (a bootstrap per pair: computed once, read by
        its section and by the report's findings)."""
        return render_sensitivity(self.every_cell, self.bootstrap)

    @functools.cached_property
    def perturbation_effects(self) -> Sensitivity | None:
        return perturbation_effects(self.every_cell, self.bootstrap)


@dataclass(frozen=True)
class Section:
    tables: list[Table] = field(default_factory=list)
    figures: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # name -> (caption, png)
    footnotes: dict[str, str] = field(default_factory=dict)  # table title -> a line under the table


SectionFunction = Callable[[ReportInputs], Section]
# Every section is registered in this module, so discovery reads only the `isodyn.metrics` entry points.
SECTIONS: Registry[SectionFunction] = Registry("report metric", group="isodyn.metrics")


def _percent_note(bootstrap: Bootstrap) -> str:
    if bootstrap.level == 0.95:
        return "in %, with 95% cluster-bootstrap intervals over seeds"
    return f"in %, with {bootstrap.level:.0%} cluster-bootstrap intervals over seeds"


@SECTIONS.register("dynamath", order=10)
def dynamath_sections(inputs: ReportInputs) -> Section:
    """DynaMath's headline metrics: the overview and its Tables 2, 3 and 7."""
    frame, bootstrap, note = inputs.frame, inputs.bootstrap, _percent_note(inputs.bootstrap)
    layouts = dynamath_tables(frame, bootstrap)
    return Section([
        ("Overview", f"A_avg, A_wst {note}; RR = A_wst / A_avg.", overview_table(frame, bootstrap)),
        ("Average-case accuracy A_avg (DynaMath Table 2)", f"A_avg {note}.",
         layouts["A_avg"]),
        ("Worst-case accuracy A_wst (DynaMath Table 3)", "A seed counts only if every variant is right.",
         layouts["A_wst"]),
        ("Reasoning robustness RR (DynaMath Table 7)", "RR = A_wst / A_avg.",
         layouts["RR"]),
    ])  # fmt: skip


@SECTIONS.register("grading health", order=15)
def grading_health_section(inputs: ReportInputs) -> Section:
    """Per arm: how many verdicts the rules could not read, were cut off, or the judge or a person
    decided; read beside every comparison of arms (the findings say when it may explain one)."""
    health = grading_health(inputs.graded, inputs.marks or ())
    if not health:
        return Section()
    title = "Grading health"
    caption = "Per arm: graded cells, and how their verdicts were reached."
    return Section([(title, caption, health_table(health))], footnotes={title: HEALTH_LEGEND})


@SECTIONS.register("isobench", order=20)
def isobench_section(inputs: ReportInputs) -> Section:
    """IsoBench's layout: accuracy per task and representation, with the modality gap."""
    iso = isobench_layout(inputs.frame)
    if iso.empty:
        return Section()
    caption = "Accuracy in % per task and representation; gap = best text - image on the same items."
    return Section([("IsoBench layout (Tables 1 and 6)", caption, iso)])


@SECTIONS.register("agreement", order=25)
def agreement_section(inputs: ReportInputs) -> Section:
    """Agreement across representations (SEAM): the same answer as image and as text, beyond chance."""
    table = agreement_table(inputs.graded, inputs.bootstrap)
    if table.empty:
        return Section()
    return Section([("Agreement across representations", agreement_caption(inputs.bootstrap), table)])


@SECTIONS.register("variation", order=30)
def variation_section(inputs: ReportInputs) -> Section:
    """DynaMath's metrics per variation type."""
    graded = inputs.graded
    if graded.empty or Column.variation_types not in graded:
        return Section()
    by_variation = graded.explode(Column.variation_types).dropna(subset=[Column.variation_types])
    if by_variation.empty:
        return Section()
    by = [*ARM, Column.variation_types]
    table = robustness_table(by_variation, by, inputs.bootstrap)
    shown = table[[*by, "graded"]].rename(columns={Column.variation_types: "variation"})
    for metric in ("A_avg", "A_wst", "RR"):
        shown[metric] = [
            format_value(
                r[metric], r.get(f"{metric}_low"), r.get(f"{metric}_high"), metric != "RR", r["seeds"]
            )
            for r in table.to_dict("records")
        ]
    caption = "A seed counts under every variation type it exercises (DynaMath Section 3.2)."
    return Section([("By variation type", caption, shown)])


def consistency_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per arm: RC, the spread over repeats, consistent failures, memorization, circular consistency."""
    records = []
    for found in consistency_by_arm(graded_cells(frame), list(ARM)).to_dict("records"):
        failures, spread = found["consistent_failures"], found["A_avg_sd_pp"]
        records.append(
            {
                **dict(zip(labels(ARM), found["key"], strict=True)),
                "repeats": found["repeats"],
                "RC": format_value(found["RC"]),
                "A_avg sd (pp)": "–" if math.isnan(spread) else f"{spread:.2f}",
                "consistent failures": "–" if failures is None or pd.isna(failures) else str(int(failures)),
                "memorized seeds": f"{found['memorized_seeds']} / {found['eligible_seeds']}",
                "circular consistency": format_value(found["circular_consistency"]),
            }
        )
    return pd.DataFrame.from_records(records)


@SECTIONS.register("consistency", order=40)
def consistency_section(inputs: ReportInputs) -> Section:
    """Repetition consistency (RC), spread over repeats, memorization, circular consistency."""
    if inputs.graded.empty:
        return Section()
    caption = ("RC: DynaMath Eq. 3 over repeats; sd of A_avg over repeats (H.7); "
               "memorized: one answer for variants with different truths.")  # fmt: skip
    return Section([("Consistency", caption, consistency_table(inputs.frame))])


@SECTIONS.register("figures", order=50)
def figures_section(inputs: ReportInputs) -> Section:
    """Accuracy per topic, RR per series, correct variants per seed, the modality gap."""
    graded, bootstrap = inputs.graded, inputs.bootstrap
    if graded.empty:
        return Section()
    by_topic = robustness_table(graded, [*ARM, Column.topic], bootstrap)
    figures = {
        "accuracy_by_topic": ("A_avg per topic (codes as in the tables), a panel per model and strategy, "
                              "a marker per modality, with intervals; a cross in the n/a strip: no cells",
                              plots.accuracy_by_topic(by_topic)),
        "rr": ("RR per model, strategy and modality; a filled marker at 0 is RR = 0, a hollow one in the "
               "n/a strip is RR undefined (A_avg = 0)",
               plots.rr_by_series(robustness_table(graded, ARM, bootstrap))),
        "correct_variants": ("Correct variants per seed: seeds with k variants right, per arm",
                             plots.correct_variants_per_seed(graded)),
    }  # fmt: skip
    pages = plots.modality_gaps(modality_gap(graded, inputs.gap_strategy))
    for number, png in enumerate(pages, start=1):
        part = f" (part {number} of {len(pages)})" if len(pages) > 1 else ""
        name = "modality_gap" if number == 1 else f"modality_gap_{number}"
        figures[name] = (f"Modality gap per task under {inputs.gap_strategy}: best text - image on the "
                         f"same items, in pp; n/a: not measured{part}", png)  # fmt: skip
    return Section(figures=figures)


@SECTIONS.register("grading", order=60)
def grading_section(inputs: ReportInputs) -> Section:
    """How verdicts were reached, and each headline number under every grader."""
    tables = []
    paths = verdict_paths(inputs.frame)
    if not paths.empty:
        caption = (
            "Share of graded replies (%) by where the answer was found (method) and how certain the "
            "reading was (ambiguity); `exp rescore RUN judge=MODEL` sends the uncertain ones to a judge."
        )
        tables.append(("How verdicts were reached", caption, paths))
    sensitivity = grader_sensitivity(inputs.results, inputs.regrade, inputs.frame)
    if not sensitivity.empty:
        caption = (
            "Every headline number re-graded from the saved replies by each grader (A in %, RR as a "
            "ratio, gap in percentage points); spread = highest - lowest. A large spread means the "
            "number depends on how answers are read, not only on the model."
        )
        tables.append(("Grader sensitivity", caption, sensitivity))
    return Section(tables)


@SECTIONS.register("process", order=70)
def process_section(inputs: ReportInputs) -> Section:
    """MM-MATH's process evaluation, when `exp judge` has run."""
    if not inputs.process:
        return Section()
    distribution = error_distribution(inputs.process, ARM)
    return Section(
        [("Process evaluation", "First wrong step by error type (MM-MATH 3.3).", distribution)],
        {"error_types": ("First-error types (process evaluation)", plots.error_types(distribution, ARM))},
    )


@SECTIONS.register("review", order=65)
def review_section(inputs: ReportInputs) -> Section:
    """How a person's marks on verdicts (`exp view`, RUN/marks.jsonl) agree with them, per model."""
    from isodyn.analysis.review import review_table

    table = review_table(inputs.frame, inputs.marks or ())
    if table.empty:
        return Section()
    caption = (
        "Graded cells a person marked in `exp view` (the last mark of each): how many marks agree with "
        "the verdict, and A_avg (%) over the marked cells as graded and as the person read them."
    )
    return Section([("Reviewed verdicts", caption, table)])


def _sensitivity_section(found: Sensitivity | None, title: str, caption: str) -> Section:
    if found is None:
        return Section()
    table = found.table()
    return Section([(title, caption, table)] if not table.empty else [])


@SECTIONS.register("render sensitivity", order=35)
def render_section(inputs: ReportInputs) -> Section:
    """Accuracy of image cells under each render profile against the base profile, same variants."""
    caption = (
        "Image cells under each render profile against the base profile on the same variants: A in %, "
        f"the difference in points with its {inputs.bootstrap.level:.0%} cluster-bootstrap interval over "
        "seeds, the sign-flip p Holm-adjusted across the family; ▼ the arm's worst profile."
    )
    return _sensitivity_section(inputs.render_effects, "Render sensitivity", caption)


@SECTIONS.register("perturbations", order=36)
def perturbation_section(inputs: ReportInputs) -> Section:
    """Accuracy under each perturbation against none on the same variants, and by number size."""
    found = inputs.perturbation_effects
    caption = (
        "Cells under each perturbation against the base (none) on the same variants: A in %, the "
        f"difference in points with its {inputs.bootstrap.level:.0%} cluster-bootstrap interval over "
        "seeds, the sign-flip p Holm-adjusted across the family; ▼ the arm's worst perturbation."
    )
    section = _sensitivity_section(found, "Perturbations", caption)
    sizes = accuracy_by_number_size(inputs.every_cell)
    if found is not None and not sizes.empty:
        size_caption = (
            "A in % (graded cells) by the digits of the variant's largest quantity, per perturbation: "
            "a drop that follows the digits is the numbers' size, not the clause."
        )
        section.tables.append(("Accuracy by number size", size_caption, sizes))
    return section
