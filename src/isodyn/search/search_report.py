"""A worst-variant search's report: Markdown from its trials (pure), and its one figure (`draw_curves`).

Model names, strategy names, seed ids, params and extracted replies are untrusted: every one of them
reaches the Markdown through `markdown_table` (cells) or `markdown_text` (prose), and never starts a
line, so none can open a heading, split a table row or smuggle in a tag.

How a cell is written is `search/report_cells.py`; the sections on what the failures share are
`search/failure_sections.py`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from isodyn.analysis.markdown import markdown_table
from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS
from isodyn.core import DEFAULT_RENDER
from isodyn.search.analysis import (
    Arm,
    Curve,
    Gap,
    all_curves,
    dynamath_gap,
    hard_set,
    outcomes,
    variation_effects,
)
from isodyn.search.explanations import explain
from isodyn.search.failure_sections import (
    explanations_section,
    sizes_section,
    transfers_section,
    variation_effects_section,
)
from isodyn.search.number_sizes import number_sizes
from isodyn.search.report_cells import (
    arm_columns,
    arm_text,
    cut_text,
    estimate_text,
    figure_link,
    number_text,
    share_text,
)
from isodyn.search.transfer import transfer_share
from isodyn.search.trials import Searcher, Trial
from isodyn.textsafe import markdown_text

TRIED_MARKS = (1, 10, 25, 50, 100)
DYNAMATH_VARIANTS = 10  # DynaMath's worst case is over variants 0..9
LISTED_SEEDS = 50  # fallen seeds listed per arm before "and N more"


@dataclass(frozen=True)
class SearchReportInput:
    """What `search_report` renders. `reference`: seed id -> params of plain random variants (for the
    number sizes); `settings`: (name, value) pairs as the run was asked for (budget, confirm,
    searchers, ...); `curves_figure`: the path of `draw_curves`' PNG relative to the report;
    `budget`: calls per unit, the last column of the worst-case table (the longest curve when None)."""

    trials: Sequence[Trial]
    reference: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    settings: Sequence[tuple[str, str]] = ()
    curves_figure: str | None = None
    budget: int | None = None
    resamples: int = 2000
    seed: int = 0
    hard_set_rows: int = 50
    title: str = "Worst-variant search"
    # seed id -> param -> variation type (the seeds' `param_variation`), for which types matter
    declared: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # the worst-case curves when already computed (for the figure, with these resamples and seed)
    curves: Sequence[Curve] | None = None


# --- sections -------------------------------------------------------------------------------------------


def _searched(given: SearchReportInput) -> list[str]:
    lines = ["## What was searched", ""]
    if given.settings:
        settings = pd.DataFrame([{"setting": k, "value": v} for k, v in given.settings])
        lines += [markdown_table(settings), ""]
    counts = outcomes(given.trials, per_searcher=True)
    units = len({t.unit for t in given.trials})
    calls = sum(c.calls for c in counts)
    cached = sum(c.cached_calls for c in counts)
    lines += [
        f"{units} units (model × strategy × modality × seed), {len(given.trials)} trials, {calls} calls "
        f"spent, {share_text(cached, calls)} of them from the cache.",
        "",
    ]
    rows = [
        {
            **arm_columns(c.arm),
            "searcher": str(c.searcher),
            "units": c.units,
            "trials": c.trials,
            "answered": c.answered,
            "calls": c.calls,
            "cached": share_text(c.cached_calls, c.calls),
        }
        for c in counts
    ]
    return [*lines, markdown_table(pd.DataFrame(rows)), ""]


def _curves(given: SearchReportInput, curves: Sequence[Curve]) -> list[str]:
    lines = [
        "## Worst case vs variants tried",
        "",
        "Worst-case accuracy after t variants tried: the share of seeds with no confirmed failure among "
        "their first t answered variants (a seed whose budget ran out keeps its last value); 95% "
        f"cluster-bootstrap intervals over seeds, shown from {MIN_INTERVAL_SEEDS} seeds up.",
        "",
    ]
    if not curves:
        return [*lines, "_(no answered trials)_", ""]
    bound = given.budget or max(len(c.points) for c in curves)
    marks = [t for t in TRIED_MARKS if t < bound] + [bound]
    rows = [
        {
            **arm_columns(c.arm),
            "searcher": str(c.searcher),
            "seeds": c.seeds,
            **{f"t = {t}": estimate_text(c.at(t), c.seeds) for t in marks},
        }
        for c in curves
    ]
    lines += [markdown_table(pd.DataFrame(rows)), ""]
    if given.curves_figure:
        lines += [figure_link("Worst-case accuracy against variants tried", given.curves_figure), ""]
    return lines


def _gap_sentence(gap: Gap, n: int) -> str:
    points = number_text(gap.overestimate.estimate * 100, 1)
    if gap.seeds >= MIN_INTERVAL_SEEDS:
        low, high = number_text(gap.overestimate.low * 100, 1), number_text(gap.overestimate.high * 100, 1)
        how_sure = f"(95% CI {low} to {high})"
    else:
        how_sure = f"(too few seeds for an interval: {gap.seeds})"
    return (
        f"- DynaMath's {n}-variant worst case overestimates robustness by {points} points "
        f"{how_sure} for {arm_text(gap.arm)}."
    )


def _gaps(gaps: Sequence[Gap], n: int = DYNAMATH_VARIANTS) -> list[str]:
    """`n`: the baseline's variants per seed (DynaMath's 10 unless the search was told otherwise)."""
    lines = [
        f"## DynaMath's {n} variants vs the search",
        "",
        f"A_wst over DynaMath's variants 0..{n - 1} against A_wst once the search's "
        "variants are added (a seed is robust only with no confirmed failure in either); the "
        "overestimate is their difference in points, a paired cluster-bootstrap interval over seeds.",
        "",
    ]
    measured = [g for g in gaps if g.seeds]
    lines += [_gap_sentence(g, n) for g in measured]
    lines += [f"- No baseline trials for {arm_text(g.arm)}: left out." for g in gaps if not g.seeds]
    rows = [
        {
            **arm_columns(g.arm),
            "seeds": g.seeds,
            f"A_wst ({n} variants)": estimate_text(g.baseline, g.seeds),
            "A_wst (searched)": estimate_text(g.searched, g.seeds),
            "overestimate (points)": estimate_text(g.overestimate, g.seeds, 100, 1),
            "seeds fell": len(g.fallen),
            "left out (no baseline)": g.left_out,
        }
        for g in measured
    ]
    return [*lines, "", markdown_table(pd.DataFrame(rows)), ""]


def _fallen(gaps: Sequence[Gap]) -> list[str]:
    lines = [
        "## Seeds whose worst case fell",
        "",
        f"Seeds robust on DynaMath's {DYNAMATH_VARIANTS} variants on which the search confirmed a failure.",
        "",
    ]
    shown = [g for g in gaps if g.fallen]
    if not shown:
        return [*lines, "_(none)_", ""]
    for gap in shown:
        robust = round(gap.baseline.estimate * gap.seeds)
        listed = ", ".join(markdown_text(s) for s in gap.fallen[:LISTED_SEEDS])
        more = f" and {len(gap.fallen) - LISTED_SEEDS} more" if len(gap.fallen) > LISTED_SEEDS else ""
        lines.append(f"- In {arm_text(gap.arm)}, {len(gap.fallen)} of {robust} robust seeds: {listed}{more}")
    return [*lines, ""]


def _varied_renders(trials: Sequence[Trial]) -> bool:
    """Whether the search drew its variants under other profiles than the default (`renders=`)."""
    return any(t.render != DEFAULT_RENDER for t in trials)


_CHOSE_RENDER = (Searcher.GUIDED, Searcher.RANDOM)  # the baseline and transfers do not choose one


def _renders(trials: Sequence[Trial]) -> list[str]:
    """Per arm and render profile: the variants the searchers answered and the failures confirmed
    under it (only for a search with `renders=`)."""
    if not _varied_renders(trials):
        return []
    counts: dict[tuple[Arm, str], list[Trial]] = {}
    for trial in trials:
        if trial.answered and trial.searcher in _CHOSE_RENDER:
            counts.setdefault((Arm.of(trial.unit), trial.render), []).append(trial)
    rows = [
        {
            **arm_columns(arm),
            "render": render,
            "answered": len(asked),
            "confirmed": sum(t.confirmed for t in asked),
            "share confirmed": share_text(sum(t.confirmed for t in asked), len(asked)),
            "seeds with a failure": len({t.unit.seed_id for t in asked if t.confirmed}),
        }
        for (arm, render), asked in sorted(counts.items(), key=lambda item: (item[0][0], item[0][1]))
    ]
    confirmed: dict[str, int] = {}
    for trial in trials:
        if trial.confirmed and trial.searcher in _CHOSE_RENDER:
            confirmed[trial.render] = confirmed.get(trial.render, 0) + 1
    most = max(confirmed, key=lambda render: confirmed[render], default=None)
    said = (
        f"Most confirmed failures were drawn under {markdown_text(most)} ({confirmed[most]} of "
        f"{sum(confirmed.values())})."
        if most is not None
        else "No failure was confirmed under any profile."
    )
    return [
        "## Render profiles",
        "",
        "Each variant an image unit's searchers tried was drawn under one of the profiles of `renders=` "
        "(the baseline under the first, left out here); the worst case above is taken over all of "
        "them. " + said,
        "",
        markdown_table(pd.DataFrame(rows)) if rows else "_(no answered trials)_",
        "",
    ]


def _flukes(trials: Sequence[Trial]) -> list[str]:
    counts = outcomes(trials)
    own = [c for c in counts if c.searcher is None]  # the sentence is about the search; transfer apart
    candidates = sum(c.candidates for c in own)
    not_confirmed = sum(c.not_confirmed for c in own)
    rows = [
        {
            **arm_columns(c.arm),
            "trials": "transfer" if c.searcher else "own search",
            "answered": c.answered,
            "candidate failures": c.candidates,
            "confirmed": c.confirmed,
            "not confirmed": c.not_confirmed,
            "flukes": c.flukes,
            "unclear": c.unclear,
            "errors": c.errors,
            "skipped": c.skipped,
            "undone": c.undone,
        }
        for c in counts
    ]
    return [
        "## Flukes and unclear replies",
        "",
        f"{not_confirmed} of {candidates} candidate failures (a first reply clearly wrong) were not "
        "confirmed on the repeats; unclear replies (no answer, several, unreadable) never count as failures.",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]


def _variant(trial: Trial) -> str:
    tweaks = len(trial.genome.tweaks)
    return f"#{trial.genome.index}" + (f" + {tweaks} tweaks" if tweaks else "")


def _hard_set(trials: Sequence[Trial], rows: int) -> list[str]:
    found = hard_set(trials)
    lines = [
        "## Hard set",
        "",
        f"{len(found)} confirmed failures (trials.jsonl holds their genomes in full).",
    ]
    if not found:
        return [*lines, ""]
    table = pd.DataFrame(
        [
            {
                **arm_columns(Arm.of(t.unit)),
                "seed": t.unit.seed_id,
                "searcher": str(t.searcher),
                "trial": t.number,
                "variant": _variant(t),
                **({"render": t.render} if _varied_renders(found) else {}),
                "truth": cut_text(t.answer),
                "replies": " / ".join(cut_text(a.extracted, 40) for a in t.asks),
            }
            for t in found[:rows]
        ]
    )
    shown = [f"Showing the first {rows}."] if len(found) > rows else []
    return [*lines, *shown, "", markdown_table(table), ""]


def search_report(outcome: SearchReportInput) -> str:
    """The search's report as Markdown (pure: the figure is drawn apart, by `draw_curves`)."""
    trials = outcome.trials
    gaps = dynamath_gap(trials, outcome.resamples, outcome.seed)
    lines = [f"# {markdown_text(outcome.title)}", ""]
    lines += _searched(outcome)
    curves = outcome.curves
    if curves is None:
        curves = all_curves(trials, outcome.resamples, outcome.seed)
    lines += _curves(outcome, curves)
    baseline = [t.number + 1 for t in trials if t.searcher is Searcher.BASELINE]
    lines += _gaps(gaps, max(baseline, default=DYNAMATH_VARIANTS))
    lines += _fallen(gaps)
    lines += explanations_section(explain(trials))
    lines += variation_effects_section(variation_effects(trials, outcome.declared))
    lines += sizes_section(
        number_sizes(trials, outcome.reference, outcome.resamples, outcome.seed), bool(outcome.reference)
    )
    lines += _renders(trials)
    lines += _flukes(trials)
    lines += _hard_set(trials, outcome.hard_set_rows)
    lines += transfers_section(transfer_share(trials))
    return "\n".join(lines).rstrip("\n") + "\n"


