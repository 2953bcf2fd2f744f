"""Report figures: pure functions from tables to PNG bytes (matplotlib Agg, no pyplot state).

Figures are drawn at the width the HTML report shows them (`WIDTH` inches at 100 dpi: 1100 px), so
text is read at its real size. Many series are split into small multiples (a panel per model, or per
model and strategy); within a panel each series has its own colour and marker (`series_style`).
A number is a filled marker, zero included; what has no number is drawn apart from it (`Shown`):
a hollow marker for a metric that is undefined (RR when A_avg = 0), a grey cross or "n/a" for what
was not measured, both in a shaded "n/a" strip off the scale.

Bounded by design: a figure is at most `MAX_HEIGHT` inches tall (4,000 px), a panel holds at most
`MAX_ROWS` rows, and a figure holds the panels that fit in that height (`MAX_PANELS` at most); what
does not fit (300 models, 100 arms) is left out with a line under the figure saying how much is
shown (the tables list every one). Figures of a run with 300 models were up to 26,060 px tall.

The parts these figures are built from (sizes, colours, labels, `Shown`, panels) are
`analysis/plot_parts.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS
from isodyn.analysis.plot_parts import (
    MAX_ROWS,
    NA_COLOUR,
    PALETTE,
    TOPIC_CODES,
    WIDTH,
    Points,
    Shown,
    first_shown,
    fitting,
    label,
    legend_handle,
    modality_order,
    na_strip,
    panel_grid,
    rr_shown,
    saved_png,
    say_what_is_shown,
    series_style,
    short_label,
    topic_code,
    value_shown,
    wrapped_label,
)
from isodyn.runs.schema import Column

NOT_MEASURED = Line2D([], [], linestyle="none", marker="x", color=NA_COLOUR, label="not measured (n/a)")
MARK_COLUMN = (101.5, 128.0)  # the data range, right of 100 %, where the best / worst marks are written


def _marks(text: str) -> str:
    """`best A_avg, worst A_wst` as the figure's short marks: `▲ A_avg  ▼ A_wst`."""
    parts = []
    for mark in (m.strip() for m in text.split(",") if m.strip()):
        kind, _, metric = mark.partition(" ")
        parts.append(f"{'▲' if kind == 'best' else '▼'} {metric}")
    return "  ".join(parts)


