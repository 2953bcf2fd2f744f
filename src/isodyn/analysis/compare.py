"""Paired comparisons of strategies, models, modalities or runs on the same cells (pure).

For every context (the other grouping columns) and every pair, `paired_comparison` gives the
cluster-bootstrap interval of the difference, McNemar's exact p and the seed-level sign-flip p; the
sign-flip p (which respects the variant-within-seed clustering) is Holm-corrected across all pairs.
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from isodyn.analysis.columns import ARM
from isodyn.analysis.metrics import Bootstrap, graded_cells
from isodyn.analysis.plots import forest
from isodyn.analysis.report import ReportContent
from isodyn.analysis.stats import holm, paired_comparison, power_analysis, smallest_sign_flip_p

TARGET_EFFECT = 0.05  # the effect size (5 points) the "seeds needed" column is computed for


def compare(
    frame: pd.DataFrame,
    by: str,
    baseline: str | None = None,
    bootstrap: Bootstrap = Bootstrap(),  # noqa: B008 - immutable
    alpha: float = 0.05,
) -> pd.DataFrame:
    graded = graded_cells(frame)
    context_columns: list[str] = [c for c in ARM if c != by]
    if by != "run" and "run" in graded.columns and graded["run"].nunique() > 1:
        context_columns.append("run")
    records = []
    for key, group in graded.groupby(context_columns, sort=True):
        values = sorted(group[by].unique())
        if baseline is not None and baseline in values:
            pairs = [(v, baseline) for v in values if v != baseline]
        else:
            pairs = list(combinations(values, 2))
        context = " / ".join(map(str, key if isinstance(key, tuple) else (key,)))
        for a, b in pairs:
            result = paired_comparison(
                group[group[by] == a], group[group[by] == b], bootstrap.resamples, bootstrap.resamples,
                bootstrap.level, bootstrap.seed,
            )  # fmt: skip
            if result.cells == 0:
                continue
            power = power_analysis(result.sd_seed_difference, result.seeds, TARGET_EFFECT, alpha)
            records.append(
                {
                    "context": context,
                    "a": a,
                    "b": b,
                    "cells": result.cells,
                    "seeds": result.seeds,
                    "difference": result.difference.estimate,
                    "low": result.difference.low,
                    "high": result.difference.high,
                    "a_only": result.a_only,
                    "b_only": result.b_only,
                    "p_mcnemar": result.p_mcnemar,
                    "p_permutation": result.p_permutation,
                    "mde": power.minimum_detectable_effect,
                    "seeds_for_5_points": power.seeds_needed,
                }
            )
    table = pd.DataFrame.from_records(records)
    if table.empty:
        return table
    table["p_holm"] = holm(table["p_permutation"].tolist())
    table["sentence"] = [sentence(r, alpha) for r in table.to_dict("records")]
    return table


def sentence(record: dict, alpha: float = 0.05) -> str:
    """One plain sentence per comparison, in percentage points."""
    d, low, high = 100 * record["difference"], 100 * record["low"], 100 * record["high"]
    p = record["p_holm"]
    where = f" ({record['context']})" if record["context"] else ""
    interval = f"[{low:.1f}, {high:.1f}], p = {p:.3g} after Holm{where}"
    if p < alpha and d > 0:
        return f"{record['a']} beats {record['b']} by {d:.1f} points {interval}."
    if p < alpha and d < 0:
        return f"{record['a']} trails {record['b']} by {-d:.1f} points {interval}."
    floor = smallest_sign_flip_p(record["seeds"])
    if floor >= alpha:
        return (
            f"{record['a']} and {record['b']} cannot be told apart with {record['seeds']} seeds: "
            f"{d:+.1f} points [{low:.1f}, {high:.1f}]{where}; the smallest p a sign-flip test over "
            f"{record['seeds']} seeds can give is {floor:.3g}."
        )
    mde = record["mde"]
    tail = (
        ""
        if mde != mde
        else f"; with {record['seeds']} seeds only about {100 * mde:.1f} points are detectable"
    )
    return (
        f"{record['a']} and {record['b']} are not distinguishable: {d:+.1f} points [{low:.1f}, {high:.1f}], "
        f"p = {p:.3g} after Holm{where}{tail}."
    )


def comparison_content(table: pd.DataFrame, title: str, by: str, bootstrap: Bootstrap) -> ReportContent:
    """The comparison report: sentences first, then the table and the forest plot."""
    if table.empty:
        return ReportContent(title, [("compared by", by)], [], sentences=["Nothing to compare: no pair of "
                             f"{by} values was graded on the same cells."])  # fmt: skip
    shown = table[["context", "a", "b", "cells", "seeds"]].copy()
    shown["difference (points)"] = [
        f"{100 * r['difference']:+.1f} [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"
        for r in table.to_dict("records")
    ]
    shown["A only / B only"] = [f"{a} / {b}" for a, b in zip(table["a_only"], table["b_only"], strict=True)]
    for column in ("p_mcnemar", "p_permutation", "p_holm"):
        shown[column] = [f"{p:.3g}" for p in table[column]]
    shown["MDE (points)"] = [f"{100 * m:.1f}" if m == m else "–" for m in table["mde"]]
    shown["seeds for 5 points"] = [
        str(n) if n is not None and n == n else "–" for n in table["seeds_for_5_points"]
    ]
    caption = (
        f"A minus B, with {bootstrap.level:.0%} paired cluster-bootstrap intervals over seeds "
        f"({bootstrap.resamples} resamples); McNemar's exact test on discordant cells; sign-flip "
        "permutation test over seeds, Holm-corrected across all rows (p_holm); MDE: the smallest "
        "difference these seeds detect at 80% power, alpha 0.05."
    )
    return ReportContent(
        title,
        [("compared by", by), ("comparisons", str(len(table)))],
        [("Paired comparisons", caption, shown)],
        {"forest": ("Paired differences with intervals", forest(table))},
        sentences=table["sentence"].tolist(),
    )