# --- the figure -----------------------------------------------------------------------------------------


def draw_curves(curves: Sequence[Curve], path: Path) -> Path:
    """Worst-case accuracy against variants tried, a line and a shaded 95% band per curve, DynaMath's
    10 variants marked; written to `path` as PNG (matplotlib imported here: seconds, only when drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from isodyn.analysis.plot_parts import DPI, WIDTH, series_style, short_label
    from isodyn.atomic import write_atomic

    fig = Figure(figsize=(WIDTH, 5.5), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i, curve in enumerate(curves):
        colour, _ = series_style(i)
        x = list(curve.tried)
        label = short_label(f"{curve.arm.label()} · {curve.searcher} ({curve.seeds} seeds)", 70)
        ax.plot(x, curve.points, color=colour, linewidth=1.6, label=label, drawstyle="steps-post")
        if curve.seeds >= MIN_INTERVAL_SEEDS:
            ax.fill_between(x, curve.low, curve.high, color=colour, alpha=0.18, linewidth=0, step="post")
    ax.axvline(DYNAMATH_VARIANTS, color="#555555", linestyle="--", linewidth=1)
    ax.annotate(f"DynaMath's {DYNAMATH_VARIANTS}", (DYNAMATH_VARIANTS, 1.02),
                xycoords=("data", "axes fraction"), ha="center", fontsize=9, color="#555555")  # fmt: skip
    ax.set_xlabel("variants tried")
    ax.set_ylabel("worst-case accuracy (A_wst)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(left=1)
    if max((len(c.points) for c in curves), default=0) > 30:
        from matplotlib.ticker import ScalarFormatter

        ax.set_xscale("log")  # 1..10 (DynaMath's) as wide as 10..100
        ax.xaxis.set_major_formatter(ScalarFormatter())  # 1, 10, 100 rather than 10^0, 10^1, 10^2
    if curves:
        ax.legend(loc="upper right", fontsize=8, frameon=False)
    else:
        ax.text(0.5, 0.5, "no answered trials", ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    write_atomic(path, buffer.getvalue())
    return path
