"""How a variant was shown, as the report reads it (issue 41): the render profile of its picture and
the perturbation of its question (pure functions on the results frame).

The report's other sections read the *plain* cells only: image cells under the base render (the
default profile when the run drew it) and every cell under the base perturbation (`none` when the
run asked it), so a run with profiles and perturbations keeps the tables a plain run has. The two
sections here read the rest, each profile or perturbation against its base on the same variants:
`analysis.paired.compare`, a paired cluster bootstrap over seeds with Holm across the family.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from isodyn.analysis.metrics import Bootstrap, graded_cells
from isodyn.analysis.paired import Comparison, Pair, compare, points, signed_points
from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, Modality
from isodyn.runs.schema import Column

IMAGE = Modality.IMAGE.value


def base_value(values: Sequence[str], preferred: str) -> str:
    """The condition the others are measured against: `preferred` when the run has it, else the
    first in sorted order (a run of renders=lowres,gray compares gray with lowres)."""
    present = sorted({str(v) for v in values})
    return preferred if preferred in present or not present else present[0]


@dataclass(frozen=True)
class Bases:
    render: str
    perturbation: str

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Bases:
        images = frame[frame[Column.modality] == IMAGE]
        return cls(
            base_value(images[Column.render].tolist(), DEFAULT_RENDER),
            base_value(frame[Column.perturbation].tolist(), NO_PERTURBATION),
        )


def under_render(frame: pd.DataFrame, render: str) -> pd.Series:
    """Cells drawn under `render`: image cells of that profile, and every text cell (never drawn)."""
    return (frame[Column.modality] != IMAGE) | (frame[Column.render] == render)


def plain_mask(frame: pd.DataFrame, bases: Bases | None = None) -> pd.Series:
    """The cells the report's other sections read (see the module's note)."""
    bases = bases or Bases.of(frame)
    return under_render(frame, bases.render) & (frame[Column.perturbation] == bases.perturbation)


def has_showings(frame: pd.DataFrame) -> bool:
    """Whether the run drew any cell under another profile or perturbation than its bases."""
    return bool(len(frame)) and not bool(plain_mask(frame).all())


@dataclass(frozen=True)
class Sensitivity:
    """One dimension (render or perturbation) against its base: the paired comparison of every
    other level with it, per arm, and each arm's worst level."""

    by: str
    base: str
    comparison: Comparison
    compared: pd.DataFrame  # the cells compared (one perturbation for renders, one render for these)

    def table(self) -> pd.DataFrame:
        """Per arm and level: accuracy under the level and under the base on the same variants, the
        difference with its interval, Holm's p and the verdict; the worst level of each arm marked."""
        graded = graded_cells(self.compared)
        rows = []
        worst = _worst_by_context(self.comparison.pairs)
        for pair in self.comparison.pairs:
            if pair.difference is None:
                continue
            base_accuracy, level_accuracy = _paired_accuracies(graded, self.by, pair)
            rows.append({
                "arm": pair.context, self.by: pair.a, "cells": pair.cells, "seeds": pair.seeds,
                f"A under {self.by}": level_accuracy, f"A under {self.base}": base_accuracy,
                "difference": signed_points(pair.difference),
                "interval": f"[{signed_points(pair.low or 0.0)}, {signed_points(pair.high or 0.0)}]",
                "p (Holm)": f"{pair.p_holm:.3g}" if pair.p_holm is not None else "–",
                "verdict": pair.verdict, "worst": "▼" if worst.get(pair.context) is pair else "",
            })  # fmt: skip
        return pd.DataFrame(rows)

    def findings(self) -> list[str]:
        """A sentence for each level whose difference from the base is established."""
        said = []
        for pair in self.comparison.pairs:
            if pair.verdict != "established" or pair.difference is None:
                continue
            direction = "lower" if pair.difference < 0 else "higher"
            low = signed_points(pair.simultaneous_low or 0.0)
            high = signed_points(pair.simultaneous_high or 0.0)
            said.append(
                f"{pair.context}: accuracy under {self.by} {pair.a} is {points(abs(pair.difference))} points "
                f"{direction} than under {self.base} on the same variants ({signed_points(pair.difference)}, "
                f"{self.comparison.simultaneous_level:.0%} simultaneous interval [{low}, {high}], "
                f"Holm p = {pair.p_holm:.3g}, {pair.seeds} seeds)."
            )
        return said