def findings_summary(arms: pd.DataFrame, level: float = 0.95) -> bytes:
    """Per model (a panel each), A_avg and A_wst of every arm (strategy / modality, a row each, in the
    frame's order) with intervals; the baseline arm shaded yellow, the best (▲) and worst (▼) arms
    by each metric marked at the right, arms a model has no cells for crossed in the n/a strip."""
    models = list(dict.fromkeys(map(str, arms[Column.model]))) if not arms.empty else []
    rows = list(dict.fromkeys(zip(arms[Column.strategy].astype(str), arms[Column.modality].astype(str),
                                  strict=True))) if not arms.empty else []  # fmt: skip
    rows, rows_note = first_shown(rows, MAX_ROWS, "arms")
    columns = 1 if len(models) <= 1 else 2
    panel_height = 0.7 + 0.25 * len(rows)
    models, models_note = first_shown(models, fitting(len(models), columns, panel_height, 0.8), "models")
    panel_rows = math.ceil(max(len(models), 1) / columns)
    fig, axes = panel_grid(max(len(models), 1), columns, (WIDTH, 0.8 + panel_rows * panel_height))
    styles = {"A_avg": (PALETTE[0], "o"), "A_wst": (PALETTE[5], "s")}
    y = np.arange(len(rows))[::-1].astype(float)
    strategies = list(dict.fromkeys(s for s, _ in rows))
    based = arms[arms["baseline"].astype(bool)] if not arms.empty else arms
    baseline = (
        (str(based.iloc[0][Column.strategy]), str(based.iloc[0][Column.modality])) if len(based) else None
    )
    for index, (ax, model) in enumerate(zip(axes, models, strict=False)):
        shown = arms[arms[Column.model].astype(str) == model]
        by_arm = {(str(r[Column.strategy]), str(r[Column.modality])): r for r in shown.to_dict("records")}
        points, values = Points(-6, horizontal=True), Points(-6, horizontal=True, size=5)
        for yi, arm in zip(y, rows, strict=True):
            if strategies.index(arm[0]) % 2:
                ax.axhspan(yi - 0.5, yi + 0.5, color="#f5f5f5", zorder=0)
            record = by_arm.get(arm)
            if record is None:
                points.add(0, yi, Shown.MISSING, styles["A_avg"], None)
                continue
            if record["baseline"]:
                ax.axhspan(yi - 0.5, yi + 0.5, color="#ffe98a", zorder=0)
            for offset, metric in ((0.15, "A_avg"), (-0.15, "A_wst")):
                value = record[metric]
                low, high = record.get(f"{metric}_low", math.nan), record.get(f"{metric}_high", math.nan)
                error = (100 * (value - low), 100 * (high - value))
                values.add(100 * value, yi + offset, value_shown(value), styles[metric], error)
            if record.get("marks"):
                ax.text(MARK_COLUMN[0] + 1, yi, _marks(str(record["marks"])), va="center", fontsize=7)
        points.draw(ax)
        values.draw(ax)
        names = [short_label(f"{s} / {m}", 34) + (" (baseline)" if arm == baseline else "")
                 for arm in rows for s, m in [arm]]  # fmt: skip
        ax.set_yticks(y, names if index % columns == 0 else [""] * len(rows), fontsize=8)
        for tick, arm in zip(ax.get_yticklabels(), rows, strict=True):
            if arm == baseline:
                tick.set_fontweight("bold")
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.axvspan(*MARK_COLUMN, color="white", zorder=0)
        ax.axvline(MARK_COLUMN[0], color="#cccccc", linewidth=0.8)
        na_strip(ax, -11, -1, horizontal=True, ticks=range(0, 101, 20))
        ax.set_xlim(-11, MARK_COLUMN[1])
        ax.set_xlabel("accuracy (%)", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(wrapped_label(model, 60), fontsize=10)
    handles = [
        Line2D([], [], marker="o", color=styles["A_avg"][0], label=f"A_avg, {level:.0%} interval"),
        Line2D([], [], marker="s", color=styles["A_wst"][0], label=f"A_wst, {level:.0%} interval"),
        Patch(color="#ffe98a", label="baseline arm"),
        Line2D([], [], linestyle="none", label="▲ best / ▼ worst arm by the metric"),
        NOT_MEASURED,
    ]
    fig.legend(handles=handles, loc="outside upper center", ncols=5, fontsize=8, frameon=False)
    say_what_is_shown(fig, models_note, rows_note)
    return saved_png(fig)


def accuracy_by_topic(table: pd.DataFrame) -> bytes:
    """A_avg with its interval per topic (the tables' codes): a panel per model and strategy, a
    colour and marker per modality; a topic a modality has no cells on is a cross in the n/a strip."""
    order = list(TOPIC_CODES)
    topics = sorted(
        table[Column.topic].unique(), key=lambda t: (order.index(t) if t in order else 99, str(t))
    )
    modalities = modality_order(table[Column.modality].unique())
    topics, topics_note = first_shown(topics, MAX_ROWS, "topics")
    groups = table.groupby([Column.model, Column.strategy], sort=True)
    columns = 3 if groups.ngroups > 4 else min(groups.ngroups, 2) or 1
    long_codes = any(len(topic_code(t)) > 3 for t in topics)
    panel_height = 2.6 + 0.3 * long_codes
    fit = fitting(groups.ngroups, columns, panel_height, 0.6)
    panels, panels_note = first_shown(list(groups), fit, "models and strategies")
    rows = math.ceil(max(len(panels), 1) / columns)
    fig, axes = panel_grid(max(len(panels), 1), columns, (WIDTH, 0.6 + rows * panel_height))
    width = 0.8 / max(len(modalities), 1)
    for index, (ax, ((model, strategy), group)) in enumerate(zip(axes, panels, strict=False)):
        points = Points(-7, horizontal=False, size=4.5)
        for i, modality in enumerate(modalities):
            series = group[group[Column.modality] == modality].set_index(Column.topic).reindex(topics)
            for j, record in enumerate(series.to_dict("records")):
                value = record["A_avg"]
                low, high = record.get("A_avg_low", math.nan), record.get("A_avg_high", math.nan)
                if record.get("seeds", MIN_INTERVAL_SEEDS) < MIN_INTERVAL_SEEDS:
                    low = high = math.nan
                x = j + (i - (len(modalities) - 1) / 2) * width
                points.add(x, 100 * value, value_shown(value), series_style(i),
                           (100 * (value - low), 100 * (high - value)))  # fmt: skip
        points.draw(ax)
        rotation = 45 if long_codes else 0
        ax.set_xticks(np.arange(len(topics)), [label(topic_code(t)) for t in topics], fontsize=8,
                      rotation=rotation, ha="right" if rotation else "center")  # fmt: skip
        ax.set_xlim(-0.6, len(topics) - 0.4)
        na_strip(ax, -12, -2, horizontal=False, ticks=range(0, 101, 25))
        ax.set_ylim(-12, 105)
        ax.tick_params(axis="y", labelsize=8)
        if index % columns == 0:
            ax.set_ylabel("A_avg (%)", fontsize=8)
        ax.set_title(wrapped_label(f"{model} / {strategy}", 48), fontsize=9)
    handles = [legend_handle(series_style(i), label(m)) for i, m in enumerate(modalities)]
    handles.append(Line2D([], [], linestyle="none", marker="x", color=NA_COLOUR, label="no cells on topic"))
    fig.legend(handles=handles, loc="outside upper center", ncols=min(len(handles), 7), fontsize=8,
               frameon=False, title=f"modality (interval bars from {MIN_INTERVAL_SEEDS} seeds up)",
               title_fontsize=8)  # fmt: skip
    say_what_is_shown(fig, panels_note, topics_note)
    return saved_png(fig)


def rr_by_series(table: pd.DataFrame) -> bytes:
    """Reasoning robustness RR = A_wst / A_avg with intervals: a panel per model, a row per strategy,
    a colour and marker per modality. RR = 0 is a filled marker at 0; RR undefined (A_avg = 0) a
    hollow marker, and a strategy / modality not run a grey cross, both in the n/a strip."""
    models = sorted(map(str, table[Column.model].unique())) if not table.empty else []
    strategies = sorted(map(str, table[Column.strategy].unique())) if not table.empty else []
    modalities = modality_order(table[Column.modality].unique()) if not table.empty else []
    modalities, modalities_note = first_shown(modalities, len(PALETTE), "modalities")
    row_height = 0.2 + 0.12 * max(len(modalities), 1)
    strategies, strategies_note = first_shown(
        strategies, max(1, int(MAX_ROWS * 0.25 / row_height)), "strategies"
    )
    columns = 1 if len(models) <= 1 else 2
    panel_height = 0.8 + row_height * max(len(strategies), 1)
    models, models_note = first_shown(models, fitting(len(models), columns, panel_height, 0.6), "models")
    panel_rows = math.ceil(max(len(models), 1) / columns)
    fig, axes = panel_grid(max(len(models), 1), columns, (WIDTH, 0.6 + panel_rows * panel_height))
    step = 0.8 / max(len(modalities), 1)
    for index, (ax, model) in enumerate(zip(axes, models, strict=False)):
        group = table[table[Column.model].astype(str) == model]
        points = Points(-0.08, horizontal=True, size=5)
        for row, strategy in enumerate(strategies):
            y0 = len(strategies) - 1 - row
            for i, modality in enumerate(modalities):
                match = group[(group[Column.strategy] == strategy) & (group[Column.modality] == modality)]
                y = y0 + ((len(modalities) - 1) / 2 - i) * step
                if match.empty:
                    points.add(0, y, Shown.MISSING, series_style(i), None)
                    continue
                record = match.iloc[0]
                rr, low, high = record["RR"], record.get("RR_low", math.nan), record.get("RR_high", math.nan)
                if record.get("seeds", MIN_INTERVAL_SEEDS) < MIN_INTERVAL_SEEDS:
                    low = high = math.nan
                shown = rr_shown(rr, record["A_avg"])
                points.add(rr, y, shown, series_style(i), (rr - low, high - rr))
            if row:
                ax.axhline(y0 + 0.5, color="#dddddd", linewidth=0.8)
        points.draw(ax)
        names = [short_label(s, 28) for s in strategies]
        ax.set_yticks(range(len(strategies))[::-1], names if index % columns == 0 else [""] * len(names),
                      fontsize=8)  # fmt: skip
        ax.set_ylim(-0.5, len(strategies) - 0.5)
        na_strip(ax, -0.14, -0.02, horizontal=True, ticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlim(-0.14, 1.05)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_xlabel("RR = A_wst / A_avg", fontsize=8)
        ax.set_title(wrapped_label(model, 60), fontsize=10)
    handles = [legend_handle(series_style(i), label(m)) for i, m in enumerate(modalities)]
    handles += [
        legend_handle(("#444444", "o"), "RR undefined (A_avg = 0)", hollow=True),
        Line2D([], [], linestyle="none", marker="x", color=NA_COLOUR, label="not run"),
    ]
    fig.legend(handles=handles, loc="outside upper center", ncols=min(len(handles), 7), fontsize=8,
               frameon=False)  # fmt: skip
    say_what_is_shown(fig, models_note, strategies_note, modalities_note)
    return saved_png(fig)


GAP_ROWS_PER_FIGURE = 80  # a longer list of tasks is split evenly over several figures
GAP_FIGURES = 5  # at most; the tasks of the mean gaps nearest zero are left out beyond them


def modality_gaps(gaps: pd.DataFrame, rows_per_figure: int = GAP_ROWS_PER_FIGURE) -> list[bytes]:
    """Best text representation minus image, per task (a row each) and model (a panel each), in
    points: a dot on a stem from 0, so a gap of 0 is a dot on the line, and a task the model has no
    gap for says "n/a". Tasks are sorted by their mean gap; more than `rows_per_figure` tasks are
    split evenly over several figures (at most GAP_FIGURES), and the height grows with the rows so
    names never overlap; the models are those whose panels fit in MAX_HEIGHT."""
    if gaps.empty:
        return []
    pivot = gaps.pivot_table(index="task", columns=Column.model, values="gap", aggfunc="mean", dropna=False)
    pivot = (pivot * 100).loc[(pivot.mean(axis=1)).sort_values(ascending=False, kind="stable").index]
    tasks, tasks_note = first_shown(list(pivot.index), rows_per_figure * GAP_FIGURES, "tasks")
    if tasks_note:  # keep the largest gaps either way: the top and the bottom of the sorted list
        half = len(tasks) // 2
        pivot = pd.concat([pivot.iloc[: len(tasks) - half], pivot.iloc[len(pivot) - half :]])
        tasks_note = tasks_note.replace("the first", "the largest gaps either way,")
    count = math.ceil(len(pivot) / rows_per_figure)
    size = math.ceil(len(pivot) / count)
    pages = [pivot.iloc[i : i + size] for i in range(0, len(pivot), size)]
    panel_height = 0.7 + 0.2 * size
    fit = fitting(pivot.shape[1], 3, panel_height, 0.7)
    models, models_note = first_shown(list(pivot.columns), fit, "models")
    out = []
    for number, page in enumerate(pages, start=1):
        columns = min(len(models), 3)
        rows = math.ceil(len(models) / columns)
        fig, axes = panel_grid(len(models), columns, (WIDTH, 0.7 + rows * (0.7 + 0.2 * len(page))))
        y = np.arange(len(page))[::-1]
        for index, (ax, model) in enumerate(zip(axes, models, strict=True)):
            stems: dict[str, list[tuple[float, float]]] = {}  # a colour's dots, drawn in one call
            for yi, value in zip(y, page[model].to_numpy(float), strict=True):
                if math.isnan(value):
                    box = {"facecolor": "white", "edgecolor": NA_COLOUR, "pad": 1.0, "linewidth": 0.5}
                    ax.text(0, yi, "n/a", ha="center", va="center", fontsize=7, color=NA_COLOUR, bbox=box)
                    continue
                colour = PALETTE[0] if value > 0 else (PALETTE[5] if value < 0 else "#000000")
                stems.setdefault(colour, []).append((value, yi))
            for colour, dots in stems.items():
                xs, ys = np.array(dots).T
                lines = np.full((len(dots), 3, 2), np.nan)  # each stem from 0, then a break
                lines[:, 0, 0], lines[:, 1, 0], lines[:, :2, 1] = 0, xs, ys[:, None]
                ax.plot(lines[:, :, 0].ravel(), lines[:, :, 1].ravel(), color=colour, linewidth=1.5)
                ax.plot(xs, ys, marker="o", color=colour, markersize=4.5, linestyle="none")
            ax.axvline(0, color="black", linewidth=0.8)
            ax.set_xlim(-105, 105)
            ax.set_ylim(-0.7, len(page) - 0.3)
            names = [short_label(t, 40) for t in page.index]
            ax.set_yticks(y, names if index % columns == 0 else [""] * len(names), fontsize=8)
            ax.tick_params(axis="x", labelsize=8)
            ax.grid(axis="x", alpha=0.3)
            ax.set_xlabel("gap = best text - image (points)", fontsize=8)
            ax.set_title(wrapped_label(model, 40), fontsize=9)
        part = f" (part {number} of {len(pages)})" if len(pages) > 1 else ""
        fig.suptitle(f"Modality gap per task on the same items{part}; n/a: not measured", fontsize=9)
        say_what_is_shown(fig, models_note, tasks_note)
        out.append(saved_png(fig))
    return out


def error_types(distribution: pd.DataFrame, label_columns: Sequence[str]) -> bytes:
    """Stacked shares of first-error types per group, from process evaluation; a group with no judged
    solution says so instead of showing an empty bar."""
    kinds = [c for c in distribution.columns if c not in [*label_columns, "judged"]]
    kept, groups_note = first_shown(range(len(distribution)), MAX_ROWS, "groups")
    distribution = distribution.iloc[kept]
    records = distribution.to_dict("records")
    names = [short_label(" / ".join(str(r[c]) for c in label_columns), 48) for r in records]
    fig, (ax,) = panel_grid(1, 1, (WIDTH, 1.4 + 0.28 * len(distribution)))
    y = np.arange(len(distribution))[::-1]
    totals = distribution[kinds].sum(axis=1).to_numpy(float)
    left = np.zeros(len(distribution))
    for i, kind in enumerate(kinds):
        share = np.divide(distribution[kind].to_numpy(float), totals, out=np.zeros(len(totals)),
                          where=totals > 0) * 100  # fmt: skip
        ax.barh(y, share, left=left, label=label(kind), color=PALETTE[i % len(PALETTE)],
                hatch=None if i < len(PALETTE) else "//")  # fmt: skip
        left += share
    for yi, total in zip(y, totals, strict=True):
        if total == 0:
            ax.text(1, yi, "n/a: no judged solution", va="center", fontsize=7, color=NA_COLOUR)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of judged solutions (%)", fontsize=8)
    ax.set_title("First wrong step by error type", fontsize=10)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize=7, frameon=False)
    say_what_is_shown(fig, groups_note)
    return saved_png(fig)


def correct_variants_per_seed(graded: pd.DataFrame) -> bytes:
    """How many seeds have k of their variants right (first repeat): a panel per model, a row per
    arm (strategy / modality), a column per k, each cell the count of seeds, shaded by its share of
    the arm's seeds (a count of 0 is printed in grey, never left blank)."""
    first = graded[graded[Column.repeat] == graded[Column.repeat].min()]
    models = sorted(map(str, first[Column.model].unique()))
    by = [Column.model, Column.strategy, Column.modality, Column.seed_id]
    most = int(first.groupby(by)[Column.variant].nunique().max()) if len(first) else 0
    order = modality_order(first[Column.modality].unique())
    counts: dict[str, list[tuple[str, str, np.ndarray]]] = {m: [] for m in models}
    for (model, strategy, modality), group in first.groupby([Column.model, Column.strategy, Column.modality]):
        right = group.groupby(Column.seed_id)[Column.correct].sum().astype(int)
        counted = np.bincount(right.to_numpy(), minlength=most + 1)[: most + 1]
        counts[str(model)].append((str(strategy), str(modality), counted))
    arms_notes = set()
    for model, arms in counts.items():
        arms.sort(key=lambda a: (a[0], order.index(a[1])))
        counts[model], note = first_shown(arms, MAX_ROWS, "arms")
        arms_notes.add(note)
    rows = max((len(v) for v in counts.values()), default=1)
    columns = 1 if len(models) <= 1 else 2
    panel_height = 0.8 + 0.24 * rows
    models, models_note = first_shown(models, fitting(len(models), columns, panel_height, 0.3), "models")
    panel_rows = math.ceil(max(len(models), 1) / columns)
    fig, axes = panel_grid(max(len(models), 1), columns, (WIDTH, 0.3 + panel_rows * panel_height))
    for ax, model in zip(axes, models, strict=False):
        arms = counts[model]
        names = [short_label(f"{s} / {m}", 34) for s, m, _ in arms]
        matrix = np.array([c for _, _, c in arms], dtype=float).reshape(len(arms), most + 1)
        share = matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
        ax.imshow(share, aspect="auto", cmap="Blues", vmin=0, vmax=1)
        for (r, k), count in np.ndenumerate(matrix):
            colour = "white" if share[r, k] > 0.55 else ("#999999" if count == 0 else "black")
            text = ax.text(k, r, f"{int(count)}", ha="center", va="center", fontsize=7, color=colour)
            text.set_in_layout(False)  # inside its cell: the layout need not measure a thousand of them
        for r in range(1, len(arms)):
            if arms[r][0] != arms[r - 1][0]:  # a new strategy
                ax.axhline(r - 0.5, color="white", linewidth=2.5)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_xticks(range(most + 1), [str(k) for k in range(most + 1)], fontsize=8)
        ax.set_xlabel("variants answered correctly (first repeat); cells: number of seeds", fontsize=8)
        ax.set_title(wrapped_label(model, 60), fontsize=10)
    say_what_is_shown(fig, models_note, max(arms_notes, default="", key=len))
    return saved_png(fig)


def forest(comparisons: pd.DataFrame) -> bytes:
    """Paired differences with intervals, one line per comparison (points): drawn by
    `isodyn.analysis.forest` (imported here when called: that module stands alone)."""
    from isodyn.analysis.forest import forest_frame

    return forest_frame(comparisons)
