"""The papers' table layouts, as DataFrames of formatted strings (pure; rendering is elsewhere).

- DynaMath Tables 2, 3 and 7: rows model x strategy x modality; columns ALL, the nine topics, the
  three levels; A_avg, A_wst or RR, each with its cluster-bootstrap interval;
- IsoBench Tables 1 and 6: rows task x representation, columns models, with a gap row per task.
"""

from __future__ import annotations

import math

import pandas as pd

from isodyn.analysis.columns import ARM, labels
from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS, Bootstrap, graded_cells, robustness_table
from isodyn.analysis.modality import isobench_table
from isodyn.core import Level, Topic
from isodyn.runs.schema import Column

# DynaMath Table 1's abbreviations, in its column order.
TOPIC_COLUMNS = {
    Topic.PLANE_GEOMETRY: "PG",
    Topic.SOLID_GEOMETRY: "SG",
    Topic.ANALYTIC_GEOMETRY: "AG",
    Topic.ALGEBRA: "AL",
    Topic.PUZZLE_TEST: "PT",
    Topic.GRAPH_THEORY: "GT",
    Topic.STATISTICS: "ST",
    Topic.SCIENTIFIC_FIGURE: "SF",
    Topic.ARITHMETIC: "AR",
    Topic.ISO_MATH: "IsoMath",
    Topic.ISO_ALGORITHMS: "IsoAlg",
    Topic.ISO_GAMES: "IsoGames",
    Topic.ISO_SCIENCE: "IsoSci",
}
LEVEL_COLUMNS = {Level.ELEMENTARY: "EL", Level.HIGH_SCHOOL: "HI", Level.UNDERGRADUATE: "UN"}


def format_value(
    value: float | None,
    low: float | None = None,
    high: float | None = None,
    percent: bool = True,
    seeds: int | None = None,
) -> str:
    """`33.3 [20.0, 46.7]`: the estimate (in % unless `percent` is off) and its interval, when one was
    computed (`low` and `high` given). From fewer than `MIN_INTERVAL_SEEDS` seeds the interval is not
    informative and is replaced by the count: `33.3 (3 seeds, no interval)`. NaN prints as `–`."""
    if value is None or math.isnan(value):
        return "–"
    scale = 100 if percent else 1
    digits = 1 if percent else 2
    text = f"{scale * value:.{digits}f}"
    if low is None or high is None:
        return text  # no interval asked for
    if seeds is not None and seeds < MIN_INTERVAL_SEEDS:
        return f"{text} ({seeds} seed{'' if seeds == 1 else 's'}, no interval)"
    if not (math.isnan(low) or math.isnan(high)):
        text += f" [{scale * low:.{digits}f}, {scale * high:.{digits}f}]"
    return text


METRICS = ("A_avg", "A_wst", "RR")


def dynamath_tables(frame: pd.DataFrame, bootstrap: Bootstrap | None) -> dict[str, pd.DataFrame]:
    """DynaMath's layout for each metric (A_avg: Table 2, A_wst: Table 3, RR: Table 7), from one
    robustness table per grouping (all, per topic, per level) shared by the three."""
    graded = graded_cells(frame)
    if graded.empty:
        return {metric: pd.DataFrame(columns=[*labels(ARM), "ALL"]) for metric in METRICS}
    groupings: list[tuple[str | None, dict[str, str]]] = [
        (None, {}),
        (Column.topic, {t.value: a for t, a in TOPIC_COLUMNS.items()}),
        (Column.level, {lv.value: a for lv, a in LEVEL_COLUMNS.items()}),
    ]
    tables = [
        (column, mapping, robustness_table(graded, [*ARM] if column is None else [*ARM, column], bootstrap))
        for column, mapping in groupings
    ]
    present_topics = [TOPIC_COLUMNS[t] for t in TOPIC_COLUMNS if t.value in set(graded[Column.topic])]
    present_levels = [LEVEL_COLUMNS[lv] for lv in LEVEL_COLUMNS if lv.value in set(graded[Column.level])]
    columns = ["ALL", *present_topics, *present_levels]
    return {metric: _layout(tables, metric, columns) for metric in METRICS}


def _layout(
    tables: list[tuple[str | None, dict[str, str], pd.DataFrame]], metric: str, columns: list[str]
) -> pd.DataFrame:
    percent = metric != "RR"
    merged: dict[tuple, dict[str, str]] = {}
    for by_column, mapping, table in tables:
        for record in table.to_dict("records"):
            key = tuple(record[c] for c in ARM)
            name = "ALL" if by_column is None else mapping.get(record[by_column], record[by_column])
            low, high = record.get(f"{metric}_low"), record.get(f"{metric}_high")
            shown = format_value(record[metric], low, high, percent, record["seeds"])
            merged.setdefault(key, {})[name] = shown
    records = [
        {**dict(zip(labels(ARM), key, strict=True)), **{c: values.get(c, "–") for c in columns}}
        for key, values in sorted(merged.items())
    ]
    return pd.DataFrame.from_records(records, columns=[*labels(ARM), *columns])


def overview_table(frame: pd.DataFrame, bootstrap: Bootstrap | None) -> pd.DataFrame:
    table = robustness_table(frame, ARM, bootstrap)
    if table.empty:  # a run with no cells yet
        return pd.DataFrame(
            columns=[*labels(ARM), "graded", "extraction_failed", "skipped", "errors", "A_avg"]
        )
    out = table[[*ARM, "graded", "extraction_failed", "skipped", "errors"]].copy()
    for metric in ("A_avg", "A_wst", "RR"):
        out[metric] = [
            format_value(
                r[metric], r.get(f"{metric}_low"), r.get(f"{metric}_high"), metric != "RR", r["seeds"]
            )
            for r in table.to_dict("records")
        ]
    return out


def isobench_layout(frame: pd.DataFrame) -> pd.DataFrame:
    graded = graded_cells(frame)
    several = graded[Column.modality].nunique() >= 2 or graded[Column.strategy].str.contains("iso").any()
    if graded.empty or not several:
        return pd.DataFrame()
    table = isobench_table(graded)
    for column in table.columns[2:]:
        table[column] = [format_value(v / 100) for v in table[column]]
    return table