def _worst_by_context(pairs: Sequence[Pair]) -> dict[str, Pair]:
    worst: dict[str, Pair] = {}
    for pair in pairs:
        if pair.difference is None or pair.difference >= 0:
            continue  # only a drop is a worst case
        known = worst.get(pair.context)
        if known is None or pair.difference < (known.difference or 0.0):
            worst[pair.context] = pair
    return worst


def _paired_accuracies(graded: pd.DataFrame, by: str, pair: Pair) -> tuple[str, str]:
    """Accuracy (in %) of the base and of the level over the items both graded in the pair's arm."""
    arm = graded[_context_label(graded) == pair.context]
    item = [Column.seed_id, Column.variant, Column.repeat]
    base = arm[arm[by] == pair.b].set_index(item)[Column.correct]
    level = arm[arm[by] == pair.a].set_index(item)[Column.correct]
    shared = base.index.intersection(level.index)
    if not len(shared):
        return "–", "–"
    return (
        f"{100 * base.loc[shared].astype(float).mean():.1f}",
        f"{100 * level.loc[shared].astype(float).mean():.1f}",
    )


def _context_label(frame: pd.DataFrame) -> pd.Series:
    columns = [Column.model, Column.strategy, Column.modality]
    return frame[columns].astype(str).agg(" / ".join, axis=1)


def render_sensitivity(frame: pd.DataFrame, bootstrap: Bootstrap) -> Sensitivity | None:
    """Image cells under each profile against the base profile, under the base perturbation; None
    when the run drew its pictures under one profile only."""
    bases = Bases.of(frame)
    images = frame[(frame[Column.modality] == IMAGE) & (frame[Column.perturbation] == bases.perturbation)]
    if images[Column.render].nunique() < 2:
        return None
    return Sensitivity("render", bases.render, compare(images, "render", bases.render, bootstrap), images)


def perturbation_effects(frame: pd.DataFrame, bootstrap: Bootstrap) -> Sensitivity | None:
    """Every modality's cells under each perturbation against the base one, drawn under the base
    profile; None when the run asked one perturbation only."""
    bases = Bases.of(frame)
    drawn = frame[under_render(frame, bases.render)]
    if drawn[Column.perturbation].nunique() < 2:
        return None
    compared = compare(drawn, "perturbation", bases.perturbation, bootstrap)
    return Sensitivity("perturbation", bases.perturbation, compared, drawn)


def accuracy_by_number_size(frame: pd.DataFrame, bases: Bases | None = None) -> pd.DataFrame:
    """Accuracy (in %, with the graded count) by the digits of a variant's largest quantity, for the
    base perturbation and each magnitude: a drop that follows the digits, not the perturbation, is
    the numbers' size (a noop clause is read against the same table)."""
    bases = bases or Bases.of(frame)
    graded = graded_cells(frame[under_render(frame, bases.render)])
    sized = graded[graded[Column.number_digits].notna()]
    if sized.empty or sized[Column.perturbation].nunique() < 2:
        return pd.DataFrame()
    sized = sized.assign(
        digits=sized[Column.number_digits].astype(int), right=sized[Column.correct].astype(float)
    )
    grouped = sized.groupby([Column.model, Column.strategy, Column.perturbation, "digits"], sort=True)
    table = grouped["right"].agg(["mean", "size"]).reset_index()
    table["A"] = [f"{100 * m:.1f} ({n})" for m, n in zip(table["mean"], table["size"], strict=True)]
    wide = table.pivot_table(
        index=[Column.model, Column.strategy, Column.perturbation],
        columns="digits",
        values="A",
        aggfunc="first",
    )
    wide.columns = [f"{int(d)} digit{'s' if int(d) > 1 else ''}" for d in wide.columns]
    return wide.reset_index().fillna("–")


def digits_slope(frame: pd.DataFrame) -> float:
    """Points of accuracy lost per extra digit over the plain and magnitude cells (least squares):
    a summary of the table above, for tests and a finding."""
    graded = graded_cells(frame)
    sized = graded[graded[Column.number_digits].notna()]
    if sized[Column.number_digits].nunique() < 2:
        return float("nan")
    x = sized[Column.number_digits].astype(float).to_numpy()
    y = sized[Column.correct].astype(float).to_numpy()
    return float(np.polyfit(x, y, 1)[0] * 100)
